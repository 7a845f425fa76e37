"""The 2011 figures this project reproduces, and where they come from.

Source: Jason Baron, "jump label: Introduce static_branch() interface",
Linux commit d430d3d7e646 (2011-03-16): "I ran a series of 'tbench 20' runs
5 times (with reboots) for 3 configurations, where tracepoints were
disabled." Only the averages were published (no spread, no hardware named).
"""
from lib.format import schema

SOURCE = ("Jason Baron, Linux commit d430d3d7e646 \"jump label: Introduce "
          "static_branch() interface\" (2011-03-16): tbench 20, 5 runs per "
          "kernel with reboots, averages only")
# The kernel every other one is compared with (2011's baseline too).
BASELINE = schema.BASELINE
# 2011's kernels: variant, average MB/s, and what the report calls them.
KERNELS_2011 = [("jump-label", 815.6, "jump labels"),
                ("atomic-read", 800.1, "atomic reads"),
                ("plain-read", 803.4, "plain reads")]
ORDER = tuple(v for v, _, _ in KERNELS_2011)
MBPS_2011 = {v: mbps for v, mbps, _ in KERNELS_2011}
RUNS_2011 = 5


def pct_2011(variant):
    """2011's % change of variant vs atomic-read, or None if not in 2011."""
    if variant not in MBPS_2011:
        return None
    return 100.0 * (MBPS_2011[variant] / MBPS_2011[BASELINE] - 1.0)


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
