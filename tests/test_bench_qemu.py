"""bench/guest/qemu.py: the command line of each accelerator."""
import shlex
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.guest import qemu  # noqa: E402


def guest(plugin=None):
    return qemu.Guest("/b/bzImage", "/i/initrd.gz", "console=ttyS0 x=1",
                      "/r/raw/001-v-try1.log", plugin=plugin,
                      counts_file="/r/raw/001-v-try1.counts")


def opt(cmd, name):
    """Values of every occurrence of option name in cmd."""
    return [cmd[i + 1] for i, a in enumerate(cmd) if a == name]


def common(cmd):
    assert cmd[0] == "qemu-system-x86_64"
    assert opt(cmd, "-m") == ["1024"]
    for flag in ("-nodefaults", "-nographic", "-no-reboot"):
        assert flag in cmd
    assert opt(cmd, "-serial") == ["file:/r/raw/001-v-try1.log"]
    assert opt(cmd, "-monitor") == ["none"]
    assert opt(cmd, "-kernel") == ["/b/bzImage"]
    assert opt(cmd, "-initrd") == ["/i/initrd.gz"]
    assert opt(cmd, "-append") == ["console=ttyS0 x=1"]
    # no network device of any kind: tbench runs on the guest's loopback
    assert not any(a in cmd for a in ("-net", "-netdev", "-nic", "-device"))


def test_kvm():
    cmd = qemu.command("kvm", guest(), 2)
    common(cmd)
    assert opt(cmd, "-accel") == ["kvm"]
    assert opt(cmd, "-cpu") == ["host"]
    assert opt(cmd, "-smp") == ["2"]
    assert "-icount" not in cmd


def test_tcg():
    cmd = qemu.command("tcg", guest(), 2)
    common(cmd)
    assert opt(cmd, "-accel") == ["tcg,thread=multi"]
    assert opt(cmd, "-smp") == ["2"]
    assert "-icount" not in cmd and "-cpu" not in cmd


def test_icount():
    cmd = qemu.command("icount", guest(), 1)
    common(cmd)
    assert opt(cmd, "-accel") == ["tcg"]
    assert opt(cmd, "-icount") == ["shift=2,sleep=off"]
    assert opt(cmd, "-rtc") == ["base=2020-01-01T00:00:00,clock=vm"]
    assert opt(cmd, "-smp") == ["1"]
    # default CPU model: no RDRAND, whose values would differ per boot
    assert "-cpu" not in cmd


def test_icount_is_single_cpu():
    with pytest.raises(ValueError):
        qemu.command("icount", guest(), 2)


def test_plugin_only_where_asked_and_never_under_kvm():
    cmd = qemu.command("icount", guest("/c/branches.so"), 1)
    assert opt(cmd, "-plugin") == [
        "/c/branches.so,outfile=/r/raw/001-v-try1.counts"]
    assert "-plugin" not in qemu.command("icount", guest(), 1)
    with pytest.raises(ValueError):
        qemu.command("kvm", guest("/c/branches.so"), 1)


def test_plugin_sites_and_commas():
    g = guest("/c/branches.so")
    g.sites = "/r/sites/jump-label.txt"
    cmd = qemu.command("icount", g, 1)
    assert opt(cmd, "-plugin") == [
        "/c/branches.so,outfile=/r/raw/001-v-try1.counts,"
        "sites=/r/sites/jump-label.txt"]
    g.sites = "/r/a,b.txt"
    with pytest.raises(ValueError, match="comma"):
        qemu.command("icount", g, 1)


def test_unknown_mode():
    with pytest.raises(ValueError):
        qemu.command("hvf", guest(), 1)


def test_shell_line_replays_the_argv():
    cmd = qemu.command("icount", guest(), 1)
    assert shlex.split(qemu.shell_line(cmd)) == cmd


def test_s390x_guest():
    cmd = qemu.command("icount", guest(), 1, qemu=qemu.binary("s390x"),
                       arch="s390x")
    assert cmd[:3] == ["qemu-system-s390x", "-M", "s390-ccw-virtio"]
    assert opt(cmd, "-accel") == ["tcg"] and "-icount" in cmd
    assert opt(cmd, "-serial") == ["file:/r/raw/001-v-try1.log"]
    assert "-no-reboot" in cmd and "-cpu" not in cmd
    cmd = qemu.command("tcg", guest(), 1, arch="s390x")
    assert opt(cmd, "-accel") == ["tcg,thread=multi"]
    assert qemu.base_args("s390x") == "console=ttysclp0 panic=-1 oops=panic"
    assert qemu.base_args() == qemu.BASE_ARGS
    with pytest.raises(ValueError, match="s390x guests run under tcg"):
        qemu.command("kvm", guest(), 1, arch="s390x")
    with pytest.raises(ValueError, match="x86 code only"):
        qemu.command("icount", guest(plugin="/p/branches.so"), 1,
                     arch="s390x")
    with pytest.raises(ValueError, match="unknown guest arch"):
        qemu.command("tcg", guest(), 1, arch="mips")


def test_binary_per_arch(monkeypatch):
    monkeypatch.delenv("JLBENCH_QEMU", raising=False)
    monkeypatch.delenv("JLBENCH_QEMU_S390X", raising=False)
    assert qemu.binary() == "qemu-system-x86_64"
    assert qemu.binary("s390x") == "qemu-system-s390x"
    monkeypatch.setenv("JLBENCH_QEMU", "/x/qemu")
    assert qemu.binary("s390x") == "qemu-system-s390x"
    monkeypatch.setenv("JLBENCH_QEMU_S390X", "/s/qemu")
    assert (qemu.binary(), qemu.binary("s390x")) == ("/x/qemu", "/s/qemu")
