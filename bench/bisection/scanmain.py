"""bench/scan: find every change along a git range and the commit of each.

Usage:
  bench/scan --git REPO --range GOOD..BAD --out DIR [--points K | --every N]
             [--workload NAME[,NAME...]|suite] [step options]
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
it agrees. A commit that another scan or robot (jlbench watch) on the
same store measured with the same settings is not measured again: its
figures are read from its results dir (bench/bisection/ledger.py).

--workload takes one workload of lib/workloads.py, several (comma
separated) or suite (all of them). Several are scanned one after another,
in lib/workloads.py's order, over the same sampled commits, each in
DIR/<workload>/ with its own log, floor and findings (the progress lines
name the workload); a commit's kernel is built once, for the first
workload that measures it, and found in the build cache by the others.
--seconds and --clients are tbench's; --loops is for one workload only.

The answer: one finding per first changed commit, as a regression robot
reports it (the commit, the metric's and the headline's change against
its parent with intervals, the functions that changed most against its
parent, the static keys whose sites are in those functions, the results
dirs), commit by commit with the workload named in each, in DIR/report.md
and on stdout, and a summary (commits in the range, measured, findings,
minutes; per workload when several). Sampling's blind spot: two changes
of opposite sign inside one sampled interval can cancel at its ends
(--every 1 has none).

Exit codes: 0 an answer (findings or none); 1 a step failed or the replay
disagrees with a log; 2 usage error.
"""
import argparse
import os
import sys

from analysis.sections import fmt
from bench.bisection import bisection, ledger, scan, scanplot
from lib import cli, store, workloads


SUITE = "suite"


def parse(argv):
    ap = cli.Parser(
        prog="bench/scan", description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[2:]))
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--git", metavar="REPO",
                     help="a kernel git repository")
    src.add_argument("--replay", metavar="DIR",
                     help="decide again from DIR's scan log(s)")
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
    bisection.add_step_options(ap, workload=(
        "NAME[,NAME...]|suite", "what the guest runs (lib/workloads.py; "
        "default: %s): one workload, several comma-separated, or %s: all "
        "of them (%s), each scanned in its own DIR/NAME/" % (
            workloads.DEFAULT, SUITE, ", ".join(workloads.SUITE))))
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
    args.workloads = names(ap, args.workload)
    if len(args.workloads) == 1:
        args.workload = args.workloads[0]
        bisection.check_step_options(ap, args)
    else:
        if args.loops is not None:
            ap.error("--loops N sets one workload's work: a scan of several "
                     "runs each at its record's n")
        if (args.seconds or args.clients != workloads.CLIENTS) and \
                workloads.DEFAULT not in args.workloads:
            ap.error("--seconds/--clients are %s's, which --workload %s "
                     "leaves out" % (workloads.DEFAULT, args.workload))
        # the checks of every workload's steps (--seeds)
        bisection.check_step_options(ap, of(args, workloads.DEFAULT))
    return args


def names(ap, given):
    """The workloads of --workload given (NAME[,NAME...] or suite), in
    lib/workloads.py's order; ap.error() on a name it does not know."""
    asked = [w.strip() for w in given.split(",")]
    unknown = [w for w in asked if w not in workloads.WORKLOAD and
               w != SUITE]
    if unknown:
        ap.error("--workload %s: no workload %s; the known ones: %s (or "
                 "%s: all of them)" % (given, ", ".join(
                     repr(w) for w in unknown), ", ".join(workloads.SUITE),
                     SUITE))
    return [w for w in workloads.SUITE if SUITE in asked or w in asked]


def of(args, workload):
    """The step options of workload's scan: args with that --workload
    and, for a workload other than tbench, tbench's own --seconds and
    --clients left at their defaults."""
    one = argparse.Namespace(**vars(args))
    one.workload = workload
    if workload != workloads.DEFAULT:
        one.seconds, one.clients = 0, workloads.CLIENTS
    return one


def pct(c):
    return fmt.pct_ci(c, 3)


def keys_text(f):
    """The finding's line of the static keys on its changed path (its
    top functions'), None when they were not looked for (no profiles)."""
    if "static_keys" in f:
        keys = f["static_keys"]
        on = ["%s: %s" % (row[0], ", ".join(keys[row[0]]))
              for row in f.get("top_functions") or [] if row[0] in keys]
        if not on:
            return "none of the changed functions has a static-key site"
        return "static keys on the changed path: %s" % "; ".join(on)
    if f.get("static_keys_note"):
        return "static keys on the changed path: not read (%s)" \
            % f["static_keys_note"]
    return None


def finding_text(f, workload, metric, sub):
    """A finding's lines, as a robot's report; sub: the dir of the
    workload's scan, relative to the report's (its results dirs')."""
    if "vs_parent" not in f:
        return ["on %s: %s" % (workload, f["note"])]
    out = ["a %s change of %s on %s at commit %s, against its parent %s "
           "(%d seeds)" % (pct(f["vs_parent"]), metric, workload,
                           f["commit"], f["parent"], f["vs_parent"]["n"])]
    if f.get("headline"):
        out.append("headline %s: %s" % (scan.HEADLINE, pct(f["headline"])))
    if f.get("top_functions"):
        out.append("most changed functions against its parent (kernel "
                   "instructions per op): %s"
                   % bisection.top_text(f["top_functions"]))
    keys = keys_text(f)
    if keys:
        out.append(keys)
    out.append("results: %s (its parent's: %s)" % tuple(
        os.path.join(sub, x) if x else x
        for x in (f["results"], f["parent_results"])))
    return out + f.get("reused", [])


def text(parts):
    """The scan's report: the findings commit by commit, each as a
    robot's naming its workload, then the summary; parts: scan.part()
    of each workload (its settings: the scan's opts or its log's first
    entry)."""
    at = {}
    for p in parts:
        for f in p["end"]["findings"]:
            first = f["i"] if "i" in f else f["range"][0]
            at.setdefault((first, f["commit"]), []).append((p, f))
    out = []
    for (_, commit), found in sorted(at.items()):
        out += ["## %s" % commit, ""]
        for p, f in found:
            out += finding_text(f, p["workload"], p["settings"]["metric"],
                                p["dir"]) + [""]
    end = parts[0]["end"]
    out += ["## Summary", ""]
    total = sum(len(p["end"]["findings"]) for p in parts)
    if len(parts) == 1:
        out.append("%d commits in the range, %d sampled, %d measured; %d "
                   "finding(s); %.1f minutes of steps" % (
                       end["commits"], len(end["sampled"]), end["measured"],
                       total, end["seconds"] / 60.0))
    else:
        out += ["%d commits in the range, %d sampled; %d workloads, each "
                "scanned on its own: %d finding(s) at %d commit(s), %d "
                "measured steps, %.1f minutes of steps" % (
                    end["commits"], len(end["sampled"]), len(parts), total,
                    len(at), sum(p["end"]["measured"] for p in parts),
                    sum(p["end"]["seconds"] for p in parts) / 60.0), "",
                "| workload | floor | measured | findings | minutes |",
                "|---|---:|---:|---:|---:|"]
        out += ["| %s | %.2f%% | %d | %d | %.1f |" % (
            p["workload"], p["settings"]["floor_pct"], p["end"]["measured"],
            len(p["end"]["findings"]), p["end"]["seconds"] / 60.0)
            for p in parts]
        out.append("")
    if not total:
        out.append("no change beyond the floor between any two sampled "
                   "commits")
    if end.get("blind_spot"):
        out.append(end["blind_spot"])
    return "\n".join(out) + "\n"


def verdict(parts):
    """Say whether the replay agrees with each workload's log; the exit
    status (1: a log disagrees or has no end)."""
    bad = []
    for p in parts:
        name = "%s: " % p["workload"] if len(parts) > 1 else ""
        logged = p["logged"]
        if logged is None:
            print("%sthe log has no end: the scan was interrupted" % name)
            bad.append(p["workload"])
        elif [f["commit"] for f in p["end"]["findings"]] != \
                [f["commit"] for f in logged["findings"]]:
            print("%sreplay DISAGREES with the log" % name)
            bad.append(p["workload"])
        elif name:
            print("%sreplay agrees with the log" % name)
    if len(parts) > 1:
        print("replay DISAGREES with the logs of %s" % ", ".join(bad)
              if bad else "replay agrees with the log of every workload")
    elif not bad:
        print("replay agrees with the log")
    return 1 if bad else 0


def figure(out, part):
    """Draw a workload's metric along the range (scanplot); the report's
    line naming the figure, or saying why there is none."""
    try:
        png = scanplot.draw(os.path.join(out, part["dir"]))
    except bisection.Stop as e:
        return "no figure of %s: %s\n" % (part["workload"], e)
    if not png:
        return ""
    return "%s along the range (%s): %s, %s\n" % (
        part["settings"]["metric"], part["workload"],
        os.path.relpath(png[:-len(".png")] + ".svg", out),
        os.path.relpath(png, out))


def main(argv):
    args = parse(argv)
    cli.catch_ctrl_c()
    say = bisection.Say.of_dir("scan", args.out)
    try:
        if args.replay:
            parts = scan.replay_all(args.replay)
            cli.safe_write(sys.stdout, text(parts))
            return verdict(parts)
        good, bad = args.range.split("..")
        source = bisection.GitRange(args.git, good, bad, args.on)
        opts = {}
        for w in args.workloads:
            opts[w] = bisection.step_options(of(args, w), say)
            if args.every:
                opts[w]["every"] = args.every
            else:
                opts[w]["points"] = args.points or 5
        book = shared_steps(say)
        try:
            parts = scan.Workloads(args.out, source, opts,
                                   ledger=book).scan()
        finally:
            if book:
                book.stop()
    except bisection.Stop as e:
        say(str(e))
        return cli.FAILED
    except (KeyboardInterrupt, bisection.Interrupted):
        say(bisection.INTERRUPTED)
        return cli.INTERRUPTED
    cli.safe_write(sys.stdout, finish(args.out, parts))
    return 0


def shared_steps(say):
    """The steps ledger of the store (ledger.py: a commit measured by
    another scan or robot of the store is not measured again), None with
    a warning when the store cannot be opened."""
    book = ledger.Ledger()
    try:
        book.start()
    except store.StoreError as e:
        say("warning: the store cannot be opened (%s): every step is "
            "measured here, none is shared" % e)
        return None
    return book


def finish(out, parts, url=None):
    """Write out/report.md of a scan's parts (its text and figures) and
    record the scan in the store; the report."""
    report = text(parts) + "".join(figure(out, p) for p in parts)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(report)
    store.record(out, url=url)
    return report


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
