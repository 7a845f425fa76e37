"""bench/run end to end: options, inputs, the session, the run loop.

main() parses the options (cli.py), reads builds.tsv, opens a Session
(session.py: a new results dir, or --resume's), logs the plan, and then
prints the QEMU commands (--dry-run) or runs the pending runs with the
local runner (runner.py) or on Slurm (slurmrun.py), recording each session
of the results dir, its outcome and its end in meta.json.
"""
import contextlib
import os
import signal
import sys

from bench.guest import parallel
from bench.session import cli, session
from bench.tries import inputs, runner, slurm, slurmrun
from bench.tries import plan as planmod
from lib import arch as archmod
from lib import kcache, store, workloads
from lib.format import rawfiles
from lib.log import Log, duration


def _resume_hint(args, path):
    return "finish it with: bench/run --resume %s --builds %s --initramfs %s" \
        % (path, args.builds, args.initramfs)


def _read_builds(args, log):
    """builds.tsv's builds, all of an arch whose image carries the
    benchmark (lib/arch.py: benchmark)."""
    builds = inputs.read_builds(args.builds)
    for b in builds.values():
        if b.hash_note:
            log.warn(b.hash_note)
        if not archmod.get(b.arch).benchmark:
            raise inputs.InputError(
                "%s: %s is an %s build, whose image has no tbench "
                "(boot it for the selftest task with bench/selftest)"
                % (args.builds, b.variant, b.arch))
    return builds


def _open(args, log):
    """(builds, Session): --resume's, or a new one."""
    builds = _read_builds(args, log)
    if args.executor == "slurm":
        slurm.preflight(args, builds)
    opener = session.resume_session if args.resume else session.new_session
    return builds, opener(args, log, builds)


def _pin(pin, builds, s):
    """Keep the run's kernels and images in the cache while it runs
    (lib/kcache.py); InputError when the cache's bound took one before."""
    pin.add(*[b.dir for b in builds.values()])
    pin.add(*{i.path for i in s.images.values()})
    gone = [b.dir for b in builds.values() if not os.path.isfile(b.kernel)]
    gone += sorted({i.path for i in s.images.values()
                    if not os.path.isfile(i.path)})
    if gone:
        raise inputs.InputError(
            "%s: evicted from the cache (its bound: lib/kcache.py) as this "
            "run began: make it again (kernel-variants/build, guest-image/"
            "build)" % ", ".join(gone))


def _announce(args, log, s):
    """Record the executor and guest slots in meta; log the plan's size
    and expected duration. Returns (jobs, expected seconds per try)."""
    accel = s.accel
    jobs, why = parallel.jobs_for(accel, args.jobs)
    if why:
        log.warn(why)
    s.meta["runner"]["jobs"] = jobs
    s.meta["runner"]["executor"] = args.executor
    plugin = bool(s.meta["plugin"]["path"])
    model = bool(s.meta.get("model"))
    protocol = s.meta["protocol"]
    expected = sum(planmod.estimate(
        accel, planmod.guest_seconds(protocol, r.seconds), plugin, model)
        for r in s.pending)
    per_try = expected / max(1, len(s.pending))
    lengths = sorted({r.seconds for r in s.plan})
    what = "%s s tbench, %d clients" % (", ".join(map(str, lengths)),
                                        protocol["clients"])
    w = workloads.of(protocol)
    if w.name != workloads.DEFAULT:
        what = "%s, n=%d: %d operations (one: %s)" % (
            w.name, protocol["loops"], workloads.ops(w, protocol["loops"]),
            w.op)
    log.write("plan: %d runs left of %d (%s, %s);"
              " expected duration %s (%s per run, %d at once)" % (
                  len(s.pending), len(s.plan), accel, what,
                  duration(expected / max(1, min(jobs, len(s.pending)))),
                  duration(per_try), jobs),
              always=True)
    if s.meta["protocol"].get("append"):
        log.write("extra kernel command line words (--append): %s"
                  % s.meta["protocol"]["append"], always=True)
    return jobs, per_try


def _dry_run(ctx, s):
    try:
        runner.dry_run(ctx, s)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


@contextlib.contextmanager
def _signals_to(flag):
    """SIGINT and SIGTERM append to flag while inside."""
    def on_signal(signum, frame):
        flag.append(signum)

    old = {sig: signal.signal(sig, on_signal)
           for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _execute(args, ctx, s, jobs, per_try):
    """Run the pending runs: (the session's outcome, exit status)."""
    hint = _resume_hint(args, s.resdir.path)
    try:
        if args.executor == "slurm":
            gave_up = slurmrun.run_plan(ctx, s.pending, s.next_try,
                                        len(s.plan), per_try, args)
        else:
            gave_up = runner.run_plan(ctx, s.pending, s.next_try,
                                      len(s.plan), per_try, jobs)
    except runner.Interrupted:
        ctx.log.done()
        ctx.log.error("interrupted: the tries in flight were discarded, "
                      "finished runs are kept; %s" % hint)
        return "interrupted", 130
    except RuntimeError as e:
        ctx.log.error("%s; %s" % (e, hint))
        return "stopped: %s" % e, 1
    if gave_up:
        outcome = "%d runs failed all tries" % len(gave_up)
        ctx.log.error("%s; %s" % (outcome, hint))
        return outcome, 1
    return "complete", 0


def _run(args, argv, s, ctx, jobs, per_try, flag):
    """Run the session into its results dir; the exit status. flag: where
    SIGINT and SIGTERM are noted (ctx.stop() looks at it)."""
    resdir, meta, log = s.resdir, s.meta, ctx.log
    log.to_file(resdir.log_file)
    if args.out:
        with open(args.out, "w") as f:
            f.write(resdir.path + "\n")
    log.info("results dir: %s" % resdir.path)
    record = {"start_utc": session.utc(), "argv": argv, "jobs": jobs,
              "outcome": "running"}
    meta["sessions"].append(record)
    resdir.write_meta(meta)
    try:
        with _signals_to(flag):
            outcome, status = _execute(args, ctx, s, jobs, per_try)
            record["outcome"] = outcome
    finally:
        record["end_utc"] = meta["end_utc"] = session.utc()
        resdir.write_meta(meta)
    if outcome == "complete":
        # every try is in: raw/ becomes one archive (--resume of the dir
        # unpacks it), and the store learns of the run
        rawfiles.pack(resdir.path)
        store.record(resdir.path)
    rows = resdir.rows()
    ok = sum(1 for r in rows if r["status"] == "ok")
    log.write("%d runs ok, %d failed tries; results in %s" % (
        ok, len(rows) - ok, resdir.path), always=True)
    return status


def main(argv):
    try:
        args = cli.parse(argv)
    except cli.UsageError as e:
        Log().error("%s (see bench/run --help)" % e)
        return 2
    log = Log(quiet=args.quiet)
    with kcache.Pin() as pin:
        return _main(args, argv, log, pin)


def _main(args, argv, log, pin):
    try:
        builds, s = _open(args, log)
        _pin(pin, builds, s)
    except cli.UsageError as e:
        log.error("%s (see bench/run --help)" % e)
        return 2
    except (session.Fail, inputs.InputError, ValueError,
            slurm.SlurmError) as e:
        log.error(str(e))
        return 1
    except KeyboardInterrupt:
        log.error("interrupted before the first run")
        return 130
    flag = []
    ctx = s.context(builds, log, stop=lambda: bool(flag))
    jobs, per_try = _announce(args, log, s)
    if args.dry_run:
        return _dry_run(ctx, s)
    return _run(args, argv, s, ctx, jobs, per_try, flag)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
