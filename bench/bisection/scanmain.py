"""bench/scan: find every change along a git range and the commit of each.

Usage:
  bench/scan --git REPO --range GOOD..BAD --out DIR [--points K | --every N]
             [step options]
  bench/scan --replay DIR

The range's commits (first parents of BAD down to GOOD, each built as it
is, as bench/bisect --git builds them) are sampled: both ends, and K
commits spread evenly (--points, default 5) or every N-th (--every; 1: a
full pass). Each sampled commit is built, booted and run as a bench/bisect
step; every pair of neighbouring sampled commits that differ beyond the
metric's calibrated floor is bisected to its first changed commit, and the
rest of that interval searched again from it. Every step, sampled or
bisected, is a line of DIR/scan.log: the same command resumes after an
interruption (no commit built or run twice; an interrupted step finishes
its runs), --replay DIR decides again from the log alone and says whether
it agrees.

The answer: one finding per first changed commit, as a regression robot
reports it (the commit, the metric's and the headline's change against
its parent with intervals, the functions that changed most, the results
dirs), in DIR/report.md and on stdout, and a summary (commits in the
range, measured, findings, minutes). Sampling's blind spot: two changes
of opposite sign inside one sampled interval can cancel at its ends
(--every 1 has none).

Exit codes: 0 an answer (findings or none); 1 a step failed or the replay
disagrees with the log; 2 usage error.
"""
import argparse
import os
import sys

from bench.bisection import bisection, scan
from lib import workloads


def parse(argv):
    ap = argparse.ArgumentParser(
        prog="bench/scan", description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[2:]))
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--git", metavar="REPO",
                     help="a kernel git repository")
    src.add_argument("--replay", metavar="DIR",
                     help="decide again from DIR/scan.log")
    ap.add_argument("--range", metavar="GOOD..BAD",
                    help="the commits to scan (first parents)")
    ap.add_argument("--out", metavar="DIR",
                    help="the scan's dir: its log, report, builds lists "
                    "and results dirs")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--points", type=int, metavar="K",
                     help="sample K commits, the ends included, spread "
                     "evenly (default: 5)")
    how.add_argument("--every", type=int, metavar="N",
                     help="sample every N-th commit from GOOD (1: all)")
    bisection.add_step_options(ap)
    args = ap.parse_args(argv)
    if args.replay:
        return args
    if not args.out:
        ap.error("--out DIR is needed")
    if not args.range or args.range.count("..") != 1 or \
            "" in args.range.split(".."):
        ap.error("--range GOOD..BAD is needed (two revisions)")
    if args.points is not None and args.points < 2:
        ap.error("--points K: K >= 2 (the two ends)")
    if args.every is not None and args.every < 1:
        ap.error("--every N: N >= 1")
    bisection.check_step_options(ap, args)
    return args


def pct(c):
    return "%+.3f%% [%+.3f, %+.3f]" % (c["pct_change"], c["pct_ci_lo"],
                                       c["pct_ci_hi"])


def text(end, settings):
    """The scan's report: each finding as a robot's, then the summary;
    settings: the scan's opts, or its log's first entry (metric, and
    workload when not tbench)."""
    metric = settings["metric"]
    workload = settings.get("workload", workloads.DEFAULT)
    out = []
    for f in end["findings"]:
        out.append("## %s" % f["commit"])
        if "vs_parent" not in f:
            out += ["", f["note"], ""]
            continue
        out += ["", "a %s change of %s on %s at commit %s, against its "
                "parent %s (%d seeds)" % (pct(f["vs_parent"]), metric,
                                          workload, f["commit"], f["parent"],
                                          f["vs_parent"]["n"])]
        if f.get("headline"):
            out.append("headline %s: %s" % (scan.HEADLINE,
                                            pct(f["headline"])))
        if f.get("top_functions"):
            out.append("most changed functions against its parent: %s"
                       % bisection.top_text(f["top_functions"]))
        out += ["results: %s (its parent's: %s)" % (
            f["results"], f["parent_results"]), ""]
    out.append("## Summary")
    out += ["", "%d commits in the range, %d sampled, %d measured; %d "
            "finding(s); %.1f minutes of steps" % (
                end["commits"], len(end["sampled"]), end["measured"],
                len(end["findings"]), end["seconds"] / 60.0)]
    if not end["findings"]:
        out.append("no change beyond the floor between any two sampled "
                   "commits")
    if end.get("blind_spot"):
        out.append(end["blind_spot"])
    return "\n".join(out) + "\n"


def main(argv):
    args = parse(argv)
    bisection.catch_ctrl_c()
    bisection.PROGRAM["name"] = "scan"
    try:
        if args.replay:
            end, logged, head = scan.replay(args.replay)
            sys.stdout.write(text(end, head))
            if logged is None:
                print("the log has no end: the scan was interrupted")
                return 1
            if [f["commit"] for f in end["findings"]] != \
                    [f["commit"] for f in logged["findings"]]:
                print("replay DISAGREES with the log")
                return 1
            print("replay agrees with the log")
            return 0
        good, bad = args.range.split("..")
        source = bisection.GitRange(args.git, good, bad, args.on)
        opts = bisection.step_options(args)
        if args.every:
            opts["every"] = args.every
        else:
            opts["points"] = args.points or 5
        end = scan.Scan(args.out, source, opts).scan()
    except bisection.Stop as e:
        print("scan: %s" % e, file=sys.stderr)
        return 1
    except (KeyboardInterrupt, bisection.Interrupted):
        print("scan: %s" % bisection.INTERRUPTED, file=sys.stderr)
        return 130
    report = text(end, opts)
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write(report)
    sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
