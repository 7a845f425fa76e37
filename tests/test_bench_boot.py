"""bench/guest/boot.py: the one boot path (kernel command line, QEMU command,
raw files, stopping, guest slots with retries), with the stand-in QEMU
(tests/fixtures/bench/stand-in-qemu)."""
import os
import sys
import threading
import time

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.guest import boot, qemu  # noqa: E402

STANDIN = str(ROOT / "tests" / "fixtures" / "bench" / "stand-in-qemu")


def test_kernel_args_of_a_tbench_run_and_a_selftest_boot():
    words = boot.tbench_words(20, 15, "cycles,instructions", 1234)
    assert boot.kernel_args("jump-label", "tbench", words, " foo=1  bar ") \
        == (qemu.BASE_ARGS + " jlbench.mode=tbench jlbench.variant="
            "jump-label jlbench.clients=20 jlbench.seconds=15 "
            "jlbench.perf=cycles,instructions jlbench.perturb=1234 "
            "foo=1 bar")
    assert boot.tbench_words(1, 1, None, 0, guest_timeout=60)[2:] == [
        "jlbench.perf=none", "jlbench.perturb=0", "jlbench.timeout=60"]
    assert boot.kernel_args("v", "selftest", (), "", " m.x=1\n",
                            arch="s390x") == (
        qemu.base_args("s390x") + " jlbench.mode=selftest "
        "jlbench.variant=v m.x=1")


def guest(tmp_path, name="001-v-try1", **kw):
    return boot.Guest("/k/bzImage", "/i/initrd", "jlbench.perturb=7",
                      str(tmp_path / name), **kw)


def test_machine_command_is_qemus_and_show_prints_it(tmp_path, capsys):
    g = guest(tmp_path, plugin="/p/branches.so", sites="/s.txt")
    m = boot.Machine("icount", 1, qemu_bin="/q/qemu")
    cmd = m.command(g)
    assert cmd == qemu.command("icount", g.qemu_guest(), 1, qemu.MEMORY_MB,
                               "/q/qemu")
    assert cmd[-1] == "/p/branches.so,outfile=%s.counts,sites=/s.txt" \
        % g.base
    assert "file:%s.log" % g.base in cmd
    boot.show(m, g, "run 1")
    out = capsys.readouterr().out.splitlines()
    assert out == ["# run 1", qemu.shell_line(cmd)]
    # a report of its own name, and the binary of the guest's arch
    g = guest(tmp_path, plugin="/p/b.so", report=".plugin")
    assert "outfile=%s.plugin" % g.base in boot.Machine(
        "icount", 1).command(g)[-1]
    os.environ.pop("JLBENCH_QEMU_S390X", None)
    assert boot.Machine("tcg", 1, arch="s390x").command(
        guest(tmp_path))[0] == "qemu-system-s390x"


@pytest.fixture
def standin(tmp_path, monkeypatch):
    script = tmp_path / "script"
    monkeypatch.setenv("STANDIN_SCRIPT", str(script))
    return boot.Machine("icount", 1, qemu_bin=STANDIN), script


def test_a_boot_replaces_the_files_of_an_earlier_one(tmp_path, standin):
    machine, script = standin
    g = guest(tmp_path, extra_files=(".build.json",))
    for ext in (".stderr", ".counts", ".build.json", ".log"):
        with open(g.base + ext, "w") as f:
            f.write("stale\n")
    out = boot.run(machine, g, 30)
    assert out.kind == "exited" and out.returncode == 0
    assert "JLBENCH-END" in open(g.log).read()
    with open(g.base + ".qemu-cmd") as f:
        assert f.read() == qemu.shell_line(machine.command(g)) + "\n"
    # no plugin: no report; QEMU wrote nothing on stderr: none kept
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("001")) \
        == ["001-v-try1.log", "001-v-try1.qemu-cmd"]
    script.write_text("hang\n")
    out = boot.run(machine, g, 1.0)
    assert out.kind == "timeout" and out.ended == \
        "killed at the 1 s timeout"


def test_a_stopped_boot_leaves_no_files(tmp_path, standin):
    machine, script = standin
    script.write_text("hang\n")
    g = guest(tmp_path)
    t0 = time.monotonic()
    with pytest.raises(boot.Interrupted):
        boot.run(machine, g, 60,
                 stopped=lambda: os.path.exists(g.log)
                 and time.monotonic() - t0 > 0.5)
    assert not [p for p in g.files() if os.path.exists(p)]
    # launch(until=...) ends a boot early and keeps its files (the probe)
    script.write_text("hang\n")
    out = boot.launch(machine, g, 60, until=lambda: os.path.exists(g.log))
    assert out.kind == "interrupted" and os.path.exists(g.log)


def test_slots_retry_until_ok_and_settle_each_item_once():
    tries, settled = [], []
    lock = threading.Lock()

    def attempt(item, try_no, last, stopped):
        with lock:
            tries.append((item, try_no, last))
        return item != "bad" and (item != "late" or try_no == 4), try_no

    slots = boot.Slots(2, retries=2)
    out = slots.run(["ok", "late", "bad"], attempt,
                    first=lambda item: 2 if item == "late" else 1,
                    settled=lambda item, o: settled.append((item, o.ok)))
    assert [(o.ok, o.result) for o in out] == [(True, 1), (True, 4),
                                               (False, 3)]
    assert sorted(tries) == [("bad", 1, 3), ("bad", 2, 3), ("bad", 3, 3),
                             ("late", 2, 4), ("late", 3, 4), ("late", 4, 4),
                             ("ok", 1, 3)]
    assert sorted(settled) == [("bad", False), ("late", True), ("ok", True)]


def test_slots_stop_leaves_items_unsettled():
    def attempt(item, try_no, last, stopped):
        if item == 1:
            raise boot.Interrupted()
        return False, None

    stop = threading.Event()
    settled = []
    out = boot.Slots(1, retries=5).run(
        [0, 1, 2], attempt,
        settled=lambda item, o: (settled.append(item), stop.set()))
    assert out[0].ok is False and out[1] is None and out[2] is not None
    out = boot.Slots(1, retries=5, stop=stop.is_set).run(
        [0, 1], attempt, settled=lambda item, o: settled.append(item))
    assert out == [None, None]
    assert settled == [0, 2]
