"""bench/model/knownanswers.py: the model's figures per loop iteration from
plugin regions, and the known-answer verdict.

Synthetic reports here; bench/selftest's use of them is in
test_bench_selftest.py, real boots in test_model_validation.py.
"""
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.model import regions  # noqa: E402
from bench.model import knownanswers as ka  # noqa: E402

N = 10000
BLOCK = {"selftest.jlbench_static_key.count_iters": str(N)}
MODEL = ("model=on\nmodel_l1i=32768:8:64\nmodel_l1d=32768:8:64\n"
         "model_bp=gshare:4096:12\nmodel_btb=4096:4\n")
FIELDS = ("mispredicts", "btb_misses", "l1i_accesses", "l1i_misses",
          "l1d_accesses", "l1d_misses")
# Events per iteration of each loop (regions of n iterations), as a
# healthy model gives them; a fixed overhead per region besides.
GOOD = {1: {}, 3: {"mispredicts": 0.0001}, 5: {"mispredicts": 0},
        7: {"mispredicts": 16.0123, "l1d_accesses": 1.5},
        9: {"l1d_accesses": 1, "l1d_misses": 1},
        11: {"l1d_accesses": 1, "l1d_misses": 0}}
OVERHEAD = 13


def region(rid, events, closed=1, unbalanced=0):
    lines = ["region.%d.begins=%d" % (rid, closed),
             "region.%d.closed=%d" % (rid, closed),
             "region.%d.unbalanced=%d" % (rid, unbalanced),
             "region.%d.insns=%d" % (rid, 100 + rid),
             "region.%d.branches=%d" % (rid, 10 + rid)]
    lines += ["region.%d.%s=%d" % (rid, f, events.get(f, 0))
              for f in FIELDS]
    return "\n".join(lines) + "\n"


def report(per_iter=None, override=None, model=MODEL):
    """A report with regions 1..12: region r (odd) holds n iterations of
    per_iter[r], r + 1 twice as many, each plus OVERHEAD events."""
    per_iter = per_iter or GOOD
    override = override or {}
    text = "format=1\nwindow=0\n" + model + "regions=12\n"
    for rid, loop in sorted(per_iter.items()):
        for k, r in ((1, rid), (2, rid + 1)):
            ev = {f: OVERHEAD + round(k * N * v) for f, v in loop.items()}
            text += override.get(r) or region(r, ev)
    return text


def as_dict(rows):
    assert all(v == "atomic-read" for v, _, _ in rows)
    return {n: v for _, n, v in rows}


def test_known_answers_pass():
    rows = ka.rows("atomic-read", BLOCK, report())
    assert [n for _, n, _ in rows] == ka.names()
    d = as_dict(rows)
    assert d == {
        "model.source": "TCG plugin model (model=on), icount",
        "model.params": "l1i=32768:8:64 l1d=32768:8:64 "
                        "bp=gshare:4096:12 btb=4096:4",
        "model.off_mispredicts_per_iter": "0.0001",
        "model.on_mispredicts_per_iter": "0.0000",
        "model.random_mispredicts_per_iter": "16.0123",
        "model.stride_big_l1d_misses_per_iter": "1.0000",
        "model.stride_fit_l1d_misses_per_iter": "0.0000",
        "model.stride_big_l1d_accesses_per_iter": "1.0000",
        "model.stride_fit_l1d_accesses_per_iter": "1.0000",
        "model.known_answers": "PASS"}


@pytest.mark.parametrize("region_,field,value,bound", [
    (3, "mispredicts", 0.01, "model.off_mispredicts_per_iter 0.0100 is "
     "outside 0 <= x < 0.01"),
    (5, "mispredicts", 0.3, "model.on_mispredicts_per_iter 0.3000"),
    (7, "mispredicts", 14.3999, "model.random_mispredicts_per_iter 14.3999 "
     "is outside 14.4..17.6"),
    (7, "mispredicts", 17.6001, "model.random_mispredicts_per_iter 17.6001"),
    # The committed full jump-label build's figure when the loop had one
    # random branch (results/20261205T065131Z-72c164e): now far too few.
    (7, "mispredicts", 0.998, "model.random_mispredicts_per_iter 0.9980 "
     "is outside 14.4..17.6"),
    (9, "l1d_misses", 0.9, "model.stride_big_l1d_misses_per_iter 0.9000 "
     "is outside 0.95..1.05"),
    (9, "l1d_misses", 1.1, "model.stride_big_l1d_misses_per_iter 1.1000"),
    (11, "l1d_misses", 0.5, "model.stride_fit_l1d_misses_per_iter 0.5000 "
     "is outside 0 <= x < 0.01"),
])
def test_each_bound_can_fail(region_, field, value, bound):
    loops = {r: dict(v) for r, v in GOOD.items()}
    loops[region_][field] = value
    d = as_dict(ka.rows("atomic-read", BLOCK, report(loops)))
    assert d["model.known_answers"] == "FAIL"
    assert d["model.note"].startswith(bound), d["model.note"]
    assert d["model.note"].count("outside") == 1


def test_bounds_at_their_edges():
    assert ka.Bound(0.4, 0.6, False).holds(0.4)
    assert ka.Bound(0.4, 0.6, False).holds(0.6)
    assert not ka.ABOUT_NEVER.holds(0.01)
    assert ka.ABOUT_NEVER.holds(0.0)
    # Fewer events in the run of 2n than in the run of n: not about 0.
    assert not ka.ABOUT_NEVER.holds(-0.0001)


def test_the_random_bound_is_half_of_each_random_branch():
    """The random loop's bound: 0.45..0.55 mispredictions per random
    branch (bench.c's JLB_RANDOM_BRANCHES of them per iteration), so that
    its own loop branch, mispredicted never or every time, keeps the
    figure inside it when the random branches give 0.5 each."""
    bench_c = (ROOT / "kernel-variants" / "module" / "bench.c").read_text()
    assert re.search(r"^#define JLB_RANDOM_BRANCHES %d$" % ka.RANDOM_BRANCHES,
                     bench_c, re.M)
    k = ka.RANDOM_BRANCHES
    bound = ka.ANSWERS[[f.name for f in ka.ANSWERS].index(
        "random_mispredicts")].answer
    assert bound == ka.Bound(0.45 * k, 0.55 * k, False)
    for per_branch, holds in ((0.5, True), (0.45, True), (0.55, True),
                              (0.449, False), (0.551, False)):
        assert bound.holds(per_branch * k) is holds, per_branch
    assert bound.holds(k / 2) and bound.holds(k / 2 + 1)


def test_a_negative_difference_fails():
    loops = {r: dict(v) for r, v in GOOD.items()}
    loops[3]["mispredicts"] = -0.002
    d = as_dict(ka.rows("atomic-read", BLOCK, report(loops)))
    assert d["model.off_mispredicts_per_iter"] == "-0.0020"
    assert d["model.known_answers"] == "FAIL"


def test_without_model_keys_nothing_is_counted():
    """A report of a plugin without the model (or run without model=on):
    every figure and the verdict not-counted, never a number."""
    d = as_dict(ka.rows("atomic-read", BLOCK, report(model="")))
    assert set(d[n] for n in ka.names()) == {"not-counted"}
    assert d["model.note"] == ("model.off_mispredicts_per_iter, "
                               "model.on_mispredicts_per_iter, "
                               "model.random_mispredicts_per_iter, "
                               "model.stride_big_l1d_misses_per_iter, "
                               "model.stride_fit_l1d_misses_per_iter not "
                               "counted; the plugin report has no model "
                               "figures (model=on)")
    d = as_dict(ka.rows("atomic-read", BLOCK, None, "--no-plugin"))
    assert set(d[n] for n in ka.names()) == {"not-counted"}
    assert d["model.note"].endswith("; --no-plugin")
    d = as_dict(ka.rows("atomic-read", {}, report()))
    assert d["model.known_answers"] == "not-counted"
    assert d["model.params"].startswith("l1i=32768:8:64 ")
    assert d["model.note"].endswith("; the module printed no count_iters")


def test_an_unclosed_region_is_not_counted_but_others_are():
    d = as_dict(ka.rows("atomic-read", BLOCK, report(
        override={8: region(8, {"mispredicts": 5}, closed=2)})))
    assert d["model.random_mispredicts_per_iter"] == "not-counted"
    assert d["model.off_mispredicts_per_iter"] == "0.0001"
    assert d["model.source"] == "TCG plugin model (model=on), icount"
    assert d["model.known_answers"] == "not-counted"
    assert d["model.note"] == (
        "model.random_mispredicts_per_iter not counted; region 8: closed 2 "
        "times with 0 unbalanced markers (expected 1 and 0)")


def test_a_failure_outweighs_what_is_not_counted():
    loops = {r: dict(v) for r, v in GOOD.items()}
    loops[9]["l1d_misses"] = 0.5
    d = as_dict(ka.rows("atomic-read", BLOCK, report(loops, override={
        12: "region.12.closed=1\nregion.12.unbalanced=0\n"})))
    assert d["model.known_answers"] == "FAIL"
    assert d["model.stride_fit_l1d_misses_per_iter"] == "not-counted"
    assert d["model.note"] == (
        "model.stride_big_l1d_misses_per_iter 0.5000 is outside 0.95..1.05;"
        " region 12: the report has no l1d_misses; region 12: the report "
        "has no l1d_accesses")


def test_not_counted_region_values():
    """A region figure the plugin could not count is not a number."""
    d = as_dict(ka.rows("atomic-read", BLOCK, report(override={
        7: region(7, {}).replace("region.7.mispredicts=0",
                                 "region.7.mispredicts=not-counted")})))
    assert d["model.random_mispredicts_per_iter"] == "not-counted"
    assert "region 7: mispredicts is not-counted" in d["model.note"]


def test_the_regions_tables_agree():
    """bench.c's header table and the plugin README's "Regions" table
    list the regions this reads, with the same known answers."""
    bench_c = (ROOT / "kernel-variants" / "module" / "bench.c").read_text()
    head = bench_c.split("*/", 1)[0]
    assert re.findall(r"^ \*\t(\d+)\t", head, re.M) == [
        str(i) for i in range(1, 13)]
    readme = (ROOT / "bench" / "plugin" / "README.md").read_text()
    rows = dict(re.findall(r"^\| (\d+)/\d+ \| (.*)$", readme, re.M))
    assert sorted(rows, key=int) == ["1", "3", "5", "7", "9", "11"]
    for loop, rid in regions.REGIONS:
        assert "bench/model/regions.py" in rows[str(rid)], rid
    for f in ka.FIGURES:
        row = rows[str(f.region)]
        assert "bench/model/knownanswers.py" in row, f
        if f.answer:
            want = ("< %g" % f.answer.hi if f.answer.hi_open else
                    "%g..%g" % (f.answer.lo, f.answer.hi))
            assert re.search(r"%s about [\d.]+ \(%s\)" % (
                f.field, re.escape(want)), row), (f, row)


def test_formats_md_names_every_row():
    text = (ROOT / "lib" / "format" / "FORMATS.md").read_text()
    for name in ka.names() + ["model.note"]:
        assert "`%s`" % name in text or name.startswith(
            "model.") and name.endswith("_per_iter"), name
    for f in ka.FIGURES:
        assert "`%s`" % f.name in text, f.name
