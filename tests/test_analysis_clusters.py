"""analysis/clusters.py: two modes in per-seed values, and what moves with
them, on data with a known answer."""
import sys

import numpy as np
import pandas as pd

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from analysis.sections import seeds  # noqa: E402
from analysis.stats import clusters  # noqa: E402


def test_split_finds_two_planted_modes_and_not_one():
    rng = np.random.default_rng(5)
    low = 124600 + rng.normal(0, 8, 18)
    high = 124800 + rng.normal(0, 8, 12)
    masks = clusters.split(np.concatenate([low, high]))
    assert masks is not None
    assert masks[0][:18].all() and not masks[0][18:].any()
    assert clusters.split(124600 + rng.normal(0, 8, 30)) is None
    # n < 10
    assert clusters.split(np.concatenate([low[:4], high[:4]])) is None
    # one stray seed is not a mode (each side needs 10% of the seeds)
    assert clusters.split(np.append(124600 + rng.normal(0, 8, 29),
                                    125000)) is None


def test_auc_known_answers():
    assert clusters.auc([1, 2, 3], [4, 5]) == 1.0
    assert clusters.auc([4, 5], [1, 2, 3]) == 0.0
    assert clusters.auc([1, 2], [1, 2]) == 0.5


def runs(n=20):
    """An icount runs.csv: kernel A in two modes that a counter tracks
    (more kernel instructions per op in the low mode), the same seeds'
    modes under kernel B."""
    rows = []
    for i in range(n):
        high = i % 3 == 0
        for label, base in (("a", 8000.0), ("b", 8100.0)):
            ops = base * 20 * (1.002 if high else 1.0) + (i % 5)
            rows.append({"label": label, "variant": label, "status": "ok",
                         "perturb_seed": str(1000 + i), "seconds": 20,
                         "ops": ops, "kernel_insns": str(int(
                             ops * (30000 if high else 30100))),
                         "max_latency_ms": 50.0 + (i % 7)})
    return pd.DataFrame(rows)


def test_analyse_names_the_counter_that_moves_with_the_mode():
    out = clusters.analyse(runs(), ["a", "b"], "ops_per_s")
    a = out["labels"]["a"]
    assert a["n"] == 20 and a["modes"]["sizes"] == [13, 7]
    assert a["modes"]["centres_pct"][1] > 0.19
    top = a["modes"]["separators"][0]
    assert top[0] == "kernel_insns/op" and top[1] == 0.0
    assert top[2] > top[3]                     # more instructions, low mode
    assert "max_latency_ms" not in [s[0] for s in a["modes"]["separators"]]
    assert out["same_seed_mode"] == {"a / b": 1.0}


def test_section_says_which_figure_moves():
    st = {"headline": "ops_per_s", "groups": {"main": ["a", "b"],
                                              "aa": []},
          "seed_modes": clusters.analyse(runs(), ["a", "b"], "ops_per_s")}
    text = seeds.distribution(st)
    assert "| `a` | 20 |" in text and "two: 13 seeds at" in text
    assert "kernel_insns/op" in text and "a / b: 100% of shared seeds" in text
    assert "No per-seed distribution" in seeds.distribution({})


def test_an_outlying_seed_and_the_figure_that_moved_with_it():
    """One seed of twenty runs 0.2% slower because its user-space path per
    operation is longer: it is named, with that figure."""
    rows = []
    for i in range(20):
        slow = i == 7
        ops = 160000.0 * (0.998 if slow else 1.0) + (i % 5) * 3
        rows.append({"label": "a", "variant": "a", "status": "ok",
                     "perturb_seed": str(1000 + i), "seconds": 20,
                     "ops": ops, "user_insns": str(int(
                         ops * (6630 if slow else 6570 + (i % 3)))),
                     "max_latency_ms": 50.0 + (i % 7)})
    out = clusters.analyse(pd.DataFrame(rows), ["a"], "ops_per_s")
    (seed, pct, figs), = out["labels"]["a"]["outliers"]
    assert seed == "1007" and abs(pct + 0.2) < 0.01
    assert [f[0] for f in figs] == ["user_insns/op"] and figs[0][3] > 4
    assert clusters.analyse(pd.DataFrame(rows[:9]), ["a"], "ops_per_s")[
        "labels"]["a"]["outliers"] == []
