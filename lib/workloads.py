#!/usr/bin/env python3
"""The workloads: one record per thing the guest can run between its window
markers (guest-image/PROTOCOL.md), and everything jlbench knows about it.

`bench/run --workload NAME` runs one; `--workload suite` (run_all.sh) runs
SUITE. The agent has a parser of its own for tbench and pipe (its tasks
TBENCH and PIPE); every other workload is its task RUN: the host passes the
command (argv, with {n} replaced by the run's fixed work) on the kernel
command line, the agent runs it under perf stat, checks its exit status and
reports the guest seconds it took; the host checks that its output has the
`expect` line. So adding a workload is one record here (and its package in
lib/deps and guest-image/build when it is a new binary).

Fields:
- name: [a-z0-9-]+, as `--workload` takes it and results dirs record it
  (meta.json protocol.workload; absent for tbench).
- task: what the agent runs (its jlbench.mode word, guest-image/PROTOCOL.md):
  TBENCH, PIPE or RUN.
- argv: task run: the command, each word a tuple item; "{n}" is replaced
  by the run's n. Empty for tbench and pipe (the agent knows them).
- n: the fixed work of one run by default, in the workload's own unit
  (pipe: round trips; perf bench messaging: loops; stress-ng: bogo ops);
  sized for about 4 s of guest time on the smoke kernels under icount,
  4-6 s on the full ones (shorter than tbench's 20 s, so that --workload
  suite, six seeds of four kernels on every workload, fits in an hour;
  pipe keeps the 100,000 round trips of the kernel's perf stat table,
  about 2.5 s). None for tbench, which runs for a time.
- per_n: operations per unit of n (a run's `ops` is n * per_n).
- us_per_n: guest microseconds per unit of n on the smoke kernels under
  icount, rounded up: the plan's ETA and the agent's time limit.
- op: one operation, in words.
- area: the part of the kernel the workload's path goes through most.
- package, binary: the Debian package and the binary in the guest.
- expect: a text the workload's output has when it did its work (task
  run; the host's check, lib/format/console.py).
- needs: what it needs in the guest beyond processes (the agent always
  mounts tmpfs on /tmp and brings up lo).
- title: the workload in a report's words.
"""
import sys
from collections import namedtuple

Workload = namedtuple(
    "Workload", "name task argv n per_n us_per_n op area package binary "
    "expect needs title")

# The agent's tasks: tbench and pipe it parses itself, run is any command.
TBENCH, PIPE, RUN = "tbench", "pipe", "run"
STRESS_NG = "/usr/bin/stress-ng"
PERF = "/usr/bin/perf"
# stress-ng: one instance, a fixed number of bogo ops, its random seed fixed
# (so a run is the same work every time), files on the guest's tmpfs.
STRESS_DONE = "successful run completed"


def _stress(stressor, n, us_per_n, op, area, title, *extra, needs="tmpfs"):
    argv = (STRESS_NG, "--" + stressor, "1", "--%s-ops" % stressor, "{n}",
            "--no-rand-seed", "--temp-path", "/tmp", "--metrics-brief") \
        + extra
    return Workload(stressor, RUN, argv, n, 1, us_per_n, op, area,
                    "stress-ng", STRESS_NG, STRESS_DONE, needs,
                    "stress-ng's %s stressor: %s" % (stressor, title))


def _perf_bench(name, args, n, per_n, us_per_n, op, area, title):
    return Workload(name, RUN, (PERF, "bench") + args, n, per_n,
                    us_per_n, op, area, "linux-perf", PERF, "Total time:",
                    "", title)


WORKLOADS = [
    Workload("tbench", TBENCH, (), None, 1, 0, "tbench operation", "net",
             "dbench", "/usr/bin/tbench", "", "loopback",
             "tbench (dbench 4.0) on the guest's loopback"),
    Workload("pipe", PIPE, (), 100000, 1, 25, "pipe round trip", "sched",
             "linux-perf", PERF, "", "",
             "`perf bench sched pipe`: two processes pass an int back and "
             "forth through two pipes, as in the perf stat table of the "
             "kernel's Documentation/staging/static-keys.rst"),
    _perf_bench("messaging", ("sched", "messaging", "-g", "1", "-l", "{n}"),
                400, 400, 9000, "message", "net",
                "`perf bench sched messaging` (hackbench): 20 senders "
                "each send a message to each of 20 receivers over unix "
                "sockets, n times"),
    _perf_bench("messaging-pipe",
                ("sched", "messaging", "-p", "-g", "1", "-l", "{n}"),
                600, 400, 7000, "message", "sched",
                "`perf bench sched messaging -p`: as messaging, over pipes"),
    _perf_bench("syscall", ("syscall", "basic", "-l", "{n}"), 4000000, 1, 1,
                "getppid() call", "entry",
                "`perf bench syscall basic`: getppid() in a loop, the "
                "system call entry and exit"),
    _stress("fault", 12000, 330, "page-fault round", "mm",
            "minor page faults on a private mapping"),
    _stress("mmap", 40, 93000, "mmap/munmap cycle", "mm",
            "map, touch and unmap 1 MB", "--mmap-bytes", "1M"),
    _stress("fork", 1200, 3700, "fork and wait", "mm",
            "fork a child that exits at once"),
    _stress("switch", 200000, 20, "context switch", "sched",
            "two processes switch through a pipe", needs=""),
    _stress("futex", 160000, 28, "futex wait/wake", "ipc",
            "futex wait and wake between processes", needs=""),
    _stress("msg", 500000, 9, "System V message", "ipc",
            "System V message queue send and receive", needs=""),
    _stress("open", 40000, 103, "open/close", "vfs",
            "open and close files on tmpfs"),
    _stress("rename", 30000, 140, "rename", "vfs",
            "rename a file on tmpfs"),
    _stress("udp", 80000, 52, "UDP datagram", "net",
            "UDP datagrams over loopback", needs="loopback"),
    _stress("sock", 400, 10900, "socket round", "net",
            "TCP connections over loopback, each sending data",
            needs="loopback tmpfs"),
]
WORKLOAD = {w.name: w for w in WORKLOADS}
DEFAULT = "tbench"
# The workload of the kernel's perf stat table (Documentation/staging/
# static-keys.rst), which reports compare with the published figures.
PUBLISHED = "pipe"
# tbench's clients unless --clients says otherwise: 20, as in 2011's table
# (every other workload does its fixed work, n, and takes no clients).
CLIENTS = 20
# --workload suite: every workload, tbench first.
SUITE = [w.name for w in WORKLOADS]


def of(protocol):
    """The record of a run's meta.json protocol (tbench's when it names
    no workload, as in dirs from before the choice existed)."""
    return WORKLOAD[protocol.get("workload", DEFAULT)]


def words(w, n):
    """The command of a task-run workload with its fixed work n."""
    return [a.replace("{n}", str(n)) for a in w.argv]


def ops(w, n):
    """The operations of a run of n units of work."""
    return n * w.per_n


def main(argv):
    """`lib/workloads.py packages`: the Debian packages of the workloads;
    `binaries`: their binaries in the guest; `names`: the workloads."""
    what = argv[1] if len(argv) == 2 else ""
    if what == "packages":
        print("\n".join(sorted({w.package for w in WORKLOADS})))
    elif what == "binaries":
        print("\n".join(sorted({w.binary for w in WORKLOADS})))
    elif what == "names":
        print("\n".join(SUITE))
    else:
        print("usage: lib/workloads.py packages|binaries|names",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
