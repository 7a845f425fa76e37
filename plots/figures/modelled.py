"""modelled: stacked bars, the modelled cycles per tbench operation of
each main kernel by source (bench/run --model; a model, not hardware)."""
from analysis.models import modelcost

from plots.common import num, q

FILES = ("modelled.dat", "modelled.vars")
VARS = ("nparts", "nbars", "part%d")


def data(run, out):
    st = run.st
    meta = run.res.meta.get("model")
    if not meta or not modelcost.present(st):
        return False
    pens = meta["penalties"]
    parts = modelcost.breakdown(st, pens)
    main = st["groups"]["main"]
    rows = ["%s %s" % (q(lab), " ".join(num(v) for _, v in parts[lab]))
            for lab in main]
    out.write("modelled.dat", rows)
    # the key's names: each part's short label and its penalty in cycles
    names = [p.label if p.penalty is None else "%s x %d cycles" % (
        p.label, pens[p.penalty]) for p in modelcost.parts(pens)]
    out.write("modelled.vars", ["nparts = %d" % len(names),
                                "nbars = %d" % len(main)]
              + ["part%d = %s" % (i, q(n)) for i, n in enumerate(names, 1)])
    return True
