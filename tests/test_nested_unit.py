"""The kvm path's nested-machine pieces without booting: the probe's bound,
the host's nested flag, the report's accelerator line, tests/nested/run's
usage, its stall watch (on a stand-in outer QEMU) and the nested test's
retry-once-on-stall."""
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT, run
from test_nested_kvm import MACHINES, STALLED, run_machine, stall_of

sys.path.insert(0, str(ROOT))
from analysis.sections import fmt, verdict  # noqa: E402
from analysis.documents import report  # noqa: E402
from analysis.results import runinfo  # noqa: E402
from bench.guest import accel  # noqa: E402
from bench.session import cli, session  # noqa: E402
from lib import hostinfo  # noqa: E402
from lib.format import schema  # noqa: E402

NESTED = str(ROOT / "tests" / "nested" / "run")
STANDIN = str(ROOT / "tests" / "fixtures" / "bench" / "stand-in-qemu")
OUTER = str(ROOT / "tests" / "fixtures" / "nested" / "outer-qemu")


class Thing:
    def __init__(self, **kw):
        self.__dict__.update(kw)


@pytest.mark.parametrize("qemu,ok", [(STANDIN, True), ("false", False)])
def test_probe_boot_runs_qemu_under_kvm(tmp_path, monkeypatch, qemu, ok):
    """The probe's QEMU command is kvm's (it once passed a keyword that
    qemu.command() does not take, so every real probe crashed), and a
    guest that reached the agent passes even when it ended at once."""
    script = tmp_path / "script"
    script.write_text("ok\n")
    monkeypatch.setenv("STANDIN_SCRIPT", str(script))
    build = Thing(kernel="bzImage", variant="jump-label", boot_args="")
    got, detail = session.probe_kvm(build, Thing(path="img"), qemu,
                                    str(tmp_path / "probe.log"), bound=3)
    assert got is ok, detail
    assert ("reached the agent" in detail) is ok
    if ok:
        argv = (tmp_path / "script.calls").read_text()
        assert "-accel kvm -cpu host" in argv, argv


def test_probe_bound_default_nested_and_asked():
    assert accel.probe_bound(None, None) == (accel.PROBE_SECONDS, "default")
    assert accel.probe_bound(None, "emulated")[0] == \
        accel.NESTED_PROBE_SECONDS
    # nested KVM boots took 37-53 s: the nested bound leaves room
    assert accel.NESTED_PROBE_SECONDS >= 2 * 53
    assert accel.probe_bound(90.0, "emulated") == (90.0, "--probe-timeout")


def test_probe_boots_once_or_twice_on_an_emulated_host():
    assert accel.probe_boots(None) == 1
    assert accel.probe_boots("emulated") == accel.NESTED_PROBE_BOOTS == 2


def fake_boots(probe_log, ends):
    """boot(n) for session.run_probes playing ENDS, (ok, detail) each:
    the console says which boot wrote it."""
    def boot(n):
        with open(probe_log, "w") as f:
            f.write("boot %d\n" % n)
        return ends[n - 1]
    return boot


def test_a_failed_probe_boots_again_keeping_its_console(tmp_path):
    """On an emulated host a probe whose first boot died (the inner
    kernel's timer check panicked, seen in the nested test) boots again;
    the first console is kept beside the probe's as probe-kvm-1.log."""
    log = str(tmp_path / "probe-kvm.log")
    ok, detail = session.run_probes(2, fake_boots(log, [
        (False, "panicked"), (True, "reached the agent")]), log)
    assert ok and detail == \
        "reached the agent; after a failed one (boot 1: panicked)"
    assert (tmp_path / "probe-kvm-1.log").read_text() == "boot 1\n"
    assert (tmp_path / "probe-kvm.log").read_text() == "boot 2\n"
    ok, detail = session.run_probes(2, fake_boots(log, [
        (False, "panicked"), (False, "hung")]), log)
    assert not ok and detail == "boot 1: panicked; boot 2: hung"


def test_one_probe_boot_elsewhere_says_why_as_before(tmp_path):
    log = str(tmp_path / "probe-kvm.log")
    assert session.run_probes(1, fake_boots(log, [(False, "hung")]),
                              log) == (False, "hung")
    assert os.listdir(tmp_path) == ["probe-kvm.log"]


def test_probe_timeout_option_and_its_reason_in_help(capsys):
    args = cli.parse(["--builds", "b", "--initramfs", "i",
                      "--probe-timeout", "120"])
    assert args.probe_timeout == 120.0
    assert cli.parse(["--builds", "b", "--initramfs", "i"]) \
        .probe_timeout is None
    with pytest.raises(cli.UsageError):
        cli.parse(["--builds", "b", "--initramfs", "i",
                   "--probe-timeout", "0"])
    text = " ".join(cli.parser().format_help().split())
    assert "--probe-timeout S" in text
    assert "falling back" in text and "emulated machine" in text


def cpuinfo(tmp_path, model):
    p = tmp_path / "cpuinfo"
    p.write_text("processor\t: 0\nmodel name\t: %s\nflags\t\t: fpu\n" % model)
    return str(p)


def test_nested_host_from_env_or_an_emulated_cpu(tmp_path):
    hw = cpuinfo(tmp_path, "AMD EPYC 7B13 64-Core Processor")
    assert hostinfo.nested({}, hw) is None
    assert hostinfo.nested({"JLBENCH_NESTED": "inside QEMU"}, hw) == \
        "inside QEMU"
    tcg = cpuinfo(tmp_path, "QEMU TCG CPU version 2.5+")
    assert "emulated by QEMU" in hostinfo.nested({}, tcg)
    assert "nested" in hostinfo.host("true")


def test_accel_line_of_a_nested_kvm_run():
    st = {"accel": "kvm"}
    assert runinfo.accel_key(st) == "kvm"
    assert report.accel_line(st).startswith("*Accelerator kvm: hardware; ")
    assert fmt.head("T") == "### T"
    st = dict(st, nested=runinfo.nested({"host": {"nested": "QEMU TCG"}}),
              groups={"main": ["jump-label"]})
    assert runinfo.accel_key(st) == "kvm-nested"
    line = report.accel_line(st)
    assert "nested in an emulated machine" in line and "not hardware" in line
    nested = schema.ACCEL["kvm-nested"]
    for text in (nested.head, nested.sees, nested.what,
                 nested.confound, nested.description,
                 nested.plot_title):
        assert "hardware throughput" not in text.replace(
            "not hardware throughput", "")
    assert runinfo.accel_key({"accel": "icount", "nested": "x"}) == "icount"
    assert runinfo.nested({}) is None and runinfo.nested({"host": {}}) is None
    # shown, never compared: no answer, no verdict, no 2011 table
    assert verdict.answer(st).startswith("**Answer.** None from this run")
    table = report.table_2011(st, None)
    assert "compared with nothing" in table and "2011 MB/s" not in table


def test_nested_run_help_and_usage_errors(tmp_path):
    p = run([NESTED, "--help"])
    assert "kvm_amd" in p.stdout and "Exit codes" in p.stdout
    assert "--stall S" in p.stdout and "124 the outer machine" in p.stdout
    for args, msg in ((["--timeout", "x", "true"], "whole seconds"),
                      (["--rw", str(tmp_path / "none"), "true"],
                       "no such directory"),
                      (["--rw", "/", "true"], "read-only"),
                      (["--stall", "0", "true"], "whole seconds"),
                      (["--kernel", str(tmp_path), "true"], "no vmlinuz"),
                      (["--bogus"], "unknown option"),
                      ([], "no COMMAND")):
        p = subprocess.run([NESTED] + args, capture_output=True, text=True)
        assert p.returncode == 2 and msg in p.stderr, (args, p.stderr)


@pytest.fixture
def outer(tmp_path):
    """Run tests/nested/run on the stand-in outer QEMU and an empty outer
    kernel: (argv before COMMAND, env); OUTER_STANDIN picks its act."""
    k = tmp_path / "kernel"
    (k / "modules").mkdir(parents=True)
    (k / "vmlinuz").write_text("")
    (k / "modules" / "list").write_text("")
    (k / "package").write_text("linux-image-stand-in 1 1\n")
    env = dict(os.environ, JLBENCH_QEMU=OUTER,
               JLBENCH_CACHE=str(tmp_path / "cache"),
               OUTER_STANDIN_TRACE=str(tmp_path / "trace"))
    return [NESTED, "--kernel", str(k), "--timeout", "120"], env


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_watch_kills_a_stalled_outer_machine(outer, tmp_path):
    """A machine that stops using CPU with a silent console is killed
    within the bound, reported as a stall (124), its job files kept."""
    argv, env = outer
    job = tmp_path / "job"
    t = time.monotonic()
    p = subprocess.run(argv + ["--stall", "3", "--job", str(job), "true"],
                       env=dict(env, OUTER_STANDIN="stall"),
                       capture_output=True, text=True)
    took = time.monotonic() - t
    assert p.returncode == STALLED, p.stderr
    wall = int((job / "wall_seconds").read_text())
    assert 3 <= wall <= 3 + 5 and took < 3 + 20, (wall, took)
    assert "the outer machine stalled: no progress for 3 s" in p.stderr
    assert "Unhandled WRMSR" in p.stderr and str(job) in p.stderr
    pid = int((job / "qemu.pid").read_text())
    assert not alive(pid)
    for f in ("console.log", "qemu.stderr", "watch.tsv", "qemu-cmd"):
        assert (job / f).exists(), f
    reason = stall_of(p.returncode, job)
    assert reason.startswith("no progress for 3 s") and \
        "vCPU: VM running, halted" in reason, reason
    assert "VM status: running" in (job / "monitor.txt").read_text()
    assert "state S" in (job / "qemu-threads.txt").read_text()
    assert float((job / "quiet_max_seconds").read_text()) >= 3


def test_watch_kills_a_busy_machine_whose_heartbeat_stopped(outer, tmp_path):
    """A machine that burns CPU while its outer init never beats (the
    CI run whose machine spun for 25 minutes, writing nothing) is killed
    within the bound too, as a stall, the reason saying how."""
    argv, env = outer
    job = tmp_path / "job"
    p = subprocess.run(argv + ["--stall", "3", "--job", str(job), "true"],
                       env=dict(env, OUTER_STANDIN="wedge"),
                       capture_output=True, text=True)
    assert p.returncode == STALLED, p.stderr
    wall = int((job / "wall_seconds").read_text())
    assert 3 <= wall <= 3 + 5, wall
    reason = stall_of(p.returncode, job)
    assert reason.startswith("no heartbeat for 3 s: the outer init did "
                             "not beat while QEMU pid"), reason
    assert "no heartbeat from the outer init" in reason and \
        "vCPU: VM running, not halted" in reason, reason
    assert float((job / "quiet_max_seconds").read_text()) < 3
    assert float((job / "beat_max_seconds").read_text()) >= 3


def test_watch_leaves_a_busy_machine_alone(outer, tmp_path):
    """A machine that burns CPU with a silent console for longer than the
    bound, its outer init beating, runs to its end."""
    argv, env = outer
    job = tmp_path / "job"
    p = subprocess.run(argv + ["--stall", "2", "--job", str(job), "true"],
                       env=dict(env, OUTER_STANDIN="spin:5"),
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "stalled" not in p.stderr and not (job / "stall").exists()
    assert float((job / "quiet_max_seconds").read_text()) < 2
    assert float((job / "beat_max_seconds").read_text()) < 2


def test_a_stalled_machine_is_run_once_more(outer, tmp_path):
    """The nested test's retry on the stand-in: a stall, then a machine
    that ends well: two starts, one retry said with the stall's reason."""
    argv, env = outer
    acts = {1: "stall", 2: "spin:1"}

    def attempt(n):
        job = tmp_path / ("job%d" % n)
        p = subprocess.run(argv + ["--stall", "2", "--job", str(job),
                                   "true"],
                           env=dict(env, OUTER_STANDIN=acts[n]),
                           capture_output=True, text=True)
        return p.returncode, stall_of(p.returncode, job), p

    said = []
    status, p, stalls = run_machine(attempt, said.append)
    assert status == 0, p.stderr
    starts = (tmp_path / "trace").read_text().splitlines()
    assert len(starts) == 2 and len(stalls) == 1 and len(said) == 1
    assert "stalled (no progress for 2 s" in said[0] and \
        "starting machine 2 of 3" in said[0]


def fake_runner(ends):
    """attempt() for run_machine playing ENDS, (status, stall) each."""
    calls = []

    def attempt(n):
        calls.append(n)
        status, stall = ends[n - 1]
        return status, stall, "result %d" % n
    return attempt, calls


def test_retry_on_a_stall_then_success():
    attempt, calls = fake_runner([(STALLED, "stall A"), (STALLED, "stall B"),
                                  (0, None)])
    said = []
    assert run_machine(attempt, said.append) == \
        (0, "result 3", ["stall A", "stall B"])
    assert calls == [1, 2, 3] and len(said) == 2
    assert "stall A" in said[0] and "machine 2 of 3" in said[0]


def test_three_stalls_fail_naming_each():
    ends = [(STALLED, "stall %d" % n) for n in range(1, MACHINES + 1)]
    attempt, calls = fake_runner(ends + [(0, None)])
    said = []
    assert run_machine(attempt, said.append) == \
        (STALLED, "result %d" % MACHINES, [s for _, s in ends])
    assert calls == list(range(1, MACHINES + 1)) and \
        len(said) == MACHINES - 1


@pytest.mark.parametrize("status,stall", [
    (0, None),          # a step failed inside a healthy machine
    (125, None),        # the machine failed (timeout, a module, a mount)
    (STALLED, None),    # COMMAND itself exited 124: no stall file
    (1, None)])
def test_no_retry_without_a_stall(status, stall):
    attempt, calls = fake_runner([(status, stall), (0, None)])
    said = []
    assert run_machine(attempt, said.append) == (status, "result 1", [])
    assert calls == [1] and said == []


def test_stall_of_wants_the_status_and_the_file(tmp_path):
    assert stall_of(STALLED, tmp_path) is None
    (tmp_path / "stall").write_text("no progress for 300 s\n")
    assert stall_of(STALLED, tmp_path) == "no progress for 300 s"
    assert stall_of(0, tmp_path) is None
