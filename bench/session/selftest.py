"""bench/selftest: boot every variant once for the agent's selftest;
selftest.csv.

The agent's selftest task (guest-image/PROTOCOL.md) loads the image's
modules for the booted kernel: the kernel's test_static_keys and our
jlbench_static_key (kernel-variants/module), which checks the 2011 static
branch API and times a guarded loop. Each boot's console goes to
raw/selftest-<variant>.log (with .qemu-cmd, and .stderr when QEMU wrote any) in
the results dir, and its `selftest.*` keys to the tidy file selftest.csv:
`variant,name,value` (lib/format/FORMATS.md), where analysis/report shows them
as a per-variant table. Besides the agent's keys, every variant gets a row
`accel` (the accelerator: figures in ns are guest time, under icount 4 ns
per instruction), `boot` (PASS when the boot gave a complete, ok result block
and no kernel panic, oops or BUG) and
`kernel_warnings` (WARN, RCU stall and hung-task lines on the console).

Under icount, x86_64 boots load the branch-count plugin (bench/plugin/,
report kept as raw/selftest-<variant>.plugin), which counts the module's
count runs between its region markers; bench/model/regions.py turns them into
rows `count.source`, `count.<loop>_{branches,insns}_per_iter` (exact
conditional branches and instructions per iteration of the empty, key-off
and key-on loops) and, when a figure could not be derived, `count.note`.
Without the plugin (kvm, tcg, --no-plugin) those rows say `not-counted`.
The plugin runs with its modelled branch predictor and caches (model=on,
knownanswers.PLUGIN_ARGS), and bench/model/knownanswers.py adds rows
`model.<loop>_<event>_per_iter` (modelled events per iteration of the
module's loops), `model.params` and `model.known_answers`: PASS when each
loop with a known answer is within its bound, FAIL (a failed check, like
any other) when one is not, `not-counted` when the report has no model.
The model makes a boot slower, not different: a smoke-kernel selftest
boot took 10.1 s of wall time with model=on, 4.4 s with the plugin alone
and 4 s without it (measured on the 2-core host, 2026-12-04); its counts
and the rest of the report are those of a boot without the model.

Builds of another arch than x86_64 (build.json "arch", e.g. s390x) boot in
their own QEMU (qemu.ARCHES) with their console, under TCG (icount unless
--accel tcg); every variant of one invocation must be of the same arch.
Their rows go to selftest-<arch>.csv (same columns) and their consoles to
raw/selftest-<arch>-<variant>.*, so that an arch's jump-label never
replaces the x86_64 one. As their builds are in no meta.json, each variant
also gets rows from its build.json (build_rows()): the build hash, whether
it verified, its jump table entries and its disassembled site; a copy of
that build.json goes to raw/selftest-<arch>-<variant>.build.json. Their
count.* rows say not-counted (the plugin counts x86 code only).

Each boot is one boot.run() (bench/guest/boot.py), bench/run's boot path: the
same kernel command line builder, QEMU command (also what --dry-run
prints), raw-file cleanup and timeout; a boot stopped by Ctrl-C leaves no
raw files. Boots go side by side like bench/run's (--jobs N, boot.Slots):
under icount up to the number of CPUs at once, each variant's files its
own; kvm and tcg boot one at a time.
"""
import csv
import io
import json
import os
import sys

from bench.guest import boot, parallel, qemu
from bench.model import knownanswers, regions
from bench.session import cli
from bench.tries import inputs
from lib import ROOT
from lib import arch as archmod
from lib.format import console, counts, rawfiles, schema
from lib.log import Log


COLUMNS = ["variant", "name", "value"]
DEFAULT_TIMEOUT = 600.0


def parser():
    p = cli.Parser(
        prog="bench/selftest",
        description="Boot each kernel variant once with jlbench.mode="
        "selftest and write the static-key self-test results to "
        "RESULTS/selftest.csv (raw consoles in RESULTS/raw/selftest-*).",
        epilog="exit codes: 0 every boot ok and every check PASS (with "
        "--allow-fail: selftest.csv written); 1 a boot or a check failed, "
        "or an error; 2 usage error.")
    cli.add_guest_options(
        p, "selftest", qemu.ACCELS, None,
        "accelerator (default: the results dir's meta.json accel.name, "
        "else icount, whose guest time makes the loop timings "
        "deterministic)", DEFAULT_TIMEOUT,
        "hard wall-clock limit per boot (default: %.0f)" % DEFAULT_TIMEOUT)
    a = p.add_argument
    a("--results", metavar="DIR",
      help="results dir to write into (created when missing)")
    a("--kernel-args", metavar="ARGS", default="",
      help="extra kernel command line words, e.g. module options such as "
           "jlbench_static_key.invert=1")
    a("--allow-fail", action="store_true",
      help="exit 0 when selftest.csv was written, even with FAIL rows")
    return p


def parse_args(argv):
    """Parse and check argv; raises cli.UsageError."""
    args = parser().parse_args(argv)
    cli.check_guest_args(args, ("builds", "initramfs", "results"))
    if any(c in args.kernel_args for c in "\n\r"):
        raise cli.UsageError("--kernel-args must be one line")
    return args


def rows(variant, accel, rep, verdict):
    """selftest.csv rows of one boot: accel, boot, kernel_warnings, then
    the block's selftest.* keys in the order the agent printed them."""
    status, _ = verdict
    out = [(variant, "accel", accel),
           (variant, "boot", "PASS" if status == "ok" else "FAIL"),
           (variant, "kernel_warnings", str(len(rep.warnings)))]
    if status == "ok":
        for key, value in rep.block.items():
            if key.startswith("selftest."):
                out.append((variant, key[len("selftest."):], value))
    return out


def build_rows(variant, build):
    """Rows from a build's build.json: build_hash, build_verified,
    jump_table_entries, and for its first disassembled static-key site
    site_function, site_kind, site_instruction, site_bytes (when verify
    recorded them)."""
    info = build.info
    ver = info.get("verify") or {}
    out = [(variant, "build_hash", build.hash),
           (variant, "build_verified",
            {True: "PASS", False: "FAIL"}.get(ver.get("ok"), "unknown")),
           (variant, "jump_table_entries",
            str((ver.get("jump_table") or {}).get("entries", "unknown")))]
    sites = ver.get("sites") or []
    if sites:
        site = sites[0]
        for key in ("function", "kind", "bytes"):
            if site.get(key):
                out.append((variant, "site_" + key, str(site[key])))
        if site.get("instructions"):
            out.append((variant, "site_instruction",
                        " ".join(site["instructions"][0].split())))
    return out


def failures(table):
    """(variant, name) of the rows that say FAIL, or that say the boot or a
    module failed (selftest.failed above 0)."""
    bad = []
    for variant, name, value in table:
        if value == "FAIL" or (name == "failed" and value != "0"):
            bad.append((variant, name))
    return bad


def read_csv(path):
    """Rows of an existing selftest.csv ([] when there is none)."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r, None)
        if header != COLUMNS:
            raise ValueError("%s: header %r, expected %r"
                             % (path, header, COLUMNS))
        return [tuple(row) for row in r if row]


def write_csv(path, table):
    """Write rows atomically (write, fsync, rename)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    w.writerows(table)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(buf.getvalue())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def merge(old, new):
    """Rows of `old` for variants not in `new`, then `new`."""
    done = {r[0] for r in new}
    return [r for r in old if r[0] not in done] + list(new)


def csv_name(arch):
    """selftest.csv, or selftest-<arch>.csv for a tagged arch (lib/arch.py:
    every arch but the benchmark's)."""
    tag = archmod.get(arch).tag
    return "selftest-%s.csv" % tag if tag else "selftest.csv"


def raw_base(variant, arch):
    """Name of a boot's raw files, without extension."""
    return "selftest-%s%s" % (archmod.get(arch).name_prefix, variant)


def accel_of(resdir, given, arch=archmod.DEFAULT):
    """(accel, smp): --accel, else the results dir's (when arch can run
    it), else icount."""
    meta_path = os.path.join(resdir, "meta.json")
    if given is None and os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        accel = schema.run_accel(meta)
        if accel in qemu.arch_of(arch).accels:
            smp = 1 if accel == "icount" else \
                int(meta["accel"].get("smp") or 1)
            return accel, smp
    return given or "icount", 1


def kernel_args(variant, boot_args, extra, arch=archmod.DEFAULT):
    """The kernel command line of a selftest boot."""
    return boot.kernel_args(variant, "selftest", (), boot_args, extra, arch)


def find_plugin(accel, arch, no_plugin, dry_run):
    """(plugin path or None, why not): the branch-count plugin for icount
    boots of kernels whose code it decodes (lib/arch.py: plugin). Raises
    counts.PluginError when it cannot be built (counts were expected;
    --no-plugin goes without)."""
    if not archmod.get(arch).plugin:
        return None, "the plugin counts x86 code only"
    if accel != "icount":
        return None, "no TCG plugin under %s" % accel
    if no_plugin:
        return None, "--no-plugin"
    if dry_run:
        return "PLUGIN", ""
    path, note = counts.find(ROOT)
    return path, "" if path else note


def count_rows(variant, block, plugin, why_not, report_path):
    """The count.* rows (regions.rows) and model.* rows
    (knownanswers.rows) of one boot."""
    text = None
    if plugin:
        try:
            with open(report_path) as f:
                text = f.read()
        except OSError:
            why_not = "plugin wrote no report"
    return (regions.rows(variant, block, text, why_not) +
            knownanswers.rows(variant, block, text, why_not))


def guest(variant, build, image, resdir, extra, plugin):
    """The boot of one variant: raw/selftest[-<arch>]-<variant>.*"""
    base = os.path.join(resdir, "raw", raw_base(variant, build.arch))
    return boot.Guest(build.kernel, image.path,
                      kernel_args(variant, build.boot_args, extra,
                                  build.arch),
                      base, plugin=plugin, report=".plugin",
                      plugin_args=knownanswers.PLUGIN_ARGS if plugin else (),
                      extra_files=(".build.json",))


def table_of(variant, build, g, accel, out, plugin, why_not, log):
    """The rows of one finished boot (and its build.json copy)."""
    rep = console.parse(console.read(g.log))
    verdict = console.verdict(rep, out.ended, task="selftest")
    if verdict[0] != "ok":
        log.warn("%s: selftest boot failed: %s" % (variant, verdict[1]))
    table = rows(variant, accel, rep, verdict)
    if verdict[0] == "ok":
        counted = count_rows(variant, rep.block, plugin, why_not,
                             g.report_file)
        notes = dict((n, v) for _, n, v in counted
                     if n in ("count.note", "model.note"))
        if plugin and "count.note" in notes:
            log.warn("%s: counts per iteration: %s"
                     % (variant, notes["count.note"]))
        if plugin and "model.note" in notes:
            log.warn("%s: model's known answers: %s"
                     % (variant, notes["model.note"]))
        table += counted
    if not archmod.get(build.arch).benchmark:
        table += build_rows(variant, build)
        with open(g.base + ".build.json", "w") as f:
            json.dump(build.info, f, indent=1)
    log.info("%s: %s in %.0f s, %s" % (
        variant, "booted" if verdict[0] == "ok" else "FAILED",
        out.wall_seconds,
        ", ".join("%s=%s" % (n, v) for _, n, v in table
                  if v == "FAIL" or n in ("modules", "failed")) or "-"))
    return verdict[0] == "ok", table


class Selftest:
    """The boots of one bench/selftest call."""

    def __init__(self, args, log, builds, images, resdir, arch):
        self.args = args
        self.log = log
        self.builds = builds
        self.images = images
        self.resdir = resdir
        self.accel, smp = accel_of(resdir, args.accel, arch)
        self.machine = boot.Machine(self.accel, smp, arch=arch)
        self.plugin, self.why_not = find_plugin(self.accel, arch,
                                                args.no_plugin, args.dry_run)

    def guest(self, variant):
        return guest(variant, self.builds[variant], self.images[variant],
                     self.resdir, self.args.kernel_args, self.plugin)

    def attempt(self, variant, try_no, last, stopped):
        """Boot variant once: (ok, its rows); Interrupted when stopped."""
        g = self.guest(variant)
        os.makedirs(os.path.dirname(g.base), exist_ok=True)
        out = boot.run(self.machine, g, self.args.timeout, stopped)
        return table_of(variant, self.builds[variant], g, self.accel, out,
                        self.plugin, self.why_not, self.log)


def _inputs(args):
    """(builds, images, variants, arch) of the command line."""
    builds = inputs.read_builds(args.builds)
    variants = args.variants.split(",") if args.variants else list(builds)
    missing = [v for v in variants if v not in builds]
    if missing:
        raise inputs.InputError("%s has no build for %s"
                                % (args.builds, ", ".join(missing)))
    arches = sorted({builds[v].arch for v in variants})
    if len(arches) != 1:
        raise inputs.InputError("%s mixes %s builds: boot one arch at a time"
                                % (args.builds, " and ".join(arches)))
    images = inputs.read_images(args.initramfs, variants)
    return builds, images, variants, arches[0]


def run(args, log):
    builds, images, variants, arch = _inputs(args)
    resdir = os.path.abspath(args.results)
    st = Selftest(args, log, builds, images, resdir, arch)
    if args.dry_run:
        for v in variants:
            boot.show(st.machine, st.guest(v))
        return 0
    os.makedirs(resdir, exist_ok=True)
    path = os.path.join(resdir, csv_name(arch))
    old = read_csv(path)
    jobs, why = parallel.jobs_for(st.accel, args.jobs)
    if why:
        log.warn(why)
    log.info("selftest boots of %s (%s%s, %d at once) into %s"
             % (", ".join(variants), st.accel,
                ", branch-count plugin" if st.plugin else "", jobs, resdir))
    out = boot.Slots(jobs).run(variants, st.attempt)
    if None in out:
        raise boot.Interrupted()
    table = sum((o.result for o in out), [])
    write_csv(path, merge(old, table))
    if os.path.isfile(os.path.join(resdir, rawfiles.ARCHIVE)):
        # a packed run dir (bench/run packs one when complete): its
        # selftest consoles join the archive
        rawfiles.pack(resdir)
    bad = failures(table)
    if bad:
        log.warn("FAIL: %s" % ", ".join("%s %s" % b for b in bad))
    else:
        log.info("every boot and check passed: %s" % path)
    return 0 if not bad or args.allow_fail else 1


def main(argv):
    log = Log()
    try:
        args = parse_args(argv)
    except cli.UsageError as e:
        log.error("%s (see bench/selftest --help)" % e)
        return 2
    log.quiet = args.quiet
    try:
        return run(args, log)
    except (KeyboardInterrupt, boot.Interrupted):
        log.error("interrupted: the boots in flight were stopped; "
                  "selftest csv not written")
        return 130
    except counts.PluginError as e:
        log.error("%s (or run with --no-plugin)" % e)
        return 1
    except (inputs.InputError, ValueError, OSError) as e:
        log.error(str(e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
