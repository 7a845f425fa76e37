"""The workloads of a suite run (`./run_all.sh --workload suite`): tbench's
results dir holds every other workload's under suite/<workload>/<run>/
(the newest run dir of each; run_all.sh analyses each into its
stats.json), and their figures side by side.

Figures per workload (Row): its record (lib/workloads.py), its stats.json,
each label's headline comparison against the baseline (main group) and
its A/A twin's, the baseline's kernel instructions per operation, each
label's change of them, the static-key site executions per operation of
the labels that have them (jump-label kernels with a sites file), and the
part of the change that those sites' checks account for (executions times
what one check costs, from the kernels' selftest).
"""
import os
from collections import namedtuple

from analysis.results import compat
from analysis.results.load import counted, read_selftest, read_stats
from analysis.results.runinfo import comparisons, metric
from lib import workloads

DIR = "suite"
KERNEL_INSNS = "kernel_insns_per_op"
SITE_EXECS = "site_execs_per_op"

# A workload of the suite. path: its results dir (None: not run yet); st:
# its stats.json ({} when not analysed); changes: {label: headline
# comparison vs the baseline}; aa: the A/A twin's comparison or None;
# insns: the baseline's kernel instructions per op; insns_changes: {label:
# comparison of kernel instructions per op}; sites: {label: site executions
# per op}; floor: the environment floor of the headline's comparisons
# (points), None when the workload's environment was not studied.
Row = namedtuple("Row", "workload path st changes aa insns insns_changes "
                 "sites floor")


def members(path):
    """[(workload name, its results dir or None)] of the suite run whose
    tbench dir is path, in lib/workloads.py's order (tbench: path itself);
    [] when path holds no suite."""
    root = os.path.join(path, DIR)
    if not os.path.isdir(root):
        return []
    out = []
    for name in workloads.SUITE:
        if name == workloads.DEFAULT:
            out.append((name, path))
            continue
        d = os.path.join(root, name)
        runs = sorted(x for x in os.listdir(d)
                      if os.path.isdir(os.path.join(d, x))) \
            if os.path.isdir(d) else []
        out.append((name, os.path.join(d, runs[-1]) if runs else None))
    return out


def _mean(st, name, label):
    m = metric(st, name)
    d = (m or {}).get("per_label", {}).get(label) or {}
    return d.get("mean")


def row(name, path):
    """The figures of one workload of a suite."""
    st = read_stats(os.path.join(path, "stats.json")) if path else {}
    w = workloads.WORKLOAD[name]
    if not st:
        return Row(w, path, {}, {}, None, None, {}, {}, None)
    head = metric(st, compat.headline(st))
    cal = ((st.get("calibration") or {}).get("metrics") or {}).get(
        compat.headline(st)) or {}
    aa = comparisons(head, "aa")
    insns = metric(st, KERNEL_INSNS)
    labels = st["groups"]["main"]
    sites = {lab: _mean(st, SITE_EXECS, lab) for lab in labels}
    return Row(w, path, st, comparisons(head, "main"),
               next(iter(aa.values()), None),
               _mean(st, KERNEL_INSNS, st["baseline"]),
               comparisons(insns, "main") if insns else {},
               {lab: x for lab, x in sites.items() if x is not None},
               cal.get("floor_difference_pts"))


def rows(path):
    """The Row of every workload of the suite at path ([] for no suite)."""
    return [row(name, d) for name, d in members(path)]


OFF_INSNS = "count.off_insns_per_iter"


def saved_per_check(path, baseline, label):
    """Kernel instructions one disabled static-key check costs the
    baseline more than label (selftest.csv of the suite's tbench dir at
    path, the kernels' own microbenchmark), or None when not counted."""
    sel = read_selftest(os.path.join(path, "selftest.csv"))
    a, b = counted(sel, baseline, OFF_INSNS), counted(sel, label, OFF_INSNS)
    return None if a is None or b is None else a - b


def insns_change(r, label):
    """label's kernel instructions per op minus the baseline's, or None."""
    c = r.insns_changes.get(label)
    if not c or r.insns is None or c.get("pct_change") is None:
        return None
    return r.insns * c["pct_change"] / 100.0


def checks_part(r, label, per_check):
    """The part of label's change in kernel instructions per op that its
    static-key checks account for: minus its site executions per op times
    what one check saves (per_check), or None."""
    x = r.sites.get(label)
    return None if x is None or per_check is None else -x * per_check


def site_density(r, label):
    """Static-key site executions per 1,000 kernel instructions of label,
    or None."""
    x = r.sites.get(label)
    k = _mean(r.st, KERNEL_INSNS, label) if r.st else None
    return 1000.0 * x / k if x is not None and k else None
