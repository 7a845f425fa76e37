"""bench/scan: every change along a git range, each bisected to its commit
and reported as a regression robot reports one.

A scan measures sampled commits of good..bad (first parents; both ends
always, and every N-th or K spread evenly between) as bench/bisect
measures a candidate: built, given its initramfs, run under icount on the
same perturbation seeds. Each pair of neighbouring sampled commits whose
figures differ beyond the metric's floor (bench/bisect's rule: the median
interval, widened by the calibrated floor, excludes 0) is bisected with
bench/bisect's search, from its older end; once a first changed commit is
found, the rest of the interval is searched again from that commit, so
that several changes in one interval are each found unless they cancel.
No commit is built or run twice: every step, sampled or bisected, is a
line of DIR/scan.log, which the same command resumes from and --replay
decides again from alone.

A scan of several workloads (Workloads) is a scan of each in turn, in
lib/workloads.py's order, over the same sampled commits, each in its own
DIR/<workload>/ (its log, floor and findings; one workload keeps DIR
itself): kernel-variants/build finds a commit's kernel in its cache when
another workload's step comes to it, so each is built once.

Each finding names the static keys whose jump sites sit in its most
changed functions, read from the vmlinux of its commit's build
(analysis/comparison/pathkeys.py), when that build is in the cache.

The blind spot of sampling: two changes of opposite sign inside one
sampled interval can cancel at its ends, and neither is then looked for.
--every 1 measures every commit (a full pass) and has none.
"""
import math
import os
import time

from analysis.comparison import pathkeys
from analysis.sections import fmt
from analysis.results.load import Results
from bench.bisection import bisection
from bench.bisection.bisection import (Bisection, Judge, decide,
                                       figures, search, seed_values)
from bench.bisection.ledger import Steps
from lib import workloads

LOG = "scan.log"
HEADLINE = "ops_per_s"
BLIND_SPOT = ("sampling's blind spot: two changes of opposite sign inside "
              "one sampled interval can cancel at its ends and are then "
              "not looked for (--every 1 measures every commit)")


def sample(n, every=None, points=None):
    """The candidates of 0..n-1 a scan measures first: every every-th
    from the good end, or points spread evenly; both ends always."""
    if every:
        picked = set(range(0, n, every))
    else:
        k = max(2, min(points, n))
        picked = {round(j * (n - 1) / (k - 1)) for j in range(k)}
    return sorted(picked | {0, n - 1})


class Scan(Steps, Bisection):
    """One scan in a dir: its log, its steps (through its ledger, when
    it has one), its findings."""
    LOG = LOG
    WHAT = "scan"
    WHAT_SAYS = "scan"

    def __init__(self, out, source, opts):
        self.sampled = sample(len(source.candidates()), opts.get("every"),
                              opts.get("points"))
        super().__init__(out, source, opts)

    def header(self):
        h = super().header()
        h.update(kind="scan", sampled=self.sampled)
        return h

    def planned(self):
        """The sampled commits and a bisection of every interval between
        them, one change each (for the ETA)."""
        gaps = [b - a for a, b in zip(self.sampled, self.sampled[1:])]
        return len(self.sampled) + sum(math.ceil(math.log2(g))
                                       for g in gaps if g > 1)

    def compared(self, against):
        """seen() of a search whose good end is candidate against."""
        def seen(j, decision, comp):
            i = against + j
            self.write({"event": "decision", "i": i, "against": against,
                        "decision": decision, "vs": comp})
            self.say("%s: %s %s against %s: %s" % (
                self.cands[i][2], self.opts["metric"], fmt.pct_ci(comp, 3),
                self.cands[against][2], "changed" if decision == "bad"
                else "no change"))
        return seen

    def scan(self):
        """Measure the sampled commits, bisect every change between
        them; the end entry (also logged)."""
        for i in self.sampled:
            self.test(i)
        found = changes(self.sampled, self.test, self.opts["floor_pct"],
                        self.compared)
        end = summary(self.cands, self.sampled, found, self.done, self.out,
                      self.opts)
        self.write(end)
        return end


def changes(sampled, test, floor, seen_against=None):
    """[first changed candidate, or (lo, hi) where untestable commits
    hide it] of every change between the sampled candidates, in order.
    test(i): a candidate's figures (None: untestable); seen_against(lo):
    the seen() of a search from lo, or None."""
    testable = [i for i in sampled if test(i) is not None]
    out = []
    for a, b in zip(testable, testable[1:]):
        lo = a
        while lo < b:
            n = b - lo + 1
            first, _ = search(n, lambda j, lo=lo: test(lo + j), Judge(
                n, test(lo), floor, seen_against(lo) if seen_against
                else None))
            if first is None:
                break
            if isinstance(first, tuple):
                out.append((lo + first[0], lo + first[1]))
                break
            out.append(lo + first)
            lo += first
    return out


def finding(cands, i, done, out, metric):
    """What a robot's report says of first changed candidate i: the
    commit, its change in metric and in the headline against its parent
    (intervals), the functions that changed most against its parent, the
    static keys at their sites (path_keys()) and the results dirs."""
    e, parent = done[i], done.get(i - 1)
    f = {"i": i, "commit": cands[i][2], "variant": e["variant"],
         "results": e.get("results"),
         "parent": cands[i - 1][2] if i else None}
    if not parent or not parent.get("values"):
        f["note"] = "its parent was not measured (untestable)"
        return f
    f["parent_results"] = parent.get("results")
    for x, who in ((e, "its"), (parent, "its parent's")):
        if (x.get("reused") or "").startswith(bisection.SAME_KERNEL):
            f.setdefault("reused", []).append("%s figures: %s" % (
                who, x["reused"]))
    _, f["vs_parent"] = decide(seed_values(e), seed_values(parent), 0, 0.0)
    dirs = [os.path.join(out, x.get("results") or "") for x in (parent, e)]
    if all(x.get("results") for x in (parent, e)) and \
            all(os.path.isdir(d) for d in dirs):
        a, b = dirs
        if metric != HEADLINE:
            _, f["headline"] = decide(figures(b, HEADLINE),
                                      figures(a, HEADLINE), 0, 0.0)
        f["top_functions"] = bisection.top_functions(a, b)
        if f["top_functions"]:
            f.update(path_keys(b, e["variant"], f["top_functions"]))
    return f


def path_keys(resdir, variant, top):
    """The static keys on a finding's changed path: {"static_keys":
    {function: its sites' key symbols}} of the functions of top (its
    top_functions) that have static-key sites ({} when none has), read
    from the vmlinux of variant's build (the kernel of the results dir
    resdir) once; {"static_keys_note": why not} when that build is not
    in this machine's cache. A step that took the figures of another
    whose kernel was its own bit for bit reads that one's build."""
    res = Results(resdir)
    builds = res.meta.get("builds") or {}
    if variant not in builds and len(builds) == 1:
        (variant,) = builds
    keys = pathkeys.keys_at(res, [row[0] for row in top], variant)
    if keys is None:
        return {"static_keys_note": "the build of %s is not in this "
                "machine's kernel cache" % variant}
    return {"static_keys": keys}


def summary(cands, sampled, found, done, out, opts):
    """The end entry of a scan: its findings and what it cost."""
    findings = []
    for x in found:
        if isinstance(x, tuple):
            findings.append({"range": list(x), "commit": "%s..%s" % (
                cands[x[0]][2], cands[x[1]][2]),
                "note": "the commits between were untestable"})
        else:
            findings.append(finding(cands, x, done, out, opts["metric"]))
    return {"event": "end", "commits": len(cands), "sampled": sampled,
            "measured": len(done), "findings": findings,
            "seconds": round(sum(e.get("seconds", 0.0)
                                 for e in done.values()), 1),
            "blind_spot": BLIND_SPOT if len(sampled) < len(cands) else None}


def replay(out):
    """Decide again from a scan.log's figures alone; (end, logged end or
    None, the log's first entry: the scan's settings)."""
    head, done, logged, cands, test = bisection.from_log(out, LOG, "scan")
    found = changes(head["sampled"], test, head["floor_pct"])
    return summary(cands, head["sampled"], found, done, out, head), \
        logged, head


def dirs_of(out, names):
    """{workload: the dir of its scan} of a scan of the workloads names
    in out: out itself for one (the layout of a one-workload scan),
    out/<workload> for each of several."""
    if len(names) == 1:
        return {names[0]: out}
    return {w: os.path.join(out, w) for w in names}


def held(out):
    """{workload: the dir of its scan} of the scan in out, in
    lib/workloads.py's order: out itself when out/scan.log is there (its
    workload from its log), else every out/<workload>/scan.log; {} for
    none."""
    if os.path.isfile(os.path.join(out, LOG)):
        head = (bisection.read_log(os.path.join(out, LOG)) or [{}])[0]
        return {head.get("workload", workloads.DEFAULT): out}
    return {w: os.path.join(out, w) for w in workloads.SUITE
            if os.path.isfile(os.path.join(out, w, LOG))}


def part(out, workload, path, end, settings):
    """A workload's share of a report: its end entry, its settings (the
    scan's opts or its log's first entry) and its dir relative to out
    ("" when it is out)."""
    rel = os.path.relpath(path, out)
    return {"workload": workload, "end": end, "settings": settings,
            "dir": "" if rel == "." else rel}


class Workloads:
    """A scan of one workload or several in a dir: a Scan per workload
    (dirs_of()), each scanned in turn in the order of opts."""

    def __init__(self, out, source, opts, make=Scan, ledger=None):
        """opts: {workload: its Scan's opts}, in lib/workloads.py's
        order; make(dir, source, opts) a Scan (tests give stand-ins);
        ledger: the steps ledger its scans share (None: none)."""
        self.out = os.path.abspath(out)
        dirs = dirs_of(self.out, list(opts))
        have = held(self.out)
        if any(dirs.get(w) != d for w, d in have.items()):
            raise bisection.Stop(
                "%s holds a scan of %s: give that --workload (the same "
                "command resumes it), or another --out" % (
                    self.out, ", ".join(have)))
        self.scans = [(w, dirs[w], make(dirs[w], source, o))
                      for w, o in opts.items()]
        for _, _, s in self.scans:
            s.ledger = ledger

    def scan(self):
        """Scan each workload in turn (the progress lines name it when
        there are several); [part()] of each."""
        parts = []
        for w, path, s in self.scans:
            if len(self.scans) > 1:
                s.say.program = "scan: %s" % w
            s.t0 = time.time()     # the ETA: from its own steps
            parts.append(part(self.out, w, path, s.scan(), s.opts))
        return parts


def replay_all(out):
    """Decide every workload of the scan in out again from its log
    alone: [part()] of each, with "logged": its log's end (None when it
    has none)."""
    out = os.path.abspath(out)
    dirs = held(out)
    if not dirs:
        raise bisection.Stop("%s has no %s to replay" % (out, LOG))
    parts = []
    for w, path in dirs.items():
        end, logged, head = replay(path)
        parts.append(dict(part(out, w, path, end, head), logged=logged))
    return parts
