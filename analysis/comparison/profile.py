"""Where a difference comes from, per function: the per-function profiles
of a results dir's tries (raw/<NNN>-<variant>-try<K>.profile.gz, read by
lib/format/profile.py) per tbench operation, and the paired difference of
two sets of tries, as cachegrind's cg_diff shows it for user space.

A set of tries (Tries) is the ok tries of one label of a results dir that
have a profile, at the dir's longest run length and without the runs.csv
lines analysis/results/check.py left out (stats.json): the tries the report's
statistics use. Diff sets two sets side by side, function by function
(a name: kernel code outside the symbol table is "[kernel]", user space
"[user]", kept apart from the kernel's total):

- A/op, B/op: the mean over each set's tries of the function's figure
  divided by the try's ops, so that the kernel's functions add up to the
  per-op mean of "Branch counts" (kernel_insns_per_op, ...);
- diff/op: B/op - A/op, so that listed functions plus "other" add up
  exactly to the difference of the kernel's totals; its interval is the
  headline's rule (analysis/stats/stats.py median_interval): the per-pair
  differences, pairs by perturbation seed (by round when the two sets do
  not share their seeds, as analysis/compare pairs), and the
  distribution-free 95% interval of their median. A difference is
  significant when that interval, widened by an environment floor, holds
  no 0: the difference floor within a results dir, as the headline's;
  across two, the level floor when their environments differ, as
  analysis/compare's, else none. A function's (and user space's) floor is
  its own, measured on the workload's environment study with profiles
  (analysis/stats/envfloor.py; stored per workload by
  analysis/stats/floorfiles.py), where the study saw it; the rest (other,
  the total, a function the study never ran) take the kernel total's
  (analysis/calibration.json or floors.json, in points of A's total);
- share: diff / the kernel total's diff;
- sites: a function with static-key sites executes them as often in every
  kernel (the check sits at the same places), so its site executions per
  op come from the set that counts them (site_execs, a jump-label kernel),
  that set itself, else another label of the same run(s). Its sites' part
  is site executions per op x the difference in instructions per disabled
  check between the two kernels (selftest.csv count.off_insns_per_iter);
  the rest of its difference is other code. Without a selftest figure or
  site counts the part is None ("not counted"), never a guess.
"""
import itertools

import pandas as pd

from analysis.comparison.runs import differences
from analysis.results import reference
from analysis.stats import calibrate, floorfiles, stats
from analysis.results.load import (FormatError, Results, counted, longest,
                                   ok_rows)
from analysis.results.peers import newest
from lib.format import identity, rawfiles
from lib.format import profile as pf
from lib.format import schema

METRICS = ("insns", "mispredicts", "l1i_misses", "l1d_misses")
SITES = "site_execs"
# selftest.csv figure of one disabled static-key check, per metric
PER_CHECK = {"insns": "count.off_insns_per_iter"}
NO_PROFILES = (
    "%s has no per-function profile (raw/*%s): it was made before the "
    "plugin wrote profiles, or not under icount; rerun it under icount "
    "with the branch-count plugin (./run_all.sh --accel icount, or "
    "bench/run --accel icount without --no-plugin)")


class NoProfiles(FormatError):
    """A results dir (or label) whose tries have no profile."""


class UnknownLabel(FormatError):
    """A label a results dir does not have."""


def kernel_column(metric):
    """The runs.csv column a metric's kernel rows add up to."""
    return "kernel_" + metric


def path_of(res, row):
    """The profile of a runs.csv row (it may not exist)."""
    return identity.try_base(res.path, row) + pf.RAW_EXT


def ok_runs(res):
    """The ok runs of a results dir the report's statistics use."""
    runs = longest(res.runs)
    return ok_rows(runs)


def has_profiles(res):
    """Whether any ok try of res has a profile."""
    return any(rawfiles.isfile(path_of(res, r))
               for _, r in ok_runs(res).iterrows())


def main_labels(res):
    """Labels that are their variant's (not A/A twins), 2011's order."""
    runs = res.runs
    return reference.label_order(runs.loc[runs["label"] == runs["variant"],
                                          "label"])


class Tries:
    """The profiled ok tries of one label of a results dir: runs (their
    runs.csv rows), unprofiled (ok tries without a profile) and per_op()."""

    def __init__(self, res, label):
        ok = ok_runs(res)
        if label not in set(res.runs["label"]):
            raise UnknownLabel("%s has no label %r; its labels: %s" % (
                res.path, label, ", ".join(sorted(set(res.runs["label"])))))
        ok = ok[ok["label"] == label]
        has = [rawfiles.isfile(path_of(res, r)) for _, r in ok.iterrows()]
        self.res, self.label = res, label
        self.runs = ok[has].reset_index(drop=True)
        self.unprofiled = len(ok) - len(self.runs)
        if self.runs.empty:
            raise NoProfiles(NO_PROFILES % ("%s (label %s)" % (
                res.path, label), pf.RAW_EXT))
        self.variant = self.runs["variant"].iloc[0]
        self.profiles = []
        for _, r in self.runs.iterrows():
            try:
                p = pf.read(path_of(res, r))
            except pf.ProfileError as e:
                raise FormatError(str(e))
            self.profiles.append((p.columns, p.by_name()))
        self._per_op = {}

    def columns(self):
        """The columns every profile of the set has."""
        return set.intersection(*(set(c) for c, _ in self.profiles))

    def per_op(self, column):
        """DataFrame of column / ops: a row per try, a column per name."""
        if column not in self._per_op:
            if column not in self.columns():
                raise FormatError(
                    "the profiles of %s in %s have no %s column%s" % (
                        self.label, self.res.path, column,
                        " (run with --model)" if column in METRICS else ""))
            rows = []
            for (cols, names), ops in zip(self.profiles, self.runs["ops"]):
                i = cols.index(column)
                rows.append({n: v[i] / float(ops) for n, v in names.items()
                             if v[i]})
            self._per_op[column] = pd.DataFrame(rows).fillna(0.0)
        return self._per_op[column]

    def keys(self, key):
        """Each try's pairing key (perturb_seed or round) as text."""
        return self.runs[key].astype(str).values


def pair_key(a, b):
    """How two sets pair: by perturbation seed when both ran icount and
    the seeds of one all occur in the other (the headline's pairing, and
    analysis/compare's), else by round."""
    sa, sb = set(a.keys("perturb_seed")), set(b.keys("perturb_seed"))
    icount = all((t.runs["accel"] == "icount").all() for t in (a, b))
    if icount and "" not in sa | sb and \
            len(sa & sb) == min(len(sa), len(sb)):
        return "perturb_seed"
    return "round"


def site_counts(candidates):
    """(set, Series of site executions per op by name) of the first set
    of candidates whose profiles count them, or (None, None)."""
    for t in candidates:
        if SITES in t.columns():
            s = t.per_op(SITES).mean()
            if (s > 0).any():
                return t, s[s > 0]
    return None, None


def per_check(t, metric):
    """What one disabled static-key check costs in t's kernel, in metric
    (selftest.csv), or None when not counted."""
    name = PER_CHECK.get(metric)
    return counted(t.res.selftest, t.variant, name) if name else None


def floor_kind(res_a, res_b):
    """Which environment floor judges a comparison of res_a's tries with
    res_b's, as the headline's: "difference" within one results dir;
    across two, "level" when their environments differ
    (analysis/comparison/runs.py), else None (no floor)."""
    if res_a.path == res_b.path:
        return "difference"
    return "level" if differences(res_a, res_b) else None


def floor_points(res, metric, kind):
    """The kernel total's environment floor of kind, in points of its
    figure, by the calibration of res's workload; 0 when none."""
    if kind is None:
        return 0.0
    return floorfiles.floor(calibrate.for_run(res.meta),
                            kernel_column(metric) + "_per_op", kind) or 0.0


class Diff:
    """B against A per function for one metric (see the module's text):
    total, user (rows), rows(n), sites_part, notes."""

    def __init__(self, a, b, metric="insns", candidates=()):
        """candidates: other sets (an iterable, read only as far as
        needed) whose site counts serve when neither A nor B counts
        them."""
        if metric not in METRICS:
            raise ValueError("metric %r: one of %s" % (metric,
                                                       ", ".join(METRICS)))
        self.a, self.b, self.metric = a, b, metric
        A, B = a.per_op(metric), b.per_op(metric)
        names = A.columns.union(B.columns)
        A = A.reindex(columns=names, fill_value=0.0)
        B = B.reindex(columns=names, fill_value=0.0)
        self.key = pair_key(a, b)
        pa = A.groupby(a.keys(self.key)).mean()
        pb = B.groupby(b.keys(self.key)).mean()
        common = pa.index.intersection(pb.index).sort_values()
        self.lost = len(pa.index.symmetric_difference(pb.index))
        self.pairs = len(common)
        self.d = pb.loc[common] - pa.loc[common]
        self.mean_a, self.mean_b = A.mean(), B.mean()
        self.kernel = [n for n in names if n != pf.USER]
        self.diff = self.mean_b - self.mean_a
        self.sites_from, sites = site_counts(
            itertools.chain((b, a), candidates))
        self.sites = None if sites is None else \
            sites.reindex(self.kernel, fill_value=0.0)
        ca, cb = per_check(a, metric), per_check(b, metric)
        self.per_check = (ca, cb)
        self.delta = None if ca is None or cb is None else cb - ca
        self.floor_kind = floor_kind(a.res, b.res)
        self.scale = abs(float(self.mean_a[self.kernel].sum())) / 100.0
        self.floor = floor_points(a.res, metric, self.floor_kind) * \
            self.scale
        self.workload = schema.workload(a.res.meta)
        self.function_floors = floorfiles.function_floors(
            self.workload, metric) if self.floor_kind else None
        self.total_diff = float(self.diff[self.kernel].sum())
        self.total = self._row("total", "total", self.kernel)
        self.user = self._row(pf.USER, "user", [pf.USER]) \
            if pf.USER in names else None
        self.sites_part = self.total["sites_part"]

    def _row(self, name, kind, cols):
        """A row over the names cols (summed): figures, interval, sites."""
        d = self.d[cols].sum(axis=1).values
        med, lo, hi = stats.median_interval(d)
        lo, hi = float(lo), float(hi)
        floor, own = self.floor_of(name, kind)
        sig = stats.excludes_zero(lo, hi, floor)
        sites = None if self.sites is None or kind == "user" else \
            float(self.sites.reindex(cols, fill_value=0.0).sum())
        row = {"name": name, "kind": kind, "functions": len(cols),
               "a": float(self.mean_a[cols].sum()),
               "b": float(self.mean_b[cols].sum()),
               "median": float(med), "lo": lo, "hi": hi,
               "significant": sig,
               "marker": stats.marker(stats.sign_test_p(d)) if sig
               else "~", "sites": sites, "floor": floor,
               "own_floor": own}
        return self._derived(row, row["b"] - row["a"])

    def floor_of(self, name, kind):
        """(floor per op, whether it is the function's own) of a row: a
        function's (or user space's) own floor from the workload's table
        when the study saw it, else the kernel total's."""
        if kind in ("function", "user") and self.function_floors:
            pts = self.function_floors.points(name, self.floor_kind)
            if pts is not None:
                return pts * self.scale, True
        return self.floor, False

    def _derived(self, row, diff):
        """row with its diff, share of the total and sites' part."""
        part = None if row["sites"] is None or self.delta is None \
            else row["sites"] * self.delta
        row.update(diff=diff, share=diff / self.total_diff
                   if self.total_diff and row["kind"] != "user" else None,
                   sites_part=part,
                   rest=None if part is None else diff - part)
        return row

    def ranked(self):
        """Kernel names that changed, by the size of their difference,
        largest first (then by name)."""
        d = self.diff[self.kernel]
        d = d[d != 0]
        return [n for _, n in sorted(zip(-d.abs().values, d.index))]

    def rows(self, n=10):
        """The n functions that changed most, "other" (the rest of the
        kernel, when any), the kernel's total and user space apart: dicts
        (see _row) that add up (functions + other = total) exactly."""
        top = self.ranked()[:n]
        out = [self._row(name, "function", [name]) for name in top]
        listed = set(top)
        rest = [k for k in self.kernel if k not in listed]
        if rest:
            # the total less the listed rows, so that they add up exactly
            other = self._row("other", "other", rest)
            for k in ("a", "b"):
                other[k] = self.total[k] - sum(r[k] for r in out)
            out.append(self._derived(other, self.total["diff"] - sum(
                r["diff"] for r in out)))
        out.append(self.total)
        return out + ([self.user] if self.user else [])

    def notes(self):
        """What the reader must know about the figures (unpaired tries,
        tries without profiles, a total that disagrees with runs.csv)."""
        out = []
        for t in (self.a, self.b):
            if t.unprofiled:
                out.append("%s: %d ok tr%s without a profile left out" % (
                    name(t), t.unprofiled, "y" if t.unprofiled == 1
                    else "ies"))
            col = kernel_column(self.metric)
            if col in t.runs:
                runs = pd.to_numeric(t.runs[col], errors="coerce") / \
                    t.runs["ops"].astype(float)
                prof = t.per_op(self.metric)
                prof = prof.drop(columns=[pf.USER], errors="ignore")
                if abs(runs.mean() - prof.sum(axis=1).mean()) > \
                        1e-9 * max(abs(runs.mean()), 1.0):
                    out.append("%s: the profiles' kernel total differs from "
                               "runs.csv's %s (analysis/results/check.py "
                               "names the tries)" % (name(t), col))
        if not stats.median_k(self.pairs):
            out.append("%d pairs: the median rule needs 6 for a 95%% "
                       "interval" % self.pairs)
        if self.lost:
            out.append("%d %s without a partner left out of the intervals"
                       % (self.lost, "seed(s)" if self.key ==
                          "perturb_seed" else "round(s)"))
        return out


def name(t):
    """How a set is named in text: its label, or DIR:label."""
    return getattr(t, "shown", None) or t.label


def profiled(res, labels):
    """The Tries of each of labels whose tries have profiles."""
    for lab in labels:
        try:
            yield Tries(res, lab)
        except NoProfiles:
            continue


def against_baseline(res, metric="insns"):
    """[Diff] of each main label with profiles against the run's baseline
    (the report's comparisons); [] when the baseline has none."""
    sets = {t.label: t for t in profiled(res, main_labels(res))}
    base = sets.get(res.baseline)
    if base is None:
        return []
    return [Diff(base, t, metric, sets.values()) for t in sets.values()
            if t is not base]


def only_label(res):
    """The one main label of a results dir (a bisect step's), else
    UnknownLabel."""
    labels = main_labels(res)
    if len(labels) != 1:
        raise UnknownLabel("%s has labels %s: name one (DIR:LABEL)" % (
            res.path, ", ".join(labels)))
    return labels[0]


def compare(spec_a, spec_b, metric="insns"):
    """Diff of B against A, each (Results, label or None: the dir's one
    main label); A and B may be in one results dir or two."""
    sides = []
    for res, label in (spec_a, spec_b):
        if not has_profiles(res):
            raise NoProfiles(NO_PROFILES % (res.path, pf.RAW_EXT))
        t = Tries(res, label or only_label(res))
        if spec_a[0].path != spec_b[0].path:
            t.shown = "%s:%s" % (res.run_id, t.label)
        sides.append(t)
    a, b = sides
    others = (t for res in dict.fromkeys((a.res, b.res))
              for t in profiled(res, [
                  lab for lab in main_labels(res) if (res, lab) not in
                  ((a.res, a.label), (b.res, b.label))]))
    return Diff(a, b, metric, others)


def top_changes(dir_a, dir_b, n=10, metric="insns", label_a=None,
                label_b=None):
    """The n functions that changed most from the tries of dir_a
    (label_a; None: its one main label) to those of dir_b: a list of
    plain dicts (Diff._row: name, a, b, diff, lo, hi, significant,
    share, sites, sites_part, rest), then "other", the kernel total and
    "[user]". For bench/bisect's step report (two step dirs, one label
    each); NoProfiles when a dir has none."""
    d = compare((Results(dir_a), label_a), (Results(dir_b), label_b),
                metric)
    return d.rows(n)


def default_results(root, workload=None):
    """The newest results dir under root (analysis/profile-diff's
    default), of workload when one is given; FormatError when there is
    none."""
    path = newest(root, workload)
    if path is None:
        raise FormatError("no results dir%s under %s: give --results DIR"
                          % (" of workload %s" % workload if workload
                             else "", root))
    return path


def per_seed(res, metric=floorfiles.FUNCTION_METRIC):
    """{label: DataFrame of metric per op, a row per perturbation seed, a
    column per function} of the main labels of res (an environment
    study's dir: analysis/stats/envfloor.py function_shifts())."""
    out = {}
    for t in profiled(res, main_labels(res)):
        frame = t.per_op(metric).copy()
        frame.index = t.keys("perturb_seed")
        out[t.label] = frame.groupby(level=0).mean()
    if not out:
        raise NoProfiles(NO_PROFILES % (res.path, pf.RAW_EXT))
    return out
