"""bench/bisect: find the patch or commit that changes a figure, exactly.

Usage:
  bench/bisect --series DIR [--good N] [--bad N] --out DIR [options]
  bench/bisect --git REPO --good REV --bad REV --out DIR [options]
  bench/bisect --replay DIR

The range: the first N patches of a quilt series (DIR/series) on top of a
built-in variant (--on, default jump-label; --good default 0, that variant
itself; --bad default all), or a git repository's commits good..bad (first
parents; each built as it is, without our series). Both ends are built and
run first; when the bad end is within the floor of the good one it says
"no change found" and stops. Each candidate is built, booted with its own
initramfs and run under icount (--seeds runs, the same perturbation
seeds for every candidate) and judged against the good end by the median
rule, widened by the metric's calibrated floor. A candidate that does not
build is skipped, as `git bisect skip` does, and said.

The log, DIR/bisect.log, holds every step (revision, build hash, results
dir, per-seed figures, decision); the same command with the same --out
resumes, --replay DIR decides again from the log alone. The answer: the
first bad patch or commit, its figures against the good end and against
its parent, and the results dir of every step.

Costs here (smoke config, 3 s runs): a step is a kernel build (about a
minute for a patch over a cached kernel) and --seeds runs of under half a
minute each, two at once.
Exit codes: 0 an answer (a first bad candidate, or no change); 1 a step
failed or the replay disagrees with the log; 2 usage error.
"""
import argparse
import sys

from analysis.sections import fmt
from bench.bisection import bisection
from lib import cli, store


def parse(argv):
    ap = cli.Parser(
        prog="bench/bisect", description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[2:]))
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--series", metavar="DIR",
                     help="a quilt series dir: bisect its patches")
    src.add_argument("--git", metavar="REPO",
                     help="a kernel git repository: bisect good..bad")
    src.add_argument("--replay", metavar="DIR",
                     help="decide again from DIR/bisect.log")
    ap.add_argument("--good", help="series: patches applied at the good "
                    "end (default 0); git: the good revision")
    ap.add_argument("--bad", help="series: patches at the bad end "
                    "(default: all); git: the bad revision")
    ap.add_argument("--out", metavar="DIR",
                    help="the bisection's dir: its log, builds lists and "
                    "results dirs")
    bisection.add_step_options(ap)
    args = ap.parse_args(argv)
    if args.replay:
        return args
    if not args.out:
        ap.error("--out DIR is needed")
    bisection.check_step_options(ap, args)
    if args.git and (not args.good or not args.bad):
        ap.error("--git needs --good REV and --bad REV")
    if args.series:
        for opt in ("good", "bad"):
            v = getattr(args, opt)
            if v is not None and not v.isdigit():
                ap.error("--%s %s: with --series, a number of patches"
                         % (opt, v))
    return args


def answer(end):
    """The answer's text."""
    out = [end["message"]]
    if end.get("vs_parent"):
        c = end["vs_parent"]
        out.append("against its parent: %s (%d seeds)"
                   % (fmt.pct_ci(c, 3), c["n"]))
    if end.get("top_functions"):
        out.append("most changed functions against the good end: %s"
                   % bisection.top_text(end["top_functions"]))
    if end.get("skipped"):
        out.append("untestable, skipped: %s" % ", ".join(
            str(i) for i in end["skipped"]))
    out += ["  %-20s %s" % (name, res or "(not run)")
            for name, res in sorted(end["results"].items())]
    return "\n".join(out) + "\n"


def main(argv):
    args = parse(argv)
    cli.catch_ctrl_c()
    say = bisection.Say.of_dir("bisect", args.out)
    try:
        if args.replay:
            end, logged = bisection.replay(args.replay)
            if logged is None:
                verdict = "the log has no end: the bisection was interrupted"
            elif any(end[k] != logged[k] for k in ("first_bad", "skipped")):
                verdict = "replay DISAGREES with the log: %s" \
                    % logged["message"]
            else:
                verdict = "replay agrees with the log"
            cli.safe_write(sys.stdout, answer(end) + verdict + "\n")
            return cli.OK if verdict.startswith("replay agrees") \
                else cli.FAILED
        if args.series:
            source = bisection.Series(
                args.series, args.on, int(args.good or 0),
                int(args.bad) if args.bad is not None else None)
        else:
            source = bisection.GitRange(args.git, args.good, args.bad,
                                        args.on)
        opts = bisection.step_options(args, say)
        end = bisection.Bisection(args.out, source, opts).bisect()
    except bisection.Stop as e:
        say(str(e))
        return cli.FAILED
    except (KeyboardInterrupt, bisection.Interrupted):
        say(bisection.INTERRUPTED)
        return cli.INTERRUPTED
    store.record(args.out)
    cli.safe_write(sys.stdout, answer(end))
    return cli.OK


sys.exit(main(sys.argv[1:]))
