"""Run one QEMU process: watch its console, enforce the timeout, kill by pid.

QEMU runs in its own session, so a Ctrl-C on the terminal reaches only the
runner, which then stops QEMU itself (by the pid it started) and records
nothing for that try. The console log is watched while QEMU runs: once the
result block has ended, or the kernel has panicked, QEMU gets a short grace
period to exit by itself (power-off, or panic=-1 with -no-reboot) and is
then killed, so a guest that halts instead of powering off cannot hold the
run until the hard timeout.
"""
import os
import signal
import subprocess
import time

from bench import console

GRACE_SECONDS = 15.0
TERM_WAIT_SECONDS = 5.0


class Outcome:
    """How a QEMU process ended.

    kind: exited | timeout | stuck-after-end | stuck-after-panic |
    interrupted | failed-to-start; ended: a phrase for reasons;
    returncode (None when killed by us); wall_seconds; stderr_tail.
    """

    def __init__(self, kind, ended, returncode, wall_seconds, stderr_tail):
        self.kind = kind
        self.ended = ended
        self.returncode = returncode
        self.wall_seconds = wall_seconds
        self.stderr_tail = stderr_tail


def _read_new(path, offset):
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return "", offset
    return data.decode("utf-8", "replace"), offset + len(data)


def _stop(proc):
    """SIGTERM the process by pid, then SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(TERM_WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _tail(path, lines=3):
    try:
        with open(path, errors="replace") as f:
            text = f.read().strip()
    except FileNotFoundError:
        return ""
    if not text:
        os.unlink(path)
        return ""
    return " | ".join(text.splitlines()[-lines:])


def run(cmd, console_log, timeout, stderr_path, interrupted=lambda: False,
        grace=GRACE_SECONDS, poll=0.2, on_start=None):
    """Run cmd (QEMU writing its serial console to console_log).

    interrupted: callable polled while waiting; when it returns True, QEMU is
    stopped and the outcome is "interrupted". on_start(pid) is called once
    QEMU runs. Returns an Outcome.
    """
    t0 = time.monotonic()
    with open(stderr_path, "wb") as err:
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                    stdout=err, stderr=err,
                                    start_new_session=True)
        except OSError as e:
            return Outcome("failed-to-start", "QEMU did not start: %s" % e,
                           None, 0.0, "")
    if on_start:
        on_start(proc.pid)
    deadline = t0 + timeout
    text, offset = "", 0
    kind = None
    after = None
    try:
        while True:
            try:
                proc.wait(poll)
                break
            except subprocess.TimeoutExpired:
                pass
            if interrupted():
                kind = "interrupted"
                break
            new, offset = _read_new(console_log, offset)
            text += new
            now = time.monotonic()
            if after is None:
                if console.END in text:
                    after = "stuck-after-end"
                elif "Kernel panic - not syncing" in text:
                    after = "stuck-after-panic"
                if after:
                    deadline = min(deadline, now + grace)
            if now >= deadline:
                kind = after or "timeout"
                break
    finally:
        _stop(proc)
    wall = time.monotonic() - t0
    tail = _tail(stderr_path)
    if kind is None:
        rc = proc.returncode
        ended = "QEMU exited with status %d" % rc
        if rc != 0 and tail:
            ended += " (%s)" % tail
        return Outcome("exited", ended, rc, wall, tail)
    phrases = {
        "interrupted": "interrupted by the user",
        "timeout": "killed at the %.0f s timeout" % timeout,
        "stuck-after-end": "QEMU still running %.0f s after the result "
                           "block, killed" % grace,
        "stuck-after-panic": "QEMU still running %.0f s after a kernel "
                             "panic, killed" % grace,
    }
    return Outcome(kind, phrases[kind], None, wall, tail)
