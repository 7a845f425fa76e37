"""The pipe workload (`bench/run --workload pipe`) without a boot: its
options, kernel command line, result block, runs.csv cells, headline and
the published table it is set beside (analysis/models/published.py).

The agent's parser of perf bench's output has its C tests
(guest-image/agent/test_pipe.c, tests/test_agent_unit.py); a real boot is
tests/test_bench_pipe_boot.py.
"""
import sys

import pandas as pd
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from analysis.models import published  # noqa: E402
from analysis.results import load, metrics  # noqa: E402
from bench.session import cli  # noqa: E402
from bench.tries import plan, runner  # noqa: E402
from lib import workloads  # noqa: E402
from lib.format import console, rawtry, results, schema  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "pipe"
BASE = ["--builds", "b.tsv", "--initramfs", "i.cpio.gz"]

# A pipe result block as the agent prints it (guest-image/PROTOCOL.md).
BLOCK = """\
jlbench: pipe: # Executed 2000 pipe operations between two processes

JLBENCH-BEGIN
protocol=1
status=ok
kernel=6.1.192
mode=pipe
variant=jump-label
loops=2000
perturb=7
perf=task-clock
timeout=120
uptime_pipe_start_s=3.100
uptime_pipe_end_s=3.300
ops=2000
pipe_tasks=processes
pipe_total_s=0.080
pipe_usecs_per_op=40.000000
pipe_ops_per_s=25000
stat.user_ticks=1
stat.nice_ticks=0
stat.system_ticks=15
stat.idle_ticks=0
stat.iowait_ticks=0
stat.irq_ticks=0
stat.softirq_ticks=0
stat.steal_ticks=0
perf.task_clock=80.5
JLBENCH-END
"""


def test_options_default_to_tbench_and_pipe_takes_loops():
    a = cli.parse(BASE)
    assert a.workload == "tbench" and a.loops is None
    a = cli.parse(BASE + ["--workload", "pipe"])
    assert a.loops == workloads.WORKLOAD["pipe"].n == 100000
    a = cli.parse(BASE + ["--workload", "pipe", "--loops", "5000"])
    assert a.loops == 5000


@pytest.mark.parametrize("argv, words", [
    (["--loops", "10"], "add --workload NAME"),
    (["--workload", "pipe", "--seconds", "5"], "drop --seconds/--clients"),
    (["--workload", "pipe", "--clients", "3"], "drop --seconds/--clients"),
    (["--workload", "pipe", "--loops", "0"], "not in 1..100000000"),
    (["--workload", "pipes"], "invalid choice"),
    (["--append", "jlbench.loops=3"], "set by --loops"),
])
def test_bad_pipe_options_are_usage_errors(argv, words):
    with pytest.raises(cli.UsageError, match=words.replace(".", r"\.")):
        cli.parse(BASE + argv)


def test_a_pipe_run_has_its_kernel_command_line_and_no_fixed_length():
    p = {"workload": "pipe", "task": "pipe", "loops": 300, "perf": "none",
         "clients": 20}
    r = plan.Run(1, 1, 1, "jump-label", "jump-label", 9,
                 plan.FIXED_WORK_SECONDS)
    assert runner.workload_words(p, r) == [
        "jlbench.loops=300", "jlbench.perf=none", "jlbench.perturb=9"]
    assert plan.profile_defaults("quick", "icount", "pipe") == (6, (0,))
    assert plan.guest_seconds(p, 0) == pytest.approx(
        300 * workloads.WORKLOAD["pipe"].us_per_n * 1e-6)
    tb = {"task": "tbench", "clients": 2, "perf": "none"}
    assert runner.workload_words(tb, r._replace(seconds=5))[:2] == [
        "jlbench.clients=2", "jlbench.seconds=5"]


def test_the_pipe_block_gives_its_cells_and_tbench_leaves_them_out(
        tmp_path):
    rep = console.parse(BLOCK)
    assert console.verdict(rep, "QEMU exited", "pipe") == ("ok", "")
    # a tbench verdict of this block: the task is not tbench
    assert console.verdict(rep, "QEMU exited")[0] == "failed"
    cells = results.figures(rep.block, ["task-clock"], "pipe")
    assert cells["ops"] == "2000" and cells["pipe_usecs_per_op"] == \
        "40.000000"
    assert cells["throughput_mbps"] is None
    assert cells["perf_task_clock"] == "80.5" and cells["total_ticks"] == 16
    assert "pipe_usecs_per_op" not in results.figures(rep.block, [])
    cols = schema.run_columns(["task-clock"], workload="pipe")
    assert cols[-1] == "pipe_usecs_per_op"
    assert "pipe_usecs_per_op" not in schema.run_columns(["task-clock"])
    base = str(tmp_path / "001-jump-label-try1")
    (tmp_path / "001-jump-label-try1.log").write_text(BLOCK)
    got = rawtry.derive(base, ["task-clock"], False, "QEMU exited", "pipe")
    assert got.status == "ok" and got.measured == [] and got.warmup == []
    assert got.cells["pipe_usecs_per_op"] == "40.000000"
    assert set(got.cells) <= set(rawtry.columns(["task-clock"], None,
                                                "pipe"))


@pytest.mark.parametrize("key, value", [
    ("pipe_usecs_per_op", "0.000000"), ("ops", "0"), ("ops", "")])
def test_a_pipe_block_without_a_figure_fails(key, value):
    text = "\n".join("%s=%s" % (key, value) if line.startswith(key + "=")
                     else line for line in BLOCK.splitlines())
    status, reason = console.verdict(console.parse(text), "x", "pipe")
    assert status == "failed" and key in reason


def test_pipe_headline_is_round_trips_per_second_under_every_accel(tmp_path):
    for accel in schema.RUN_ACCELS:
        assert metrics.headline(accel, "pipe") == "ops_per_s"
    assert metrics.headline("kvm") == "throughput_mbps"
    runs = pd.DataFrame({"ops": [2000, 2000], "seconds": [0, 0],
                         "pipe_usecs_per_op": [40.0, 50.0]})
    assert list(metrics.ops_per_s(runs)) == [25000.0, 20000.0]
    # runs.csv of a pipe run: no throughput, yet ok rows are usable
    cols = schema.run_columns([], workload="pipe")
    row = dict.fromkeys(cols, "")
    row.update(index="1", round="1", position="1", variant="jump-label",
               label="jump-label", accel="icount", status="ok", ops="2000",
               seconds="0", pipe_usecs_per_op="40.000000")
    path = tmp_path / "runs.csv"
    pd.DataFrame([row], columns=cols).to_csv(path, index=False)
    df = load.read_runs(str(path))
    assert float(metrics.ops_per_s(df)[0]) == 25000.0
    row["pipe_usecs_per_op"] = ""
    pd.DataFrame([row], columns=cols).to_csv(path, index=False)
    with pytest.raises(load.FormatError, match="without a throughput"):
        load.read_runs(str(path))


def test_workload_of_meta():
    assert schema.workload({}) == "tbench"
    assert schema.workload({"protocol": {"mode": "tbench"}}) == "tbench"
    assert schema.workload({"protocol": {"workload": "pipe"}}) == "pipe"


def test_published_table_of_the_kernel_documentation():
    """The perf stat table of static-keys.rst (its excerpt in
    tests/fixtures/pipe) and the % changes its text states."""
    t = published.published(
        (FIXTURES / "static-keys-table.rst").read_text())
    assert t["off"]["cycles"] == (1474374262.0, 0.17)
    assert t["on"]["branch-misses"] == (4884119.0, 0.85)
    assert t["on"]["seconds time elapsed"] == (1.579384366, None)
    assert t["off"]["context-switches"][0] == 200003
    # "saved .7% branches, 12% branch-misses, .2% instructions, 2.8% on
    # cycles and 1.4% on elapsed time"
    for counter, said in [("branches", -0.7), ("branch-misses", -12.3),
                          ("instructions", -0.2), ("cycles", -2.8),
                          ("seconds time elapsed", -1.4)]:
        pct, lo, hi = published.published_change(t, counter)
        assert pct == pytest.approx(said, abs=0.05)
        assert lo < pct < hi
    assert {r[0] for r in published.ROWS} == set(published.COUNTERS)
    with pytest.raises(ValueError, match="jump label"):
        published.published("jump label disabled::\n 1 cycles\n")
