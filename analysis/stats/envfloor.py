"""The environment floor: how far a figure moves when only the harness
changes, the kernels and seeds staying the same.

An environment study (bench/envstudy, docs/calibration.md) runs the same
kernels on the same perturbation seeds once per environment: the base
image, and images or command lines that differ from it only in ways a
harness commit can cause (the initramfs's size and order, the agent's
code layout, the kernel command line's length, the environment's size).
Under icount each (kernel, seed, environment) is one exact figure, so a
change between environments on the same seed is the environment's
effect, not noise. Per metric:

- a level shift: for one kernel, the median over seeds of its % change
  under an environment against the base environment on the same seed;
  what a same-kernel comparison across two results dirs can show
  without any kernel change;
- a difference shift: for one variant against the baseline kernel, the
  median over seeds of its paired % change under an environment minus the
  same under the base environment, in points; what moves a comparison
  of two kernels when the harness changes.

The floors are the largest |shift| of each kind over the study's
environments and kernels. analysis/calibrate writes them, with the
comparison rule's measured error rates, into analysis/calibration.json
(analysis/stats/floorfiles.py has the files).

The same two floors per kernel function (function_shifts(), on the
per-function profiles every icount try of the study writes), so that
analysis/profile-diff can call a function's change real however small it
is against the kernel total's floor. Per function f, in points of the
base environment's baseline kernel total (its instructions per op on the
same seed): the level shift of a kernel is the median over seeds of f's
per-op figure under the environment less the same under base; the
difference shift of a variant, the median over seeds of (variant -
baseline) of f under the environment less the same under base. A
function's floor of each kind is its largest |shift| over environments
and kernels; one the study never saw has none (its comparison takes the
kernel total's floor).
"""
import numpy as np
import pandas as pd

from analysis.results import reference
from analysis.results.load import FormatError, per_run
from analysis.stats.floorfiles import KINDS
from lib.format import profile as pf

BASE = "base"


def by_seed(res, metric):
    """DataFrame of metric, index perturbation seed, one column per main
    label (label == variant), from the ok runs of res."""
    runs = res.runs
    ok = runs[(runs["status"] == "ok") & (runs["label"] == runs["variant"])]
    values, _ = per_run(ok, metric)
    frame = pd.DataFrame({"label": ok["label"].values,
                          "seed": ok["perturb_seed"].astype(str).values,
                          "value": values.values})
    return frame.dropna().pivot_table(index="seed", columns="label",
                                      values="value", aggfunc="mean")


def shifts(envs, metric):
    """Rows (environment, kind, label, shift, seeds) of metric: the level
    shift of each kernel and the difference shift of each variant, under
    every environment of envs ({name: Results}, BASE among them), against
    the base environment's baseline kernel."""
    if BASE not in envs:
        raise FormatError("an environment study needs its %r environment"
                          % BASE)
    base = by_seed(envs[BASE], metric)
    baseline = envs[BASE].baseline
    out = []
    for name in sorted(set(envs) - {BASE}):
        other = by_seed(envs[name], metric)
        seeds = sorted(set(base.index) & set(other.index))
        labels = [lab for lab in reference.label_order(base.columns)
                  if lab in other.columns]
        if not seeds or not labels:
            raise FormatError("environment %s shares no seed and kernel "
                              "with %s" % (name, BASE))
        b, o = base.loc[seeds, labels], other.loc[seeds, labels]
        for lab in labels:
            level = 100.0 * (o[lab] / b[lab] - 1.0)
            out.append((name, "level", lab, float(np.median(level)),
                        len(seeds)))
        if baseline not in labels:
            continue
        for lab in labels:
            if lab == baseline:
                continue
            d_o = 100.0 * (o[lab] / o[baseline] - 1.0)
            d_b = 100.0 * (b[lab] / b[baseline] - 1.0)
            out.append((name, "difference", lab,
                        float(np.median(d_o - d_b)), len(seeds)))
    return out


def floors(rows):
    """{"level": pct, "difference": points}: the largest |shift| of each
    kind among rows (shifts()); nan for a kind with no row."""
    out = {}
    for kind in KINDS:
        vals = [abs(r[3]) for r in rows if r[1] == kind]
        out[kind] = max(vals) if vals else float("nan")
    return out


def function_shifts(frames, baseline):
    """(DataFrame: a row per function, a column per (environment, kind,
    label) shift in points, the base environment's baseline total per op
    (median over seeds)) of a study's per-function figures: frames is
    {environment: {label: DataFrame of a metric per op, a row per
    perturbation seed, a column per function}}, BASE among them."""
    if BASE not in frames:
        raise FormatError("an environment study needs its %r environment"
                          % BASE)
    base = frames[BASE]
    if baseline not in base:
        raise FormatError("environment %s: its baseline %s has no profiles"
                          % (BASE, baseline))
    total = base[baseline].drop(columns=[pf.USER], errors="ignore").sum(
        axis=1)
    cols = {}
    for name in sorted(set(frames) - {BASE}):
        other = frames[name]
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


def function_floors(moved):
    """DataFrame (a row per function; columns KINDS, points): the largest
    |shift| of each kind, of function_shifts()'s frame."""
    by_kind = moved.abs().T.groupby(level=1).max().T
    return by_kind.reindex(columns=list(KINDS), fill_value=0.0)
