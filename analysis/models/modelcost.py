"""REPORT.md's "Modelled hardware cost": what `bench/run --model` counted.

The plugin's model (bench/plugin/README.md, "Model"; parameters in
meta.json's "model", lib/model.py) gives per tbench operation the
mispredictions, BTB misses, L1I and L1D misses and static-key word
accesses of each kernel, and analysis turns them into modelled cycles =
instructions + penalty x events (analysis/load.py). Every figure here is a
model's, labelled so: not a measurement of any CPU.
"""
import os
from collections import namedtuple

from analysis.reporting import fmt as F
from analysis.results.runinfo import proto
from analysis.results.peers import analysed
from analysis.results.load import read_builds
from analysis.results.runinfo import comparisons, headline, metric
from analysis.reporting.fmt import head
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


def _has(meta, what):
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
        if F.missing(mean):
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
    if not c or F.missing(c.get("pct_change")):
        return None
    lo, hi = c.get("pct_ci_lo"), c.get("pct_ci_hi")
    lo, hi = (None if F.missing(lo) else lo), (None if F.missing(hi) else hi)
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
    workload, mode, clients and baseline."""
    return (st.get("workload", "tbench"), st.get("mode"),
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


def _gain_cell(g):
    if g is None:
        return "n/a"
    if g[1] is None or g[2] is None:
        return "%+.2f%% [CI n/a]" % g[0]
    return "%+.2f%% [%+.2f, %+.2f]" % g


def _band_table(res, got):
    rows = []
    mine = proto(res.meta, "seconds")
    for b in got:
        name = "`%s`" % b.model
        if b.run_id != res.run_id:
            name += " (run %s%s)" % (b.run_id, "" if b.seconds == mine
                                     else ", %s s runs" % b.seconds)
        rows += [[name, "`%s`" % lab] + [_gain_cell(g) for g in gains]
                 for lab, gains in b.gains]
    return F.table(["model", "kernel"] + [
        "%s [95%% CI]" % t for t, _, _ in BAND], rows, "llrrr")


def _band_note(got, base):
    """How the band's columns are priced, with each model's window."""
    windows = ["`%s` %d and %d (%d cycles)" % (
        b.model, b.meta["overlap"]["rob"], b.meta["overlap"]["width"],
        model.hide(b.meta["overlap"])) for b in got if b.meta.get("overlap")]
    old = ["`%s`" % b.model for b in got if not b.meta.get("overlap")]
    return " ".join(
        ["Gain = %% fewer modelled cycles per operation than `%s` (the "
         "instruction path: %% more operations per guest second, each "
         "run's headline). In order, every penalty is paid in full: the "
         "upper bound of the cycles, not of the gain (overlap takes "
         "cycles from both kernels, so a gain in %% can come out higher "
         "with it). Nor is the instruction path a floor: with overlap a "
         "kernel's hidden data misses stop counting while its front-end "
         "misses still count in full, and where the baseline has more of "
         "the former and no more of the latter, the gain falls below the "
         "instruction path's." % base]
        + (["With overlap, the first-order rule of an out-of-order core "
            "(bench/plugin/overlap.h, after Karkhanis and Smith's interval "
            "analysis): front-end misses and mispredictions in full, an "
            "L1D miss in full when it feeds a mispredicted branch (a load "
            "at most 3 instructions before it), otherwise only what a "
            "window of independent misses does not hide; reorder buffer "
            "and width (the cycles a window hides): %s." % "; ".join(
                windows)] if windows else [])
        + (["%s predates the overlap rule: its plugin reports have no "
            "overlap classes, so it has no figure with overlap."
            % ", ".join(old)] if old else []))


BANDS = (
    "A run models one core (docs/model.md, \"Costs\"): the table has this "
    "run's model first, if it ran one, then the newest analysed run of "
    "each other model (`--model-preset`) under the same results dir whose "
    "kernels are this run's (the same build hashes), with the same "
    "workload, baseline, mode and clients, if any, each with its own "
    "parameters (the presets' table in docs/model.md, fixed in %s and "
    "%s) and its own instruction path." % model.PRESETS_FIXED_IN)


def band_section(res, st):
    """The band's table and notes, or "" when neither this run nor a
    peer has the model."""
    got = bands(res, st)
    if not got:
        return ""
    return "\n".join([
        head(st, "The band: modelled gain vs %s, with overlap and without"
             % st["baseline"]), "",
        _band_table(res, got), "",
        _band_note(got, st["baseline"]) + " " + BANDS])


def _cell(x, digits=6):
    return "n/a" if x is None else F.val(x, digits)


def _cycles_table(st):
    """In order, and with overlap beside it when the run has it."""
    m, ooo = metric(st, CYCLES), metric(st, CYCLES_OOO)
    comps = comparisons(m, "main")
    ooo_comps = comparisons(ooo, "main") if ooo else {}
    rows = []
    for lab in st["groups"]["main"]:
        d, c = m["per_label"][lab], comps.get(lab)
        row = ["`%s`" % lab, d["n"], _cell(d["mean"], 7),
               "[%s, %s]" % (_cell(d["ci_lo"], 7), _cell(d["ci_hi"], 7)),
               F.pct_ci(c) if c else "(baseline)", c["marker"] if c else ""]
        if ooo:
            o, oc = ooo["per_label"][lab], ooo_comps.get(lab)
            row += [_cell(o["mean"], 7),
                    F.pct_ci(oc) if oc else "(baseline)"]
        rows.append(row)
    vs = "%% vs %s [95%% CI]" % st["baseline"]
    head = ["kernel", "n", "modelled cycles / op (in order)", "95% CI", vs,
            ""] + (["with overlap / op", vs] if ooo else [])
    return F.table(head, rows, "lrrrrl" + ("rr" if ooo else ""))


def _events_table(st, meta):
    main = st["groups"]["main"]
    rows = [[title] + [_cell(per_op(st, lab, cols)) for lab in main]
            for title, cols in ROWS
            if all(_has(meta, w) for w in OPTION_ROWS.get(title, ()))]
    return F.table(["per tbench operation (kernel + user)"]
                   + ["`%s`" % lab for lab in main], rows,
                   "l" + "r" * len(main))


def _parts_table(st, penalties):
    main = st["groups"]["main"]
    got = breakdown(st, penalties)
    rows = [[p.title] + [_cell(got[lab][i][1]) for lab in main]
            for i, p in enumerate(parts(penalties))]
    return F.table(["modelled cycles / op from"]
                   + ["`%s`" % lab for lab in main], rows,
                   "l" + "r" * len(main))


def validation(selftest):
    """The known-answer rows of selftest.csv (bench/model/knownanswers.py) as a
    table by variant, or a line saying there are none."""
    if selftest is None or selftest.empty:
        return "No selftest in this results dir: the model's known " \
            "answers were not checked here."
    rows = selftest[selftest["name"].str.startswith("model.")
                    & (selftest["name"] != "model.source")]
    if rows.empty:
        return "The selftest boots ran without the model: its known " \
            "answers were not checked here."
    variants = list(dict.fromkeys(rows["variant"]))
    table, failed = [], []
    for name in dict.fromkeys(rows["name"]):
        cells = [", ".join(rows[(rows["name"] == name)
                                & (rows["variant"] == v)]["value"]) or "-"
                 for v in variants]
        table.append(["`%s`" % name[len("model."):]] + cells)
        failed += ["%s of %s" % (name, v) for v, c in zip(variants, cells)
                   if c == "FAIL"]
    return ("Known answers, checked in every selftest boot with the same "
            "model (the static-key module's loops, per iteration; "
            "bench/model/knownanswers.py has the bounds):\n\n"
            + F.details(
                "%d known-answer rows of each kernel%s" % (
                    len(table), "; FAIL: " + ", ".join(failed) if failed
                    else ""),
                F.table(["selftest.csv `model.*`"]
                        + ["`%s`" % v for v in variants], table)))


def _selftest_model(meta, selftest):
    """A note when this run's model is not the one its selftest boots ran
    (bench/model/knownanswers.py: the default)."""
    default = model.meta(model.settings(()))["geometry"]
    if selftest is None or meta["geometry"] == default or \
            not (selftest["name"] == "model.params").any():
        return ""
    return (
        " The selftest boots run the default model (their `params` row), "
        "not this run's.")


def _parameters(meta):
    g, p = meta["geometry"], meta["penalties"]
    keys = meta.get("keys") or {}
    words = ", ".join("`%s` %d" % (v, k["words"]) for v, k in keys.items()
                      if isinstance(k, dict) and "words" in k)
    predictor = "TAGE-like %s (base:tables:entries:tag bits:histories)" \
        % g["tage"] if "tage" in g else \
        "gshare %s (counters:history bits)" % g["bp"]
    return ("Model (meta.json `model`%s): L1I %s, L1D %s%s (bytes:ways, "
            "%s-byte lines, true LRU)%s, %s, BTB %s (entries:ways); "
            "penalties in cycles: %s. Static-key words counted: %s." % (
                ", preset `%s`" % meta["preset"] if meta.get("preset")
                else "", g["l1i"], g["l1d"],
                ", L2 %s" % g["l2"] if "l2" in g else "", g["line"],
                ", next-line L1I prefetch" if "iprefetch" in g else "",
                predictor, g["btb"],
                ", ".join("%s %d" % kv for kv in p.items()),
                words or keys.get("note", "none")))


LEAVES_OUT = (
    "What the model leaves out: out-of-order overlap beyond the "
    "first-order rule of the band (overlap of front-end misses, of "
    "misses with each other across branches, the issue time within a "
    "window), prefetchers (but the L1I's next-line one, an "
    "option), SMT, an L3 and memory (an L1 "
    "miss costs an L2 hit, and with the model's L2 an L2 miss an L3 hit), "
    "TLBs, the real penalties of any CPU, return and indirect-branch "
    "prediction, and the host's own caches (the guest runs in an "
    "emulator).")
NOT_RUN = ("Not in this run: `bench/run --model` (or `./run_all.sh "
           "--model`) adds a modelled branch predictor and L1 caches "
           "(bench/plugin/README.md, \"Model\").")


def section(st, res):
    """The section's Markdown."""
    meta = res.meta.get("model")
    if not meta or not present(st):
        other = band_section(res, st)
        return NOT_RUN + ("\n\n" + other if other else "")
    return "\n".join([
        "**Modelled, not measured**: the plugin ran a model of a core's "
        "branch predictor and caches over each guest's instruction and "
        "memory streams inside tbench's window. " + _parameters(meta), "",
        head(st, "Modelled cycles per tbench operation, %% vs %s"
             % st["baseline"]), "",
        "Modelled cycles = instructions + each penalty x its events "
        "(kernel and user), in order; with overlap, priced by the "
        "overlap rule (the band below says how); the CI is across "
        "perturbation seeds, paired like the headline.", "",
        _cycles_table(st), "",
        band_section(res, st), "",
        head(st, "Model events per tbench operation"), "",
        F.details("Branches, mispredictions, BTB, L1I and L1D figures and "
                  "static-key word accesses per operation, by kernel",
                  _events_table(st, meta)), "",
        head(st, "Where the modelled cycles come from"), "",
        _parts_table(st, meta["penalties"]), "",
        validation(res.selftest) + _selftest_model(meta, res.selftest), "",
        LEAVES_OUT + " Branch outcomes an interrupt or exception cut off "
        "are left unresolved (the events' row \"branches left "
        "unresolved\")."])


def confound(st):
    """The Confounds line of the model (empty without it)."""
    return "\n- model: " + LEAVES_OUT if present(st) else ""
