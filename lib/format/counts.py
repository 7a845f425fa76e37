"""The TCG branch-count plugin (bench/plugin/) as seen by the runner.

Under icount each try loads the plugin with an output file; after the try
the file holds `key=value` lines (integers), e.g. kernel_insns=..., and
window=1 when the agent's start/end markers were seen (the counts then
cover tbench's measured period only). This module finds the plugin and
turns that file into runs.csv cells. A figure the plugin could not count
(e.g. no closed window) is `not-counted` in the file and stays so in the
cell: never a number that was not measured.
"""
import os
import subprocess

from lib.format import rawfiles, schema

# counts-file key -> runs.csv column (lib/format/schema.py)
COLUMNS = dict([(c.key, c.column) for c in schema.PLUGIN_COUNTERS
                + schema.MODEL_COUNTERS]
               + list(schema.PLUGIN_FLAGS.items()))
# Keys without which a report is unusable.
REQUIRED = [c.key for c in schema.PLUGIN_COUNTERS if c.required]


class PluginError(Exception):
    """The plugin exists but could not be built or its output is unusable."""


def find(root, run=subprocess.run):
    """(path or None, note). None when bench/plugin/build is absent.

    The plugin is built by its own stage (bench/plugin/build, in run_all.sh
    before the runs); this only locates it (build --locate). A plugin that
    is not built raises PluginError naming that command: counts were
    expected, so do not silently skip.
    """
    builder = os.path.join(root, "bench", "plugin", "build")
    if not os.access(builder, os.X_OK):
        return None, "no branch-count plugin in this checkout (%s)" % builder
    p = run([builder, "--locate"], capture_output=True, text=True,
            check=False)
    path = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    if p.returncode != 0 or not path or not os.path.isfile(path):
        tail = (p.stderr or "").strip().splitlines()[-1:]
        raise PluginError("bench/plugin/build --locate failed (status %d):"
                          " %s" % (p.returncode,
                                   " | ".join(tail) or "no output"))
    return path, "branch-count plugin %s" % path


def sites_file(build_dir, out_path):
    """Copy the static-key sites (jump table code addresses) of a build,
    the build dir's jump-sites.txt (kernel-variants/build writes it), to
    out_path.

    Returns (path, n): path is None when the build has no jump table (a
    kernel without jump labels): the plugin then reports
    site_execs=not-counted rather than a count over an empty set.
    """
    src = os.path.join(build_dir, "jump-sites.txt")
    try:
        with open(src) as f:
            text = f.read()
    except FileNotFoundError:
        raise PluginError("%s is missing: run kernel-variants/build for this"
                          " kernel (it writes the sites file of every build,"
                          " cached ones included)" % src) from None
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, out_path)
    n = sum(1 for ln in text.splitlines()
            if ln.strip() and not ln.startswith("#"))
    return (out_path if n else None), n


def parse(text):
    """Parse a counts file's text into {column: int or "not-counted"}.

    Raises ValueError on a malformed file or one without the instruction
    counts."""
    out = {}
    markers = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError("line %d is not key=value: %r" % (n, line))
        key = key.strip()
        if key in ("markers_start", "markers_end"):
            markers[key] = value.strip()
        if key not in COLUMNS:
            continue
        value = value.strip()
        if value in schema.NOT_MEASURED:
            out[COLUMNS[key]] = value
            continue
        try:
            out[COLUMNS[key]] = int(value)
        except ValueError:
            raise ValueError("line %d: %s is not an integer: %r"
                             % (n, key, value)) from None
    missing = [k for k in REQUIRED if COLUMNS[k] not in out]
    if missing:
        raise ValueError("counts lack %s" % ", ".join(missing))
    if markers != {"markers_start": "1", "markers_end": "1"} and \
            len(markers) == 2:
        # Not exactly one start and one end marker: the window is not
        # tbench's measured period; its figures are not counted, never 0.
        for c in schema.PLUGIN_COUNTERS + schema.MODEL_COUNTERS:
            if c.column in out:
                out[c.column] = "not-counted"
        out["plugin_window"] = 0
    return out


def read(path):
    """(cells, problem): cells {column: int} or {} with a one-line problem."""
    try:
        with rawfiles.open(path) as f:
            return parse(f.read()), ""
    except FileNotFoundError:
        return {}, "plugin wrote no counts file"
    except (OSError, ValueError) as e:
        return {}, "plugin counts unreadable: %s" % e
