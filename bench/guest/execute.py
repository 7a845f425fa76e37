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

from lib.format import console

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


class _Watch:
    """The console of a running QEMU: whether it should have ended.

    The deadline is the hard timeout, or `grace` after the console showed
    the end of the result block or a kernel panic (`after`).
    """

    def __init__(self, console_log, deadline, grace):
        self.path = console_log
        self.deadline = deadline
        self.grace = grace
        self.text, self.offset = "", 0
        self.after = None

    def over(self, now):
        """None while QEMU may go on, else the outcome's kind."""
        new, self.offset = _read_new(self.path, self.offset)
        self.text += new
        if self.after is None:
            if console.END in self.text:
                self.after = "stuck-after-end"
            elif "Kernel panic - not syncing" in self.text:
                self.after = "stuck-after-panic"
            if self.after:
                self.deadline = min(self.deadline, now + self.grace)
        if now >= self.deadline:
            return self.after or "timeout"
        return None


def _wait(proc, watch, interrupted, poll):
    """Wait until QEMU exits (None) or must be stopped (the kind why)."""
    while True:
        try:
            proc.wait(poll)
            return None
        except subprocess.TimeoutExpired:
            pass
        if interrupted():
            return "interrupted"
        kind = watch.over(time.monotonic())
        if kind:
            return kind


def _outcome(kind, proc, wall, tail, timeout, grace):
    """The Outcome of a QEMU that exited (kind None) or was stopped."""
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
    try:
        kind = _wait(proc, _Watch(console_log, t0 + timeout, grace),
                     interrupted, poll)
    finally:
        _stop(proc)
    return _outcome(kind, proc, time.monotonic() - t0, _tail(stderr_path),
                    timeout, grace)
