"""The 2011 figures this project reproduces, and where they come from; the
baseline of a results dir.

Source: Jason Baron, "jump label: Introduce static_branch() interface",
Linux commit d430d3d7e646 (2011-03-16): "I ran a series of 'tbench 20' runs
5 times (with reboots) for 3 configurations, where tracepoints were
disabled." Only the averages were published (no spread, no hardware named).
"""
from lib import variants
from lib.format import schema

SOURCE = ("Jason Baron, Linux commit d430d3d7e646 \"jump label: Introduce "
          "static_branch() interface\" (2011-03-16): tbench 20, 5 runs per "
          "kernel with reboots, averages only")
# The kernel every other one is compared with when meta.json names none
# (results dirs from before bench/run --baseline).
BASELINE = schema.BASELINE
# 2011's baseline: its % changes are against this kernel.
BASELINE_2011 = variants.BASELINE_2011
# A variant's name (lib/variants.py, as kernel-variants/variant.py's).
VARIANT_NAME = variants.NAME
# 2011's kernels: variant, average MB/s, and what the report calls them
# (kernel-variants/variants/variants.tsv).
KERNELS_2011 = variants.KERNELS_2011
ORDER = tuple(v for v, _, _ in KERNELS_2011)
MBPS_2011 = {v: mbps for v, mbps, _ in KERNELS_2011}
RUNS_2011 = 5


def baseline(meta):
    """The baseline of a results dir: meta.json's "baseline" (bench/run
    --baseline), BASELINE when absent; ValueError when it is not a
    variant's name."""
    base = meta.get("baseline") if isinstance(meta, dict) else None
    if base is None:
        return BASELINE
    if not isinstance(base, str) or not VARIANT_NAME.fullmatch(base):
        raise ValueError("meta.json: baseline %r is not a variant name"
                         % (base,))
    return base


def pct_2011(variant, baseline=BASELINE_2011):
    """2011's % change of variant vs atomic-read, or None if not in 2011 or
    when the run's baseline is not 2011's."""
    if variant not in MBPS_2011 or baseline != BASELINE_2011:
        return None
    return 100.0 * (MBPS_2011[variant] / MBPS_2011[BASELINE_2011] - 1.0)


def compares_2011(baseline, labels):
    """Whether a run repeats 2011's comparison: its baseline is 2011's and
    another of its labels is one of 2011's kernels. Only then does the
    report set it beside 2011 and speak of the three built-in kernels."""
    return any(pct_2011(lab, baseline) is not None
               for lab in labels if lab != baseline)


def words(label):
    """What the report calls a kernel in a sentence: 2011's words for its
    kernels, else the label itself."""
    return next((w for v, _, w in KERNELS_2011 if v == label),
                "`%s`" % label)


def label_order(labels):
    """Labels in the 2011 table's order, then the others sorted."""
    labels = list(dict.fromkeys(labels))
    known = [v for v in ORDER if v in labels]
    return known + sorted(v for v in labels if v not in ORDER)
