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
comparison rule's measured error rates, into analysis/calibration.json.
"""
import numpy as np
import pandas as pd

from analysis.results import reference
from analysis.results.load import FormatError, per_run

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
    for kind in ("level", "difference"):
        vals = [abs(r[3]) for r in rows if r[1] == kind]
        out[kind] = max(vals) if vals else float("nan")
    return out
