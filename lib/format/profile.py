"""The per-function profile of one try: raw/<NNN>-<variant>-try<K>.profile.gz.

The branch-count plugin writes it with profile=PATH (bench/plugin/README.md,
"Profile"): what each function executed inside tbench's window; the runner
compresses it (compress()) before the try's manifest is written. Header
lines are key=value (format, window, columns, functions: the symbol file's
entries), then one row per bucket with a non-zero figure, in address order:

    <hex start> <name> <v1> <v2> ...

one value per name in `columns` (insns, site_execs, and with model=on
mispredicts, l1i_misses, l1d_misses). A bucket is a function of the
kernel's symbol file (its start address and name, from the try's vmlinux:
symbols_file()), or, for code the symbol file does not cover, a 4 KiB page
named "[kernel]" or "[user]" (user space is stripped and its addresses
differ between processes: it is counted by page, not by function). With
count=insn the insns column adds up to the window's kernel_insns plus
user_insns of the try's .counts exactly.
"""
import os

from lib import vmlinux as vml
from lib.format import rawfiles

EXT = ".profile"            # as the plugin writes it
RAW_EXT = EXT + ".gz"       # as the results dir keeps it
FORMAT = 1
USER = "[user]"


class ProfileError(Exception):
    """A profile file that cannot be read; the message names the file."""


class Profile:
    """One try's profile: meta {header key: value}, columns (names of the
    values), rows [(start address, name, (values...))] in file order."""

    def __init__(self, meta, columns, rows):
        self.meta = meta
        self.columns = columns
        self.rows = rows

    def total(self, column, kernel_only=False):
        """Sum of one column over all rows (kernel rows only if asked)."""
        i = self.columns.index(column)
        return sum(v[i] for a, _, v in self.rows
                   if not kernel_only or a >= 1 << 63)

    def by_name(self):
        """{name: [values summed over its rows]}: a name's rows are a
        static function defined in several files, or the pages of
        [user]/[kernel]."""
        out = {}
        for _, name, vals in self.rows:
            acc = out.setdefault(name, [0] * len(vals))
            for i, v in enumerate(vals):
                acc[i] += v
        return out


def read(path):
    """The Profile in path; ProfileError when it is missing or malformed."""
    try:
        data = rawfiles.read_gunzipped(path) if path.endswith(".gz") \
            else rawfiles.read_bytes(path)
        lines = data.decode().splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise ProfileError("cannot read %s: %s" % (path, e))
    meta, rows, columns = {}, [], None
    for n, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        if "=" in line and " " not in line:
            k, v = line.split("=", 1)
            meta[k] = v
            if k == "columns":
                columns = v.split(",")
            continue
        parts = line.split()
        if columns is None or len(parts) != 2 + len(columns):
            raise ProfileError("%s line %d: want '<hex start> <name> %s'"
                               % (path, n, " ".join(
                                   "<%s>" % c for c in columns or ["?"])))
        try:
            rows.append((int(parts[0], 16), parts[1],
                         tuple(int(x) for x in parts[2:])))
        except ValueError:
            raise ProfileError("%s line %d: not numbers: %r"
                               % (path, n, line))
    if meta.get("format") != str(FORMAT):
        raise ProfileError("%s: format %r, this reader wants %d"
                           % (path, meta.get("format"), FORMAT))
    if columns is None:
        raise ProfileError("%s: no columns= line" % path)
    return Profile(meta, columns, rows)


def compress(base):
    """Replace base.profile, when there is one, by base.profile.gz (no
    time stamp in it: the same profile gives the same bytes, which
    lib/format/rawfiles.py gives back from an archive)."""
    src = base + EXT
    if not os.path.isfile(src):
        return
    with open(src, "rb") as f:
        data = rawfiles.gzip_bytes(f.read())
    tmp = base + RAW_EXT + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, base + RAW_EXT)
    os.remove(src)


def symbols_file(vmlinux, out_path):
    """Write the plugin's symbol file of vmlinux to out_path (atomically):
    one '<hex start> <name>' line per code symbol in address order, one
    name per address (the first nm lists), ending with _etext, where the
    last function ends. Returns the number of functions."""
    syms, etext = vml.code_symbols(vmlinux)
    entries, seen = [], set()
    for addr, name in syms:
        if addr not in seen and (etext is None or addr < etext):
            seen.add(addr)
            entries.append((addr, name))
    if etext is not None:
        entries.append((etext, "_etext"))
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.writelines("%x %s\n" % e for e in entries)
    os.replace(tmp, out_path)
    return len(entries) - (etext is not None)
