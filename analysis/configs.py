"""Kernel configs side by side: does the effect grow with the static keys
on the path?

The same experiment on kernels of another base config (kernel-variants/
build --config: full, distro, smoke) is another results dir. REPORT.md
sets the run it comes from beside the newest analysed run of each other
config under the same results/ dir, of the same mode, clients and run
length, so that every figure of the table is one of those runs'
stats.json and build.json, and links to each.
"""
import json
import os

from analysis import fmt as F
from analysis.view import comparisons, metric

STATS = "stats.json"
JUMP = "jump-label"


def config_of(builds):
    """The one base config of a run's builds ({variant: build.json}), or
    None when there is none or they mix configs."""
    configs = {b.get("config") for b in builds.values()}
    return configs.pop() if len(configs) == 1 else None


def _builds(meta):
    builds = meta.get("builds") if isinstance(meta.get("builds"),
                                              dict) else {}
    return {v: b.get("build") or {} for v, b in builds.items()
            if isinstance(b, dict)}


def _protocol(meta, st):
    p = meta.get("protocol") if isinstance(meta.get("protocol"),
                                           dict) else {}
    return (st.get("mode"), p.get("clients"), p.get("seconds"))


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


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
        other = _read(os.path.join(path, STATS))
        meta = _read(os.path.join(path, "meta.json"))
        if not other or not meta or path == res.path:
            continue
        builds = _builds(meta)
        config = config_of(builds)
        if config in seen or _protocol(meta, other) != want:
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
        F.val(insns[base]) if insns[base] else "n/a",
        F.val(saved) if saved is not None else "n/a",
        F.val(saved / sites, 3) if saved is not None and sites else "n/a",
        "%s %s" % (F.pct_ci(jl), jl["marker"]) if jl else "n/a",
        "%s %s" % (F.pct_ci(pr), pr["marker"]) if pr else "n/a"]
    return cells, {"config": config, "sites": sites,
                   "gain": jl["pct_change"] if jl else None}


def summary(figs):
    """One sentence per other config: its site executions and jump-label
    gain against the first (this run's)."""
    first, out = figs[0], []
    for f in figs[1:]:
        if None in (first["sites"], f["sites"], first["gain"], f["gain"]):
            continue
        more_sites = f["sites"] > first["sites"]
        more_gain = f["gain"] > first["gain"]
        out.append(
            "`%s` executes %s static-key sites per operation where `%s` "
            "executes %s (%sx), and jump labels gain %s there against %s "
            "here: %s." % (
                f["config"], F.val(f["sites"]), first["config"],
                F.val(first["sites"]), F.val(f["sites"] / first["sites"], 3),
                F.pct(f["gain"]), F.pct(first["gain"]),
                "the gain grows with the keys on the path"
                if more_sites == more_gain else
                "the gain does not grow with the keys on the path"))
    return out


def section(res, st, out_dir):
    """The Markdown of the section (a line saying how to get the other
    configs' runs when there are none)."""
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
        "first. A jump-label kernel executes a NOP at each static-key "
        "site; the others load the key and branch on it, so the kernel "
        "instructions `%s` runs beyond `%s` per operation, divided by "
        "the sites executed, are the check's cost per site." % (base, JUMP),
        "",
        F.table(["config", "run", "jump table entries (`%s`)" % JUMP,
                 "static-key site executions / op",
                 "kernel instructions / op (`%s`)" % base,
                 "`%s` - `%s` kernel instructions / op" % (base, JUMP),
                 "per site execution",
                 "`%s` vs `%s`, %s [95%% CI]" % (JUMP, base, st["headline"]),
                 "`plain-read` vs `%s`" % base], rows, "llrrrrrrr")]
    said = summary(figs)
    if said:
        out += [""] + said
    out += ["", "Each run's comparisons are within it (its kernels on the "
            "same perturbation seeds); runs of different configs are not "
            "paired, and their absolute figures differ because their "
            "kernels do: compare the % changes and the cost per site."]
    return "\n".join(out)
