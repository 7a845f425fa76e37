"""bench/model/regions.py: exact counts per loop iteration from plugin regions.

Synthetic reports here; a real report of a smoke-kernel selftest boot is
in test_bench_selftest.py, real boots in test_module_boot.py.
"""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.model import regions  # noqa: E402

N = 1000
BLOCK = {"selftest.jlbench_static_key.count_iters": str(N)}


def region(rid, insns, branches, closed=1, unbalanced=0, begins=None):
    begins = closed if begins is None else begins
    return ("region.{0}.begins={1}\nregion.{0}.closed={2}\n"
            "region.{0}.unbalanced={3}\nregion.{0}.insns={4}\n"
            "region.{0}.branches={5}\nregion.{0}.kernel_insns={4}\n"
            "region.{0}.kernel_branches={5}\n").format(
                rid, begins, closed, unbalanced, insns, branches)


def report(per_iter, overhead=(7, 1), override=None):
    """A report whose regions 1..6 hold loops of per_iter[loop] =
    (insns, branches) per iteration plus a fixed overhead."""
    override = override or {}
    text = "format=1\nwindow=0\nregions=6\n"
    for loop, rid in regions.REGIONS:
        ins, br = per_iter[loop]
        for k, r in ((1, rid), (2, rid + 1)):
            text += override.get(r) or region(
                r, overhead[0] + k * N * ins, overhead[1] + k * N * br)
    return text


JL = {"empty": (3, 1), "off": (4, 1), "on": (8, 1)}


def as_dict(rows):
    assert all(v == "jump-label" for v, _, _ in rows)
    return {n: v for _, n, v in rows}


def test_parse_region_lines_only():
    r = regions.parse("format=1\nregions=2\n" + region(0, 5, 1) +
                      region(255, 9, 2, closed=0, unbalanced=1) +
                      "kernel_insns=not-counted\n")
    assert set(r) == {0, 255}
    assert r[0] == {"begins": 1, "closed": 1, "unbalanced": 0, "insns": 5,
                    "branches": 1, "kernel_insns": 5, "kernel_branches": 1}
    assert r[255]["unbalanced"] == 1
    # The model's fields (model=on): digits in names, not-counted kept.
    r = regions.parse("region.9.l1d_misses=7\nregion.9.l1i_misses="
                      "not-counted\n")
    assert r == {9: {"l1d_misses": 7, "l1i_misses": "not-counted"}}
    with pytest.raises(ValueError):
        regions.parse("region.1.insns=many\n")


def test_exact_figures():
    d = as_dict(regions.rows("jump-label", BLOCK, report(JL)))
    assert d == {
        "count.source": "TCG plugin, icount (exact)",
        "count.empty_branches_per_iter": "1",
        "count.off_branches_per_iter": "1",
        "count.on_branches_per_iter": "1",
        "count.empty_insns_per_iter": "3",
        "count.off_insns_per_iter": "4",
        "count.on_insns_per_iter": "8"}
    rows = regions.rows("jump-label", BLOCK, report(JL))
    assert [n for _, n, _ in rows][1:] == regions.names()


def test_not_a_multiple_is_not_exact():
    # One stray instruction in the 2n run of the key-off loop.
    bad = region(4, 7 + 2 * N * 4 + 1, 1 + 2 * N)
    d = as_dict(regions.rows("jump-label", BLOCK,
                             report(JL, override={4: bad})))
    assert d["count.off_insns_per_iter"] == "not-exact"
    assert d["count.off_branches_per_iter"] == "1"
    assert d["count.on_insns_per_iter"] == "8"
    assert d["count.source"] == "TCG plugin, icount (exact)"
    assert "region 4 - region 3 = 4001, not a non-negative multiple of " \
        "count_iters 1000" in d["count.note"]


def test_negative_overhead_is_not_exact():
    # R(2n) - R(n) is a multiple of n but R(n) is smaller than n
    # iterations: no fixed overhead can explain that.
    d = as_dict(regions.rows("jump-label", BLOCK, report(
        JL, override={1: region(1, 1000, 1000),
                      2: region(2, 4000, 2000)})))
    assert d["count.empty_insns_per_iter"] == "not-exact"
    assert "region 1 (1000) is less than n iterations (3000)" in \
        d["count.note"]


@pytest.mark.parametrize("override,message", [
    ({5: region(5, 10, 1, closed=2)}, "region 5: closed 2 times"),
    ({6: region(6, 10, 1, unbalanced=1)},
     "region 6: closed 1 times with 1 unbalanced markers"),
    ({5: "regions=5\n"}, "region 5: no markers executed"),
    ({5: "region.5.closed=1\nregion.5.unbalanced=0\n"},
     "region 5: the report has no branches"),
])
def test_unclosed_regions_are_not_counted(override, message):
    d = as_dict(regions.rows("jump-label", BLOCK,
                             report(JL, override=override)))
    assert d["count.on_insns_per_iter"] == "not-counted"
    assert d["count.on_branches_per_iter"] == "not-counted"
    assert d["count.off_insns_per_iter"] == "4"
    assert message in d["count.note"]


def test_without_report_or_count_iters():
    d = as_dict(regions.rows("jump-label", BLOCK, None,
                             "no TCG plugin in tcg mode"))
    assert d["count.source"] == "not-counted"
    assert {d[n] for n in regions.names()} == {"not-counted"}
    assert d["count.note"] == "no TCG plugin in tcg mode"
    d = as_dict(regions.rows("jump-label", {}, report(JL)))
    assert {d[n] for n in regions.names()} == {"not-counted"}
    assert d["count.note"] == "the module printed no count_iters"
    d = as_dict(regions.rows("jump-label", BLOCK, "region.1.closed=x\n"))
    assert d["count.source"] == "not-counted"
    assert d["count.note"].startswith("plugin report: line 1")
