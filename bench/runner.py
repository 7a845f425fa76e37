"""The run loop: every pending run of the plan, one fresh QEMU per try.

Each try writes raw/<NNN>-<variant>-try<K>.{log,qemu-cmd} (plus .stderr
when QEMU complained and .counts with the plugin), then one runs.csv row.
A failed try is retried up to `retries` more times; a run whose tries all
failed stays pending for --resume. After `abort_after` such runs in a row
the loop stops: something is broken for every run, not by chance.
"""
import os
import time

from bench import execute, qemu, rawtry
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
        "started_utc": started,
    }
    row.update(got.cells)
    if "seconds" not in ctx.resdir.columns:
        del row["seconds"]  # a results dir from before the column existed
    if got.status == "ok":
        ctx.resdir.append_samples(run, got.warmup, got.measured)
    ctx.resdir.append_run(row)
    for w in got.warnings[:3]:
        ctx.log.warn("run %d try %d: kernel %s" % (run.index, try_no, w))
    return row


class Progress:
    """ETA from the wall time of finished tries (or the plan's estimate)."""

    def __init__(self, ctx, total, pending, estimate):
        self.ctx = ctx
        self.total = total
        self.left = pending
        self.estimate = estimate
        self.t0 = time.monotonic()
        self.walls = []
        self.last = "-"
        self.current = None
        self.try_t0 = None

    def per_try(self):
        if self.walls:
            return sum(self.walls) / len(self.walls)
        return self.estimate

    def start(self, i, run, try_no):
        self.current = (i, run, try_no)
        self.try_t0 = time.monotonic()
        self.tick()

    def tick(self):
        i, run, try_no = self.current
        now = time.monotonic()
        in_try = now - self.try_t0
        eta = max(0.0, self.left * self.per_try() - in_try)
        self.ctx.log.progress(
            "run %d/%d round %d %s%s try %d | elapsed %s | ETA %s | last %s"
            % (i, self.total, run.round, run.label,
               "" if run.label == run.variant else " (%s)" % run.variant,
               try_no, duration(now - self.t0), duration(eta), self.last))

    def finish(self, row, run_done):
        self.walls.append(float(row["wall_seconds"]))
        if run_done:
            self.left -= 1
        if row["status"] == "ok":
            self.last = "%s MB/s" % row["throughput_mbps"]


def run_plan(ctx, pending, next_try, total, estimate):
    """Run the pending runs. Returns the list of runs that failed all tries.

    Raises Interrupted when ctx.stop() turns true (the try in flight is
    discarded), RuntimeError after ABORT_AFTER runs in a row failed.
    """
    prog = Progress(ctx, total, len(pending), estimate)
    gave_up = []
    in_a_row = 0
    for run in pending:
        first = next_try[run.index]
        ok = False
        for try_no in range(first, first + ctx.retries + 1):
            prog.start(run.index, run, try_no)
            row = one_try(ctx, run, try_no, tick=prog.tick)
            ok = row["status"] == "ok"
            last_try = try_no == first + ctx.retries
            prog.finish(row, ok or last_try)
            what = "%s MB/s" % row["throughput_mbps"] if ok \
                else "FAILED: %s" % row["reason"]
            msg = "run %d/%d round %d %s try %d: %s (%s wall)" % (
                run.index, total, run.round, run.label, try_no, what,
                duration(float(row["wall_seconds"])))
            if ok:
                ctx.log.info(msg)
            else:
                ctx.log.warn(msg)
            if ok:
                break
        if ok:
            in_a_row = 0
            continue
        gave_up.append(run)
        in_a_row += 1
        if in_a_row >= ABORT_AFTER:
            ctx.log.done()
            raise RuntimeError(
                "%d runs in a row failed all %d tries; stopping (see the "
                "reasons above and the raw logs)" % (in_a_row,
                                                     ctx.retries + 1))
    ctx.log.done()
    return gave_up
