"""Modes of the per-seed distribution, and what separates them.

Under icount one perturbation seed gives one exact figure, and a kernel's
seeds need not scatter around one centre: the distro run's atomic-read came
out at 124,597-124,621 operations for three seeds and 124,792-124,818 for
two. A t interval over five draws of such a distribution is not a 95% one
(docs/calibration.md), which is why the report's rule is distribution-free;
this module says where the modes are and which other figures of the same
runs move with them, so that a reader sees the mechanism, not only its
spread.

split() finds two modes in one label's per-seed values: the largest gap
between sorted values, when it is several times wider than the spread
inside either side and each side holds at least MIN_SHARE of the seeds.
separators() ranks the other per-run figures of runs.csv by how cleanly
they tell the two modes apart (the rank statistic AUC: 1 or 0 is a clean
cut, 0.5 none). analyse() does both for every label with MIN_SEEDS or more
seeds, and says whether a seed falls in the same mode under every kernel
(a property of the seed's timing) or not (of the kernel).
"""
import numpy as np

from analysis.results.check import MAD_SCALE
from analysis.results.load import per_run, split_counter
from lib.format import schema

MIN_SEEDS = 10
MIN_SHARE = 0.1
GAP_FACTOR = 4.0
# A seed this many robust spreads from the others is an outlier; a figure
# of its run this far from the others' moved with it.
OUTLIER_Z = 6.0
FIGURE_Z = 4.0
# runs.csv figures that may move with a mode, besides the counters (per op)
FIGURES = ("max_latency_ms", "uptime_tbench_start_s", "boot_seconds",
           "user_ticks", "system_ticks", "softirq_ticks", "irq_ticks",
           "idle_ticks", "throughput_mbps")


def _spread(x):
    """Robust spread: MAD_SCALE x the median absolute deviation (an SD for
    normal data; analysis/results/check.py's outlier rule uses the same)."""
    return MAD_SCALE * float(np.median(np.abs(x - np.median(x)))) if len(x) \
        else 0.0


def split(values):
    """(low, high) boolean masks over values when they form two modes,
    else None."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n < MIN_SEEDS:
        return None
    order = np.argsort(x)
    s = x[order]
    gaps = np.diff(s)
    least = max(2, int(np.ceil(MIN_SHARE * n)))
    cands = range(least - 1, n - least)
    if not len(cands):
        return None
    i = max(cands, key=lambda k: gaps[k])
    lo, hi = s[:i + 1], s[i + 1:]
    inside = max(_spread(lo), _spread(hi), 1e-12 * abs(float(s.mean())))
    if gaps[i] <= GAP_FACTOR * inside:
        return None
    low = np.zeros(n, dtype=bool)
    low[order[:i + 1]] = True
    return low, ~low


def auc(a, b):
    """P(a value of b > a value of a), ties counted half."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    greater = (b[:, None] > a[None, :]).sum()
    ties = (b[:, None] == a[None, :]).sum()
    return float((greater + 0.5 * ties) / (a.size * b.size))


def _columns(ok):
    """{name: per-run values} of the figures a mode may move with."""
    out = {}
    for c in schema.counter_columns(ok.columns):
        num, texts = split_counter(ok[c])
        if not texts and num.notna().all():
            out[c + "/op"] = (num / ok["ops"].astype(float)).values
    for c in FIGURES:
        if c in ok.columns:
            v = ok[c].astype(float)
            if v.notna().all():
                out[c] = v.values
    return out


def separators(ok, low, top=4):
    """[(figure, auc, low mean, high mean)] of the figures that best tell
    the modes apart (|auc - 0.5| at least 0.4), best first."""
    out = []
    for name, v in _columns(ok).items():
        if np.all(v == v[0]):
            continue
        a = auc(v[low], v[~low])
        if abs(a - 0.5) >= 0.4:
            out.append((name, a, float(v[low].mean()),
                        float(v[~low].mean())))
    out.sort(key=lambda r: -abs(r[1] - 0.5))
    return out[:top]


def _z(v, i):
    """Robust z of v[i] against the other values: its distance from their
    median in robust spreads (inf when they do not spread)."""
    rest = np.delete(v, i)
    spread = _spread(rest)
    d = v[i] - float(np.median(rest))
    if spread > 0:
        return d / spread
    return 0.0 if d == 0 else float("inf") * np.sign(d)


def outliers(ok, values, top=3):
    """[(seed, % from the median, [(figure, value, median, z)])] of the
    seeds more than OUTLIER_Z robust spreads from the others (at most
    MIN_SHARE of them), each with the figures of its run that sit more
    than FIGURE_Z spreads from theirs, furthest first."""
    v = np.asarray(values, dtype=float)
    if v.size < MIN_SEEDS:
        return []
    med = float(np.median(v))
    far = sorted((i for i in range(v.size) if abs(_z(v, i)) > OUTLIER_Z),
                 key=lambda i: -abs(v[i] - med))
    if len(far) > MIN_SHARE * v.size:
        return []
    cols = _columns(ok)
    seeds = ok["perturb_seed"].astype(str).values
    out = []
    for i in far:
        figs = [(name, float(c[i]), float(np.median(c)), _z(c, i))
                for name, c in cols.items()]
        figs = [f for f in figs if abs(f[3]) > FIGURE_Z and f[3] == f[3]]
        figs.sort(key=lambda f: -abs(f[3]))
        out.append((seeds[i], 100.0 * (v[i] / med - 1), figs[:top]))
    return out


def analyse(runs, labels, headline):
    """{"labels": {label: ...}, "same_seed_mode": {pair: share}}: per label
    its seeds' spread and modes (when it has MIN_SEEDS seeds)."""
    ok_all = runs[(runs["status"] == "ok")
                  & (runs["perturb_seed"].astype(str).str.strip() != "")]
    out, high_seeds = {}, {}
    for label in labels:
        ok = ok_all[ok_all["label"] == label]
        if len(ok) < 2:
            continue
        v = per_run(ok, headline)[0].values.astype(float)
        med = float(np.median(v))
        rec = {"n": int(len(v)), "median": med,
               "min_pct": 100.0 * (v.min() / med - 1),
               "max_pct": 100.0 * (v.max() / med - 1), "modes": None,
               "outliers": outliers(ok, v)}
        masks = split(v)
        if masks is not None:
            low, high = masks
            rec["modes"] = {
                "sizes": [int(low.sum()), int(high.sum())],
                "centres_pct": [100.0 * (float(np.median(v[m])) / med - 1)
                                for m in (low, high)],
                "gap_pct": 100.0 * (v[high].min() - v[low].max()) / med,
                "separators": separators(ok, low)}
            high_seeds[label] = set(ok["perturb_seed"].astype(str)[high])
            rec["all_seeds"] = set(ok["perturb_seed"].astype(str))
        out[label] = rec
    agree = {}
    moded = sorted(high_seeds)
    for i, a in enumerate(moded):
        for b in moded[i + 1:]:
            common = out[a]["all_seeds"] & out[b]["all_seeds"]
            if common:
                same = sum((s in high_seeds[a]) == (s in high_seeds[b])
                           for s in common)
                agree["%s / %s" % (a, b)] = same / len(common)
    for rec in out.values():
        rec.pop("all_seeds", None)
    return {"labels": out, "same_seed_mode": agree}
