"""The kvm path's nested-machine pieces without booting: the probe's bound,
the host's nested flag, the report's mode line, tests/nested/run's usage."""
import subprocess
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from analysis import facts, render, verdict, view  # noqa: E402
from bench.guest import accel  # noqa: E402
from bench.session import cli, session  # noqa: E402
from lib import hostinfo  # noqa: E402
from lib.format import schema  # noqa: E402

NESTED = str(ROOT / "tests" / "nested" / "run")
STANDIN = str(ROOT / "tests" / "fixtures" / "bench" / "stand-in-qemu")


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


def test_mode_line_of_a_nested_kvm_run():
    st = {"mode": "kvm"}
    assert facts.mode_key(st) == "kvm"
    assert view.head(st, "T") == "### T (mode kvm: hardware)"
    st = dict(st, nested=facts.nested({"host": {"nested": "QEMU TCG"}}),
              groups={"main": ["jump-label"]})
    assert facts.mode_key(st) == "kvm-nested"
    line = view.head(st, "T")
    assert "nested in an emulated machine" in line and "not hardware" in line
    nested_mode = schema.MODE["kvm-nested"]
    for text in (nested_mode.head, nested_mode.sees, nested_mode.what,
                 nested_mode.confound, nested_mode.description,
                 nested_mode.plot_title):
        assert "hardware throughput" not in text.replace(
            "not hardware throughput", "")
    assert facts.mode_key({"mode": "icount", "nested": "x"}) == "icount"
    assert facts.nested({}) is None and facts.nested({"host": {}}) is None
    # shown, never compared: no answer, no verdict, no 2011 table
    assert verdict.answer(st).startswith("**Answer.** None from this run")
    assert "compared with nothing" in verdict.verdicts(st)
    assert "2011 MB/s" not in render.table_2011(st, None)


def test_nested_run_help_and_usage_errors(tmp_path):
    p = run([NESTED, "--help"])
    assert "kvm_amd" in p.stdout and "Exit codes" in p.stdout
    for args, msg in ((["--timeout", "x", "true"], "whole seconds"),
                      (["--rw", str(tmp_path / "none"), "true"],
                       "no such directory"),
                      (["--rw", "/", "true"], "read-only"),
                      (["--bogus"], "unknown option"),
                      ([], "no COMMAND")):
        p = subprocess.run([NESTED] + args, capture_output=True, text=True)
        assert p.returncode == 2 and msg in p.stderr, (args, p.stderr)
