"""Kernel configs side by side: does the effect grow with the static keys
on the path?

The same experiment on kernels of another base config (kernel-variants/
build --config: full, distro, smoke) is another results dir. REPORT.md
sets the run it comes from beside the newest analysed run of each other
config under the same results/ dir, of the same mode, clients and run
length, so that every figure of the table is one of those runs'
stats.json and build.json, and links to each. Only runs of the built-in
kernels against atomic-read (view.with_2011) are set side by
side: the table is about jump labels.
"""
import os

from analysis import fmt as F
from analysis.facts import proto
from analysis.load import FormatError, read_builds, read_json
from analysis.view import comparisons, metric, unit, with_2011

STATS = "stats.json"
JUMP = "jump-label"


def config_of(builds):
    """The one base config of a run's builds ({variant: build.json}), or
    None when none says or they mix configs."""
    configs = {b.get("config") for b in builds.values()}
    return configs.pop() if len(configs) == 1 else None


def _protocol(meta, st):
    return (st.get("mode"), proto(meta, "clients"), proto(meta, "seconds"))


def peers(res, st):
    """[(config, path, stats, builds)]: this run, then the newest analysed
    run of each other config under its parent dir with its protocol."""
    mine = config_of(res.builds)
    if mine is None:
        return []
    out = [(mine, res.path, st, res.builds)]
    root = os.path.dirname(res.path)
    want = _protocol(res.meta, st)
    seen = {mine}
    for name in sorted(os.listdir(root), reverse=True):
        path = os.path.join(root, name)
        try:
            other = read_json(os.path.join(path, STATS))
            meta = read_json(os.path.join(path, "meta.json"))
        except FormatError:
            continue
        if not other or not meta or path == res.path \
                or not with_2011(other):
            continue
        builds = read_builds({i["variant"] for i in other.get("labels", [])},
                             meta)
        config = config_of(builds)
        if config is None or config in seen \
                or _protocol(meta, other) != want:
            continue
        seen.add(config)
        out.append((config, path, other, builds))
    return out


def _mean(st, name, label):
    m = metric(st, name)
    d = (m or {}).get("per_label", {}).get(label)
    return None if not d or F.missing(d["mean"]) else d["mean"]


def _change(st, label):
    """The headline's comparison of label with the baseline, or None."""
    m = metric(st, st["headline"])
    return comparisons(m, "main").get(label) if m else None


def row(config, path, st, builds, out_dir):
    """The table row of one run and the figures the summary needs."""
    base = st["baseline"]
    sites = _mean(st, "site_execs_per_op", JUMP)
    insns = {lab: _mean(st, "kernel_insns_per_op", lab)
             for lab in (JUMP, base)}
    saved = None if None in insns.values() else insns[base] - insns[JUMP]
    density = sites * 1000.0 / insns[JUMP] if sites and insns[JUMP] else None
    jl = _change(st, JUMP)
    pr = _change(st, "plain-read")
    entries = ((builds.get(JUMP) or {}).get("verify") or {}).get(
        "jump_table", {}).get("entries")
    cells = [
        "`%s`" % config,
        "[%s](%s)" % (os.path.basename(path),
                      os.path.relpath(path, out_dir)),
        "?" if entries is None else str(entries),
        F.val(sites) if sites else "n/a",
        F.val(insns[JUMP]) if insns[JUMP] else "n/a",
        F.val(density, 3) if density else "n/a",
        F.val(saved) if saved is not None else "n/a",
        F.val(saved / sites, 3) if saved is not None and sites else "n/a",
        "%s %s" % (F.pct_ci(jl), jl["marker"]) if jl else "n/a",
        "%s %s" % (F.pct_ci(pr), pr["marker"]) if pr else "n/a"]
    return cells, {"config": config, "sites": sites, "insns": insns[JUMP],
                   "density": density, "gain": jl}


def gain_difference(a, b):
    """(b - a, half-width of its approximate 95% CI) of two comparisons of
    independent runs: the half-widths of their CIs combined in quadrature.
    None when either lacks a CI."""
    try:
        ha = (a["pct_ci_hi"] - a["pct_ci_lo"]) / 2.0
        hb = (b["pct_ci_hi"] - b["pct_ci_lo"]) / 2.0
        d = b["pct_change"] - a["pct_change"]
    except (KeyError, TypeError):
        return None
    if any(F.missing(x) for x in (ha, hb, d)):
        return None
    return d, (ha * ha + hb * hb) ** 0.5


def summary(figs):
    """One paragraph per other config: its site executions and path
    length against the first (this run's), and whether jump labels gain
    more there."""
    first, out = figs[0], []
    for f in figs[1:]:
        if None in (first["sites"], f["sites"], first["insns"], f["insns"],
                    first["gain"], f["gain"]):
            continue
        diff = gain_difference(first["gain"], f["gain"])
        if diff is None:
            continue
        d, half = diff
        if abs(d) <= half:
            verdict = ("not resolved: these runs cannot tell a larger gain "
                       "from the same one")
        else:
            verdict = "the gain is %s there" % (
                "larger" if d > 0 else "smaller")
        out.append(
            "`%s` executes %sx the static-key sites per operation of `%s` "
            "(%s against %s), on a kernel path %sx as long (%s against %s "
            "kernel instructions per operation), so %s sites per 1,000 "
            "kernel instructions against %s. Jump labels gain %s there, "
            "%s here: a difference of %s points [%s, %s] (approximate 95%% "
            "CI, from the two runs' CIs), %s." % (
                f["config"], F.val(f["sites"] / first["sites"], 3),
                first["config"], F.val(f["sites"]), F.val(first["sites"]),
                F.val(f["insns"] / first["insns"], 3), F.val(f["insns"]),
                F.val(first["insns"]), F.val(f["density"], 3),
                F.val(first["density"], 3), F.pct_ci(f["gain"]),
                F.pct_ci(first["gain"]), "%+.2f" % d, "%+.2f" % (d - half),
                "%+.2f" % (d + half), verdict))
    return out


def section(res, st, out_dir):
    """The Markdown of the section (a line saying how to get the other
    configs' runs when there are none)."""
    if not with_2011(st):
        return ("Not shown: this section sets jump labels against atomic "
                "reads across kernel configs, and this run compares other "
                "kernels (against `%s`)." % st["baseline"])
    runs = peers(res, st)
    if len(runs) < 2:
        return ("No analysed run of another kernel config with this run's "
                "mode, clients and run length under %s (`./run_all.sh "
                "--config distro` runs the same experiment on Debian's own "
                "configuration)." % os.path.relpath(
                    os.path.dirname(res.path), out_dir))
    rows, figs = [], []
    for r in runs:
        cells, f = row(*r, out_dir=out_dir)
        rows.append(cells)
        figs.append(f)
    base = st["baseline"]
    out = [
        "The same protocol on kernels of each base config "
        "(`kernel-variants/build --config`), each its own run: this one "
        "first; instructions and sites are `%s`'s (the TCG plugin counts "
        "sites in jump-label kernels). A jump-label kernel executes a NOP "
        "at each static-key site; the others load the key and branch on "
        "it, so the kernel instructions `%s` runs beyond `%s` per "
        "operation, divided by the sites executed, are the check's cost "
        "per site. Under icount the gain follows the share of the path "
        "that checks take: more keys on the path raise it only if they "
        "outgrow the rest of the path." % (JUMP, base, JUMP),
        "",
        F.table(["config", "run", "jump table entries (`%s`)" % JUMP,
                 "static-key site executions / op",
                 "kernel instructions / op",
                 "sites per 1,000 kernel instructions",
                 "`%s` - `%s` kernel instructions / op" % (base, JUMP),
                 "per site execution",
                 "`%s` vs `%s`, %s [95%% CI]" % (
                     JUMP, base, unit(st["headline"])),
                 "`plain-read` vs `%s`" % base], rows, "llrrrrrrrr")]
    said = summary(figs)
    if said:
        out += [""] + said
    out += ["", "Each run's comparisons are within it (its kernels on the "
            "same perturbation seeds); runs of different configs are not "
            "paired, and their absolute figures differ because their "
            "kernels do: compare the % changes and the cost per site."]
    return "\n".join(out)
