"""bench/run's session: a new or reopened results dir and its plan.

A new session (new_session) chooses the accelerator, draws the plan and
creates the results dir, plan.csv and meta.json (_create writes its first
version); --resume (resume_session) reopens one and takes the plan,
protocol (--append's words included) and accelerator from its meta.json,
checking that the kernels and images given are the ones it was started
with (a --resume with other --append words is a cli.UsageError). Either
gives a Session, which bench/session/runmain.py runs.
"""
import os
import random
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Optional

from bench.guest import accel, boot, execute, qemu
from bench.model import keywords
from bench.replay import provenance
from bench.session import cli
from bench.tries import inputs, runner, slurmrun
from bench.tries import plan as planmod
from lib import ROOT, hostinfo, model, workloads
from lib.format import console, counts, results, schema
from lib.format import profile as profilefmt
from lib.variants import JUMP

# The A/A twin of the baseline: its label is the variant plus this suffix.
TWIN_SUFFIX = ".aa"


class Fail(Exception):
    """An error that ends bench/run with exit status 1; str() says why."""


def utc():
    """Now, UTC, as meta.json writes times."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def probe_kvm(build, image, qemu_bin, log_path, bound=accel.PROBE_SECONDS,
              extra=""):
    """Boot build under KVM until the agent starts: (ok, detail). The
    console goes to log_path (BASE.log), QEMU's stderr to BASE.stderr;
    extra: the run's --append words."""
    append = boot.kernel_args(build.variant, workloads.TBENCH,
                              boot.tbench_words(1, 1, None, 0),
                              build.boot_args, extra)
    guest = boot.Guest(build.kernel, image.path, append,
                       os.path.splitext(log_path)[0])
    t0 = time.monotonic()

    def started():
        return console.agent_started(console.read(guest.log))

    out = boot.launch(boot.Machine("kvm", 1, qemu_bin=qemu_bin), guest,
                      bound, until=started)
    # A guest that reached the agent and powered off between two looks at
    # its console has passed too.
    if out.kind == "interrupted" or started():
        return True, "reached the agent in %.1f s (bound %.0f s)" % (
            time.monotonic() - t0, bound)
    last = console.parse(console.read(guest.log)).last_line
    return False, "%s without reaching the agent (last console line: %r)" % (
        out.ended, last[:120])


def _sites(builds, variants, resdir):
    """Per variant, the plugin's sites= file (None: no jump table), and
    per variant the number of sites."""
    dest = os.path.join(resdir.path, "sites")
    os.makedirs(dest, exist_ok=True)
    paths, sizes = {}, {}
    try:
        for v in variants:
            paths[v], sizes[v] = counts.sites_file(
                builds[v].dir, os.path.join(dest, v + ".txt"))
    except counts.PluginError as e:
        raise Fail(str(e))
    # the files name their build dir: portable paths, on --resume too
    provenance.portable_sites(resdir.path)
    return paths, sizes


def _profile_args(builds, variants, plugin_args, plugin_meta):
    """Add the per-function profile's symbols= file (lib/format/profile.py;
    kept in the cache by build hash, written from the build's vmlinux when
    missing) to each variant's plugin arguments; the runner then adds the
    try's profile= file. Records them in plugin_meta["profile"]."""
    dest = os.path.join(hostinfo.cache_dir(), "profile-symbols")
    os.makedirs(dest, exist_ok=True)
    plugin_meta["profile"] = {}
    for v in variants:
        path = os.path.join(dest, builds[v].hash + ".txt")
        if not os.path.isfile(path):
            vmlinux = os.path.join(builds[v].dir, "vmlinux")
            try:
                profilefmt.symbols_file(vmlinux, path)
            except (OSError, subprocess.CalledProcessError) as e:
                raise Fail("cannot read the symbols of %s for the profile:"
                           " %s" % (vmlinux, e))
        plugin_args[v] = tuple(plugin_args.get(v, ())) + (
            "symbols=" + path,)
        plugin_meta["profile"][v] = {"symbols": path}
    return plugin_args


def _jump_label_build(builds, variants):
    """The build whose jump table names the static keys (the plan's first,
    else any in builds.tsv), or None."""
    def entries(b):
        return ((b.info.get("verify") or {}).get("jump_table") or {}).get(
            "entries", 0)
    order = list(variants) + [v for v in builds if v not in variants]
    return next((builds[v] for v in order if entries(builds[v]) > 0), None)


def _model_args(builds, variants, resdir, model_meta, log):
    """Per variant, the plugin arguments of the model (lib/model.py),
    with its keys= file in keys/ (bench/model/keywords.py); fills model_meta's
    "keys" (what each file holds, or why there is none)."""
    jl = _jump_label_build(builds, variants)
    if jl is None:
        model_meta["keys"] = {"note": "no build with a jump table: "
                                      "key words not counted"}
        log.warn("--model: %s" % model_meta["keys"]["note"])
        return {v: model.plugin_args(model_meta) for v in variants}
    keys = keywords.of_jump_label_build(jl.dir, "%s build %s"
                                        % (jl.variant, jl.hash))
    dest = os.path.join(resdir.path, "keys")
    os.makedirs(dest, exist_ok=True)
    out, model_meta["keys"] = {}, {"source": keys.source}
    for v in variants:
        path = os.path.join(dest, v + ".txt")
        model_meta["keys"][v] = keywords.write(
            keys, builds[v], builds[v] is jl, path)
        out[v] = model.plugin_args(model_meta, path)
    return out


def baseline(args, variants):
    """The run's baseline: --baseline, else the built-in baseline
    (lib/variants.py) if it runs, else the first variant."""
    if args.baseline:
        if args.baseline not in variants:
            raise Fail("--baseline %s: not among the variants run (%s)" % (
                args.baseline, ", ".join(variants)))
        return args.baseline
    return schema.BASELINE if schema.BASELINE in variants else variants[0]


def _labels(args, builds):
    """(labels as (label, variant) pairs, variants, A/A twin labels)."""
    variants = args.variants.split(",") if args.variants else list(builds)
    unknown = [v for v in variants if v not in builds]
    if unknown:
        raise Fail("variants %s are not in %s (it has: %s)" % (
            ", ".join(unknown), args.builds, ", ".join(builds)))
    base = baseline(args, variants)
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


@dataclass
class Session:
    """What bench/run runs: a new or reopened results dir's plan.

    meta: meta.json's content; plan: every Run; pending: the runs not
    finished; next_try: {run index: its next try number}; resdir: the
    ResultsDir (None in a dry run); images: {variant: Image}; qemu_bin:
    the QEMU binary; sites: {variant: the plugin's sites= file};
    plugin_args: {variant: the plugin's other arguments (--model's)}.
    """
    meta: dict
    plan: list
    resdir: Optional[results.ResultsDir]
    images: dict
    qemu_bin: str
    sites: dict
    pending: Optional[list] = None
    next_try: Optional[dict] = None
    plugin_args: Optional[dict] = None

    def __post_init__(self):
        self.plugin_args = self.plugin_args or {}
        if self.pending is None:
            self.pending = list(self.plan)
            self.next_try = {r.index: 1 for r in self.plan}

    @property
    def accel(self):
        return schema.run_accel(self.meta)

    def context(self, builds, log, stop):
        """The runner.Context of this session's tries."""
        meta = self.meta
        return runner.Context(
            accel=self.accel, params=meta["protocol"],
            smp=meta["accel"]["smp"], builds=builds, images=self.images,
            resdir=self.resdir, log=log, plugin=meta["plugin"]["path"],
            retries=meta["runner"]["retries"],
            timeout=meta["runner"]["timeout_s"],
            memory_mb=meta["accel"]["memory_mb"], stop=stop,
            qemu_bin=self.qemu_bin, sites=self.sites,
            plugin_args=self.plugin_args)


@dataclass
class Setup:
    """What a new session chose before it writes anything."""
    labels: list
    variants: list
    twins: tuple
    seed: int
    decision: accel.Decision
    boots: int
    lengths: tuple
    smp: int
    plugin: Optional[str]
    plugin_note: str

    @property
    def accel(self):
        return self.decision.name

    @property
    def seconds(self):
        return max(self.lengths)


def _choose_accel(args, log, builds, images, variants, qemu_bin, probe_log):
    """The accel.Decision of a new session (a KVM probe boot when asked)."""
    probe_build = builds.get(JUMP) or builds[variants[0]]
    probe_image = images.get(probe_build.variant) or images[variants[0]]
    nested = hostinfo.nested()
    bound, why_bound = accel.probe_bound(args.probe_timeout, nested)
    boots = accel.probe_boots(nested)

    def boot(n):
        log.info("probing KVM: booting %s for at most %.0f s (%s)%s"
                 % (probe_build.variant, bound, why_bound,
                    "" if n == 1 else ", boot %d of %d" % (n, boots)))
        return probe_kvm(probe_build, probe_image, qemu_bin, probe_log,
                         bound, args.append or "")

    def probe():
        if args.dry_run:
            return True, "not run (dry run)"
        return run_probes(boots, boot, probe_log)

    try:
        decision = accel.decide(args.accel, probe)
    except accel.AccelError as e:
        raise Fail(str(e))
    log.write("accelerator: %s (%s)" % (decision.name, decision.reason),
              always=True)
    return decision


def run_probes(boots, boot, probe_log):
    """(ok, detail) of up to BOOTS probe boots, boot(n) making boot n,
    until one passes. The console of a failed boot followed by another
    is kept beside probe_log as failed_probe_log(probe_log, n)."""
    failed = []
    for n in range(1, boots + 1):
        ok, detail = boot(n)
        if ok or n == boots:
            break
        failed.append("boot %d: %s" % (n, detail))
        if os.path.exists(probe_log):
            os.replace(probe_log, failed_probe_log(probe_log, n))
    if ok:
        return True, "; ".join([detail] + ["after a failed one (%s)" % f
                                           for f in failed])
    if failed:
        detail = "; ".join(failed + ["boot %d: %s" % (boots, detail)])
    return False, detail


def failed_probe_log(probe_log, n):
    """Where the console of failed probe boot n goes: BASE-N.log."""
    base, ext = os.path.splitext(probe_log)
    return "%s-%d%s" % (base, n, ext)


def _plugin(args, accel_name, log):
    """(the branch-count plugin's path or None, a note for meta.json)."""
    if accel_name != "icount":
        return None, "not used (%s)" % accel_name
    if args.no_plugin:
        return None, "disabled by --no-plugin"
    if args.dry_run:
        return "PLUGIN", "dry run: PLUGIN stands for " \
            "bench/plugin/build's output"
    try:
        plugin, note = counts.find(ROOT)
    except counts.PluginError as e:
        raise Fail("%s (or run with --no-plugin)" % e)
    if plugin is None:
        log.warn("branch counts will be empty: %s" % note)
    return plugin, note


def _setup(args, log, chosen, decision):
    """The seed, plan size and plugin of a new session; chosen: _labels()."""
    labels, variants, twins = chosen
    seed = args.seed if args.seed is not None else random.SystemRandom(
        ).randrange(2 ** 32)
    accel_name = decision.name
    boots, lengths = planmod.profile_defaults(args.profile, accel_name,
                                              args.workload)
    plugin, note = _plugin(args, accel_name, log)
    if args.model and not plugin:
        raise Fail("--model needs the branch-count plugin under icount "
                   "(this run: %s; %s)" % (accel_name, note))
    return Setup(labels, variants, twins, seed, decision,
                 args.boots or boots, tuple(args.seconds or lengths),
                 1 if accel_name == "icount" else (args.smp or 2), plugin,
                 note)


def _meta(args, setup, runs, builds, images, qemu_bin):
    """meta.json of a new session (without host; lib/format/FORMATS.md)."""
    accel_name, variants, lengths = setup.accel, setup.variants, setup.lengths
    perf_events = [] if args.perf == "none" else args.perf.split(",")
    params = {"task": workloads.WORKLOAD[args.workload].task,
              "clients": args.clients,
              "seconds": setup.seconds, "lengths": list(lengths),
              "perf": args.perf, "perf_events": perf_events,
              "append": args.append or ""}
    if args.workload != workloads.DEFAULT:
        # absent in tbench runs, as in dirs from before it existed
        params.update(workload=args.workload, loops=args.loops)
    timeout = args.timeout or planmod.default_timeout(
        accel_name, planmod.guest_seconds(params, setup.seconds),
        bool(setup.plugin), args.model)
    return {
        "format": 1, "tool": "bench/run", "created_utc": utc(),
        "end_utc": None, "sessions": [], "git": hostinfo.git_state(ROOT),
        "accel": dict(setup.decision.as_dict(), smp=setup.smp, qemu=qemu_bin,
                      memory_mb=qemu.MEMORY_MB,
                      accel_args=qemu.accel_args(accel_name, setup.smp),
                      kernel_args_base=qemu.BASE_ARGS),
        "protocol": dict(params, guest_protocol=console.PROTOCOL),
        "plan": {"profile": args.profile, "boots": setup.boots,
                 "seed": setup.seed, "labels": setup.labels,
                 "variants": variants, "aa": args.aa is not None,
                 "twins": list(setup.twins), "lengths": list(lengths),
                 "runs": runs,
                 "order": "shuffled Latin squares per block of rounds",
                 "perturbation": "per round, shared by all variants; "
                 "A/A twins draw their own" if accel_name == "icount"
                 else "none"},
        "runner": {"retries": args.retries, "timeout_s": timeout,
                   "grace_s": execute.GRACE_SECONDS},
        "baseline": baseline(args, variants),
        "builds": {v: {"dir": builds[v].dir, "hash": builds[v].hash,
                       "boot_args": builds[v].boot_args,
                       "build": builds[v].info} for v in variants},
        "images": {v: {"path": images[v].path, "hash": images[v].hash}
                   for v in variants},
        "plugin": {"path": setup.plugin, "note": setup.plugin_note},
        "model": model.meta(args.model_settings, args.model_preset)
        if args.model else None,
    }


def _create(args, meta, the_plan, builds, images, qemu_bin, probe_log, log):
    """Make the results dir of a new session: raw/, the probe's console,
    sites/, plan.csv and meta.json's first version."""
    root = args.results_root or os.path.join(ROOT, "results")
    resdir = results.ResultsDir.create(
        _new_dir(root, meta["git"]["short"]),
        meta["protocol"]["perf_events"], model=meta["model"],
        workload=schema.workload(meta))
    # the probe's consoles (a move, not a rename: the temp dir may be on
    # another filesystem)
    for n in range(1, accel.NESTED_PROBE_BOOTS):
        failed = failed_probe_log(probe_log, n)
        if os.path.exists(failed):
            shutil.move(failed, os.path.join(
                resdir.raw, os.path.basename(failed)))
    if os.path.exists(probe_log):
        shutil.move(probe_log, os.path.join(resdir.raw, "probe-kvm.log"))
    meta["host"] = hostinfo.host(qemu_bin)
    sites = {}
    if meta["plugin"]["path"]:
        sites, meta["plugin"]["sites"] = _sites(
            builds, meta["plan"]["variants"], resdir)
    plugin_args = {}
    if meta["model"]:
        plugin_args = _model_args(builds, meta["plan"]["variants"], resdir,
                                  meta["model"], log)
    if meta["plugin"]["path"]:
        _profile_args(builds, meta["plan"]["variants"], plugin_args,
                      meta["plugin"])
    planmod.write(the_plan, resdir.plan_csv)
    resdir.write_meta(meta)
    provenance.record(resdir.path, meta, builds, images, ROOT)
    return Session(meta, the_plan, resdir, images, qemu_bin, sites,
                   plugin_args=plugin_args)


def new_session(args, log, builds):
    """A new plan: its results dir (none in a dry run) and meta.json."""
    chosen = _labels(args, builds)
    variants = chosen[1]
    images = inputs.read_images(args.initramfs, variants)
    qemu_bin = qemu.binary()
    tmp = tempfile.mkdtemp(prefix="jlbench-probe-")
    try:
        probe_log = os.path.join(tmp, "probe-kvm.log")
        decision = _choose_accel(args, log, builds, images, variants,
                                 qemu_bin, probe_log)
        setup = _setup(args, log, chosen, decision)
        the_plan = planmod.make(setup.labels, setup.boots, setup.seed,
                                perturb=setup.accel == "icount",
                                lengths=setup.lengths, twins=setup.twins)
        meta = _meta(args, setup, len(the_plan), builds, images, qemu_bin)
        if args.dry_run:
            sites = {v: "RESULTS/sites/%s.txt" % v for v in variants} \
                if setup.plugin else {}
            plugin_args = {v: model.plugin_args(
                meta["model"], "RESULTS/keys/%s.txt" % v)
                for v in variants} if meta["model"] else {}
            if setup.plugin:
                plugin_args = {v: tuple(plugin_args.get(v, ())) + (
                    "symbols=CACHE/profile-symbols/%s.txt" % builds[v].hash,)
                    for v in variants}
            return Session(meta, the_plan, None, images, qemu_bin, sites,
                           plugin_args=plugin_args)
        return _create(args, meta, the_plan, builds, images, qemu_bin,
                       probe_log, log)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _reopen(args, log):
    """(ResultsDir, meta) of --resume DIR."""
    try:
        resdir, notes = results.ResultsDir.open(args.resume)
    except FileNotFoundError as e:
        raise Fail(str(e))
    for n in notes:
        log.warn(n)
    slurmrun.reopen(resdir, log)
    return resdir, resdir.meta()


def _same_inputs(args, meta, builds):
    """The images of --resume; Fail unless kernels and images are the ones
    the results dir was started with."""
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
    return images


def _resume_accel(args, meta):
    """Fail when the results dir ran under kvm and this host has none."""
    if schema.run_accel(meta) != "kvm":
        return
    usable, _, why = accel.kvm_usable()
    if not usable:
        raise Fail("%s was run under kvm, which this host cannot use: %s"
                   % (args.resume, why))


def _resume_plugin(args, meta, builds, resdir):
    """The sites files of --resume; meta's plugin path is this host's."""
    if not meta["plugin"]["path"] or args.dry_run:
        return {}
    try:
        path, note = counts.find(ROOT)
    except counts.PluginError as e:
        raise Fail(str(e))
    if path is None:
        raise Fail("%s was run with the branch-count plugin: %s" % (
            args.resume, note))
    meta["plugin"]["path"] = path
    return _sites(builds, meta["plan"]["variants"], resdir)[0]


def _resume_model_args(meta, resdir):
    """The model's plugin arguments of --resume, with the keys= files the
    results dir was started with."""
    if not meta.get("model"):
        return {}
    out = {}
    for v in meta["plan"]["variants"]:
        path = os.path.join(resdir.path, "keys", v + ".txt")
        out[v] = model.plugin_args(meta["model"],
                                   path if os.path.isfile(path) else None)
    return out


def resume_session(args, log, builds):
    """Reopen args.resume; check that builds and images match its meta."""
    resdir, meta = _reopen(args, log)
    cli.resume_append(args, meta["protocol"].get("append", ""))
    images = _same_inputs(args, meta, builds)
    _resume_accel(args, meta)
    sites = _resume_plugin(args, meta, builds, resdir)
    the_plan = planmod.read(resdir.plan_csv, meta["protocol"]["seconds"])
    pending, next_try = planmod.progress(the_plan, resdir.rows())
    if args.timeout:
        meta["runner"]["timeout_s"] = args.timeout
    meta["runner"]["retries"] = args.retries
    log.write("resuming %s: %d of %d runs left, accelerator %s"
              % (args.resume, len(pending), len(the_plan),
                 schema.run_accel(meta)), always=True)
    plugin_args = _resume_model_args(meta, resdir)
    if meta["plugin"].get("profile") and not args.dry_run:
        # a dir from before profiles existed stays without them
        _profile_args(builds, meta["plan"]["variants"], plugin_args,
                      meta["plugin"])
    return Session(meta, the_plan, resdir, images, qemu.binary(), sites,
                   pending, next_try, plugin_args)
