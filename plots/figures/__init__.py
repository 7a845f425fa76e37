"""The figures: NAME.py writes a figure's data, NAME.gp beside it draws
them; plots/common.py and common.gp here serve every figure.

The list of figures, their order and REPORT.md's titles are
analysis/sections/figures.py's (figures.NAMES), the one list: FIGURES
here derives from it, and a name there without its NAME.py fails at the
import. A figure module declares what its script may read, once:

  FILES  the data files it writes ("%d": 1, 2, ... as in
         "branches_%d.dat"); its NAME.gp reads these and common's only;
  VARS   the gnuplot variables its .vars files assign (the same "%d"
         rule); its NAME.gp reads these, common's and its own only;
  data(run, out)
         writes the data of run (common.Run) through out (common.Out),
         which refuses a file or variable the module does not declare;
         True when the run has data for the figure.

tests/test_plots.py checks each NAME.gp against its module's FILES and
VARS.
"""
import importlib
import os

from analysis.sections import figures as listed

from plots import common

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = listed.NAMES
# The modules, in the list's order.
FIGURES = [importlib.import_module(__name__ + "." + name) for name in NAMES]


def script(name):
    """The gnuplot script of figure name (or of common)."""
    return os.path.join(HERE, name + ".gp")


def prepare(run, path):
    """Write the data of every figure and common's into the dir path; the
    names of the figures with data, in the list's order."""
    drawn = [name for name, module in zip(NAMES, FIGURES)
             if common.Out(path, module).data(run)]
    common.Out(path, common).data(run)
    return drawn
