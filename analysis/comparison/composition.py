"""What one window is made of: the kernel functions of a try's
per-function profile (raw/*.profile.gz, lib/format/profile.py) with their
shares of the window's kernel instructions, and the guest's environment
in it: families of functions that do the harness's or the emulated
machine's work rather than the workload's (FAMILIES).

A window should hold the workload's own path. Three families are known to
have leaked into it before: the RNG's extraction from its input pool (a
guest whose crng was never seeded runs it on every get_random_u32()),
the tty and serial driver (the agent echoing a workload's output while it
ran) and printk's console output. audit() names every try of a results
dir in which one of them passes LIMIT_PCT of the kernel's instructions.

A family matches a function by its name without the compiler's suffixes
(".part.0", ".constprop.0", ".isra.0"). vsnprintf is in none: the
workloads reach it on their own paths (msg's and open's /proc reads), and
a flat profile cannot tell those calls from printk's.
"""
import re
from collections import namedtuple

from analysis.comparison.profile import ok_runs, path_of
from analysis.results.load import FormatError
from lib.format import profile as pf
from lib.format import rawfiles

Family = namedtuple("Family", "name title pattern")

FAMILIES = (
    Family("rng", "RNG extraction", re.compile(
        r"(extract_entropy|blake2s_\w+|crng_reseed|_credit_init_bits)")),
    Family("tty", "tty and serial output", re.compile(
        r"(n_tty_\w+|tty_\w+|serial8250_\w+|uart_\w+|io_serial_\w+|"
        r"wait_for_xmitr|wait_for_lsr)")),
    Family("printk", "printk and the console", re.compile(
        r"(_printk|printk_\w+|vprintk\w*|console_\w+|prb_\w+|"
        r"record_print_text|info_print_prefix|devkmsg_\w+)")),
)
# The most of a window's kernel instructions a family may take.
LIMIT_PCT = 1.0
COLUMN = "insns"

Function = namedtuple("Function", "name insns share_pct")
# total: kernel instructions of the window; functions: [Function] by
# instructions, most first; families: {family name: (insns, share_pct,
# [Function] of its members)}; own_pct: the share outside every family;
# ops: the try's operations (None when only the profile was read).
Window = namedtuple("Window", "path total functions families own_pct ops")


def base_name(name):
    """A function's name without the compiler's suffixes."""
    return name.split(".", 1)[0]


def family_of(name):
    """The Family a kernel function belongs to, or None."""
    base = base_name(name)
    for f in FAMILIES:
        if f.pattern.fullmatch(base):
            return f
    return None


def of_profile(path):
    """The Window of one profile; FormatError when it cannot be read or
    has no kernel instructions."""
    try:
        p = pf.read(path)
    except pf.ProfileError as e:
        raise FormatError(str(e))
    if COLUMN not in p.columns:
        raise FormatError("%s has no %s column" % (path, COLUMN))
    i = p.columns.index(COLUMN)
    kernel = {n: v[i] for n, v in p.by_name().items()
              if n != pf.USER and v[i]}
    total = sum(kernel.values())
    if not total:
        raise FormatError("%s counts no kernel instructions" % path)
    funcs = sorted((Function(n, v, 100.0 * v / total)
                    for n, v in kernel.items()),
                   key=lambda f: (-f.insns, f.name))
    families = {}
    for fam in FAMILIES:
        members = [f for f in funcs if family_of(f.name) is fam]
        n = sum(f.insns for f in members)
        families[fam.name] = (n, 100.0 * n / total, members)
    own = 100.0 - sum(s for _, s, _ in families.values())
    return Window(path, total, funcs, families, own, None)


def profiled_tries(res, label=None):
    """[(runs.csv row, profile path)] of res's ok tries that have a
    profile, of one label when given, in index order."""
    out = []
    for _, r in ok_runs(res).sort_values("index").iterrows():
        if label is not None and r["label"] != label:
            continue
        path = path_of(res, r)
        if rawfiles.isfile(path):
            out.append((r, path))
    return out


def first_window(res, label):
    """The Window of label's first profiled try in res (index order);
    FormatError when it has none."""
    tries = profiled_tries(res, label)
    if not tries:
        raise FormatError(
            "%s has no profiled ok try of label %r (raw/*%s): run it in "
            "icount with the branch-count plugin"
            % (res.path, label, pf.RAW_EXT))
    row, path = tries[0]
    return of_profile(path)._replace(ops=int(row["ops"]))


Breach = namedtuple("Breach", "path family share_pct")


def audit(res, limit_pct=LIMIT_PCT):
    """[Breach] of every profiled ok try of res whose window gives a
    family more than limit_pct of its kernel instructions; the number of
    tries read is the second value."""
    breaches, tries = [], profiled_tries(res)
    for _, path in tries:
        w = of_profile(path)
        for fam in FAMILIES:
            share = w.families[fam.name][1]
            if share > limit_pct:
                breaches.append(Breach(path, fam.name, share))
    return breaches, len(tries)
