"""tbench's MB/s explained by where in the loadfile its window falls.

tbench (dbench 4.0) counts only the payload of WriteX (its size) and ReadX
(the size returned) as bytes, and every client plays the same loadfile,
/usr/share/dbench/client.txt, from its first line. Once a second it prints
the lines read per client (the sum over clients divided by their number)
and the MB/s since the measured phase began; at the end of warm-up it
restarts that count without printing a line, and its final figure is its
last per-second one. So the bytes of a stretch of its measured phase follow
from the lines it covered:

    bytes between two status lines = clients x (B(L2) - B(L1))

where B(L) is the payload of the loadfile's lines before line L (the line
in progress is not counted yet; past the end the loadfile starts again).

For each run this module gives:
- `window_measured_mbps`: MB/s between the first and the last status line
  of the measured phase, from tbench's own figures (mbps x seconds);
- `window_predicted_mbps`: the same from the lines alone;
- `predicted_mbps`: tbench's final figure predicted from positions: the
  first measured second is tbench's own (it does not print where the
  measured phase starts), the rest is predicted from the lines;
- `position_only_mbps`: the final figure from positions alone, the start of
  the measured phase taken half-way between the last warm-up line and the
  first measured one;
- `start_line` / `end_line`, and `payload_per_op` in the window.
"""
import hashlib
import itertools
import os

DEFAULT = "/usr/share/dbench/client.txt"


def _strtol(text):
    """C's strtol(text, NULL, 0): the leading number, 0 when none."""
    t = text.strip()
    if t.isascii() and t.isdigit() and (t[0] != "0" or len(t) == 1):
        return int(t)           # decimal, the loadfile's usual case
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-")
    if t[:2].lower() == "0x":
        base, digits, t = 16, "0123456789abcdef", t[2:]
    elif t.startswith("0"):
        base, digits = 8, "01234567"
    else:
        base, digits = 10, "0123456789"
    n = 0
    for c in t.lower():
        if c not in digits:
            break
        n = n * base + digits.index(c)
    return sign * n


def line_payload(line):
    """Bytes tbench counts for one loadfile line (0 for any other line)."""
    words = line.split()
    if len(words) < 2 or words[0].startswith("#"):
        return 0
    if words[0][0].isdigit():      # an optional leading timestamp
        words = words[1:]
    if not words or not words[-1].startswith(("NT_STATUS_", "0x")):
        return 0                   # dbench skips a badly formed status
    if words[0] == "WriteX" and len(words) > 3:
        return _strtol(words[3])
    if words[0] == "ReadX" and len(words) > 4:
        return _strtol(words[4])
    return 0


class Loadfile:
    """Cumulative payload by line number of one loadfile."""

    def __init__(self, lines, path="", sha256=""):
        self.path = path
        self.sha256 = sha256
        # only a WriteX or ReadX line has a payload: the others (two
        # thirds of client.txt) are not parsed
        self.cum = [0]
        self.cum.extend(itertools.accumulate(
            line_payload(line) if "WriteX" in line or "ReadX" in line else 0
            for line in lines))
        self.lines = len(self.cum) - 1
        if not self.lines:
            raise ValueError("loadfile %s is empty" % path)

    @classmethod
    def read(cls, path=DEFAULT):
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("latin-1")
        return cls(text.splitlines(), path, hashlib.sha256(data).hexdigest())

    def before(self, line):
        """Payload of the lines before `line` (1-based, wrapping)."""
        done = max(0, line - 1)
        loops, rest = divmod(done, self.lines)
        return loops * self.cum[-1] + self.cum[rest]

    def between(self, first, last):
        """Payload from line `first` up to (not including) line `last`."""
        return self.before(last) - self.before(first)


def predict(ticks, loadfile):
    """The figures of one run (see the module docstring) from its tbench
    status lines (lib.format.console.tbench_ticks), or None when it has fewer
    than two measured ones."""
    measured = [t for t in ticks if t.phase == "execute"]
    warmup = [t for t in ticks if t.phase == "warmup"]
    if len(measured) < 2:
        return None
    first, last = measured[0], measured[-1]
    n = last.clients
    span = last.second - first.second
    mb = 1e-6
    window_measured = (last.mbps * last.second
                       - first.mbps * first.second) / span
    window_bytes = n * loadfile.between(first.line, last.line)
    out = {
        "clients": n,
        "seconds": last.second,
        "end_line": last.line,
        "window_measured_mbps": window_measured,
        "window_predicted_mbps": mb * window_bytes / span,
        "first_second_mbps": first.mbps,
        "predicted_mbps": (first.mbps * first.second + mb * window_bytes)
        / last.second,
        "start_line": None, "position_only_mbps": None,
        "payload_per_line": window_bytes / n / (last.line - first.line)
        if last.line > first.line else None,
    }
    if warmup and first.second == 1:
        start = (warmup[-1].line + first.line) // 2
        out["start_line"] = start
        out["position_only_mbps"] = mb * n * loadfile.between(
            start, last.line) / last.second
    return out


def describe(loadfile):
    """Where the loadfile came from, for stats.json."""
    return {"path": loadfile.path, "sha256": loadfile.sha256,
            "lines": loadfile.lines, "payload_bytes": loadfile.cum[-1],
            "size_bytes": os.path.getsize(loadfile.path)
            if loadfile.path and os.path.exists(loadfile.path) else None}
