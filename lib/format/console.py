"""Read a guest's serial console log: the JLBENCH result block and trouble.

The agent prints one block (see guest-image/PROTOCOL.md):

    JLBENCH-BEGIN
    key=value
    ...
    JLBENCH-END

Kernel messages may interleave with it; lines inside the block that are not
`key=value` are skipped. Besides the block, the log is scanned for signs that
the kernel itself went wrong (panic, oops, BUG), which fail a run even when
the agent managed to print a block, and for warnings (WARN, RCU stalls, hung
tasks), which are counted. This module is pure: no processes, no files, so
that it can be tested on fixture logs.
"""
import re
from collections import namedtuple

from lib import workloads
from lib.format import rawfiles, schema

BEGIN = "JLBENCH-BEGIN"
END = "JLBENCH-END"
# The guest protocol's version, which a block must have: the agent's is
# JLB_PROTOCOL of guest-image/agent/agent.h (tests/test_agent_unit.py
# fails when the two differ).
PROTOCOL = "1"

_KEY_VALUE = re.compile(r"^([a-z0-9_.]+)=(.*)$")
# printk prefix with CONFIG_PRINTK_TIME: "[    1.234567] ".
_PRINTK_TIME = re.compile(r"^\[\s*\d+\.\d+\]\s?")

# (pattern, label): the kernel is broken; the run's figures are not trusted.
FATAL = [
    (re.compile(r"Kernel panic - not syncing: ?(.*)"), "kernel panic"),
    (re.compile(r"kernel BUG at (.*)"), "kernel BUG at"),
    (re.compile(r"\bBUG: (.*)"), "kernel BUG"),
    (re.compile(r"\bOops: (.*)"), "oops"),
    (re.compile(r"(general protection fault.*)"), "oops"),
]
# (pattern, label): worth counting, not a reason to discard a run.
WARNING = [
    (re.compile(r"WARNING: CPU: \d+ PID: \d+ at (.*)"), "WARN"),
    (re.compile(r"rcu: INFO: (.*stall.*)"), "RCU stall"),
    (re.compile(r"INFO: task (.* blocked for more than .*)"), "hung task"),
]


class Report:
    """What one console log says.

    block: dict of the last result block's key=value lines, or None;
    complete: the block ended with JLBENCH-END; blocks: how many began;
    fatal: "label: detail" of the first fatal kernel message, or None;
    warnings: list of "label: detail"; last_line: last non-empty line.
    """

    def __init__(self):
        self.block = None
        self.complete = False
        self.blocks = 0
        self.fatal = None
        self.warnings = []
        self.last_line = ""


def _clean(line):
    return _PRINTK_TIME.sub("", line.rstrip("\r\n").replace("\r", ""))


def _match(patterns, line):
    for pattern, label in patterns:
        m = pattern.search(line)
        if m:
            detail = m.group(1).strip()
            return "%s: %s" % (label, detail) if detail else label
    return None


def read(path):
    """The console log at path as text ("" when QEMU never created it)."""
    try:
        with rawfiles.open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def parse(text):
    """Parse a console log (str) into a Report."""
    rep = Report()
    inside = False
    for raw in text.splitlines():
        line = _clean(raw)
        stripped = line.strip()
        if stripped:
            rep.last_line = stripped
        if stripped == BEGIN:
            rep.blocks += 1
            rep.block = {}
            rep.complete = False
            inside = True
            continue
        if stripped == END and inside:
            rep.complete = True
            inside = False
            continue
        if inside:
            m = _KEY_VALUE.match(line)
            if m:
                rep.block[m.group(1)] = m.group(2)
                continue
        fatal = _match(FATAL, line)
        if fatal and rep.fatal is None:
            rep.fatal = fatal
        warning = _match(WARNING, line)
        if warning:
            rep.warnings.append(warning)
    return rep


def _number(value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if x == x and abs(x) != float("inf") else None


def verdict(rep, ended, task=workloads.TBENCH):
    """Decide a try's status from its Report and how QEMU ended.

    ended: a short phrase such as "QEMU exited with status 0" or
    "timeout after 300 s", used in the reason when the console is not enough.
    Returns (status, reason): ("ok", "") or ("failed", one-line reason).
    """
    if rep.fatal:
        return "failed", rep.fatal
    if rep.block is None:
        tail = rep.last_line[:160]
        return "failed", "no result block; %s (last console line: %r)" % (
            ended, tail)
    if not rep.complete:
        return "failed", "truncated result block; %s" % ended
    if rep.blocks > 1:
        return "failed", "%d result blocks in one boot" % rep.blocks
    b = rep.block
    if b.get("protocol") != PROTOCOL:
        return "failed", "result block has protocol=%r, expected %s" % (
            b.get("protocol"), PROTOCOL)
    if b.get("status") == "error":
        return "failed", "guest error: %s" % (b.get("reason") or "no reason")
    if b.get("status") != "ok":
        return "failed", "result block has status=%r" % b.get("status")
    if b.get("mode", task) != task:
        return "failed", "result block is of mode=%s, not %s" % (
            b.get("mode"), task)
    if task == workloads.TBENCH:
        tput = _number(b.get("throughput_mbps"))
        if tput is None or tput <= 0:
            return "failed", "result block has no valid throughput_mbps (%r)" \
                % b.get("throughput_mbps")
    if task in schema.OWN_FIGURE:
        for key in ("ops", schema.OWN_FIGURE[task]):
            x = _number(b.get(key))
            if x is None or x <= 0:
                return "failed", "result block has no valid %s (%r)" % (
                    key, b.get(key))
    return "ok", ""


def did_its_work(text, w):
    """(status, reason) of a try of task-run workload w (lib/workloads.py)
    whose block is ok: failed when no line of its output, as the agent
    echoed it, has w.expect."""
    prefix = "jlbench: %s: " % w.name
    if w.task != workloads.RUN or any(
            line.startswith(prefix) and w.expect in line
            for line in text.splitlines()):
        return "ok", ""
    return "failed", "%s's output lacks %r: it did not do its work" % (
        w.name, w.expect)


def samples(block, key):
    """The comma list `key` of a block as floats ([] when absent/empty)."""
    value = (block or {}).get(key, "").strip()
    if not value:
        return []
    out = []
    for item in value.split(","):
        x = _number(item.strip())
        if x is None:
            raise ValueError("bad number %r in %s" % (item, key))
        out.append(x)
    return out


def agent_started(text):
    """True when the log shows that the guest's agent (PID 1) is running."""
    for raw in text.splitlines():
        line = _clean(raw).strip()
        if line == BEGIN or line.startswith("jlbench"):
            return True
    return False


# tbench's status line, once a second (dbench 4.0's sig_alarm): clients,
# loadfile lines read per client (summed over clients, divided by their
# number), MB/s since the phase began, phase, seconds.
_TBENCH_TICK = re.compile(
    r"^jlbench: tbench:\s+(\d+)\s+(\d+)\s+([0-9.]+) MB/sec\s+"
    r"(warmup|execute)\s+(\d+) sec\b")


# One of tbench's per-second status lines.
Tick = namedtuple("Tick", "clients line mbps phase second")


def tbench_ticks(text):
    """The per-second tbench status lines echoed by the agent, in order."""
    out = []
    for raw in text.splitlines():
        m = _TBENCH_TICK.match(_clean(raw).strip())
        if m:
            out.append(Tick(int(m.group(1)), int(m.group(2)),
                            float(m.group(3)), m.group(4), int(m.group(5))))
    return out
