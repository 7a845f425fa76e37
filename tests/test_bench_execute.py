"""bench/guest/execute.py: timeouts, grace after the result block, kill by pid.

The QEMU process is replaced by small Python programs that write a console
log and exit, hang, or ignore SIGTERM: this tests the process handling
only; real boots are in test_bench_integration.py.
"""
import os
import sys
import time

from conftest import ROOT, PYTHON

sys.path.insert(0, str(ROOT))
from bench.guest import execute  # noqa: E402


def program(body):
    return [PYTHON, "-c", "import sys, time, signal\n" + body]


def run(tmp_path, body, timeout=20.0, **kw):
    log = str(tmp_path / "console.log")
    pids = []
    out = execute.run(program(body.replace("LOG", repr(log))), log, timeout,
                      str(tmp_path / "qemu.stderr"),
                      on_start=pids.append, poll=0.05, **kw)
    return out, pids[0]


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_clean_exit(tmp_path):
    out, pid = run(tmp_path, "open(LOG, 'w').write('hello\\n')")
    assert (out.kind, out.returncode) == ("exited", 0)
    assert out.ended == "QEMU exited with status 0"
    assert not (tmp_path / "qemu.stderr").exists()     # empty: removed
    assert gone(pid)


def test_nonzero_exit_reports_stderr(tmp_path):
    out, _ = run(tmp_path, "sys.stderr.write('qemu: could not load kernel "
                           "x\\n'); sys.exit(1)")
    assert (out.kind, out.returncode) == ("exited", 1)
    assert "could not load kernel" in out.ended
    assert (tmp_path / "qemu.stderr").exists()


def test_timeout_kills_a_hung_guest(tmp_path):
    t0 = time.monotonic()
    out, pid = run(tmp_path, "open(LOG, 'w').write('booting\\n')\n"
                             "time.sleep(60)", timeout=1.0)
    assert out.kind == "timeout" and out.returncode is None
    assert "1 s timeout" in out.ended
    assert time.monotonic() - t0 < 10
    assert gone(pid)


def test_sigterm_ignored_then_sigkill(tmp_path, monkeypatch):
    monkeypatch.setattr(execute, "TERM_WAIT_SECONDS", 0.5)
    out, pid = run(tmp_path, "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                             "time.sleep(60)", timeout=0.5)
    assert out.kind == "timeout"
    assert gone(pid)


def test_grace_after_the_result_block(tmp_path):
    body = ("f = open(LOG, 'w')\nf.write('JLBENCH-BEGIN\\nJLBENCH-END\\n')\n"
            "f.flush()\ntime.sleep(60)")
    t0 = time.monotonic()
    out, pid = run(tmp_path, body, timeout=30.0, grace=0.5)
    assert out.kind == "stuck-after-end"
    assert time.monotonic() - t0 < 10
    assert gone(pid)


def test_grace_after_a_panic(tmp_path):
    body = ("f = open(LOG, 'w')\n"
            "f.write('[ 1.0] Kernel panic - not syncing: x\\n')\n"
            "f.flush()\ntime.sleep(60)")
    out, pid = run(tmp_path, body, timeout=30.0, grace=0.5)
    assert out.kind == "stuck-after-panic"
    assert gone(pid)


def test_interrupt_stops_qemu(tmp_path):
    t0 = time.monotonic()
    out, pid = run(tmp_path, "time.sleep(60)", timeout=30.0,
                   interrupted=lambda: time.monotonic() - t0 > 0.3)
    assert out.kind == "interrupted"
    assert gone(pid)


def test_missing_binary(tmp_path):
    out = execute.run(["/nonexistent/qemu"], str(tmp_path / "l"), 5,
                      str(tmp_path / "e"))
    assert out.kind == "failed-to-start"
    assert "did not start" in out.ended
