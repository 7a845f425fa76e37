"""The run loop: every pending run of the plan, one fresh QEMU per try.

Each try writes raw/<NNN>-<variant>-try<K>.{log,qemu-cmd} (plus .stderr
when QEMU complained and .counts with the plugin), then one runs.csv row.
A failed try is retried up to `retries` more times; a run whose tries all
failed stays pending for --resume. After `abort_after` such runs in a row
the loop stops: something is broken for every run, not by chance. Up to
`jobs` runs go on at once (icount only, see bench/parallel.py), each in a
thread of its own that makes its tries one after the other.
"""
import copy
import os
import threading
import time

from bench import execute, hostinfo, qemu, rawtry
from bench import parallel, results
from bench.log import duration

ABORT_AFTER = 3


class Interrupted(Exception):
    """The user stopped the run (SIGINT/SIGTERM); nothing partial written."""


class Context:
    """Everything a try needs. params: clients, seconds, perf (str),
    perf_events (list); builds/images: {variant: Build/Image}."""

    def __init__(self, mode, params, smp, builds, images, resdir, log,
                 plugin=None, retries=2, timeout=600.0, memory_mb=1024,
                 stop=lambda: False, qemu_bin=qemu.QEMU, sites=None):
        self.mode = mode
        self.params = params
        self.smp = smp
        self.builds = builds
        self.images = images
        self.resdir = resdir
        self.log = log
        self.plugin = plugin
        self.retries = retries
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.stop = stop
        self.qemu_bin = qemu_bin
        self.sites = sites or {}


def try_command(ctx, run, base):
    """(argv, kernel args) of one try whose files start with base."""
    build = ctx.builds[run.variant]
    append = qemu.kernel_args(dict(ctx.params, seconds=run.seconds),
                              run.variant, run.perturb_seed, build.boot_args)
    guest = qemu.Guest(build.kernel, ctx.images[run.variant].path, append,
                       base + ".log",
                       plugin=ctx.plugin,
                       counts_file=base + ".counts" if ctx.plugin else None,
                       sites=ctx.sites.get(run.variant))
    return qemu.command(ctx.mode, guest, ctx.smp, ctx.memory_mb,
                        ctx.qemu_bin), append


def _remove(base):
    for ext in (".log", ".qemu-cmd", ".stderr", ".counts"):
        try:
            os.unlink(base + ext)
        except FileNotFoundError:
            pass


def one_try(ctx, run, try_no, tick=None):
    """Run one try; append its row (and samples); return the row."""
    base = ctx.resdir.raw_base(run, try_no)
    _remove(base)
    cmd, _ = try_command(ctx, run, base)
    with open(base + ".qemu-cmd", "w") as f:
        f.write(qemu.shell_line(cmd) + "\n")
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

    def interrupted():
        if tick:
            tick()
        return ctx.stop()

    out = execute.run(cmd, base + ".log", ctx.timeout, base + ".stderr",
                      interrupted=interrupted)
    if out.kind == "interrupted":
        _remove(base)
        raise Interrupted()
    got = rawtry.derive(base, ctx.params["perf_events"], ctx.plugin,
                        out.ended)
    rawtry.write_manifest(base)
    row = {
        "index": run.index, "round": run.round, "position": run.position,
        "variant": run.variant, "label": run.label, "mode": ctx.mode,
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
                self.last = "%s MB/s" % row["throughput_mbps"]
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
    what = "%s MB/s" % row["throughput_mbps"] if ok \
        else "FAILED: %s" % row["reason"]
    msg = "run %d/%d round %d %s try %d: %s (%s wall; %s)" % (
        run.index, prog.total, run.round, run.label, try_no, what,
        duration(float(row["wall_seconds"])), prog.brief())
    (ctx.log.info if ok else ctx.log.warn)(msg)


def run_plan(ctx, pending, next_try, total, estimate, jobs=1):
    """Run the pending runs, up to `jobs` guests at once (bench/parallel.py:
    a thread per slot takes the next run in plan order and makes its
    tries). Returns the runs that failed all tries, in plan order.

    Raises Interrupted when ctx.stop() turns true before every run finished
    (the tries in flight are discarded, finished ones kept), RuntimeError
    after ABORT_AFTER runs in a row failed all tries, "in a row" meaning in
    the order the runs finished; the tries then in flight are discarded as
    on Ctrl-C.
    """
    prog = Progress(ctx, total, len(pending), estimate, jobs)
    lock = threading.Lock()
    state = {"in_a_row": 0, "aborted": False, "finished": 0}
    gave_up = []

    def stop():
        return state["aborted"] or ctx.stop()

    def work(run, stopped):
        wctx = copy.copy(ctx)
        wctx.stop = stopped         # one_try's QEMU is killed when it turns
        first = next_try[run.index]
        last = first + ctx.retries
        for try_no in range(first, last + 1):
            if stopped():
                return
            prog.start(run)
            try:
                row = one_try(wctx, run, try_no)
            except Interrupted:
                prog.drop(run)
                return
            ok = row["status"] == "ok"
            prog.finish(run, row, ok or try_no == last)
            _report(ctx, run, try_no, row, prog)
            if ok:
                break
        with lock:
            state["finished"] += 1
            if ok:
                state["in_a_row"] = 0
                return
            gave_up.append(run)
            state["in_a_row"] += 1
            if state["in_a_row"] >= ABORT_AFTER:
                state["aborted"] = True

    try:
        parallel.run(pending, jobs, work, stop, prog.tick)
    finally:
        ctx.log.done()
    if state["aborted"]:
        raise RuntimeError(
            "%d runs in a row failed all %d tries; stopping (see the "
            "reasons above and the raw logs)" % (state["in_a_row"],
                                                 ctx.retries + 1))
    if state["finished"] < len(pending):
        raise Interrupted()
    return sorted(gave_up, key=lambda r: r.index)


def dry_run(ctx, meta, the_plan, pending, next_try):
    """Print the plan and the QEMU command of every pending run."""
    p = meta["plan"]
    print("# plan: %d runs = %d variants/labels x %d boots, seed %d, "
          "accelerator %s, %d guests at once" % (
              len(the_plan), len(p["labels"]), p["boots"], p["seed"],
              meta["accel"]["mode"], meta["runner"]["jobs"]))
    print("# accelerator: %s" % meta["accel"]["reason"])
    print("# runs.csv rows would go to results/<UTC time>-<git sha>/")
    for run in pending:
        try_no = next_try[run.index]
        cmd, _ = try_command(ctx, run, results.ResultsDir(
            "RESULTS", []).raw_base(run, try_no))
        print("# run %d round %d position %d %s perturb %d %d s try %d" % (
            run.index, run.round, run.position, run.label, run.perturb_seed,
            run.seconds, try_no))
        print(qemu.shell_line(cmd))
