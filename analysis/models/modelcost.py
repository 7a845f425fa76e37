"""The modelled hardware cost: what `bench/run --model` counted.

The plugin's model (bench/plugin/README.md, "Model"; parameters in
meta.json's "model", lib/model.py) gives per tbench operation the
mispredictions, BTB misses, L1I and L1D misses and static-key word
accesses of each kernel, and analysis turns them into modelled cycles =
instructions + penalty x events (analysis/results/load.py). The band of
gains and the runs of other models beside this one are here;
analysis/sections/models.py writes the section.
"""
import os
from collections import namedtuple

from analysis.results import compat
from analysis.results.load import read_builds
from analysis.results.metrics import missing
from analysis.results.peers import analysed
from analysis.results.runinfo import comparisons, headline, metric, proto
from lib import model
from lib.format import schema

# Rows of the per-operation table: (title, runs.csv columns summed); the
# last ones only in runs with the option that counts them (OPTION_ROWS).
ROWS = [
    ("conditional branches", ("kernel_branches", "user_branches")),
    ("mispredictions", model.PENALTY_EVENTS["mispredict"]),
    ("BTB misses", model.PENALTY_EVENTS["btb_miss"]),
    ("L1I line fetches", ("kernel_l1i_accesses", "user_l1i_accesses")),
    ("L1I misses", model.PENALTY_EVENTS["l1i_miss"]),
    ("L1D accesses", ("kernel_l1d_accesses", "user_l1d_accesses")),
    ("L1D misses", model.PENALTY_EVENTS["l1d_miss"]),
    ("static-key word accesses", ("key_accesses",)),
    ("static-key word L1D misses", ("key_misses",)),
    ("branches left unresolved", ("branches_unresolved",)),
    ("L1I and L1D misses that missed the L2 too",
     model.PENALTY_EVENTS["l2_miss"]),
    ("L1D misses feeding a mispredicted branch (overlap)",
     model.OVERLAP_EVENTS["fed"]),
    ("groups of independent L1D misses (overlap)",
     model.OVERLAP_EVENTS["groups"]),
    ("L1D misses to memory feeding a mispredicted branch (overlap)",
     model.OVERLAP_EVENTS["fed_mem"]),
    ("groups of independent L1D misses reaching memory (overlap)",
     model.OVERLAP_EVENTS["groups_mem"]),
]
# Rows only in runs whose meta.json "model" has all of these: a geometry
# entry (the option) or the "overlap" entry.
OPTION_ROWS = {
    "L1I and L1D misses that missed the L2 too": ("l2",),
    "L1D misses feeding a mispredicted branch (overlap)": ("overlap",),
    "groups of independent L1D misses (overlap)": ("overlap",),
    "L1D misses to memory feeding a mispredicted branch (overlap)":
        ("overlap", "l2"),
    "groups of independent L1D misses reaching memory (overlap)":
        ("overlap", "l2"),
}


def has(meta, what):
    """meta.json's "model" has the overlap entry, or the option what."""
    return what in meta if what == "overlap" else what in meta["geometry"]


# Parts of the modelled cycles: title (the report's), columns, penalty
# name (None: the instructions) and label (the plot's).
Part = namedtuple("Part", "title columns penalty label")
LABELS = {"mispredict": "mispredictions", "btb_miss": "BTB misses",
          "l1i_miss": "L1I misses", "l1d_miss": "L1D misses",
          "l2_miss": "L2 misses"}
PARTS = [Part("instructions", model.INSNS, None, "instructions")] + [
    Part("%s x %s" % (p.name, "+".join(model.PENALTY_EVENTS[p.name])),
         model.PENALTY_EVENTS[p.name], p.name, LABELS[p.name])
    for p in model.PENALTIES + model.OPTION_PENALTIES]
CYCLES = schema.MODEL_CYCLES.column + "_per_op"
CYCLES_OOO = schema.MODEL_CYCLES_OOO.column + "_per_op"
# The band's columns: (title, metric of stats.json or None for the
# headline, a cycles metric: fewer is the gain).
BAND = [("instruction path (the headline)", None, False),
        ("with overlap", CYCLES_OOO, True),
        ("in order (every penalty in full)", CYCLES, True)]


def parts(penalties):
    """The PARTS of a run with these penalties (meta.json's)."""
    return [p for p in PARTS if p.penalty is None or p.penalty in penalties]


def present(st):
    """The stats dict has the model's figures."""
    return metric(st, CYCLES) is not None


def per_op(st, label, columns):
    """Sum over columns of the mean per op of label (None if any is not a
    number)."""
    total = 0.0
    for c in columns:
        m = metric(st, c + "_per_op")
        mean = m["per_label"][label]["mean"] if m else None
        if missing(mean):
            return None
        total += mean
    return total


def breakdown(st, penalties):
    """{label: [(part title, modelled cycles per op or None)]}."""
    out = {}
    for lab in st["groups"]["main"]:
        out[lab] = []
        for title, cols, pen, _ in parts(penalties):
            v = per_op(st, lab, cols)
            out[lab].append((title, None if v is None else
                             v * (penalties[pen] if pen else 1)))
    return out


def _gain(c, cycles):
    """(gain, lo, hi) in % of a comparison dict (fewer cycles per op, or
    more operations per second, is a gain), or None."""
    if not c or missing(c.get("pct_change")):
        return None
    lo, hi = c.get("pct_ci_lo"), c.get("pct_ci_hi")
    lo, hi = (None if missing(lo) else lo), (None if missing(hi) else hi)
    if not cycles:
        return (c["pct_change"], lo, hi)
    return (-c["pct_change"], None if hi is None else -hi,
            None if lo is None else -lo)


def band(st):
    """[(kernel, [gain of each BAND column or None])] of every kernel but
    the baseline: its modelled gain vs the baseline with overlap and
    without, and the instruction-path gain (the headline's)."""
    out = []
    got = [comparisons(metric(st, name or headline(st)) or
                       {"comparisons": []}, "main")
           for _, name, _ in BAND]
    for lab in st["groups"]["main"]:
        if lab == st["baseline"]:
            continue
        out.append((lab, [_gain(g.get(lab), cyc)
                          for g, (_, _, cyc) in zip(got, BAND)]))
    return out


def model_name(meta):
    """The model a run's meta.json says it ran: its preset, "default", or
    None without the model."""
    m = meta.get("model")
    if not isinstance(m, dict):
        return None
    return m.get("preset") or "default"


def model_order(name):
    """Sort key of a model's name: the default model, then the presets in
    lib/model.py's order (oldest core first), then any other."""
    order = ["default"] + list(model.PRESETS)
    return (order.index(name) if name in order else len(order), name)


def _protocol(meta, st):
    """What runs must share for their bands to sit in one table: the
    workload, accelerator, clients and baseline."""
    return (compat.workload(st), st.get("accel"),
            proto(meta, "clients"), st.get("baseline"))


def kernels(meta, st):
    """{variant: build hash} of a run's labels."""
    builds = read_builds({i["variant"] for i in st.get("labels", [])},
                         meta)
    return {v: b.get("hash") for v, b in builds.items()}


def peers(res, st, want=None):
    """[(run id, meta, stats)] of the other analysed model runs under the
    results/ dir of res, newest first, whose kernels are all kernels of
    this run (the same build hashes) and whose protocol (_protocol(), or
    want(meta, stats) when given) is this run's."""
    mine = kernels(res.meta, st)
    want = want or (lambda meta, other: _protocol(meta, other)
                    == _protocol(res.meta, st))
    out = []
    for path, meta, other in analysed(os.path.dirname(res.path),
                                      but=res.path):
        if "metrics" not in other or not present(other) or \
                model_name(meta) is None or not want(meta, other):
            continue
        theirs = kernels(meta, other)
        if theirs and all(mine.get(v) == h for v, h in theirs.items()):
            out.append((os.path.basename(path), meta, other))
    return out


Band = namedtuple("Band", "model run_id seconds meta gains")


def bands(res, st):
    """[Band]: this run's (band(), if it ran the model), then the newest
    analysed run's of each other model (preset), in model_order(), among
    peers(): a run models one core (docs/model.md, "Costs"). meta: the
    run's meta.json "model"."""
    mine = model_name(res.meta)
    out = [Band(mine, res.run_id, proto(res.meta, "seconds"),
                res.meta["model"], band(st))] if mine and present(st) else []
    return out + [Band(which, name, proto(meta, "seconds"), meta["model"],
                       band(other))
                  for which, name, meta, other in per_model(
                      peers(res, st), mine)]


def per_model(found, mine=None):
    """[(model, run id, meta, stats)] of the first (newest) of found
    (peers()) for each model other than mine, in model_order()."""
    seen, out = {mine}, []
    for name, meta, other in found:
        which = model_name(meta)
        if which not in seen:
            seen.add(which)
            out.append((which, name, meta, other))
    return sorted(out, key=lambda r: model_order(r[0]))
