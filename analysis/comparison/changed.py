"""What a run's kernels changed, workload by workload: the figures of the
first screen of a user's A/B (analysis/sections/changed.py).

Per workload of the run (every workload of a suite, analysis/results/
suite.py; else the run's own) and per kernel against the baseline: the
headline comparison (each workload's operations per second, or tbench's
headline), whether it changed by the report's rule (significant: the sign
test and the interval widened by the workload's environment floor,
stats.json's `significant`, as "Across the kernel" calls it) and, where
it changed, the kernel function whose instructions per op changed most
(analysis/comparison/profile.py's Diff, its row with its own floor's
verdict), or None without profiles.
"""
from collections import namedtuple

from analysis.comparison import profile
from analysis.results import compat, suite
from analysis.results.load import FormatError, Results

# workload: its lib/workloads.py record; ran: it has an analysed results
# dir; label: the kernel; comparison: its headline comparison against the
# baseline (None: not run or no estimate); changed: significant by the
# report's rule; top: the Diff row (profile.Diff._row) of the function
# that changed most, None when not changed or not profiled.
Change = namedtuple("Change", "workload ran label comparison changed "
                    "top")


def rows(res, st):
    """The suite.Row of every workload of the run at res (a suite's, else
    the run's own workload's)."""
    out = suite.rows(res.path)
    return out or [suite.row(compat.workload(st), res.path)]


def top_functions(path):
    """{label: the row of the kernel function whose instructions per op
    changed most against the baseline} of the results dir at path; {}
    without profiles."""
    try:
        diffs = profile.against_baseline(Results(path))
    except FormatError:
        return {}
    out = {}
    for d in diffs:
        top = d.rows(1)[0]
        if top["kind"] == "function":
            out[d.b.label] = top
    return out


def changes(res, st):
    """[Change] of every workload of the run and every kernel against its
    baseline, in the suite's order."""
    out = []
    for r in rows(res, st):
        labels = [lab for lab in (r.st or st)["groups"]["main"]
                  if lab != (r.st or st)["baseline"]]
        tops = None
        for lab in labels:
            c = r.changes.get(lab) if r.st else None
            changed = bool(c and c.get("significant"))
            if changed and tops is None:
                tops = top_functions(r.path)
            out.append(Change(r.workload, bool(r.st), lab, c, changed,
                              (tops or {}).get(lab) if changed else None))
    return out
