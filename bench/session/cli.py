"""bench/run's command line, and the guest options bench/selftest shares.

add_guest_options() declares the options both tools have (inputs,
variants, accelerator, plugin, timeout, guest slots, --quiet, --dry-run)
and check_guest_args() validates them; parser() and parse() are bench/run's
(bench/session/selftest.py has its own parser on the same pieces).
"""
import argparse
import os

from bench.guest import accel, qemu
from bench.tries import plan, slurm
from lib import model, workloads
from lib.format import schema

DESCRIPTION = """\
Boot each kernel variant in QEMU, once per run, run tbench (or with
--workload NAME another workload of lib/workloads.py) in the guest and
record every try in a results dir: results/<UTC time>-<git sha>/ with
raw/ (console log and QEMU command line per try), runs.csv, samples.csv,
plan.csv and meta.json.

Runs are grouped in rounds; each round runs every variant once, in an order
drawn from --seed and balanced over rounds. Under icount every round has a
perturbation seed shared by all variants, so results pair by seed.
"""
EPILOG = """\
accelerators:
  auto    kvm when /dev/kvm is usable (not PVM) and a probe boot reaches the
          agent; otherwise icount. The reason is printed and recorded.
  kvm     -accel kvm -cpu host: hardware, wall-clock throughput.
  icount  single-vCPU TCG with -icount: deterministic guest time (an
          instruction-path model); loads the branch-count plugin if present.
  tcg     multi-threaded TCG, emulated wall-clock time: noisy.

profiles (boots per variant x tbench seconds):
  quick   icount 6 x 20 s, tcg 5 x 30 s, kvm 5 x 60 s (the default;
          icount's 6 seeds: docs/calibration.md)
  long    3 x 20 s, 3 x 60 s and 3 x 180 s: how the metrics converge with
          run length (analysis/report shows it in its convergence section)
  seed    5 x 600 s (tbench's default, as in 2011)

A/A control: by default every run also boots the baseline kernel
(atomic-read) under a second label, <variant>.aa, so that the report states
its own noise floor. Under icount that twin gets perturbation seeds of its
own: the same kernel with the same seed repeats bit for bit, so a twin on
the same seeds would show no noise at all. --no-aa leaves it out; --aa runs
only an A/A control (labels A and B).

parallel runs: under icount guest time advances only with executed
instructions, so a run's figures do not depend on what else the host does:
--jobs N runs N guests at once (default: the number of CPUs) and gives the
same bits as one at a time. kvm and tcg run one guest at a time.

exit codes: 0 every planned run succeeded; 1 runs failed or an error
  (--resume DIR retries what is missing); 2 usage error; 130 interrupted
  (finished runs are kept; --resume DIR completes the plan).
"""
DEFAULT_PERF = "branches,branch-misses,instructions,cycles,task-clock," \
    "context-switches"

# The agent's own kernel command line words (guest-image/PROTOCOL.md) and
# what sets each in bench/run; --append takes none of them, but for those
# no option sets (APPENDABLE: bench/envstudy's jlbench.envpad).
PROTOCOL_WORDS = {
    "task": "is set by --workload",
    "loops": "is set by --loops (a --workload other than tbench)",
    "workload": "is set by --workload",
    "run": "is set by --workload (its record's command)",
    "ops": "is set by --loops (the workload's operations)",
    "variant": "is set by bench/run itself (each run's kernel)",
    "clients": "is set by --clients",
    "seconds": "is set by --seconds",
    "perf": "is set by --perf",
    "perturb": "is set by --seed (icount: a perturbation seed per round)",
    "timeout": "is left at the agent's default by bench/run",
}
APPENDABLE = ("envpad",)
# The workloads that run a fixed amount of work (--loops).
FIXED_WORK = [w.name for w in workloads.WORKLOADS if w.n is not None]


class UsageError(Exception):
    """A bad command line (exit 2)."""


def int_range(lo, hi):
    """argparse type: an integer in lo..hi."""
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not an integer" % text)
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError("%d is not in %d..%d"
                                             % (v, lo, hi))
        return v
    return parse


def positive_float(text):
    """argparse type: a number > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % text)
    if not v > 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return v


def _lengths(text):
    """--seconds: one run length or a comma list of distinct lengths."""
    parse = int_range(1, 3600)
    out = tuple(parse(t) for t in text.split(","))
    if len(set(out)) != len(out):
        raise argparse.ArgumentTypeError("repeated run lengths in %r" % text)
    return out


def append_words(text):
    """--append: the words of text joined by single blanks; raises
    UsageError on a newline, a jlbench.* word (the agent's own protocol)
    or a word with a quote or another control character."""
    if "\n" in text or "\r" in text:
        raise UsageError("--append %r: a newline in the words; give them on "
                         "one line (the kernel command line is one)" % text)
    words = text.split()
    for w in words:
        key = w[len("jlbench."):].split("=")[0]
        if w.startswith("jlbench.") and key not in APPENDABLE:
            who = PROTOCOL_WORDS.get(key)
            raise UsageError(
                "--append %s: jlbench.* words are the harness's own "
                "protocol (guest-image/PROTOCOL.md): jlbench.%s %s" % (
                    w, key, who or "is not one of its parameters"))
        if any(c in "\"'" or not c.isprintable() for c in w):
            raise UsageError(
                "--append %r: a word with a quote or a control character; "
                "give plain words: they are split at blanks, and quoted "
                "values are not supported" % w)
    return " ".join(words)


def resume_append(args, recorded):
    """--resume: the --append words of the results dir (recorded: its
    meta.json protocol's, "" when none); raises UsageError when --append
    was given with other words."""
    if args.append is not None and args.append != recorded:
        raise UsageError(
            "--resume %s: that results dir was run with --append %r, not "
            "%r; resume with the same words or without --append (they are "
            "read from its meta.json)" % (args.resume, recorded, args.append))
    return recorded


def _perf(text):
    if text == "none":
        return text
    events = text.split(",")
    for e in events:
        if not e or not all(c.isalnum() or c in "-_:./" for c in e):
            raise argparse.ArgumentTypeError("bad perf event %r" % e)
    if len(set(events)) != len(events):
        raise argparse.ArgumentTypeError("repeated perf events")
    return text


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises UsageError instead of exiting."""

    def error(self, message):
        raise UsageError(message)


def add_guest_options(p, tool, accel_choices, accel_default, accel_help,
                      timeout_default, timeout_help):
    """The options of bench/run and bench/selftest (tool: "run" or
    "selftest") that say which guests boot and how."""
    a = p.add_argument
    a("--builds", metavar="FILE",
      help="builds.tsv: variant<TAB>build_dir (kernel-variants/build --out)")
    a("--initramfs", metavar="PATH",
      help="initramfs image for every variant (guest-image/build; it holds "
           "each build's modules), or a TSV variant<TAB>image")
    a("--variants", metavar="LIST",
      help="comma-separated variants, in builds.tsv (default: all there)")
    a("--accel", choices=accel_choices, default=accel_default,
      help=accel_help)
    a("--no-plugin", action="store_true",
      help="do not load the branch-count plugin under icount"
      + (" (the count.* rows then say not-counted)"
         if tool == "selftest" else ""))
    a("--jobs", type=int_range(1, 256), metavar="N",
      help="guests at once (default: icount, the number of CPUs; kvm and "
           "tcg measure wall-clock time and boot one at a time)")
    a("--timeout", type=positive_float, default=timeout_default,
      metavar="S", help=timeout_help)
    a("--quiet", action="store_true",
      help="no progress line (for CI)" if tool == "run"
      else "fewer log lines")
    a("--dry-run", action="store_true",
      help="print the plan and the QEMU commands; run nothing"
      if tool == "run" else
      "print the QEMU commands; boot nothing, write nothing")


def check_guest_args(args, required):
    """Raise UsageError when an option of `required` (names as in args)
    is missing or --variants does not name distinct variants."""
    for opt in required:
        if not getattr(args, opt):
            raise UsageError("--%s is required" % opt)
    if args.variants is not None:
        names = args.variants.split(",")
        if not all(names) or len(set(names)) != len(names):
            raise UsageError("--variants %r: give distinct names separated "
                             "by commas" % args.variants)


def parser():
    p = Parser(prog="bench/run", description=DESCRIPTION, epilog=EPILOG,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    add_guest_options(
        p, "run", ("auto",) + qemu.ACCELS, "auto",
        "accelerator (default: auto)", None,
        "hard wall-clock limit per try (default: from the accelerator and "
        "--seconds)")
    a = p.add_argument
    a("--out", metavar="FILE", help="write the results dir path to FILE")
    a("--profile", choices=sorted(plan.PROFILES), default="quick",
      help="run length profile (default: quick)")
    a("--boots", type=int_range(1, 1000), metavar="N",
      help="runs (boots) per variant (default: the profile's)")
    a("--workload", choices=[w.name for w in workloads.WORKLOADS],
      default=workloads.DEFAULT, metavar="NAME",
      help="what the guest runs between the window markers "
           "(lib/workloads.py; default: tbench, as in 2011): %s"
           % ", ".join(workloads.SUITE))
    a("--loops", type=int_range(1, 100000000), metavar="N",
      help="a workload other than tbench: its fixed work per run, in its "
           "record's unit (pipe: round trips; default: the record's n, "
           "pipe's %d as the pipe-test of the perf stat table made)"
           % workloads.WORKLOAD[workloads.PUBLISHED].n)
    a("--clients", type=int_range(1, 512), default=workloads.CLIENTS,
      metavar="N", help="tbench clients (default: %d, as in 2011)"
      % workloads.CLIENTS)
    a("--seconds", type=_lengths, metavar="S[,S...]",
      help="tbench seconds per run, or several lengths to run every label "
           "at each (default: the profile's)")
    a("--seed", type=int_range(0, 2 ** 63 - 1), metavar="N",
      help="seed of the run order and perturbations (default: random, "
           "recorded)")
    a("--resume", metavar="DIR",
      help="finish the plan of an interrupted results dir")
    a("--smp", type=int_range(1, 64), metavar="N",
      help="vCPUs (default: 2 for kvm and tcg; icount is always 1)")
    a("--baseline", metavar="VARIANT",
      help="the kernel every other is compared with, and whose A/A twin "
           "runs (default: %s, or the first variant)" % schema.BASELINE)
    a("--aa", nargs="?", const="", metavar="VARIANT",
      help="only an A/A control: run one kernel (default: the baseline) "
           "under two labels A and B")
    a("--no-aa", action="store_true",
      help="leave out the default A/A twin of the baseline kernel")
    a("--perf", type=_perf, default=DEFAULT_PERF, metavar="LIST",
      help="perf events the guest counts, or none (default: %s)"
           % DEFAULT_PERF)
    a("--append", metavar="WORDS",
      help="extra kernel command line words for every boot, after the "
           "build's boot_args (one argument; no quotes or newlines, and "
           "of the jlbench.* words only jlbench.envpad=N; --resume keeps "
           "the recorded ones)")
    a("--model", action="store_true",
      help="icount: the plugin also models a core's branch predictor and "
           "L1 caches and counts static-key word accesses (several times "
           "the wall time: bench/plugin/bench-cost); REPORT.md then has a "
           "\"Modelled hardware cost\" section")
    a("--model-preset", metavar="NAME",
      help="--model with every parameter of a core preset (docs/model.md "
           "has each figure's source; --model-set changes single ones on "
           "top): " + model.preset_help())
    a("--model-set", action="append", metavar="NAME=VALUE",
      help="a parameter of --model (repeatable; after --model-preset's): "
           + model.help_text())
    a("--retries", type=int_range(0, 10), default=2, metavar="N",
      help="extra tries per run after a failure (default: 2)")
    a("--probe-timeout", type=positive_float, metavar="S",
      help="how long auto's (and kvm's) probe boot may take to reach the "
           "agent before KVM counts as unusable (default: %d s: a KVM boot "
           "on hardware takes a few, a kernel KVM cannot run hangs, and "
           "auto waits this long before falling back; %d s when the host "
           "is itself an emulated machine, where nested boots take 37-53 s)"
           % (accel.PROBE_SECONDS, accel.NESTED_PROBE_SECONDS))
    a("--results-root", metavar="DIR",
      help="where results dirs are made (default: results/ in the repo)")
    slurm.add_options(p)
    return p


# Options that define a plan; --resume takes them from the results dir.
PLAN_OPTIONS = ("profile", "boots", "clients", "seconds", "variants", "seed",
                "smp", "baseline", "aa", "no_aa", "perf", "no_plugin", "model",
                "model_preset", "model_set", "workload", "loops")


def parse(argv):
    """Parse and check argv; raises UsageError."""
    args = parser().parse_args(argv)
    if args.resume:
        given = [o for o in PLAN_OPTIONS
                 if getattr(args, o) != parser().get_default(o)]
        if given:
            raise UsageError("--resume takes the plan from the results dir; "
                             "drop %s" % ", ".join(
                                 "--" + o.replace("_", "-") for o in given))
        if args.accel != "auto":
            raise UsageError("--resume uses the accelerator recorded in the "
                             "results dir; drop --accel")
        if not os.path.isdir(args.resume):
            raise UsageError("--resume %s: no such directory" % args.resume)
    check_guest_args(args, ("builds", "initramfs"))
    if args.append is not None:
        args.append = append_words(args.append)
    if args.accel == "icount" and args.smp not in (None, 1):
        raise UsageError("icount runs exactly one vCPU; drop --smp")
    problem = slurm.check_args(args)
    if problem:
        raise UsageError(problem)
    if args.model_set and not (args.model or args.model_preset):
        raise UsageError("--model-set sets a parameter of --model; add "
                         "--model or --model-preset")
    opt = "--model-preset" if args.model_preset else "--model"
    args.model = args.model or args.model_preset is not None
    if args.model and (args.no_plugin or args.accel in ("kvm", "tcg")):
        raise UsageError("%s runs in the TCG plugin, under icount: "
                         "drop --no-plugin and use --accel icount or auto"
                         % opt)
    try:
        args.model_settings = model.settings(args.model_set,
                                             args.model_preset)
    except model.ModelError as e:
        raise UsageError(str(e))
    if args.aa is not None and args.no_aa:
        raise UsageError("--aa runs only an A/A control; drop --no-aa")
    w = workloads.WORKLOAD[args.workload]
    if w.n is not None and (args.seconds or
                            args.clients != workloads.CLIENTS):
        raise UsageError("--workload %s runs a fixed amount of work "
                         "(--loops), not tbench: drop --seconds/--clients"
                         % w.name)
    if args.loops is not None and w.n is None:
        raise UsageError("--loops sets the work of a workload other than "
                         "tbench; add --workload NAME (%s)"
                         % ", ".join(FIXED_WORK))
    if args.loops is None:
        args.loops = w.n
    return args
