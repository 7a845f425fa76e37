"""The figures: the one list of them, in REPORT.md's order.

plots/ draws them: its registry (plots/figures/__init__.py) takes the names
from here, plots/figures/NAME.py writes each one's data and
plots/figures/NAME.gp renders it to plots/img/NAME.svg and NAME.png when
the run has its data (plots/draw removes them when it has not);
analysis/documents/report.py links them in REPORT.md with these titles
(titles(): naming the run's baseline) and shows MAIN on the report's first
screen. A new figure is a row here and its NAME.py and NAME.gp in
plots/figures/ (plots/README.md). analysis/ never imports plots/.
"""
from analysis.results import reference

VS_BASE = "% change vs {base}"

# (name, title in REPORT.md, {base}: the run's baseline, {ref}: 2011's
# part); in comments, what a run needs to have data.
TEMPLATES = [
    ("pct_change", VS_BASE + " with 95% CI{ref}"),
    ("throughput", "Throughput of every run, mean and 95% CI"),
    # icount perturbation seeds, at least 2 per label
    ("seeds", "Per-seed distribution of each kernel, and of its paired "
              "change against {base}"),
    ("traces", "Per-second throughput of every run (warm-up marked)"),
    ("drift", "Run order vs throughput (drift)"),
    # branch counts (perf or the TCG plugin)
    ("branches", "Branches and instructions per tbench operation"),
    # a suite run (./run_all.sh --workload suite: analysis/results/suite.py)
    ("across", VS_BASE + " on every workload, each in its own "
     "operations per second, 95% CI"),
    # comparisons in the history file (results/history.csv)
    ("history", VS_BASE + " across analysed runs (commits)"),
    # a results dir beside it with several run lengths
    # (analysis/sections/seeds.py)
    ("convergence", VS_BASE + " by run length"),
    # per-function profiles (raw/*.profile) of the baseline and another
    # kernel (analysis/comparison/profile.py)
    ("profile", "Where the difference comes from: the functions whose "
                "kernel instructions per op changed most against {base}"),
    # the model of bench/run --model
    ("modelled", "Modelled cycles per tbench operation, by source "
                 "(a model, not hardware)"),
    # the same run: the band of analysis/models/modelcost.py band()
    ("modelband", "Modelled gain vs {base}: the instruction path, "
                  "with overlap, in order (a model, not hardware)"),
]


def titles(baseline=reference.BASELINE, with_2011=True):
    """(name, title) of every figure of a run with this baseline; with_2011:
    the run is set beside 2011 (runinfo.with_2011)."""
    ref = ", and 2011's values" if with_2011 else ""
    return [(name, t.format(base=baseline, ref=ref))
            for name, t in TEMPLATES]


FIGURES = titles()
NAMES = [name for name, _ in FIGURES]
# The report's main figure: the answer with its CI, 2011's and the A/A.
MAIN = "pct_change"
