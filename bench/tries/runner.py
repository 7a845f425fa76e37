"""The run loop: every pending run of the plan, one fresh QEMU per try.

Each try writes raw/<NNN>-<variant>-try<K>.{log,qemu-cmd} (plus .stderr
when QEMU complained and .counts with the plugin), then one runs.csv row.
A failed try is retried up to `retries` more times; a run whose tries all
failed stays pending for --resume. After `abort_after` such runs in a row
the loop stops: something is broken for every run, not by chance. Up to
`jobs` runs go on at once (icount only, see bench/guest/parallel.py), each in a
thread of its own that makes its tries one after the other (boot.Slots);
every try is one boot.run() of the guest that guest() describes.
"""
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from bench.guest import boot, qemu
from bench.tries import plan as planmod
from lib import hostinfo, workloads
from lib.format import profile as profilefmt
from lib.format import rawtry, results, schema
from lib.log import duration

ABORT_AFTER = 3

# The user stopped the run (SIGINT/SIGTERM); nothing partial written.
Interrupted = boot.Interrupted


@dataclass
class Context:
    """Everything a try needs. params: meta.json's protocol: clients,
    seconds, perf (str), perf_events (list), append (--append's words,
    absent in older dirs); builds/images: {variant: Build/Image}; sites:
    {variant: the plugin's sites= file}; plugin_args: {variant: the
    plugin's other arguments}."""
    accel: str
    params: dict
    smp: int
    builds: dict
    images: dict
    resdir: object
    log: object
    plugin: Optional[str] = None
    retries: int = 2
    timeout: float = 600.0
    memory_mb: int = 1024
    stop: Callable[[], bool] = boot.never
    qemu_bin: str = qemu.QEMU
    sites: dict = field(default_factory=dict)
    plugin_args: dict = field(default_factory=dict)

    def __post_init__(self):
        self.sites = self.sites or {}
        self.plugin_args = self.plugin_args or {}

    @property
    def machine(self):
        return boot.Machine(self.accel, self.smp, self.memory_mb,
                            self.qemu_bin)


def workload_words(p, run):
    """The jlbench.* words of the workload (meta.json protocol p) for run."""
    w = workloads.of(p)
    if w.task == workloads.PIPE:
        return boot.pipe_words(p["loops"], p.get("perf"), run.perturb_seed,
                               p.get("guest_timeout"))
    if w.task == workloads.RUN:
        return boot.command_words(
            w, p["loops"], p.get("perf"), run.perturb_seed,
            p.get("guest_timeout") or planmod.guest_limit(p))
    return boot.tbench_words(p["clients"], run.seconds, p.get("perf"),
                             run.perturb_seed, p.get("guest_timeout"))


def figure(row):
    """The headline figure of an ok row, in words, for progress lines: a
    pipe run's microseconds per round trip; another workload's operations
    per second of its command; else the accelerator's headline, with
    tbench's MB/s beside operations per guest second under icount."""
    if row.get("pipe_usecs_per_op"):
        return "%s us per pipe round trip" % row["pipe_usecs_per_op"]
    if row.get("workload_s"):
        return "%.1f ops/s" % (float(row["ops"]) / float(row["workload_s"]))
    accel = schema.ACCEL.get(row.get("accel"))
    if accel and accel.headline == "ops_per_s" and row.get("ops") and \
            row.get("seconds"):
        return "%.1f ops/s (%s MB/s)" % (
            float(row["ops"]) / float(row["seconds"]),
            row["throughput_mbps"])
    return "%s MB/s" % row["throughput_mbps"]


def guest(ctx, run, base):
    """The boot of one try of run whose raw files start with base."""
    build = ctx.builds[run.variant]
    p = ctx.params
    append = boot.kernel_args(
        run.variant, workloads.of(p).task, workload_words(p, run),
        build.boot_args, p.get("append", ""))
    plugin_args = tuple(ctx.plugin_args.get(run.variant, ()))
    profile = ()
    if any(a.startswith("symbols=") for a in plugin_args):
        profile = (profilefmt.EXT, profilefmt.RAW_EXT)
        plugin_args += ("profile=" + base + profilefmt.EXT,)
    return boot.Guest(build.kernel, ctx.images[run.variant].path, append,
                      base, plugin=ctx.plugin,
                      sites=ctx.sites.get(run.variant),
                      plugin_args=plugin_args, extra_files=profile)


def one_try(ctx, run, try_no, stopped=None):
    """Run one try; append its row (and samples); return the row. Raises
    Interrupted (no row, no raw files) when stopped() (default: ctx.stop)
    turned true while its QEMU ran."""
    g = guest(ctx, run, ctx.resdir.raw_base(run, try_no))
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out = boot.run(ctx.machine, g, ctx.timeout, stopped or ctx.stop)
    got = rawtry.derive(g.base, ctx.params["perf_events"], ctx.plugin,
                        out.ended, workloads.of(ctx.params).name)
    profilefmt.compress(g.base)
    rawtry.write_manifest(g.base)
    row = {
        "index": run.index, "round": run.round, "position": run.position,
        "variant": run.variant, "label": run.label, "accel": ctx.accel,
        "perturb_seed": run.perturb_seed, "seconds": run.seconds,
        "try": try_no,
        "kernel_hash": ctx.builds[run.variant].hash,
        "image_hash": ctx.images[run.variant].hash,
        "wall_seconds": "%.1f" % out.wall_seconds,
        "started_utc": started, "host": hostinfo.node(),
        "qemu_version": hostinfo.qemu_version(ctx.qemu_bin),
    }
    row.update(got.cells)
    row = ctx.resdir.fit(row)   # a dir from before some columns existed
    if got.status == "ok":
        ctx.resdir.append_samples(run, got.warmup, got.measured)
    ctx.resdir.append_run(row)
    for w in got.warnings[:3]:
        ctx.log.warn("run %d try %d: kernel %s" % (run.index, try_no, w))
    return row


class Progress:
    """Runs in flight, done and failed, and an ETA: the mean wall time of
    the finished tries (before the first: the plan's estimate) times the
    runs left, less the time the tries in flight have run, over the guest
    slots those runs can use."""

    def __init__(self, ctx, total, pending, estimate, jobs=1):
        self.ctx = ctx
        self.total = total
        self.left = pending
        self.estimate = estimate
        self.jobs = jobs
        self.t0 = time.monotonic()
        self.walls = []
        self.failed = 0
        self.flight = {}            # run index -> (run, start of its try)
        self.last = "-"
        self.lock = threading.Lock()

    def start(self, run):
        with self.lock:
            self.flight[run.index] = (run, time.monotonic())

    def drop(self, run):
        """The try in flight was discarded (interrupted)."""
        with self.lock:
            self.flight.pop(run.index, None)

    def finish(self, run, row, run_done):
        with self.lock:
            self.flight.pop(run.index, None)
            self.walls.append(float(row["wall_seconds"]))
            if run_done:
                self.left -= 1
            if row["status"] == "ok":
                self.last = figure(row)
            else:
                self.failed += 1

    def eta(self, now):
        per_try = sum(self.walls) / len(self.walls) if self.walls \
            else self.estimate
        busy = sum(now - t0 for _, t0 in self.flight.values())
        slots = max(1, min(self.jobs, self.left))
        return max(0.0, self.left * per_try - busy) / slots

    def line(self):
        with self.lock:
            now = time.monotonic()
            flying = " ".join("%d:%s" % (i, r.label)
                              for i, (r, _) in sorted(self.flight.items()))
            return ("runs %d/%d done, %d in flight%s, %d failed tries | "
                    "elapsed %s | ETA %s (%d at once) | last %s" % (
                        self.total - self.left, self.total, len(self.flight),
                        " (%s)" % flying if flying else "", self.failed,
                        duration(now - self.t0), duration(self.eta(now)),
                        self.jobs, self.last))

    def brief(self):
        """The progress in a few words, for the log line of a try."""
        with self.lock:
            return "%d/%d done, %d in flight, ETA %s" % (
                self.total - self.left, self.total, len(self.flight),
                duration(self.eta(time.monotonic())))

    def tick(self):
        self.ctx.log.progress(self.line())


def _report(ctx, run, try_no, row, prog):
    """One log line per finished try (the only progress without a
    terminal)."""
    ok = row["status"] == "ok"
    what = figure(row) if ok \
        else "FAILED: %s" % row["reason"]
    msg = "run %d/%d round %d %s try %d: %s (%s wall; %s)" % (
        run.index, prog.total, run.round, run.label, try_no, what,
        duration(float(row["wall_seconds"])), prog.brief())
    (ctx.log.info if ok else ctx.log.warn)(msg)


class Streak:
    """Runs that failed all tries, and how many in a row, in the order
    runs settle; aborted after ABORT_AFTER in a row."""

    def __init__(self, retries):
        self.retries = retries
        self.in_a_row = 0
        self.aborted = False
        self.gave_up = []

    def settled(self, run, outcome):
        """Book a run whose tries ended (outcome: a boot.Settled)."""
        if outcome.ok:
            self.in_a_row = 0
            return
        self.gave_up.append(run)
        self.in_a_row += 1
        if self.in_a_row >= ABORT_AFTER:
            self.aborted = True

    def error(self):
        return RuntimeError(
            "%d runs in a row failed all %d tries; stopping (see the "
            "reasons above and the raw logs)" % (self.in_a_row,
                                                 self.retries + 1))


def run_plan(ctx, pending, next_try, total, estimate, jobs=1):
    """Run the pending runs, up to `jobs` guests at once (boot.Slots: a
    thread per slot takes the next run in plan order and makes its
    tries). Returns the runs that failed all tries, in plan order.

    Raises Interrupted when ctx.stop() turns true before every run finished
    (the tries in flight are discarded, finished ones kept), RuntimeError
    after ABORT_AFTER runs in a row failed all tries, "in a row" meaning in
    the order the runs finished; the tries then in flight are discarded as
    on Ctrl-C.
    """
    prog = Progress(ctx, total, len(pending), estimate, jobs)
    streak = Streak(ctx.retries)

    def attempt(run, try_no, last, stopped):
        prog.start(run)
        try:
            row = one_try(ctx, run, try_no, stopped)
        except Interrupted:
            prog.drop(run)
            raise
        ok = row["status"] == "ok"
        prog.finish(run, row, ok or try_no == last)
        _report(ctx, run, try_no, row, prog)
        return ok, row

    slots = boot.Slots(jobs, ctx.retries,
                       lambda: streak.aborted or ctx.stop(), prog.tick)
    try:
        out = slots.run(pending, attempt, lambda run: next_try[run.index],
                        streak.settled)
    finally:
        ctx.log.done()
    if streak.aborted:
        raise streak.error()
    if None in out:
        raise Interrupted()
    return sorted(streak.gave_up, key=lambda r: r.index)


def dry_run(ctx, s):
    """Print the plan and the QEMU command of every pending run of s (a
    session.Session)."""
    p = s.meta["plan"]
    print("# plan: %d runs = %d variants/labels x %d boots, seed %d, "
          "accelerator %s, %d guests at once" % (
              len(s.plan), len(p["labels"]), p["boots"], p["seed"],
              s.accel, s.meta["runner"]["jobs"]))
    print("# accelerator: %s" % s.meta["accel"]["reason"])
    if s.meta["protocol"].get("append"):
        print("# --append: %s (after each build's boot_args)"
              % s.meta["protocol"]["append"])
    print("# runs.csv rows would go to results/<UTC time>-<git sha>/")
    where = results.ResultsDir("RESULTS", [])
    for run in s.pending:
        try_no = s.next_try[run.index]
        boot.show(ctx.machine, guest(ctx, run, where.raw_base(run, try_no)),
                  "run %d round %d position %d %s perturb %d %d s try %d" % (
                      run.index, run.round, run.position, run.label,
                      run.perturb_seed, run.seconds, try_no))
