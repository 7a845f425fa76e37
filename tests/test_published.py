"""The model against the published perf stat table
(analysis/models/published.py): the deltas of a pipe run, their intervals, the
table and the runs it finds. The table is parsed in
tests/test_pipe_workload.py."""
import json
import sys
from types import SimpleNamespace

import pandas as pd
import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from analysis.models import published  # noqa: E402
from analysis.sections import models  # noqa: E402
from test_analysis import AR, JL, PER_OP, PR  # noqa: E402
from test_model_presets import MODEL  # noqa: E402

TABLE = published.published(
    (ROOT / "tests" / "fixtures" / "pipe" / "static-keys-table.rst")
    .read_text())
SEEDS = [11, 12, 13, 14, 15, 16]


def pipe_runs(scale_on):
    """runs.csv rows of a pipe run, six seeds: atomic-read has 10,000
    kernel instructions per round trip (+ 300 user), 1,200 conditional
    branches, 50 mispredictions, 12,000 modelled cycles (11,000 with
    overlap) and 40 us; jump-label each x scale_on[column] (seed s adds
    s/1000 of the figure to both kernels, so pairs move together)."""
    rows = []
    for lab in ("atomic-read", "jump-label"):
        for i, seed in enumerate(SEEDS, 1):
            k = 1 + seed / 1000.0
            f = {"kernel_insns": 10000, "user_insns": 300,
                 "kernel_branches": 1200, "user_branches": 0,
                 "kernel_mispredicts": 50, "user_mispredicts": 0,
                 "model_cycles": 12000, "model_cycles_ooo": 11000,
                 "pipe_usecs_per_op": 40.0}
            row = {"label": lab, "variant": lab, "status": "ok",
                   "accel": "icount", "round": i, "perturb_seed": str(seed),
                   "ops": 1000}
            for c, v in f.items():
                v = v * k * (scale_on.get(c, 1.0) if lab == "jump-label"
                             else 1.0)
                row[c] = v if c == "pipe_usecs_per_op" else str(
                    int(round(v * 1000)))
            rows.append(row)
    return pd.DataFrame(rows)


def test_figures_give_each_counter_per_round_trip_and_its_change():
    runs = pipe_runs({"kernel_insns": 0.98, "kernel_branches": 0.9,
                      "kernel_mispredicts": 0.88, "model_cycles": 0.96,
                      "model_cycles_ooo": 0.97, "pipe_usecs_per_op": 0.98})
    got = published.figures(SimpleNamespace(runs=runs))
    insns = got[("instructions", "instructions (counted)")]
    # atomic-read 10,300 per round trip at seed 11..16 (x 1.011..1.016)
    assert insns.off == pytest.approx(10300 * 1.0135, rel=1e-4)
    # jump-label: (9800 + 300) / 10300 - 1 = -1.94%, the same every seed:
    # a zero-width interval from six pairs (the median rule)
    assert insns.change["pct_change"] == pytest.approx(-1.942, abs=1e-3)
    assert insns.change["pct_ci_lo"] == pytest.approx(-1.942, abs=1e-3)
    assert insns.change["pct_ci_hi"] == pytest.approx(-1.942, abs=1e-3)
    for key, pct in [(("branches", "conditional branches (counted)"), -10),
                     (("branch-misses", "mispredictions (modelled)"), -12),
                     (("cycles", "modelled cycles, in order"),
                      -4),
                     (("cycles", "modelled cycles, with overlap"), -3),
                     (("seconds time elapsed",
                       "guest time per round trip (icount)"), -2)]:
        assert got[key].change["pct_change"] == pytest.approx(pct, abs=0.01)
    # a run without the model has no modelled rows
    plain = published.figures(SimpleNamespace(runs=runs.drop(
        columns=["model_cycles", "model_cycles_ooo", "kernel_mispredicts",
                 "user_mispredicts"])))
    assert {c for c, _ in plain} == {"instructions", "branches",
                                     "seconds time elapsed"}


def test_section_sets_each_model_beside_the_published_change(monkeypatch):
    # branch-misses -12% (published -12.30% [-14.03, -10.57]) and cycles
    # -3% with overlap (published -2.84% [-3.31, -2.36]) overlap them;
    # cycles -4% in order and instructions (0% here) do not
    runs = pipe_runs({"kernel_mispredicts": 0.88, "model_cycles": 0.96,
                      "model_cycles_ooo": 0.97})
    res = SimpleNamespace(runs=runs)
    st = {"accel": "icount", "linux": "6.1",
          "published": {"source": "src/linux-x/" + published.DOC,
                        "table": TABLE}}
    meta = {"protocol": {"workload": "pipe", "loops": 100000}}
    monkeypatch.setattr(published, "runs", lambda r, s: [
        ("zen4", "20261205T000000Z-aaa0001", meta, st, res)])
    text = models.published_section(res, st)
    rows = {ln.split(" | ")[1]: ln for ln in text.splitlines()
            if ln.startswith("| cycles:") or ln.startswith("| branch-")}
    assert "-12.30% [-14.03, -10.57]" in rows["mispredictions (modelled)"]
    assert "-12.00%" in rows["mispredictions (modelled)"]
    assert "-4.00%" in rows["modelled cycles, in order"]
    assert "`zen4` (run 20261205T000000Z-aaa0001)" in text
    assert "-12.00% [-12.00, -12.00] overlaps" in rows[
        "mispredictions (modelled)"]
    assert "-3.00% [-3.00, -3.00] overlaps" in rows[
        "modelled cycles, with overlap"]
    assert "-4.00% [-4.00, -4.00] |" in rows["modelled cycles, in order"]
    assert "2 of the 6 changes here with an interval overlap" in text
    # published per round trip: 1,474,374,262 cycles / 100,000
    assert "| cycles | 14744 | 14326 |" in text
    assert "ae3989f" in text and "1ad4514" in text
    assert "Linux 6.1" in text


def test_section_says_what_is_missing(monkeypatch):
    res = SimpleNamespace(runs=pipe_runs({}))
    monkeypatch.setattr(published, "runs", lambda r, s: [])
    assert "--workload pipe" in models.published_section(res, {})
    monkeypatch.setattr(published, "runs", lambda r, s: [
        ("zen4", "RUN1", {}, {"published": None}, res)])
    text = models.published_section(res, {})
    assert "RUN1" in text and "no kernel tree in the cache" in text


def test_record_reads_the_table_from_a_kernel_tree_in_the_cache(
        tmp_path, monkeypatch):
    monkeypatch.setenv("JLBENCH_CACHE", str(tmp_path))
    assert published.record() is None
    doc = tmp_path / "src" / "linux-6.1.192-3" / published.DOC
    doc.parent.mkdir(parents=True)
    doc.write_text((ROOT / "tests" / "fixtures" / "pipe" /
                    "static-keys-table.rst").read_text())
    got = published.record()
    assert got["source"] == "src/linux-6.1.192-3/" + published.DOC
    assert got["table"]["on"]["branch-misses"] == [4884119.0, 0.85]


def test_a_tbench_report_finds_the_pipe_runs_of_its_kernels(tmp_path):
    """The default run's report: the newest pipe run of each model whose
    kernels are the run's (here a synthetic model run of jump-label and
    atomic-read, made a pipe run), in lib/model.py's order, and not one
    of other kernels."""
    def pipe_run(name, preset, hash_of=None):
        d = synth.make_results(
            str(tmp_path), {"jump-label": JL, "atomic-read": AR},
            per_op=PER_OP, model=MODEL, model_preset=preset, name=name)
        run([PYTHON, str(ROOT / "analysis" / "analyze"), d,
             "--no-history"])
        runs = pd.read_csv(d + "/runs.csv", dtype=str)
        runs["pipe_usecs_per_op"] = "40.0"
        runs.to_csv(d + "/runs.csv", index=False)
        for f, change in (("meta.json", {"protocol": {
                "workload": "pipe", "loops": 100000}}),
                ("stats.json", {"workload": "pipe", "published": {
                    "source": "src/x/" + published.DOC, "table": TABLE}})):
            data = json.loads(open(d + "/" + f).read())
            data.update(change)
            for v, b in data.get("builds", {}).items():
                b["build"]["hash"] = (hash_of or {}).get(
                    v, b["build"]["hash"])
            open(d + "/" + f, "w").write(json.dumps(data))
        return d
    pipe_run("20261201T000000Z-aaa0001", "zen4")
    pipe_run("20261202T000000Z-aaa0002", "nehalem")
    pipe_run("20261203T000000Z-aaa0003", "goldencove",
             {"jump-label": "0" * 16})
    per_op = dict(PER_OP, **{"plain-read": PER_OP["atomic-read"]})
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR,
                                           "plain-read": PR},
                           per_op=per_op, name="20261204T000000Z-aaa0004")
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    out = tmp_path / "REPORT.md"
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out)])
    sec = out.read_text().split("## Against published hardware counters")[
        1].split("\n## ")[0]
    head = next(ln for ln in sec.splitlines()
                if ln.startswith("| published:"))
    assert head.endswith(
        "| `nehalem` (run 20261202T000000Z-aaa0002) "
        "| `zen4` (run 20261201T000000Z-aaa0001) |"), head
    assert "goldencove" not in sec
    # instructions per op: (50000 + 3000) vs (50100 + 3000) = -0.19%
    row = next(ln for ln in sec.splitlines()
               if "| instructions (counted) |" in ln)
    assert row.count("-0.19%") == 2, row
