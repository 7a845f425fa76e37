"""analysis/stats/envfloor.py and analysis/calibrate --env: the environment
floor from an environment study with known shifts."""
import json
import os
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from analysis.stats import calibrate, envfloor, floorfiles  # noqa: E402
from analysis.results.load import Results  # noqa: E402

SEEDS = 4
AR = [40.0, 40.2, 39.9, 40.1]
JL = [40.6, 40.8, 40.5, 40.7]


def study(root, shift_ar=1.0002, shift_jl=1.0005):
    """An environment study: base, and one environment in which
    atomic-read moves by shift_ar and jump-label by shift_jl on every
    seed (the same seeds: synth gives round r the seed 1000 + r)."""
    os.makedirs(os.path.join(root, "base"))
    os.makedirs(os.path.join(root, "size"))
    synth.make_results(os.path.join(root, "base"),
                       {"jump-label": JL, "atomic-read": AR})
    synth.make_results(os.path.join(root, "size"), {
        "jump-label": [v * shift_jl for v in JL],
        "atomic-read": [v * shift_ar for v in AR]})
    return root


def test_level_and_difference_shifts_are_the_planted_ones(tmp_path):
    root = study(str(tmp_path))
    envs = {name: Results(os.path.join(root, name, d))
            for name in ("base", "size")
            for d in os.listdir(os.path.join(root, name))}
    rows = envfloor.shifts(envs, "throughput_mbps")
    got = {(r[1], r[2]): r[3] for r in rows}
    assert got[("level", "atomic-read")] == pytest.approx(0.02, abs=2e-4)
    assert got[("level", "jump-label")] == pytest.approx(0.05, abs=2e-4)
    # (1.0005 / 1.0002 - 1) of the +1.5% gain, in points: about 0.03
    assert got[("difference", "jump-label")] == pytest.approx(0.0304,
                                                              abs=2e-4)
    assert all(r[4] == SEEDS for r in rows)
    floors = envfloor.floors(rows)
    assert floors["level"] == pytest.approx(0.05, abs=2e-4)
    assert floors["difference"] == pytest.approx(0.0304, abs=2e-4)


def test_a_study_without_base_is_refused(tmp_path):
    with pytest.raises(Exception, match="'base' environment"):
        envfloor.shifts({}, "ops_per_s")


def test_calibrate_writes_rates_and_floors(tmp_path):
    """analysis/calibrate STUDY --env DIR --write on synthetic dirs: the
    floors of the study and the rates of the pool land in the file."""
    root = study(str(tmp_path / "env"))
    pool = synth.make_results(str(tmp_path), {
        "jump-label": [40.6 + 0.01 * i for i in range(14)],
        "atomic-read": [40.0 + 0.013 * ((7 * i) % 14) for i in range(14)],
        "atomic-read.aa": [40.0 + 0.011 * ((5 * i) % 14)
                           for i in range(14)]},
        variant_of={"atomic-read.aa": "atomic-read"})
    out = tmp_path / "calibration.json"
    p = run([str(ROOT / "analysis" / "calibrate"), pool, "--env", root,
             "--write", "--resamples", "200", "--metric", "throughput_mbps"],
            env=dict(os.environ, JLBENCH_CALIBRATION=str(out)))
    assert "throughput_mbps" in p.stdout and "floor: level" in p.stdout
    cal = json.loads(out.read_text())
    m = cal["metrics"]["throughput_mbps"]
    assert m["floor_level_pct"] == pytest.approx(0.05, abs=2e-4)
    assert 0 <= m["false_positive"] <= 0.05
    assert m["coverage"]["jump-label"] >= 0.95
    assert cal["rule"] == "median" and cal["n"] == 6


def test_floors_only_of_another_workload(tmp_path, monkeypatch):
    """analysis/calibrate --floors-only --env DIR --write: a study of a
    workload other than tbench gives its floors (no rates) under its name
    in analysis/floors.json, which analyze then applies to its runs."""
    root = study(str(tmp_path / "env"))
    for name in ("base", "size"):
        (d,) = os.listdir(os.path.join(root, name))
        path = os.path.join(root, name, d, "meta.json")
        meta = json.load(open(path))
        meta.setdefault("protocol", {})["workload"] = "fault"
        json.dump(meta, open(path, "w"))
    out = tmp_path / "floors.json"
    env = dict(os.environ, JLBENCH_FLOORS=str(out))
    p = run([str(ROOT / "analysis" / "calibrate"), "--floors-only", "--env",
             root, "--write", "--metric", "throughput_mbps"], env=env)
    assert "of fault" in p.stdout and "floor: level" in p.stdout
    floors = json.loads(out.read_text())
    assert list(floors) == ["fault"] and floors["fault"]["floors_only"]
    m = floors["fault"]["metrics"]["throughput_mbps"]
    assert m["floor_level_pct"] == pytest.approx(0.05, abs=2e-4)
    assert m["floor_difference_pts"] == pytest.approx(0.0304, abs=2e-4)
    monkeypatch.setenv("JLBENCH_FLOORS", str(out))
    assert floorfiles.floor(calibrate.for_workload("fault"),
                            "throughput_mbps", "difference") == \
        pytest.approx(0.0304, abs=2e-4)
    assert calibrate.for_workload("sock") is None
    p = run([str(ROOT / "analysis" / "calibrate"), "--floors-only"],
            check=False)
    assert p.returncode == 2 and \
        "--floors-only and --functions take --env DIR" in p.stderr
