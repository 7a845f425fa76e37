"""The environment floor of each kernel function: analysis/stats/
envfloor.py's two floors, measured per function on the profiles of an
environment study (bench/envstudy, icount: every try writes one), so that
analysis/profile-diff can call a function's change that is real however
small it is against the kernel total's floor.

Per function f, in points of the base environment's baseline kernel total
(its instructions per op on the same seed), under every other environment:

- level shift of a kernel: the median over seeds of f's per-op figure
  under the environment less the same under base;
- difference shift of a variant: the median over seeds of (variant -
  baseline) of f under the environment less the same under base.

A function's floor of each kind is its largest |shift| over environments
and kernels; one the study never saw has none (None: its comparison
takes the kernel total's floor). The committed tables, one per workload:
analysis/function-floors/<workload>.tsv (analysis/calibrate --functions
--env DIR --write); $JLBENCH_FUNCTION_FLOORS names another directory.
"""
import pandas as pd

from analysis.comparison import profile
from analysis.results import reference
from analysis.results.load import FormatError
from analysis.stats.calibrate import FUNCTION_METRIC, KINDS
from analysis.stats.envfloor import BASE
from lib.format import profile as pf


def per_seed(res, metric=FUNCTION_METRIC):
    """{label: DataFrame of metric per op, a row per perturbation seed, a
    column per function} of the main labels of res."""
    out = {}
    for t in profile.profiled(res, profile.main_labels(res)):
        frame = t.per_op(metric).copy()
        frame.index = t.keys("perturb_seed")
        out[t.label] = frame.groupby(level=0).mean()
    if not out:
        raise profile.NoProfiles(profile.NO_PROFILES % (res.path,
                                                        pf.RAW_EXT))
    return out


def shifts(envs, metric=FUNCTION_METRIC):
    """(DataFrame: a row per function, a column per (environment, kind,
    label) shift in points, the base environment's baseline total per op
    (median over seeds)) of a study envs ({name: Results}, BASE among
    them)."""
    if BASE not in envs:
        raise FormatError("an environment study needs its %r environment"
                          % BASE)
    base = per_seed(envs[BASE], metric)
    baseline = envs[BASE].baseline
    if baseline not in base:
        raise FormatError("%s: its baseline %s has no profiles" % (
            envs[BASE].path, baseline))
    total = base[baseline].drop(columns=[pf.USER], errors="ignore").sum(
        axis=1)
    cols = {}
    for name in sorted(set(envs) - {BASE}):
        other = per_seed(envs[name], metric)
        labels = [lab for lab in reference.label_order(base)
                  if lab in other]
        seeds = sorted(set(total.index).intersection(
            *(set(f.index) for lab in labels for f in (base[lab],
                                                       other[lab]))))
        if not seeds or baseline not in labels:
            raise FormatError("environment %s shares no seed or no "
                              "baseline kernel with %s" % (name, BASE))
        names = sorted(set().union(*(f.columns for lab in labels
                                     for f in (base[lab], other[lab]))))
        scale = 100.0 / total[seeds]

        def get(frames, lab):
            return frames[lab].reindex(index=seeds, columns=names,
                                       fill_value=0.0)
        for lab in labels:
            moved = get(other, lab) - get(base, lab)
            cols[(name, "level", lab)] = moved.mul(scale, axis=0).median()
            if lab != baseline:
                moved = moved - (get(other, baseline) - get(base, baseline))
                cols[(name, "difference", lab)] = moved.mul(
                    scale, axis=0).median()
    return pd.DataFrame(cols).fillna(0.0), float(total.median())


def floors(moved):
    """DataFrame (a row per function; columns KINDS, points): the largest
    |shift| of each kind, of shifts()'s frame."""
    by_kind = moved.abs().T.groupby(level=1).max().T
    return by_kind.reindex(columns=list(KINDS), fill_value=0.0)
