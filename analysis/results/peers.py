"""The other runs under a results/ folder, for the report's sections
that set a run beside others (configs and versions, the models' band,
convergence with run length) and for the commands' default dir. One
finder: only folders named as bench/run names them (RUN_NAME), newest
first."""
import os
import re

from analysis.results import suite
from analysis.results.load import FormatError, read_json, read_stats
from lib.format import schema

# A results dir's name: its UTC start time and the commit's short sha
# (lib/format/results.py dir_name), so names sort by time.
RUN_NAME = re.compile(r"\d{8}T\d{6}Z-\w+")


def run_dirs(root):
    """The results dirs under root, newest first (by name: start time)."""
    if not os.path.isdir(root):
        return []
    return [os.path.join(root, n) for n in sorted(os.listdir(root),
                                                  reverse=True)
            if RUN_NAME.fullmatch(n) and os.path.isdir(os.path.join(root, n))]


def newest(root, workload=None):
    """The newest results dir under root with a runs.csv, or None; with a
    workload (lib/workloads.py), the newest of its runs: a results dir of
    it, or a suite run's (analysis/results/suite.py), by start time."""
    found = []
    for path in run_dirs(root):
        members = [path]
        if workload is not None:
            members += run_dirs(os.path.join(path, suite.DIR, workload))
        for p in members:
            if not os.path.isfile(os.path.join(p, "runs.csv")):
                continue
            if workload is None or schema.workload(read_json(
                    os.path.join(p, "meta.json"))) == workload:
                found.append(p)
    return max(found, key=os.path.basename) if found else None


def analysed(root, but=None):
    """[(path, meta, stats)] of the analysed runs under root (a stats.json
    and a meta.json that parse), newest first, leaving out the dir but."""
    out = []
    for path in run_dirs(root):
        if but is not None and os.path.samefile(path, but):
            continue
        try:
            st = read_stats(os.path.join(path, "stats.json"))
            meta = read_json(os.path.join(path, "meta.json"))
        except FormatError:
            continue
        if isinstance(st, dict) and st and isinstance(meta, dict) and meta:
            out.append((path, meta, st))
    return out


def convergence(root):
    """(path, stats) of the newest analysed run under root with several
    run lengths (stats.json's "convergence"), or (None, None)."""
    for path, _, st in analysed(root):
        if st.get("convergence"):
            return path, st
    return None, None
