"""Two results dirs side by side, benchstat-style (analysis/compare).

Per label and metric: old and new mean +- the 95% CI half-width in %, the
% change new vs old with its Fieller 95% CI, the Welch t p-value, n, and
`~` when the change is not significant. Runs of two results dirs are
independent samples, so the comparison is unpaired.

It first names everything that differs between the two dirs (setup()):
the kernel of each label, the guest image, QEMU, the plugin, the model,
the protocol, the mode and the commit. A label whose kernel is the same
in both dirs while something else changed measures the environment, not
the kernel: the committed runs show such changes move ops/s by a few
hundredths of a per cent, beyond what seed-to-seed noise predicts. Such a
difference is marked `env`, never significant, unless its whole CI lies
beyond ENV_FLOOR_PCT, the environment's measured floor.
"""
import json

from analysis import metrics, reference, stats
from analysis import fmt as F
from analysis.load import split_counter
from lib.format import schema


def values(res, label, metric):
    """Per-run values (per op for counters) of the ok runs of label."""
    runs = res.runs
    ok = runs[(runs["status"] == "ok") & (runs["label"] == label)]
    if metric == "ops_per_s":
        return metrics.ops_per_s(ok).values
    if metric == "throughput_mbps":
        return ok[metric].astype(float).values
    num, _ = split_counter(ok[metric])
    return (num / ok["ops"]).dropna().values


def _mode(res):
    return "/".join(sorted(set(res.runs["mode"])))


def _commit(res):
    git = res.meta.get("git") if isinstance(res.meta.get("git"),
                                            dict) else {}
    return git.get("commit", "?")[:12]


# The smallest difference an environment change alone does not make, in %:
# not measured yet (a study of the same kernels under changed images),
# so a same-kernel difference is never called significant.
ENV_FLOOR_PCT = None
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


def environment_marker(c, mark):
    """The marker of a same-kernel comparison across changed environments:
    `env` unless the CI lies beyond the environment floor."""
    if mark == "~":
        return "~"
    floor = ENV_FLOOR_PCT
    if floor is not None and (c["pct_ci_lo"] > floor
                              or c["pct_ci_hi"] < -floor):
        return mark
    return "env"


def spread(x, f=F.val):
    """'40.300 ±0.49%': mean and 95% CI half-width in % of the mean."""
    d = stats.describe(x)
    if F.missing(d["ci_lo"]) or not d["mean"]:
        return f(d["mean"])
    half = 100.0 * (d["ci_hi"] - d["mean"]) / abs(d["mean"])
    return "%s ±%.2f%%" % (f(d["mean"]), half)


def rows(old, new):
    """Table rows: metric, label, old, new, delta [CI], p, n, marker."""
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
            a, b = values(old, lab, metric), values(new, lab, metric)
            if not len(a) or not len(b):
                continue
            c = stats.compare_unpaired(b, a)
            mark = stats.marker(c["p_t"])
            if env_changed and k_old.get(lab) == k_new.get(lab):
                mark = environment_marker(c, mark)
            out.append([name, lab, spread(a, f), spread(b, f), F.pct_ci(c),
                        F.p(c["p_t"]), "%d+%d" % (len(a), len(b)),
                        "~" if mark == "~" else mark])
    return out


def notes(old, new):
    out = []
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
    head = ["old: %s (mode %s, commit %s)" % (old.path, _mode(old),
                                              _commit(old)),
            "new: %s (mode %s, commit %s)" % (new.path, _mode(new),
                                              _commit(new))]
    head += what_changed(old, new) + [""]
    body = rows(old, new)
    if not body:
        return "\n".join(head + ["No label has ok runs in both dirs."]) + "\n"
    table = F.table(["metric", "label", "old (mean ±95% CI)",
                     "new (mean ±95% CI)", "delta [95% CI]", "p (Welch t)",
                     "n", ""], body, "llrrrrrc")
    foot = ["", "~: not significant at p<0.05 (Welch t, unpaired; "
            "delta CI: Fieller). No correction for multiple comparisons."]
    if any(r[-1] == "env" for r in body):
        foot.append(
            "env: the same kernel in both dirs, so the difference comes "
            "from what else changed (above); not called significant: %s"
            % ("no environment floor has been measured yet"
               if ENV_FLOOR_PCT is None else
               "its CI reaches within the environment floor of +-%.2f%%"
               % ENV_FLOOR_PCT))
    foot += ["note: " + n for n in notes(old, new)]
    return "\n".join(head + [table] + foot) + "\n"
