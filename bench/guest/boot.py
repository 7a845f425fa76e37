"""One boot of a guest, whatever it runs: bench/run's tries, bench/selftest's
boots and the KVM probe all go through here.

A boot is a Machine (how QEMU runs: accelerator, vCPUs, memory, the
QEMU binary, the guest's arch) and a Guest (what it boots and where its raw
files go: kernel, initramfs, kernel command line, the raw files' path
without extension, the branch-count plugin). Machine.command() is the one
QEMU command line of a guest: the boot runs it, BASE.qemu-cmd records it
and --dry-run prints it (show()).

run() boots once: it removes the raw files an earlier boot of the same
name left, writes BASE.qemu-cmd and runs QEMU (bench/guest/execute.py: console
watch, hard timeout, grace after the result block or a panic, kill by pid)
with its serial console in BASE.log, its stderr in BASE.stderr (removed
when empty) and the plugin's report in BASE<report>. A boot stopped by the
caller (Ctrl-C, an abort) leaves no raw files and raises Interrupted.

Slots boots many items, up to `jobs` at once (bench/guest/parallel.py), each
until one of its tries is ok or its retries are spent.

kernel_args() is the one kernel command line: the arch's base arguments,
jlbench.mode (the agent's task) and jlbench.variant, the task's own
jlbench.* words (e.g. tbench_words()), the build's boot_args, then any
extra words.
"""
import os
import threading
from dataclasses import dataclass
from typing import Optional, Tuple

from bench.guest import execute, parallel, qemu
from lib import arch as archmod
from lib import workloads

# Raw files every boot writes, by extension (the plugin's report besides).
FILES = (".log", ".qemu-cmd", ".stderr")


class Interrupted(Exception):
    """The caller stopped the boot (SIGINT/SIGTERM, an abort); the boot left
    no raw files."""


def never():
    return False


def kernel_args(variant, task, words=(), boot_args="", extra="",
                arch=archmod.DEFAULT):
    """The kernel command line of a boot of variant for the agent's task
    (lib/workloads.py TBENCH, PIPE, RUN; or selftest)."""
    out = [qemu.base_args(arch), "jlbench.mode=%s" % task,
           "jlbench.variant=%s" % variant] + list(words)
    for x in (boot_args, extra):
        if x and x.strip():
            out.append(" ".join(x.split()))
    return " ".join(out)


def tbench_words(clients, seconds, perf, perturb_seed, guest_timeout=None):
    """The jlbench.* words of a tbench run (guest-image/PROTOCOL.md)."""
    words = ["jlbench.clients=%d" % clients, "jlbench.seconds=%d" % seconds,
             "jlbench.perf=%s" % (perf or "none"),
             "jlbench.perturb=%d" % perturb_seed]
    if guest_timeout:
        words.append("jlbench.timeout=%d" % guest_timeout)
    return words


def pipe_words(loops, perf, perturb_seed, guest_timeout=None):
    """The jlbench.* words of a pipe run (guest-image/PROTOCOL.md)."""
    words = ["jlbench.loops=%d" % loops,
             "jlbench.perf=%s" % (perf or "none"),
             "jlbench.perturb=%d" % perturb_seed]
    if guest_timeout:
        words.append("jlbench.timeout=%d" % guest_timeout)
    return words


def command_words(w, n, perf, perturb_seed, guest_timeout):
    """The jlbench.* words of a run of workload w (lib/workloads.py, agent
    task run) with n units of work; guest_timeout: the seconds the agent
    allows its command."""
    return ["jlbench.workload=%s" % w.name,
            "jlbench.run=%s" % ",".join(workloads.words(w, n)),
            "jlbench.ops=%d" % workloads.ops(w, n),
            "jlbench.perf=%s" % (perf or "none"),
            "jlbench.perturb=%d" % perturb_seed,
            "jlbench.timeout=%d" % guest_timeout]


@dataclass(frozen=True)
class Guest:
    """What one boot boots, and where its raw files go.

    base: the raw files' path without extension; report: the extension of
    the plugin's report (with plugin); sites: the plugin's sites= file;
    plugin_args: its other arguments (e.g. the model's, lib/model.py);
    extra_files: extensions of other files of the boot, removed with its
    raw files before it starts.
    """
    kernel: str
    initrd: str
    append: str
    base: str
    plugin: Optional[str] = None
    report: str = ".counts"
    sites: Optional[str] = None
    plugin_args: Tuple[str, ...] = ()
    extra_files: Tuple[str, ...] = ()

    @property
    def log(self):
        return self.base + ".log"

    @property
    def report_file(self):
        return self.base + self.report

    def files(self):
        """Every raw file of the boot (paths), present or not."""
        return [self.base + ext
                for ext in FILES + (self.report,) + self.extra_files]

    def qemu_guest(self):
        return qemu.Guest(self.kernel, self.initrd, self.append, self.log,
                          plugin=self.plugin,
                          counts_file=self.report_file if self.plugin
                          else None,
                          sites=self.sites, plugin_args=self.plugin_args)


@dataclass(frozen=True)
class Machine:
    """How QEMU runs a guest. qemu_bin: None for qemu.binary(arch)."""
    accel: str
    smp: int
    memory_mb: int = qemu.MEMORY_MB
    qemu_bin: Optional[str] = None
    arch: str = archmod.DEFAULT

    def command(self, guest):
        """The QEMU argv that boots guest."""
        return qemu.command(self.accel, guest.qemu_guest(), self.smp,
                            self.memory_mb,
                            self.qemu_bin or qemu.binary(self.arch),
                            self.arch)


def show(machine, guest, comment=None):
    """--dry-run: print the boot's QEMU command (after a # comment)."""
    if comment:
        print("# " + comment)
    print(qemu.shell_line(machine.command(guest)))


def remove(guest):
    """Remove the raw files of the boot."""
    for path in guest.files():
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def launch(machine, guest, timeout, until=never, poll=0.2):
    """Boot once and return execute.run's Outcome; until() ends the boot
    early (outcome "interrupted"), its files kept. until() is called every
    poll seconds while QEMU runs."""
    remove(guest)
    cmd = machine.command(guest)
    with open(guest.base + ".qemu-cmd", "w") as f:
        f.write(qemu.shell_line(cmd) + "\n")
    return execute.run(cmd, guest.log, timeout, guest.base + ".stderr",
                       interrupted=until, poll=poll)


def run(machine, guest, timeout, stopped=never):
    """Boot once; the Outcome of a boot that ended by itself or at the
    timeout. Raises Interrupted (raw files removed) when stopped() turned
    true first."""
    out = launch(machine, guest, timeout, stopped)
    if out.kind == "interrupted":
        remove(guest)
        raise Interrupted()
    return out


@dataclass
class Settled:
    """How an item's tries ended: ok (its last try was), and what the last
    try's attempt() returned."""
    ok: bool
    result: object


class Slots:
    """Boots items, up to `jobs` at once, each until a try is ok or
    1 + retries tries are made.

    stop(): no try starts once it is true, and the boots in flight are
    stopped (bench/guest/parallel.py); tick() is called while waiting, in the
    calling thread.
    """

    def __init__(self, jobs, retries=0, stop=never, tick=None):
        self.jobs = jobs
        self.retries = retries
        self.stop = stop
        self.tick = tick
        self.lock = threading.Lock()

    def _tries(self, item, first, attempt, stopped):
        """Settled, or None when stopped before a try was ok or the last."""
        last = first + self.retries
        for try_no in range(first, last + 1):
            if stopped():
                return None
            try:
                ok, result = attempt(item, try_no, last, stopped)
            except Interrupted:
                return None
            if ok or try_no == last:
                return Settled(ok, result)
        return None

    def run(self, items, attempt, first=lambda item: 1, settled=None):
        """Per item (in item order) its Settled, or None when it was stopped.

        attempt(item, try_no, last, stopped) -> (ok, result) makes one try
        (last: the number of the item's last try), raising Interrupted when
        stopped() stopped it; first(item): the item's first try number;
        settled(item, outcome) is called once per settled item, under a
        lock, in the order items settle. Raises what parallel.run raises
        (a worker's exception, KeyboardInterrupt).
        """
        def work(item, stopped):
            out = self._tries(item, first(item), attempt, stopped)
            if out is not None and settled:
                with self.lock:
                    settled(item, out)
            return out

        return parallel.run(items, self.jobs, work, self.stop, self.tick)
