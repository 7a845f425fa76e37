"""Two results dirs side by side, benchstat-style (analysis/compare).

It first names everything that differs between the two dirs (setup()):
the kernel of each label, the guest image, QEMU, the plugin, the model,
the protocol, the mode and the commit, and each dir's baseline (meta.json).
Then per label found in both dirs, whatever its variant's name, and
metric: old and
new mean +- the 95% CI half-width in %, and the change new vs old. Under
icount it is the report's rule (analysis/stats.py compare_median): the
median per-pair % change with its distribution-free interval, pairs
made by perturbation seed when the dirs share their seeds, else by round;
otherwise (kvm, tcg) the Fieller CI and Welch t of independent boots.

A label whose kernel is the same in both dirs while something else
changed measures the environment, not the kernel. Its difference is
marked `env`, never significant, unless its interval lies beyond the
environment floor measured by the environment study (the level floor of
analysis/calibration.json), when it is marked significant "beyond the
floor". A label whose kernel changed together with the environment is
called significant only beyond that floor too.
"""
import json

import pandas as pd

from analysis.results import metrics, reference
from analysis.stats import calibrate, stats
from analysis.reporting import fmt as F
from analysis.results.load import per_run
from lib.format import schema


def _mode(res):
    return "/".join(sorted(set(res.runs["mode"])))


def _commit(res):
    git = res.meta.get("git") if isinstance(res.meta.get("git"),
                                            dict) else {}
    return git.get("commit", "?")[:12]


UNKNOWN = "not recorded"


def _one(values):
    """The single value of a column or dict, or the sorted set of them."""
    vals = sorted(set(str(v) for v in values))
    return vals[0] if len(vals) == 1 else ", ".join(vals) or "-"


def setup(res):
    """{fact: value} of what defines a dir's runs besides its kernels."""
    runs, meta = res.runs, res.meta
    proto = meta.get("protocol") or {}
    model = meta.get("model")
    plugin = (meta.get("plugin") or {}).get("path") or "none"
    return {
        "mode": _mode(res),
        "commit": _commit(res),
        "image": _one(runs["image_hash"]) if "image_hash" in runs
        else UNKNOWN,
        "QEMU": _one(runs["qemu_version"]) if "qemu_version" in runs
        else UNKNOWN,
        "plugin": plugin.rsplit("/", 1)[-1],
        "model": json.dumps(model, sort_keys=True) if model else "off",
        "protocol": "%s clients, %s s" % (
            proto.get("clients", "?"), proto.get("seconds", "?")),
        "kernel command line added": proto.get("append") or "nothing",
    }


def kernels(res):
    """{label: kernel build hash(es)} of a dir's runs."""
    return {lab: _one(g["kernel_hash"])
            for lab, g in res.runs.groupby("label")}


def differences(old, new):
    """'fact: old -> new' for every fact of setup() that differs."""
    a, b = setup(old), setup(new)
    return ["%s: %s -> %s" % (k, _short(a[k]), _short(b[k]))
            for k in a if a[k] != b[k]]


def _short(text, width=60):
    return text if len(text) <= width else text[:width - 3] + "..."


def pairs(old, new, label, metric):
    """(old values, new values, how) of label: paired by perturbation seed
    when both dirs ran icount on shared seeds, else by round (independent
    draws of each side: any pairing serves the median rule); how is
    "seed", "round", or "" when a side is not icount (then unpaired)."""
    a, b = frame(old, label, metric), frame(new, label, metric)
    if not (a["icount"].all() and b["icount"].all()):
        return a["value"].values, b["value"].values, ""
    for key in ("seed", "round"):
        x = a.groupby(key)["value"].mean()
        y = b.groupby(key)["value"].mean()
        common = sorted(set(x.index) & set(y.index))
        if key == "round" or len(common) == min(len(x), len(y)):
            return x[common].values, y[common].values, key


def frame(res, label, metric):
    """DataFrame (seed, round, icount, value) of the ok runs of label."""
    runs = res.runs
    ok = runs[(runs["status"] == "ok") & (runs["label"] == label)]
    out = pd.DataFrame({"seed": ok["perturb_seed"].astype(str).values,
                        "round": ok["round"].astype(int).values,
                        "icount": (ok["mode"] == "icount").values,
                        "value": per_run(ok, metric)[0].values})
    return out.dropna()


def judge(c, same_kernel, env_changed, floor):
    """The marker of one comparison across two dirs: stars when
    significant; `env` for a same-kernel difference that only the
    environment could have made (significant on its own interval, but
    within the environment floor, or no floor is measured); else `~`.
    When the environment changed, the floor (None: not measured) widens
    the interval first, and without one only another kernel can differ."""
    alone = stats.significant(c)
    if not env_changed:
        sig = alone
    elif floor is None:
        sig = alone and not same_kernel
    else:
        sig = stats.significant(c, floor)
    if sig:
        return stats.marker(c["p_t"])
    return "env" if alone and same_kernel and env_changed else "~"


def spread(x, f=F.val):
    """'40.300 ±0.49%': mean and 95% CI half-width in % of the mean."""
    d = stats.describe(x)
    if F.missing(d["ci_lo"]) or not d["mean"]:
        return f(d["mean"])
    half = 100.0 * (d["ci_hi"] - d["mean"]) / abs(d["mean"])
    return "%s ±%.2f%%" % (f(d["mean"]), half)


def rows(old, new, cal):
    """Table rows: metric, label, old, new, delta [CI], p, n, marker; cal:
    the calibration (analysis/calibrate.py load()) or None."""
    labels = reference.label_order(
        [lab for lab in old.runs["label"] if lab in set(new.runs["label"])])
    cols_old = set(schema.counter_columns(old.runs.columns))
    counters = [c for c in schema.counter_columns(new.runs.columns)
                if c in cols_old]
    out = []
    env_changed = bool(differences(old, new))
    k_old, k_new = kernels(old), kernels(new)
    mode = _mode(new)
    head = metrics.headline(mode) if mode in schema.MODE \
        else "throughput_mbps"
    names = [head] + [m for m in metrics.names() if m != head] + counters
    for metric in names:
        thr = metric in schema.THROUGHPUT
        name = metric if not thr else metric + (
            " (headline)" if metric == head else "")
        name = name if thr else metric + "/op"
        f = F.mbps if metric == "throughput_mbps" else F.val
        for lab in labels:
            a, b, how = pairs(old, new, lab, metric)
            if not len(a) or not len(b):
                continue
            c = stats.compare_median(b, a) if how \
                else stats.compare_unpaired(b, a)
            same = k_old.get(lab) == k_new.get(lab)
            floor = calibrate.floor(cal, metric if thr
                                    else metric + "_per_op", "level")
            mark = judge(c, same, env_changed, floor)
            if env_changed and floor is not None:
                c["floor_pts"] = floor
            out.append([name, lab, spread(a, f), spread(b, f), F.pct_ci(c),
                        "%s %s" % (F.p(c["p_t"]), c["test_t"]),
                        "%d+%d%s" % (len(a), len(b),
                                     " by " + how if how else ""), mark])
    return out


def notes(old, new):
    out = []
    if old.baseline != new.baseline:
        out.append("the dirs have different baselines (%s vs %s): each "
                   "label is compared with itself, not with a baseline"
                   % (old.baseline, new.baseline))
    if _mode(old) != _mode(new):
        out.append("the runs used different modes (%s vs %s): their "
                   "absolute figures are not comparable" % (
                       _mode(old), _mode(new)))
    for tag, res in (("old", old), ("new", new)):
        n = res.runs[res.runs["status"] == "ok"].groupby("label").size()
        small = sorted(lab for lab, k in n.items() if k < 5)
        if small:
            out.append("%s: fewer than 5 ok runs for %s: the CIs are wide"
                       % (tag, ", ".join(small)))
        failed = int((res.runs["status"] == "failed").sum())
        if failed:
            out.append("%s: %d failed tries (see its runs.csv)"
                       % (tag, failed))
    return out


def what_changed(old, new):
    """Lines naming what differs between the dirs, kernels included."""
    k_old, k_new = kernels(old), kernels(new)
    same = sorted(lab for lab in k_old if k_new.get(lab) == k_old[lab])
    other = sorted(lab for lab in k_old if lab in k_new and lab not in same)
    env = differences(old, new)
    out = ["what differs:" + ("" if env else
                              " nothing but the runs' own seeds")]
    out += ["- " + line for line in env]
    if same:
        out.append("same kernel in both: %s%s" % (", ".join(same), (
            " (their differences measure the environment: `env`)"
            if env else "")))
    if other:
        out.append("other kernel: " + ", ".join(
            "%s %s -> %s" % (lab, k_old[lab], k_new[lab]) for lab in other))
    return out


def render(old, new):
    """The whole comparison as text (a Markdown table and notes)."""
    head = ["%s: %s (mode %s, commit %s, baseline %s)" % (
        tag, res.path, _mode(res), _commit(res), res.baseline)
        for tag, res in (("old", old), ("new", new))]
    head += what_changed(old, new) + [""]
    cal = calibrate.load()
    body = rows(old, new, cal)
    if not body:
        return "\n".join(head + ["No label has ok runs in both dirs."]) + "\n"
    table = F.table(["metric", "label", "old (mean ±95% CI)",
                     "new (mean ±95% CI)", "delta [95% CI]", "p (test)",
                     "n", ""], body, "llrrrrrc")
    foot = ["", "~: not significant (icount: the interval holds 0, or "
            "reaches within the environment floor when the environment "
            "changed; kvm/tcg: Welch t p>=0.05). No correction for "
            "multiple comparisons."]
    if any(r[-1] == "env" for r in body):
        foot.append(
            "env: the same kernel in both dirs, so the difference comes "
            "from what else changed (above); not called significant: %s"
            % ("no environment floor has been measured for it"
               if cal is None else "its interval reaches "
               "within the environment floor (analysis/calibration.json)"))
    if any("env" in r[4] for r in body):
        foot.append("±X env: the environment floor, beyond which a "
                    "same-kernel difference is called significant")
    foot += ["note: " + n for n in notes(old, new)]
    return "\n".join(head + [table] + foot) + "\n"
