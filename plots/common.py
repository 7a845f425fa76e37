"""What every figure shares: the run (Run), the data dir writer that holds
a figure module to its declarations (Out), the data's number and string
formats, each label's x position and colour, and common.vars and
xtics.vars, which common.gp and the figures' scripts load."""
import collections
import os
import re

from analysis.results import compat, reference
from analysis.results.load import longest, ok_rows, per_run
from analysis.results.metrics import missing
from analysis.results.runinfo import accel, headline

# common.gp loads common.vars; throughput.gp and seeds.gp xtics.vars.
FILES = ("common.vars", "xtics.vars")
VARS = ("baseline", "mode_title", "ylabel_mbps", "ylabel_trace", "nlabels",
        "lname%d", "lcolor%d")
# Set by plots/draw on gnuplot's command line for every script.
DRAW_VARS = ("datadir", "outfile", "fmt")

# st: stats.json; res: analysis.results.load.Results; hist: the history
# file; pair: (new, base) of the history figure, or None.
Run = collections.namedtuple("Run", "st res hist pair")

# A .vars line that sets a variable: "name = value".
ASSIGN = re.compile(r"([A-Za-z_]\w*) = ")


def pattern(declared):
    """The regexp of a declared name ("%d": a number from 1)."""
    return re.compile(re.escape(declared).replace("%d", "[1-9][0-9]*"))


class Undeclared(Exception):
    """A figure module wrote a file or variable it does not declare, or
    left out one it does."""


class Out:
    """The data dir, for one figure module: writes only the FILES and
    .vars variables (VARS) the module declares."""

    def __init__(self, path, module):
        self.path = path
        self.module = module
        self.name = module.__name__.rsplit(".", 1)[-1]
        self.files = [pattern(f) for f in module.FILES]
        self.vars = [pattern(v) for v in module.VARS]
        self.assigned = set()

    def write(self, name, lines):
        """Write the data file name, one line of lines a line."""
        if not any(p.fullmatch(name) for p in self.files):
            raise Undeclared("plots/figures/%s.py writes %s, not in its "
                             "FILES" % (self.name, name))
        if name.endswith(".vars"):
            for line in lines:
                m = ASSIGN.match(line)
                if not m:
                    continue
                if not any(p.fullmatch(m.group(1)) for p in self.vars):
                    raise Undeclared("plots/figures/%s.py sets %s, not in "
                                     "its VARS" % (self.name, m.group(1)))
                self.assigned.add(m.group(1))
        with open(os.path.join(self.path, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    def data(self, run):
        """The module's data(run, self), held to its VARS: when it has
        data, every variable it declares (but the numbered ones) set."""
        drawn = self.module.data(run, self)
        missing = [v for v in self.module.VARS
                   if "%d" not in v and v not in self.assigned]
        if drawn and missing:
            raise Undeclared("plots/figures/%s.py leaves out %s of its VARS"
                             % (self.name, ", ".join(missing)))
        return drawn


# Linetypes (common.gp) of 2011's kernels, in 2011's order, then of the
# A/A-only control's labels; other labels get 6-8 by their position.
COLORS = dict([(v, i) for i, v in enumerate(reference.ORDER, 1)]
              + [("A", len(reference.ORDER) + 1),
                 ("B", len(reference.ORDER) + 2)])


def color(label, i):
    """A fixed linetype (colour) per variant, so every figure agrees; other
    labels (A/A twins, user variants) take linetypes 6-8 of common.gp by
    position, never one of 2011's kernels'."""
    return COLORS.get(label, 6 + (i - 1) % 3)


def num(x):
    return "NaN" if missing(x) else "%.10g" % float(x)


def q(s):
    """A gnuplot double-quoted string."""
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"')


def labels(st):
    """label -> (x position, colour) for every main and A/A label."""
    all_labels = st["groups"]["main"] + st["groups"]["aa"]
    return {lab: (i, color(lab, i)) for i, lab in enumerate(all_labels, 1)}


def ok_runs(run):
    """The ok runs of the run length stats.json summarises (the longest,
    as analysis/stats/analyze.py takes them)."""
    return ok_rows(longest(run.res.runs))


def values(runs, name):
    """The per-run values of a throughput metric (analysis' per_run)."""
    return per_run(runs, name)[0]


def data(run, out):
    """common.vars (common.gp loads it for every figure) and xtics.vars:
    the run's labels, their names and colours, the accelerator's titles."""
    st = run.st
    lab = labels(st)
    m = accel(st)
    out.write("common.vars", [
        "baseline = %s" % q(compat.baseline(st)),
        "mode_title = %s" % q(m.plot_title),
        "ylabel_mbps = %s" % q(m.axis[headline(st)]),
        "ylabel_trace = %s" % q(m.axis["throughput_mbps"]),
        "nlabels = %d" % len(lab)]
        + ["lname%d = %s" % (i, q(name)) for name, (i, _) in lab.items()]
        + ["lcolor%d = %d" % (i, c) for name, (i, c) in lab.items()])
    out.write("xtics.vars", ["set xtics (%s)" % ", ".join(
        "%s %d" % (q(name), i) for name, (i, _) in lab.items())])
    return True
