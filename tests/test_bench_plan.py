"""bench/tries/plan.py: balanced rounds, paired seeds, resume bookkeeping."""
import collections
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.tries import plan  # noqa: E402

LABELS = [("jump-label", "jump-label"), ("atomic-read", "atomic-read"),
          ("plain-read", "plain-read")]


def test_every_round_runs_every_label_once():
    p = plan.make(LABELS, 7, seed=1, perturb=True)
    assert len(p) == 21
    assert [r.index for r in p] == list(range(1, 22))
    for rnd in range(1, 8):
        rows = [r for r in p if r.round == rnd]
        assert sorted(r.label for r in rows) == sorted(x for x, _ in LABELS)
        assert [r.position for r in rows] == [1, 2, 3]


def test_positions_balanced_over_full_blocks():
    p = plan.make(LABELS, 6, seed=42, perturb=False)
    count = collections.Counter((r.label, r.position) for r in p)
    assert set(count.values()) == {2}, count


def test_positions_never_repeat_within_a_partial_block():
    p = plan.make(LABELS, 5, seed=3, perturb=False)
    last_block = [r for r in p if r.round > 3]
    count = collections.Counter((r.label, r.position) for r in last_block)
    assert max(count.values()) == 1


def test_order_depends_on_seed_and_is_reproducible():
    a = plan.make(LABELS, 9, seed=5, perturb=True)
    assert a == plan.make(LABELS, 9, seed=5, perturb=True)
    orders = set()
    for s in range(10):
        p = plan.make(LABELS, 9, seed=s, perturb=False)
        orders.add(tuple(r.label for r in p))
    assert len(orders) > 5


def test_perturbation_seeds_paired_across_variants():
    p = plan.make(LABELS, 5, seed=11, perturb=True)
    by_round = collections.defaultdict(set)
    for r in p:
        by_round[r.round].add(r.perturb_seed)
    assert all(len(s) == 1 for s in by_round.values())
    seeds = [next(iter(s)) for s in by_round.values()]
    assert len(set(seeds)) == 5
    assert all(1 <= s <= plan.PERTURB_MAX for s in seeds)
    # the seeds do not depend on the labels, only on the plan seed
    other = plan.make([("x", "x")], 5, seed=11, perturb=True)
    assert [r.perturb_seed for r in other] == seeds


def test_no_perturbation_outside_icount():
    assert {r.perturb_seed for r in plan.make(LABELS, 3, 1, False)} == {0}


def test_aa_labels_share_a_variant():
    p = plan.make([("A", "atomic-read"), ("B", "atomic-read")], 4, 2, True)
    assert {r.variant for r in p} == {"atomic-read"}
    assert collections.Counter(r.label for r in p) == {"A": 4, "B": 4}


def test_bad_plans_rejected():
    with pytest.raises(ValueError):
        plan.make([], 3, 1, True)
    with pytest.raises(ValueError):
        plan.make([("A", "x"), ("A", "y")], 3, 1, True)
    with pytest.raises(ValueError):
        plan.make(LABELS, 0, 1, True)


def test_write_read_roundtrip(tmp_path):
    p = plan.make(LABELS, 4, seed=9, perturb=True)
    plan.write(p, tmp_path / "plan.csv")
    assert plan.read(tmp_path / "plan.csv", 99) == p


def test_plan_without_a_seconds_column_takes_the_given_length(tmp_path):
    path = tmp_path / "plan.csv"
    path.write_text("index,round,position,variant,label,perturb_seed\n"
                    "1,1,1,jump-label,jump-label,7\n")
    assert plan.read(path, 30) == [
        plan.Run(1, 1, 1, "jump-label", "jump-label", 7, 30)]


def test_twin_labels_draw_seeds_of_their_own():
    labels = LABELS + [("atomic-read.aa", "atomic-read")]
    p = plan.make(labels, 5, seed=11, perturb=True,
                  twins=("atomic-read.aa",))
    for rnd in range(1, 6):
        rows = {r.label: r for r in p if r.round == rnd}
        shared = {rows[lab].perturb_seed for lab, _ in LABELS}
        assert len(shared) == 1
        assert rows["atomic-read.aa"].perturb_seed not in shared
    # the variants' seeds are those of a plan without the twin
    plain = plan.make(LABELS, 5, seed=11, perturb=True)
    assert {r.round: r.perturb_seed for r in plain} == {
        r.round: r.perturb_seed for r in p if r.label == "jump-label"}
    twin = [r.perturb_seed for r in p if r.label == "atomic-read.aa"]
    assert len(set(twin)) == 5


def test_several_lengths_repeat_the_rounds_at_each_length():
    p = plan.make(LABELS, 3, seed=4, perturb=True, lengths=(20, 60, 180))
    assert len(p) == 27
    for rnd in range(1, 10):
        assert len({r.seconds for r in p if r.round == rnd}) == 1
    per_length = collections.Counter(r.seconds for r in p)
    assert per_length == {20: 9, 60: 9, 180: 9}
    # the lengths are interleaved, not run one after the other
    order = [r.seconds for r in p if r.position == 1]
    assert order != sorted(order)
    assert len({r.perturb_seed for r in p}) == 9
    with pytest.raises(ValueError):
        plan.make(LABELS, 3, seed=4, perturb=True, lengths=(20, 20))


def row(index, try_no, status):
    return {"index": str(index), "try": str(try_no), "status": status}


def test_resume_skips_finished_runs_and_continues_try_numbers():
    p = plan.make(LABELS, 2, seed=1, perturb=True)
    rows = [row(1, 1, "ok"), row(2, 1, "failed"), row(2, 2, "ok"),
            row(3, 1, "failed"), row(3, 2, "failed"), row(4, 1, "ok")]
    pending, next_try = plan.progress(p, rows)
    assert [r.index for r in pending] == [3, 5, 6]
    assert next_try == {3: 3, 5: 1, 6: 1}


def test_resume_of_a_finished_plan_has_nothing_left():
    p = plan.make(LABELS, 1, seed=1, perturb=False)
    pending, _ = plan.progress(p, [row(i, 1, "ok") for i in (1, 2, 3)])
    assert pending == []


def test_estimates_are_positive_and_plugin_costs_more():
    for accel in ("kvm", "tcg", "icount"):
        assert plan.estimate(accel, 15) > 15 * 0.9
        assert plan.estimate(accel, 15, True) > plan.estimate(accel, 15)
        assert plan.default_timeout(accel, 15) > plan.estimate(accel, 15)
        assert plan.estimate(accel, 15, True, True) > \
            3 * plan.estimate(accel, 15, True)
