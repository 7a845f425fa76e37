"""The figures: the one list of them, in REPORT.md's order.

plots/prepare writes each one's data (a function per name) and prints the
names (`plots/prepare --list`) for plots/draw, which renders plots/NAME.gp
to NAME.svg and NAME.png when the run has its data, and removes them when
it has not; analysis/render.py links them in REPORT.md with these titles
and shows MAIN on the report's first screen. A new figure is a row here,
a function in plots/prepare and a NAME.gp.
"""
from analysis import reference

VS_BASE = "% change vs " + reference.BASELINE

# (name, title in REPORT.md); in comments, what a run needs to have data.
FIGURES = [
    ("pct_change", VS_BASE + " with 95% CI, and 2011's values"),
    ("throughput", "Throughput of every run, mean and 95% CI"),
    # icount perturbation seeds, at least 2 per label
    ("seeds", "Per-seed distribution of each kernel, and of its paired "
              "change against " + reference.BASELINE),
    ("traces", "Per-second throughput of every run (warm-up marked)"),
    ("drift", "Run order vs throughput (drift)"),
    # branch counts (perf or the TCG plugin)
    ("branches", "Branches and instructions per tbench operation"),
    # comparisons in the history file (results/history.csv)
    ("history", VS_BASE + " across analysed runs (commits)"),
    # a results dir beside it with several run lengths
    # (analysis/convergence.py)
    ("convergence", VS_BASE + " by run length"),
    # the model of bench/run --model
    ("modelled", "Modelled cycles per tbench operation, by source "
                 "(a model, not hardware)"),
]
NAMES = [name for name, _ in FIGURES]
# The report's main figure: the answer with its CI, 2011's and the A/A.
MAIN = "pct_change"
