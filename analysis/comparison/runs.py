"""Two results dirs side by side, benchstat-style (analysis/compare).

It first names everything that differs between the two dirs (setup()):
the kernel of each label, the guest image, QEMU, the plugin, the model,
the protocol, the accelerator and the commit, and each dir's baseline
(meta.json).
Then per label found in both dirs, whatever its variant's name, and
metric: old and
new mean +- the 95% CI half-width in %, and the change new vs old. Under
icount it is the report's rule (analysis/stats/stats.py compare_median): the
median per-pair % change with its distribution-free interval, pairs
made by perturbation seed when the dirs share their seeds, else by round;
otherwise (kvm, tcg) the Fieller CI and Welch t of independent boots.

The figures are here; analysis/documents/compare.py writes the text.

A label whose kernel is the same in both dirs while something else
changed measures the environment, not the kernel. Its difference is
marked `env`, never significant, unless its interval lies beyond the
environment floor measured by the environment study (the level floor of
analysis/calibration.json), when it is marked significant "beyond the
floor". A label whose kernel changed together with the environment is
called significant only beyond that floor too.
"""
import json
from collections import namedtuple

import pandas as pd

from analysis.results import metrics, reference
from analysis.stats import floorfiles, stats
from analysis.results.load import per_run
from lib.format import schema


def accel_of(res):
    return "/".join(sorted(set(res.runs["accel"])))


def commit_of(res):
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
        "accel": accel_of(res),
        "commit": commit_of(res),
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
    """DataFrame (seed, round, icount, value) of the ok runs of label.
    A dir's ok runs and each metric's figures of them are worked out once
    per dir (kept in res), as rows() asks for every label and metric."""
    cache = res.__dict__.setdefault("_frames", {})
    if "ok" not in cache:
        runs = res.runs
        ok = runs[runs["status"] == "ok"]
        cache["ok"] = ok
        cache["keys"] = pd.DataFrame({
            "seed": ok["perturb_seed"].astype(str).values,
            "round": ok["round"].astype(int).values,
            "icount": (ok["accel"] == "icount").values})
        cache["label"] = ok["label"].values
    if metric not in cache:
        cache[metric] = per_run(cache["ok"], metric)[0].values
    mine = cache["label"] == label
    out = cache["keys"][mine].assign(value=cache[metric][mine])
    return out.dropna().reset_index(drop=True)


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


# One line of the comparison: name (the metric as the table names it),
# metric, label, old and new (stats.describe() of each dir's runs), c
# (the comparison new vs old), n_old, n_new, how (what pairs the runs,
# "" when unpaired) and mark (judge()).
Row = namedtuple("Row", "name metric label old new c n_old n_new how mark")


def rows(old, new, cal, which="all"):
    """[Row] per metric and label found in both dirs, the headline first;
    cal: the calibration (analysis/stats/calibrate.py load()) or None;
    which: "all" metrics, the "throughput" ones only, or the "counters"
    only."""
    labels = reference.label_order(
        [lab for lab in old.runs["label"] if lab in set(new.runs["label"])])
    cols_old = set(schema.counter_columns(old.runs.columns))
    columns = [c for c in schema.counter_columns(new.runs.columns)
               if c in cols_old]
    out = []
    env_changed = bool(differences(old, new))
    k_old, k_new = kernels(old), kernels(new)
    accel = accel_of(new)
    head = metrics.headline(accel) if accel in schema.ACCEL \
        else "throughput_mbps"
    names = [head] + [m for m in metrics.names() if m != head]
    names = (names if which != "counters" else []) + (
        columns if which != "throughput" else [])
    for metric in names:
        thr = metric in schema.THROUGHPUT
        name = metric if not thr else metric + (
            " (headline)" if metric == head else "")
        name = name if thr else metric + "/op"
        for lab in labels:
            a, b, how = pairs(old, new, lab, metric)
            if not len(a) or not len(b):
                continue
            c = stats.compare_median(b, a) if how \
                else stats.compare_unpaired(b, a)
            same = k_old.get(lab) == k_new.get(lab)
            floor = floorfiles.floor(cal, metric if thr
                                     else metric + "_per_op", "level")
            mark = judge(c, same, env_changed, floor)
            if env_changed and floor is not None:
                c["floor_pts"] = floor
            out.append(Row(name, metric, lab, stats.describe(a),
                           stats.describe(b), c, len(a), len(b), how, mark))
    return out
