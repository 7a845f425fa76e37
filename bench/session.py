"""bench/run end to end: inputs, accelerator, results dir, plan, the loop.

A new session creates the results dir and plan; --resume reopens one and
takes the plan, protocol and accelerator from its meta.json, checking that
the kernels and images given are the ones it was started with.
"""
import os
import random
import shutil
import signal
import sys
import tempfile
import time

from bench import accel, cli, console, counts, execute, hostinfo, inputs
from bench import parallel, provenance
from bench import plan as planmod
from bench import qemu, results, runner, slurm, slurmrun
from bench.log import Log, duration

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = "atomic-read"
# The A/A twin of the baseline: its label is the variant plus this suffix.
TWIN_SUFFIX = ".aa"


class Fail(Exception):
    """An error that ends bench/run with exit status 1; str() says why."""


def _utc():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def probe_kvm(build, image, qemu_bin, log_path, bound=accel.PROBE_SECONDS):
    """Boot build under KVM until the agent starts: (ok, detail)."""
    append = qemu.kernel_args({"clients": 1, "seconds": 1}, build.variant, 0,
                              build.boot_args)
    guest = qemu.Guest(build.kernel, image.path, append, log_path)
    cmd = qemu.command("kvm", guest, 1, qemu=qemu_bin)
    t0 = time.monotonic()

    def started():
        return console.agent_started(console.read(log_path))

    out = execute.run(cmd, log_path, bound, log_path + ".stderr",
                      interrupted=started)
    # A guest that reached the agent and powered off between two looks at
    # its console has passed too.
    if out.kind == "interrupted" or started():
        return True, "reached the agent in %.1f s (bound %.0f s)" % (
            time.monotonic() - t0, bound)
    last = console.parse(console.read(log_path)).last_line
    return False, "%s without reaching the agent (last console line: %r)" % (
        out.ended, last[:120])


def _sites(builds, variants, dest):
    """Per variant, the plugin's sites= file (None: no jump table)."""
    os.makedirs(dest, exist_ok=True)
    paths, sizes = {}, {}
    for v in variants:
        paths[v], sizes[v] = counts.sites_file(
            ROOT, builds[v].dir, os.path.join(dest, v + ".txt"))
    return paths, sizes


def _labels(args, builds):
    """(labels as (label, variant) pairs, variants, A/A twin labels)."""
    variants = args.variants.split(",") if args.variants else list(builds)
    unknown = [v for v in variants if v not in builds]
    if unknown:
        raise Fail("variants %s are not in %s (it has: %s)" % (
            ", ".join(unknown), args.builds, ", ".join(builds)))
    base = BASELINE if BASELINE in variants else variants[0]
    if args.aa is None:
        labels = [(v, v) for v in variants]
        if args.no_aa:
            return labels, variants, ()
        twin = base + TWIN_SUFFIX
        return labels + [(twin, base)], variants, (twin,)
    v = args.aa or base
    if v not in builds:
        raise Fail("--aa %s: not in %s" % (v, args.builds))
    return [("A", v), ("B", v)], [v], ("B",)


def _new_dir(root, short_sha):
    base = os.path.join(root, results.dir_name(time.gmtime(), short_sha))
    path, n = base, 1
    while os.path.exists(path):
        n += 1
        path = "%s-%d" % (base, n)
    return path


def new_session(args, log, builds):
    """(ctx-free setup) -> dict with everything main() needs."""
    labels, variants, twins = _labels(args, builds)
    images = inputs.read_images(args.initramfs, variants)
    seed = args.seed if args.seed is not None else random.SystemRandom(
        ).randrange(2 ** 32)
    qemu_bin = qemu.binary()
    tmp = tempfile.mkdtemp(prefix="jlbench-probe-")
    probe_log = os.path.join(tmp, "probe-kvm.log")
    probe_build = builds.get("jump-label") or builds[variants[0]]
    probe_image = images.get(probe_build.variant) or images[variants[0]]

    bound, why_bound = accel.probe_bound(args.probe_timeout,
                                         hostinfo.nested())

    def probe():
        if args.dry_run:
            return True, "not run (dry run)"
        log.info("probing KVM: booting %s for at most %.0f s (%s)"
                 % (probe_build.variant, bound, why_bound))
        return probe_kvm(probe_build, probe_image, qemu_bin, probe_log,
                         bound)

    try:
        decision = accel.decide(args.accel, probe)
    except accel.AccelError as e:
        shutil.rmtree(tmp)
        raise Fail(str(e))
    mode = decision.mode
    log.write("accelerator: %s (%s)" % (mode, decision.reason), always=True)
    boots, lengths = planmod.profile_defaults(args.profile, mode)
    boots = args.boots or boots
    lengths = args.seconds or lengths
    seconds = max(lengths)
    smp = 1 if mode == "icount" else (args.smp or 2)
    plugin, note = None, "not used (%s mode)" % mode
    if mode == "icount" and args.no_plugin:
        note = "disabled by --no-plugin"
    elif mode == "icount" and args.dry_run:
        plugin = "PLUGIN"
        note = "dry run: PLUGIN stands for bench/plugin/build-plugin's output"
    elif mode == "icount":
        try:
            plugin, note = counts.find(ROOT)
        except counts.PluginError as e:
            shutil.rmtree(tmp)
            raise Fail("%s (or run with --no-plugin)" % e)
    if mode == "icount" and plugin is None and not args.no_plugin:
        log.warn("branch counts will be empty: %s" % note)
    perf_events = [] if args.perf == "none" else args.perf.split(",")
    params = {"mode": "tbench", "clients": args.clients, "seconds": seconds,
              "lengths": list(lengths), "perf": args.perf,
              "perf_events": perf_events}
    the_plan = planmod.make(labels, boots, seed, perturb=mode == "icount",
                            lengths=lengths, twins=twins)
    git = hostinfo.git_state(ROOT)
    timeout = args.timeout or planmod.default_timeout(mode, seconds,
                                                      bool(plugin))
    meta = {
        "format": 1, "tool": "bench/run", "created_utc": _utc(),
        "end_utc": None, "sessions": [], "git": git,
        "accel": dict(decision.as_dict(), smp=smp, qemu=qemu_bin,
                      memory_mb=qemu.MEMORY_MB,
                      accel_args=qemu.accel_args(mode, smp),
                      kernel_args_base=qemu.BASE_ARGS),
        "protocol": dict(params, guest_protocol=console.PROTOCOL),
        "plan": {"profile": args.profile, "boots": boots, "seed": seed,
                 "labels": labels, "variants": variants,
                 "aa": args.aa is not None, "twins": list(twins),
                 "lengths": list(lengths), "runs": len(the_plan),
                 "order": "shuffled Latin squares per block of rounds",
                 "perturbation": "per round, shared by all variants; "
                 "A/A twins draw their own" if mode == "icount" else "none"},
        "runner": {"retries": args.retries, "timeout_s": timeout,
                   "grace_s": execute.GRACE_SECONDS},
        "builds": {v: {"dir": builds[v].dir, "hash": builds[v].hash,
                       "boot_args": builds[v].boot_args,
                       "build": builds[v].info} for v in variants},
        "images": {v: {"path": images[v].path, "hash": images[v].hash}
                   for v in variants},
        "plugin": {"path": plugin, "note": note},
    }
    if args.dry_run:
        shutil.rmtree(tmp)
        sites = {v: "RESULTS/sites/%s.txt" % v for v in variants} \
            if plugin else {}
        return dict(meta=meta, plan=the_plan, pending=the_plan,
                    next_try={r.index: 1 for r in the_plan}, resdir=None,
                    images=images, qemu_bin=qemu_bin, sites=sites)
    root = args.results_root or os.path.join(ROOT, "results")
    resdir = results.ResultsDir.create(_new_dir(root, git["short"]),
                                       perf_events)
    if os.path.exists(probe_log):
        # a move, not a rename: the temp dir may be on another filesystem
        shutil.move(probe_log, os.path.join(resdir.raw, "probe-kvm.log"))
    shutil.rmtree(tmp)
    meta["host"] = hostinfo.host(qemu_bin)
    sites = {}
    if plugin:
        try:
            sites, sizes = _sites(builds, variants,
                                  os.path.join(resdir.path, "sites"))
        except counts.PluginError as e:
            raise Fail(str(e))
        meta["plugin"]["sites"] = sizes
    planmod.write(the_plan, resdir.plan_csv)
    resdir.write_meta(meta)
    provenance.record(resdir.path, meta, builds, images, ROOT)
    return dict(meta=meta, plan=the_plan, pending=the_plan,
                next_try={r.index: 1 for r in the_plan}, resdir=resdir,
                images=images, qemu_bin=qemu_bin, sites=sites)


def resume_session(args, log, builds):
    """Reopen args.resume; check that builds and images match its meta."""
    try:
        resdir, notes = results.ResultsDir.open(args.resume)
    except FileNotFoundError as e:
        raise Fail(str(e))
    for n in notes:
        log.warn(n)
    slurmrun.reopen(resdir, log)
    meta = resdir.meta()
    variants = meta["plan"]["variants"]
    missing = [v for v in variants if v not in builds]
    if missing:
        raise Fail("%s lacks %s, which %s was run with" % (
            args.builds, ", ".join(missing), args.resume))
    images = inputs.read_images(args.initramfs, variants)
    for v in variants:
        if builds[v].hash != meta["builds"][v]["hash"]:
            raise Fail("kernel %s is build %s, but %s was run with build %s:"
                       " resume with the same kernels" % (
                           v, builds[v].hash, args.resume,
                           meta["builds"][v]["hash"]))
        if images[v].hash != meta["images"][v]["hash"]:
            raise Fail("image for %s has hash %s, but %s was run with %s" % (
                v, images[v].hash, args.resume, meta["images"][v]["hash"]))
    mode = meta["accel"]["mode"]
    if mode == "kvm":
        usable, _, why = accel.kvm_usable()
        if not usable:
            raise Fail("%s was run under kvm, which this host cannot use: %s"
                       % (args.resume, why))
    if meta["plugin"]["path"] and not args.dry_run:
        try:
            path, note = counts.find(ROOT)
        except counts.PluginError as e:
            raise Fail(str(e))
        if path is None:
            raise Fail("%s was run with the branch-count plugin: %s" % (
                args.resume, note))
        meta["plugin"]["path"] = path
        try:
            sites, _ = _sites(builds, variants,
                              os.path.join(resdir.path, "sites"))
        except counts.PluginError as e:
            raise Fail(str(e))
    else:
        sites = {}
    the_plan = planmod.read(resdir.plan_csv, meta["protocol"]["seconds"])
    pending, next_try = planmod.progress(the_plan, resdir.rows())
    if args.timeout:
        meta["runner"]["timeout_s"] = args.timeout
    meta["runner"]["retries"] = args.retries
    log.write("resuming %s: %d of %d runs left, accelerator %s"
              % (args.resume, len(pending), len(the_plan), mode),
              always=True)
    return dict(meta=meta, plan=the_plan, pending=pending,
                next_try=next_try, resdir=resdir, images=images,
                qemu_bin=qemu.binary(), sites=sites)


def _context(s, builds, log, args, stop):
    meta = s["meta"]
    return runner.Context(
        mode=meta["accel"]["mode"], params=meta["protocol"],
        smp=meta["accel"]["smp"], builds=builds, images=s["images"],
        resdir=s["resdir"], log=log, plugin=meta["plugin"]["path"],
        retries=meta["runner"]["retries"],
        timeout=meta["runner"]["timeout_s"],
        memory_mb=meta["accel"]["memory_mb"], stop=stop,
        qemu_bin=s["qemu_bin"], sites=s["sites"])


def _resume_hint(args, path):
    return "finish it with: bench/run --resume %s --builds %s --initramfs %s" \
        % (path, args.builds, args.initramfs)


def main(argv):
    try:
        args = cli.parse(argv)
    except cli.UsageError as e:
        Log().error("%s (see bench/run --help)" % e)
        return 2
    log = Log(quiet=args.quiet)
    try:
        builds = inputs.read_builds(args.builds)
        for b in builds.values():
            if b.hash_note:
                log.warn(b.hash_note)
            if b.arch != "x86_64":
                raise inputs.InputError(
                    "%s: %s is an %s build; tbench runs boot x86_64 kernels "
                    "(boot it in selftest mode with bench/selftest)"
                    % (args.builds, b.variant, b.arch))
        if args.executor == "slurm":
            slurm.preflight(args, builds)
        s = (resume_session if args.resume else new_session)(args, log,
                                                             builds)
    except (Fail, inputs.InputError, ValueError, slurm.SlurmError) as e:
        log.error(str(e))
        return 1
    except KeyboardInterrupt:
        log.error("interrupted before the first run")
        return 130
    meta = s["meta"]
    flag = []

    def on_signal(signum, frame):
        flag.append(signum)

    ctx = _context(s, builds, log, args, stop=lambda: bool(flag))
    mode = meta["accel"]["mode"]
    jobs, why = parallel.jobs_for(mode, args.jobs)
    if why:
        log.warn(why)
    meta["runner"]["jobs"] = jobs
    meta["runner"]["executor"] = args.executor
    plugin = bool(meta["plugin"]["path"])
    expected = sum(planmod.estimate(mode, r.seconds, plugin)
                   for r in s["pending"])
    per_try = expected / max(1, len(s["pending"]))
    lengths = sorted({r.seconds for r in s["plan"]})
    log.write("plan: %d runs left of %d (%s mode, %s s tbench, %d clients);"
              " expected duration %s (%s per run, %d at once)" % (
                  len(s["pending"]), len(s["plan"]), mode,
                  ", ".join(map(str, lengths)), meta["protocol"]["clients"],
                  duration(expected / max(1, min(jobs, len(s["pending"])))),
                  duration(per_try), jobs),
              always=True)
    if args.dry_run:
        try:
            runner.dry_run(ctx, meta, s["plan"], s["pending"],
                           s["next_try"])
            sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    resdir = s["resdir"]
    log.to_file(resdir.log_file)
    if args.out:
        with open(args.out, "w") as f:
            f.write(resdir.path + "\n")
    log.info("results dir: %s" % resdir.path)
    session = {"start_utc": _utc(), "argv": argv, "jobs": jobs,
               "outcome": "running"}
    meta["sessions"].append(session)
    resdir.write_meta(meta)
    old = {sig: signal.signal(sig, on_signal)
           for sig in (signal.SIGINT, signal.SIGTERM)}
    status = 0
    try:
        if args.executor == "slurm":
            gave_up = slurmrun.run_plan(ctx, s["pending"], s["next_try"],
                                        len(s["plan"]), per_try, args)
        else:
            gave_up = runner.run_plan(ctx, s["pending"], s["next_try"],
                                      len(s["plan"]), per_try, jobs)
        if gave_up:
            session["outcome"] = "%d runs failed all tries" % len(gave_up)
            log.error("%s; %s" % (session["outcome"],
                                  _resume_hint(args, resdir.path)))
            status = 1
        else:
            session["outcome"] = "complete"
    except runner.Interrupted:
        log.done()
        session["outcome"] = "interrupted"
        log.error("interrupted: the tries in flight were discarded, "
                  "finished runs are kept; %s"
                  % _resume_hint(args, resdir.path))
        status = 130
    except RuntimeError as e:
        session["outcome"] = "stopped: %s" % e
        log.error("%s; %s" % (e, _resume_hint(args, resdir.path)))
        status = 1
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        session["end_utc"] = meta["end_utc"] = _utc()
        resdir.write_meta(meta)
    rows = resdir.rows()
    ok = sum(1 for r in rows if r["status"] == "ok")
    log.write("%d runs ok, %d failed tries; results in %s" % (
        ok, len(rows) - ok, resdir.path), always=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
