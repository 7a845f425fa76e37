"""The raw files of one try: the runs.csv figures they give, and a manifest.

A try's raw files are
raw/<NNN>-<variant>-try<K>.{log,qemu-cmd,stderr,counts,profile.gz}
(lib/format/FORMATS.md). derive() turns them into the runs.csv cells the
console and the plugin report give (status, reason, kernel_warnings, the
figures) plus the per-second samples. bench/tries/runner.py builds each row
with it, and analysis/results/check.py re-derives every row with it, so the row
and its check can never drift apart. The manifest,
raw/<NNN>-<variant>-try<K>.sha256, holds the sha256 of every raw file of the
try (sha256sum format, names relative to raw/), written when the try ends: a
later edit or truncation of any of them shows even where re-parsing would still
succeed.
"""
import hashlib
import os

from lib import workloads
from lib.format import console, counts, rawfiles, results, schema

# Raw files of a try, by extension, in the order the manifest lists them.
FILES = (".log", ".qemu-cmd", ".stderr", ".counts", ".profile.gz")
MANIFEST = ".sha256"
# Cells derive() owns besides the figures of results.figures().
VERDICT_COLUMNS = ("status", "reason", "kernel_warnings")


class Derived:
    """What the raw files of one try give.

    status, reason: the verdict; cells: {runs.csv column: value} for every
    column derive() owns (figures None when the try failed); warmup,
    measured: per-second samples of an ok try; warnings: the kernel's.
    """

    def __init__(self, status, reason, cells, warmup, measured, warnings):
        self.status = status
        self.reason = reason
        self.cells = cells
        self.warmup = warmup
        self.measured = measured
        self.warnings = warnings


def columns(perf_events, model=None, workload=workloads.DEFAULT):
    """The runs.csv columns that derive() fills (plugin columns included,
    the model's of meta.json's "model" entry model, if any)."""
    return (list(VERDICT_COLUMNS)
            + list(results.figures({}, perf_events, workload))
            + schema.PLUGIN_COLUMNS + schema.model_columns(model))


def derive(base, perf_events, plugin, ended,
           workload=workloads.DEFAULT):
    """The runs.csv cells and samples of the try whose files start with base.

    plugin: the try ran with the branch-count plugin (base.counts expected);
    ended: how QEMU ended, a phrase for the reason (console.verdict);
    workload: what the agent ran (lib/format/schema.py WORKLOADS).
    """
    text = console.read(base + ".log")
    rep = console.parse(text)
    status, reason = console.verdict(rep, ended,
                                     workloads.WORKLOAD[workload].task)
    if status == "ok":
        status, reason = console.did_its_work(
            text, workloads.WORKLOAD[workload])
    cells = dict.fromkeys(results.figures({}, perf_events, workload))
    warmup = measured = []
    if status == "ok":
        cells = results.figures(rep.block, perf_events, workload)
        try:
            warmup = console.samples(rep.block, "warmup_samples_mbps")
            measured = console.samples(rep.block, "samples_mbps")
        except ValueError as e:
            status, reason = "failed", "bad samples: %s" % e
    if plugin:
        plugin_cells, problem = counts.read(base + ".counts")
        if status == "ok" and problem:
            status, reason = "failed", problem
        if status == "ok":
            cells.update(plugin_cells)
    if status != "ok":
        cells = dict.fromkeys(cells)
        warmup = measured = []
    cells.update(status=status, reason=reason,
                 kernel_warnings=len(rep.warnings))
    return Derived(status, reason, cells, warmup, measured, rep.warnings)


def sha256(path):
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(rawfiles.read_bytes(path)).hexdigest()


def present(base):
    """The raw files of the try that exist (paths)."""
    return [base + ext for ext in FILES if rawfiles.isfile(base + ext)]


def write_manifest(base):
    """Write base.sha256 for the try's raw files (atomically); return it."""
    lines = ["%s  %s\n" % (sha256(p), os.path.basename(p))
             for p in present(base)]
    path = base + MANIFEST
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("".join(lines))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def verify_manifest(base):
    """Compare the try's raw files with base.sha256.

    Returns None when there is no manifest, else a list of problems
    (file name, what, recorded sha256 or "", current sha256 or ""); an
    empty list when every file matches.
    """
    path = base + MANIFEST
    try:
        with rawfiles.open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    raw = os.path.dirname(base)
    recorded, problems = {}, []
    for n, line in enumerate(text.splitlines(), 1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or os.sep in name:
            problems.append((os.path.basename(path),
                             "line %d is not '<sha256>  <file>'" % n, "", ""))
            continue
        recorded[name] = digest
    for name, digest in recorded.items():
        p = os.path.join(raw, name)
        if not rawfiles.isfile(p):
            problems.append((name, "is missing", digest, ""))
        elif sha256(p) != digest:
            problems.append((name, "changed", digest, sha256(p)))
    for p in present(base):
        if os.path.basename(p) not in recorded:
            problems.append((os.path.basename(p), "is not in the manifest",
                             "", sha256(p)))
    return problems
