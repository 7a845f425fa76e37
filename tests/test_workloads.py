"""lib/workloads.py's records and what reads them: the agent's run-mode
words, the host's check of a run-mode try, its figures, bench/run's
options, the suite's figures and REPORT.md's "Across the kernel" (from
synthetic stats.json files)."""
import copy
import json
import re
import sys

import pandas as pd
import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from analysis.documents import across  # noqa: E402
from analysis.results import metrics, peers, suite  # noqa: E402
from bench.guest import boot  # noqa: E402
from bench.session import cli  # noqa: E402
from bench.tries import plan, runner  # noqa: E402
from lib import workloads  # noqa: E402
from lib.format import console  # noqa: E402

RUN = [w for w in workloads.WORKLOADS if w.task == workloads.RUN]
BASE = ["--builds", "b.tsv", "--initramfs", "i.cpio.gz"]
# guest-image/agent/cmdline.h: JLB_CMD_LEN - 1 bytes, JLB_MAX_ARGS words
CMD_LEN, MAX_ARGS = 511, 32


def test_records_are_complete_and_consistent():
    names = [w.name for w in workloads.WORKLOADS]
    assert len(set(names)) == len(names) and names[0] == workloads.DEFAULT
    assert workloads.SUITE == names
    assert {w.task for w in workloads.WORKLOADS} == {
        workloads.TBENCH, workloads.PIPE, workloads.RUN}
    for w in workloads.WORKLOADS:
        assert re.fullmatch(r"[a-z0-9-]+", w.name), w.name
        assert w.op and w.area and w.title and w.package, w.name
        assert w.binary.startswith("/"), w.name
        assert (w.n is None) == (w.task == workloads.TBENCH), w.name
    for w in RUN:
        assert w.argv[0] == w.binary and "{n}" in w.argv and w.expect
        assert w.n > 0 and w.per_n > 0 and w.us_per_n > 0
        words = workloads.words(w, 10 ** 8)
        assert len(",".join(words)) <= CMD_LEN and len(words) <= MAX_ARGS
        assert not any("," in a or " " in a for a in words), w.name


def test_every_workload_package_is_installed_by_lib_deps():
    listed = set(run([str(ROOT / "lib" / "deps"), "--list"]).stdout.split())
    assert {w.package for w in workloads.WORKLOADS} <= listed


def test_run_mode_words_carry_the_command_and_its_operations():
    w = workloads.WORKLOAD["messaging"]
    p = {"workload": "messaging", "task": "run", "loops": 7, "perf": "none"}
    r = plan.Run(1, 1, 1, "jump-label", "jump-label", 9,
                 plan.FIXED_WORK_SECONDS)
    words = runner.workload_words(p, r)
    assert words == boot.command_words(w, 7, "none", 9, plan.guest_limit(p))
    assert "jlbench.run=/usr/bin/perf,bench,sched,messaging,-g,1,-l,7" \
        in words
    assert "jlbench.ops=%d" % (7 * 400) in words
    assert "jlbench.workload=messaging" in words
    assert plan.guest_limit(p) >= 60 + 4 * 7 * w.us_per_n / 1e6 - 1
    assert plan.profile_defaults("quick", "icount", "fault") == (6, (0,))


BLOCK = """
JLBENCH-BEGIN
protocol=1
status=ok
mode=run
workload=fault
ops=500
workload_s=%s
JLBENCH-END
"""


def test_a_run_mode_try_is_ok_only_with_its_figures_and_its_work():
    w = workloads.WORKLOAD["fault"]
    ok = "jlbench: fault: stress-ng: info: [9] %s in 1.2s\n" % w.expect
    rep = console.parse(ok + BLOCK % "1.5")
    assert console.verdict(rep, "QEMU exited", "run") == ("ok", "")
    assert console.did_its_work(ok, w) == ("ok", "")
    bad = console.parse(BLOCK % "0")
    assert console.verdict(bad, "QEMU exited", "run")[0] == "failed"
    # the text must be the workload's own output, echoed by the agent
    for text in ("", "jlbench: fork: %s\n" % w.expect, w.expect + "\n"):
        status, reason = console.did_its_work(text, w)
        assert status == "failed" and "did not do its work" in reason
    assert console.did_its_work("", workloads.WORKLOAD["pipe"])[0] == "ok"


def test_ops_per_second_of_a_run_mode_workload_is_ops_over_its_seconds():
    runs = pd.DataFrame({"ops": [400, 300], "workload_s": [2.0, 1.5]})
    assert list(metrics.ops_per_s(runs)) == [200.0, 200.0]


def test_options_take_the_records_work():
    assert cli.parse(BASE + ["--workload", "fault"]).loops == \
        workloads.WORKLOAD["fault"].n
    assert cli.parse(BASE + ["--workload", "fault", "--loops", "5"]).loops \
        == 5
    with pytest.raises(cli.UsageError, match="drop --seconds"):
        cli.parse(BASE + ["--workload", "sock", "--seconds", "5"])
    with pytest.raises(cli.UsageError, match="set by --workload"):
        cli.parse(BASE + ["--append", "jlbench.run=/bin/true"])


def _stats(template, workload, pct):
    """A stats.json of workload whose jump-label changes by pct."""
    st = copy.deepcopy(template)
    if workload != "tbench":
        st["workload"] = workload
    for m in st["metrics"]:
        for c in m["comparisons"]:
            if c["group"] == "main" and c["label"] == "jump-label":
                c.update(pct_change=pct, pct_ci_lo=pct - 0.1,
                         pct_ci_hi=pct + 0.1, significant=True)
            if workload != "tbench":
                c["floor_pts"] = 0.0
    if workload != "tbench":
        st["calibration"] = None
    return st


def test_across_the_kernel_from_a_suite_dir(tmp_path):
    committed = sorted((ROOT / "results").glob("*/stats.json"))[-1]
    template = json.loads(committed.read_text())
    main = tmp_path / "run"
    main.mkdir()
    (main / "stats.json").write_text(json.dumps(
        _stats(template, "tbench", 1.4)))
    for name, pct in (("fault", 3.0), ("syscall", 0.2)):
        d = main / "suite" / name / "20261206T000000Z-abc"
        d.mkdir(parents=True)
        (d / "stats.json").write_text(json.dumps(
            _stats(template, name, pct)))
    rows = suite.rows(str(main))
    assert [r.workload.name for r in rows] == workloads.SUITE
    got = {r.workload.name: r for r in rows}
    assert got["fault"].changes["jump-label"]["pct_change"] == 3.0
    assert got["pipe"].path is None and not got["pipe"].st

    class Res:
        path, meta = str(main), {}
    text = across.section(Res(), ["- figure"])
    first, sites = text.split("passes most\n")
    table = [ln for ln in first.splitlines() if ln.startswith("| `")]
    assert len(table) == len(workloads.SUITE)
    # no runs.csv, no profiles: said, per workload that ran
    assert sites.count("not counted (no profiles)") == 3
    fault = next(ln for ln in table if ln.startswith("| `fault`"))
    assert "+3.00% [+2.90, +3.10]" in fault and "faster (here only)" in fault
    tb = next(ln for ln in table if ln.startswith("| `tbench`"))
    assert "faster" in tb and "here only" not in tb
    assert "not run" in next(ln for ln in table if ln.startswith("| `pipe`"))
    assert "largest gain of `jump-label`: `fault` (+3.00%" in text
    assert "Smallest: `syscall` (+0.20%" in text
    assert text.rstrip().endswith("- figure")
    assert across.section(type("R", (), {"path": str(tmp_path)})(), []) \
        == across.NOT_RUN


def test_the_newest_run_of_a_workload_is_found_in_a_suite(tmp_path):
    """profile-diff --workload's default dir (analysis/results/peers.py)."""
    def make(d, workload):
        d.mkdir(parents=True)
        (d / "runs.csv").write_text("index\n")
        protocol = {"workload": workload} if workload != "tbench" else {}
        (d / "meta.json").write_text(json.dumps({"protocol": protocol}))
    main = tmp_path / "20261206T080000Z-aaa"
    make(main, "tbench")
    make(main / "suite" / "fault" / "20261206T081000Z-aaa", "fault")
    make(tmp_path / "20261206T070000Z-bbb", "fault")
    assert peers.newest(str(tmp_path)) == str(main)
    assert peers.newest(str(tmp_path), "fault") == str(
        main / "suite" / "fault" / "20261206T081000Z-aaa")
    assert peers.newest(str(tmp_path), "sock") is None
