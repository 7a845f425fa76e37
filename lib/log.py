"""Logging in the jlbench format and the one-line progress display.

`YYYY-MM-DD HH:MM:SS bench: message` on stderr and, once a results dir
exists, appended to its bench.log. The progress line rewrites itself on a
terminal; without a terminal (CI) each finished run is one log line.
Lines come whole from any thread (one lock around every write).
"""
import sys
import threading
import time

STAGE = "bench"


class Log:
    def __init__(self, quiet=False, stream=None):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.file = None
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._line_open = False
        self._lock = threading.RLock()

    def to_file(self, path):
        self.file = path

    def _clear(self):
        if self._line_open:
            self.stream.write("\r\033[K")
            self._line_open = False

    def write(self, message, always=False):
        line = "%s %s: %s" % (time.strftime("%Y-%m-%d %H:%M:%S"), STAGE,
                              message)
        with self._lock:
            if self.file:
                with open(self.file, "a") as f:
                    f.write(line + "\n")
            if always or not self.quiet:
                self._clear()
                self.stream.write(line + "\n")
                self.stream.flush()

    def info(self, message):
        self.write(message)

    def warn(self, message):
        self.write("warning: " + message, always=True)

    def error(self, message):
        self.write("error: " + message, always=True)

    def progress(self, message):
        """Rewrite the status line (terminal only, not in quiet mode)."""
        if self.quiet or not self.tty:
            return
        with self._lock:
            self._clear()
            self.stream.write(message[:200])
            self.stream.flush()
            self._line_open = True

    def done(self):
        with self._lock:
            if self._line_open:
                self._clear()
                self.stream.flush()


def duration(seconds):
    """1h02m03s / 4m05s / 6s."""
    s = int(round(max(0, seconds)))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    if h:
        return "%dh%02dm%02ds" % (h, m, s)
    if m:
        return "%dm%02ds" % (m, s)
    return "%ds" % s
