"""A results dir with several run lengths (the long profile): per-length
comparisons in stats.json, the convergence section and plot; and the MB/s
explanation of a real committed icount run."""
import json
import shutil
import sys

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402

REAL = ROOT / "results" / "20261203T092958Z-fb1efce"


def tool(name, *args):
    return run([PYTHON, str(ROOT / "analysis" / name)] + [str(a)
                                                          for a in args])


def test_runs_of_several_lengths_give_a_convergence_table(tmp_path):
    # rounds 1-3 at 4 s, 4-6 at 8 s: jump-label +1% then +2% vs atomic-read
    ar = [40.0, 40.2, 39.8, 40.0, 40.2, 39.8]
    jl = [x * 1.01 for x in ar[:3]] + [x * 1.02 for x in ar[3:]]
    d = synth.make_results(str(tmp_path / "results"),
                           {"jump-label": jl, "atomic-read": ar},
                           seconds=[4, 4, 4, 8, 8, 8])
    tool("analyze", d, "--no-history")
    st = json.loads((tmp_path / "results" / d.split("/")[-1] /
                     "stats.json").read_text())
    assert st["lengths"] == [4, 8] and st["seconds"] == 8
    got = {}
    for entry in st["convergence"]:
        for m in entry["metrics"]:
            for c in m["comparisons"]:
                got[(entry["seconds"], m["metric"])] = round(
                    c["pct_change"], 6)
    assert got == {(4, "ops_per_s"): 1.0, (4, "throughput_mbps"): 1.0,
                   (8, "ops_per_s"): 2.0, (8, "throughput_mbps"): 2.0}
    # the main tables use the longest runs only
    thr = next(m for m in st["metrics"] if m["metric"] == "ops_per_s")
    assert round(thr["comparisons"][0]["pct_change"], 6) == 2.0
    assert thr["per_label"]["jump-label"]["n"] == 3
    # a report of another run next to it shows this dir's convergence
    other = synth.make_results(str(tmp_path / "results"),
                               {"jump-label": ar, "atomic-read": ar},
                               name="20261202T000000Z-def5678")
    tool("analyze", other, "--no-history")
    plots = tmp_path / "plots"
    run([str(ROOT / "plots" / "draw"), "--out", str(plots), other])
    assert (plots / "convergence.svg").stat().st_size > 1000
    out = tmp_path / "REPORT.md"
    tool("report", other, "--out", out, "--plots", plots)
    text = out.read_text()
    section = text.split("## Convergence with run length")[1].split("\n## ")[0]
    assert "[`20261201T000000Z-abc1234`](results/20261201T000000Z-abc1234)" \
        in section
    assert "| 4 | 3 | +1.00% [" in section and "| 8 | 3 | +2.00% [" in section
    assert "convergence.svg" in section


def test_mbps_of_a_real_run_is_explained_by_loadfile_position(tmp_path):
    d = tmp_path / REAL.name
    shutil.copytree(REAL, d)
    tool("analyze", d, "--no-history", "--strict")
    ex = json.loads((d / "stats.json").read_text())["mbps_explained"]
    assert len(ex["runs"]) == 15
    # tbench's bytes between its first and last measured status lines are
    # the loadfile's payload between the lines it reports, within 0.1%
    assert ex["max_abs_err_pct"]["window"] < 0.1
    assert ex["max_abs_err_pct"]["predicted"] < 0.1
    jl = ex["comparisons"]["jump-label"]
    # the MB/s difference between kernels is reproduced by the prediction
    assert abs(jl["predicted_mbps"]["pct_change"]
               - jl["throughput_mbps"]["pct_change"]) < 0.1
    assert jl["throughput_mbps"]["pct_change"] < 0 < \
        jl["ops_per_s"]["pct_change"]
