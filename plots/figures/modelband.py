"""modelband: per kernel but the baseline, its modelled gain vs the
baseline: the instruction path, with overlap and in order, with intervals
(analysis/models/modelcost.py bands(): this run's, if it ran the model,
and its peers')."""
from analysis.models import modelcost

from plots.common import num, q

FILES = ("modelband.dat", "modelband.labels", "modelband.vars")
VARS = ("nband", "bbase", "bpreset", "dx", "bname%d")

# The band's columns' offsets from their kernel's x (dx of modelband.gp).
BAND_DX = 0.18


def data(run, out):
    st = run.st
    got = modelcost.bands(run.res, st)
    several = len(got) > 1
    rows = [("%s, %s" % (lab, b.model) if several else lab, gains)
            for b in got for lab, gains in b.gains]
    if not rows:
        return False
    out.write("modelband.dat", ["%d %s %s" % (i, q(lab), " ".join(
        "NaN NaN NaN" if g is None else " ".join(num(x) for x in g)
        for g in gains)) for i, (lab, gains) in enumerate(rows, 1)])
    # the values as labels beside their points (set label, not a plot
    # "with labels": gnuplot 5.4 crashes on one whose points are all NaN)
    out.write("modelband.labels", [
        "set label %s at first %s, first %s left offset char 1,0" % (
            q("%+.2f%%" % g[0]), num(i + (j - 1) * BAND_DX), num(g[0]))
        for i, (_, gains) in enumerate(rows, 1)
        for j, g in enumerate(gains) if g is not None])
    preset = "per model (kernel, model)" if several else \
        "%s model" % got[0].model
    out.write("modelband.vars", [
        "nband = %d" % len(rows), "bbase = %s" % q(st["baseline"]),
        "bpreset = %s" % q(preset), "dx = %s" % num(BAND_DX)]
        + ["bname%d = %s" % (i, q(t)) for i, (t, _, _) in
           enumerate(modelcost.BAND, 1)])
    return True
