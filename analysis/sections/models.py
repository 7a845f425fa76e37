"""REPORT.md's "Modelled hardware cost" (what `bench/run --model` counted:
analysis/models/modelcost.py) and "Against published hardware counters"
(the model's pipe runs beside the perf stat table of the kernel's
Documentation/staging/static-keys.rst: analysis/models/published.py).
Every figure here is a model's, labelled so: not a measurement of any
CPU."""
from analysis.models import modelcost, published
from analysis.sections import fmt as F
from analysis.sections.fmt import head
from analysis.results.runinfo import comparisons, metric, proto
from lib import model


def _gain_cell(g):
    """fmt.pct_ci of a (change, lo, hi) triple."""
    if g is None:
        return "n/a"
    return F.pct_ci(dict(zip(("pct_change", "pct_ci_lo", "pct_ci_hi"), g)))


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
        "%s [95%% CI]" % t for t, _, _ in modelcost.BAND], rows, "llrrr")


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
    "workload, baseline, accelerator and clients, if any, each with its own "
    "parameters (the presets' table in docs/model.md, fixed in %s and "
    "%s) and its own instruction path." % model.PRESETS_FIXED_IN)


def band_section(res, st):
    """The band's table and notes, or "" when neither this run nor a
    peer has the model."""
    got = modelcost.bands(res, st)
    if not got:
        return ""
    return "\n".join([
        head("The band: modelled gain vs %s, with overlap and without"
             % st["baseline"]), "",
        _band_table(res, got), "",
        _band_note(got, st["baseline"]) + " " + BANDS])


def _cell(x, digits=6):
    return "n/a" if x is None else F.val(x, digits)


def _cycles_table(st):
    """In order, and with overlap beside it when the run has it."""
    m, ooo = metric(st, modelcost.CYCLES), metric(st, modelcost.CYCLES_OOO)
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
    rows = [[title] + [_cell(modelcost.per_op(st, lab, cols)) for lab in main]
            for title, cols in modelcost.ROWS
            if all(modelcost.has(meta, w)
                   for w in modelcost.OPTION_ROWS.get(title, ()))]
    return F.table(["per tbench operation (kernel + user)"]
                   + ["`%s`" % lab for lab in main], rows,
                   "l" + "r" * len(main))


def _parts_table(st, penalties):
    main = st["groups"]["main"]
    got = modelcost.breakdown(st, penalties)
    rows = [[p.title] + [_cell(got[lab][i][1]) for lab in main]
            for i, p in enumerate(modelcost.parts(penalties))]
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
    if not meta or not modelcost.present(st):
        other = band_section(res, st)
        return NOT_RUN + ("\n\n" + other if other else "")
    return "\n".join([
        "**Modelled, not measured**: the plugin ran a model of a core's "
        "branch predictor and caches over each guest's instruction and "
        "memory streams inside tbench's window. " + _parameters(meta), "",
        head("Modelled cycles per tbench operation, %% vs %s"
             % st["baseline"]), "",
        "Modelled cycles = instructions + each penalty x its events "
        "(kernel and user), in order; with overlap, priced by the "
        "overlap rule (the band below says how); the CI is across "
        "perturbation seeds, paired like the headline.", "",
        _cycles_table(st), "",
        band_section(res, st), "",
        head("Model events per tbench operation"), "",
        F.details("Branches, mispredictions, BTB, L1I and L1D figures and "
                  "static-key word accesses per operation, by kernel",
                  _events_table(st, meta)), "",
        head("Where the modelled cycles come from"), "",
        _parts_table(st, meta["penalties"]), "",
        validation(res.selftest) + _selftest_model(meta, res.selftest), "",
        LEAVES_OUT + " Branch outcomes an interrupt or exception cut off "
        "are left unresolved (the events' row \"branches left "
        "unresolved\")."])


def confound(st):
    """The Confounds line of the model (empty without it)."""
    return "\n- model: " + LEAVES_OUT if modelcost.present(st) else ""


def _changes(table, got, figs):
    """The % changes, published and each model's (a cell whose interval
    overlaps the published one marked "overlaps"), and how many cells
    have an interval and how many of them overlap."""
    rows, have, overlap = [], 0, 0
    for counter, here, _ in published.ROWS:
        p = published.published_change(table, counter)
        cells = []
        for fig in figs:
            f = fig.get((counter, here))
            o = None if f is None else published._overlaps(f.change, p)
            have += o is not None
            overlap += bool(o)
            cells.append("n/a" if f is None else F.pct_ci(f.change)
                         + (" overlaps" if o else ""))
        rows.append(["%s: %s" % (counter, _gain_cell(p)), here] + cells)
    return F.table(["published: JUMP_LABEL on vs off [95% CI]", "here"]
                   + ["`%s` (run %s)" % (w, r) for w, r, _, _, _ in got],
                   rows, "ll" + "r" * len(got)), have, overlap


def _scale(table, got, figs):
    """Per round trip: published off and on (the whole count / the round
    trips), then each model's atomic-read and jump-label."""
    rows = []
    for counter, here, _ in published.ROWS:
        scale, unit = (1e6, " us") if counter == "seconds time elapsed" \
            else (1.0, "")
        cells = [F.val(table[k][counter][0] / published.PUBLISHED_LOOPS
                       * scale, 5) + unit for k in ("off", "on")] + [here]
        for fig in figs:
            f = fig.get((counter, here))
            cells += ["n/a", "n/a"] if f is None else [
                F.val(f.off, 5) + unit, F.val(f.on, 5) + unit]
        rows.append([counter] + cells)
    return F.table(
        ["per round trip", "published off", "published on", "here"]
        + ["`%s` `%s`" % (w, k) for w, _, _, _, _ in got
           for k in (published.OFF, published.ON)],
        rows, "lrrl" + "r" * (2 * len(got)))


def _saved(table, got, figs):
    """Sentences: what jump labels save per round trip, here and
    published."""
    def pub(counter):
        return (table["off"][counter][0] - table["on"][counter][0]) \
            / published.PUBLISHED_LOOPS

    def here(fig, counter, what):
        f = fig.get((counter, what))
        return None if f is None else f.off - f.on
    insns = here(figs[0], "instructions", "instructions (counted)")
    branches = here(figs[0], "branches", "conditional branches (counted)")
    if insns is None or branches is None:
        return ""
    cycles = ["`%s` %.0f" % (w, c) for (w, _, _, _, _), c in zip(got, [
        here(f, "cycles", "modelled cycles, with overlap") for f in figs])
        if c is not None]
    return (
        "Jump labels save %.0f instructions and %.0f conditional branches "
        "per round trip here%s; %.0f instructions, %.0f branches (of every "
        "kind) and %.0f cycles in the published table. A saved conditional "
        "branch is a static-key check that compiled to a NOP: this path "
        "runs several times as many per round trip as 3.3's did, so the "
        "instructions' and branches' %% changes are larger here. " % (
            insns, branches, ", and modelled cycles with overlap: "
            + ", ".join(cycles) if cycles else "", pub("instructions"),
            pub("branches"), pub("cycles")))


def published_section(res, st):
    """REPORT.md's comparison of the model's deltas with the published
    ones, or a paragraph saying what is missing."""
    got = published.runs(res, st)
    if not got:
        return (
            "No pipe run with the model of these kernels under this "
            "results dir: `./run_all.sh --workload pipe --variants "
            "%s,%s --no-aa --boots 6 --model-preset NAME` makes one per "
            "core preset." % (published.ON, published.OFF))
    pub = next((o["published"] for _, _, _, o, _ in got
                if o.get("published")), None)
    if pub is None:
        return ("The pipe runs (%s) were analysed without the published "
                "table: no kernel tree in the cache has %s (`lib/deps`, "
                "then analysis/analyze them again)." % (
                    ", ".join(r for _, r, _, _, _ in got), published.DOC))
    table = {k: {c: tuple(v) for c, v in b.items()}
             for k, b in pub["table"].items()}
    figs = [published.figures(r) for _, _, _, _, r in got]
    changes, have, overlap = _changes(table, got, figs)
    loops = {m.get("protocol", {}).get("loops") for _, _, m, _, _ in got}
    return "\n".join([
        "**A model against hardware**: the kernel's own %s has a `perf "
        "stat` table of a JUMP_LABEL-on and a JUMP_LABEL-off kernel on "
        "`perf bench sched pipe` (%s round trips, 50 runs each, Linux "
        "3.3.0-rc2, an unnamed CPU), recorded from `$JLBENCH_CACHE/%s` "
        "when the pipe runs were analysed. Beside each published %% "
        "change, the same change here, `%s` vs `%s`, from the newest pipe "
        "run of each core model (`--workload pipe`, %s round trips, paired "
        "by perturbation seed as a headline; instructions and branches "
        "are the plugin's exact counts, the rest a model's). %s" % (
            published.DOC, "{:,}".format(published.PUBLISHED_LOOPS),
            pub["source"], published.ON, published.OFF,
            "/".join("{:,}".format(x) if isinstance(x, int) else str(x)
                     for x in sorted(loops, key=str)),
            PRESETS_FIXED), "",
        head("Published hardware counters vs the model, %s vs %s"
             % (published.ON, published.OFF)), "",
        changes, "",
        "Published intervals: 1.96 x the two means' errors (perf stat's "
        "\"+-\", the stdev of the mean; the enabled kernel's elapsed time "
        "has none). " + (
            "%d of the %d changes here with an interval overlap the "
            "published interval (marked)." % (overlap, have)
            if have else "No run here has the 6 seeds an "
            "interval needs."), "",
        head("Per round trip: published and here"), "",
        _scale(table, got, figs), "",
        "Published: the whole count of `perf stat` / %s round trips (it "
        "includes the start of bash and perf). " % "{:,}".format(
            published.PUBLISHED_LOOPS) + _saved(table, got, figs)
        + DIFFERENCES.format(linux=st.get("linux") or "?")])


PRESETS_FIXED = (
    "The presets' parameters were fixed and committed before the first "
    "pipe run with the model: %s (caches, predictors, penalties) and %s "
    "(reorder buffer and width); this comparison is shown as it came "
    "out, never tuned." % model.PRESETS_FIXED_IN)


DIFFERENCES = (
    "What differs, and is left as it is: their kernel was 3.3 with "
    "JUMP_LABEL on or off, ours Linux {linux} with our atomic-read "
    "fallback; their "
    "CPU is unnamed, ours a model; perf stat counted all of `bash -c "
    "pipe-test` across two CPUs, our window counts one vCPU from perf "
    "bench's start to its exit; perf's `branches` is every retired "
    "branch (calls, returns and jumps too), ours the conditional ones; "
    "elapsed time here is guest time under icount, which follows the "
    "instruction count, not the cycles.")
