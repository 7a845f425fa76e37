"""bench/bisect: the first patch or commit that changes a figure, under icount.

A bisection runs over candidates 0..n: the first i patches of a quilt
series applied on top of a built-in variant (i = 0 is that variant), or a
git range's commits (0 the good end). Each candidate tested is built with
kernel-variants/build (a user variant: kernel-variants/variant.py), given
its own initramfs (guest-image/build) and run by bench/run under icount
with the same perturbation seeds, so its figures pair with the good end's
seed by seed. A candidate is bad when its change against the good end, by
the median rule of analysis/stats/stats.py widened by the calibrated floor of
the metric (analysis/calibration.json), is significant in the direction of
the bad end's; both ends are checked first.

Every step is a line of DIR/bisect.log (JSON): the revision, build hash,
results dir, the per-seed figures and the functions whose kernel
instructions per operation changed most against the good end (the tries'
per-function profiles, analysis/comparison/profile.py), and each decision
another (the change against the good end, good or bad). A later invocation
with the same DIR resumes (steps in the log are not built or run again;
the step that was interrupted finishes the runs of its results dir, as
bench/run --resume does, instead of starting them anew), and --replay
DIR decides again from the logged figures alone and checks that the
answer is the logged one.
"""
import glob
import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import time

from analysis.stats import calibrate, floorfiles, stats
from analysis.comparison import profile as fprofile
from analysis.sections import fmt
from analysis.results.load import Results, per_run
from bench.tries import inputs
from lib import cli, kcache, variants, workloads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LOG = "bisect.log"
DEFAULT_METRIC = "kernel_insns_per_op"
DEFAULT_SEEDS = 6
TOP_FUNCTIONS = 5
# how a step that took the figures of one whose kernel was its own says so
SAME_KERNEL = "its kernel and modules are bit for bit"


class Stop(Exception):
    """The bisection cannot go on (said why)."""


class BadRange(Stop):
    """The range cannot be searched: git cannot give it, or an end of it
    cannot be built and run (the robot fails that range and goes on)."""


class Untestable(Stop):
    """A candidate built but did not run (bench/run failed, or no run
    was ok): a bisection stops; the robot skips the commit."""


class Interrupted(Exception):
    """A step's command was interrupted (Ctrl-C reached it, or a signal
    was sent to it alone)."""


INTERRUPTED = ("interrupted: the same command resumes (steps in the log "
               "are kept, and the step interrupted finishes its runs)")
# bench/run's exit status when Ctrl-C or SIGTERM stopped it
RUN_INTERRUPTED = 130


class Say:
    """A bisection's or scan's progress lines, `TIME PROGRAM: message`:
    on stderr, and in its dir's own log (DIR/messages.txt) once it has a
    dir, so that a line a closed stderr lost (a `| tee` that Ctrl-C
    killed first) is kept there. A closed stderr is no error of the
    command's own."""

    def __init__(self, program, path=None):
        self.program, self.path = program, path

    @classmethod
    def of_dir(cls, program, out):
        """The Say of a command whose dir is out (None: stderr only)."""
        return cls(program, out and os.path.join(os.path.abspath(out),
                                                 MESSAGES))

    def __call__(self, msg):
        line = "%s %s: %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S"),
                                self.program, msg)
        if self.path and os.path.isdir(os.path.dirname(self.path)):
            with open(self.path, "a") as f:
                f.write(line)
        cli.safe_write(sys.stderr, line)


MESSAGES = "messages.txt"


class Series:
    """Candidates: the first i patches of a quilt series on top of a
    built-in variant."""

    def __init__(self, path, on, good=0, bad=None):
        series = os.path.join(path, "series")
        if not os.path.isfile(series):
            raise Stop("--series %s: no series file there" % path)
        with open(series) as f:
            self.names = [ln.split()[0] for ln in f.read().splitlines()
                          if ln.strip() and not ln.startswith("#")]
        self.path, self.on = os.path.abspath(path), on
        bad = len(self.names) if bad is None else bad
        if not 0 <= good < bad <= len(self.names):
            raise Stop("--good %d --bad %d: need 0 <= good < bad <= %d "
                       "(the series' patches)" % (good, bad, len(self.names)))
        self.counts = list(range(good, bad + 1))

    def describe(self):
        return {"kind": "series", "path": self.path, "on": self.on,
                "good": self.counts[0], "bad": self.counts[-1]}

    def candidates(self):
        """[(variant name, --variant value, revision)] in order."""
        out = []
        for i in self.counts:
            rev = "%d patches" % i + (", last %s" % self.names[i - 1]
                                      if i else "")
            if i == 0:
                out.append((self.on, self.on, rev))
            else:
                out.append(("bisect-%d" % i, "bisect-%d=patches:%s@%d,on:%s"
                            % (i, self.path, i, self.on), rev))
        return out


class GitRange:
    """Candidates: the commits of good..bad (first parents), good first."""

    def __init__(self, repo, good, bad, on):
        self.repo, self.on = os.path.abspath(repo), on

        def git(*args):
            p = subprocess.run(["git", "-C", self.repo] + list(args),
                               capture_output=True, text=True, check=False)
            if p.returncode != 0:
                raise BadRange("git -C %s %s: %s" % (
                    self.repo, " ".join(args), p.stderr.strip()))
            return p.stdout.split()

        self.good = git("rev-parse", "--verify", good + "^{commit}")[0]
        self.bad = git("rev-parse", "--verify", bad + "^{commit}")[0]
        self.commits = [self.good] + git(
            "rev-list", "--reverse", "--first-parent",
            "%s..%s" % (self.good, self.bad))
        # bad's first-parent line must come down to good (not bad itself)
        if len(self.commits) < 2 or self.commits[-1] != self.bad or git(
                "rev-parse", self.commits[1] + "^@")[:1] != [self.good]:
            raise BadRange("%s is not an ancestor of %s on its "
                           "first-parent line" % (good, bad))
        self.subjects = {c: subprocess.run(
            ["git", "-C", self.repo, "log", "-1", "--format=%s", c],
            capture_output=True, text=True, check=False).stdout.strip()
            for c in self.commits}

    def describe(self):
        return {"kind": "git", "repo": self.repo, "on": self.on,
                "good": self.good, "bad": self.bad}

    def candidates(self):
        return [("c%s" % c[:12], "c%s=tree:%s@%s,on:%s" % (
            c[:12], self.repo, c, self.on), "%s %s" % (c[:12],
                                                       self.subjects[c]))
                for c in self.commits]


def decide(values, good, direction, floor_pct):
    """(decision, comparison) of a candidate's per-seed figures against the
    good end's ({seed: value} each): "bad" when the median rule's interval,
    widened by floor_pct, excludes 0 on the side of direction (+1 or -1;
    0: either side, for the bad end itself), else "good"."""
    seeds = sorted(set(values) & set(good))
    c = stats.compare_median([values[s] for s in seeds],
                             [good[s] for s in seeds])
    comp = {k: c[k] for k in ("n", "pct_change", "pct_ci_lo", "pct_ci_hi")}
    changed = stats.significant(c, floor_pct)
    if changed and direction:
        changed = (c["pct_change"] > 0) == (direction > 0)
    return ("bad" if changed else "good"), comp


def search(n, test, decide_step):
    """The first bad candidate of 0..n-1 (0 good, n-1 bad, both tested),
    by halving: test(i) gives a candidate's figures (None: untestable,
    skipped), decide_step(i, figures) "good" or "bad". Returns (first bad,
    [skipped candidates]); first bad is None when the ends do not differ,
    a (lo, hi) pair when skipped candidates leave a range."""
    good, bad = test(0), test(n - 1)
    if good is None or bad is None:
        raise BadRange("an end of the range could not be built and run: "
                       "nothing to bisect")
    if decide_step(n - 1, bad) != "bad":
        return None, []
    lo, hi, skipped = 0, n - 1, []
    while hi - lo > 1:
        left = [i for i in range(lo + 1, hi) if i not in skipped]
        if not left:
            return (lo, hi), skipped
        mid = min(left, key=lambda i: (abs(i - (lo + hi) / 2.0), i))
        figures = test(mid)
        if figures is None:
            skipped.append(mid)
            continue
        if decide_step(mid, figures) == "bad":
            hi = mid
        else:
            lo = mid
    return hi, skipped


class Judge:
    """The decide_step of search() for n candidates whose good end has the
    figures good, judged with the floor (points). Its state is direction:
    0 until the bad end (n - 1) is found bad, then the sign of its change,
    the side every other candidate must differ on to be bad. seen(i,
    decision, comparison) is told each decision."""

    def __init__(self, n, good, floor, seen=None):
        self.n, self.good, self.floor, self.seen = n, good, floor, seen
        self.direction = 0

    def __call__(self, i, figures):
        decision, comp = decide(figures, self.good, self.direction,
                                self.floor)
        if i == self.n - 1 and decision == "bad":
            self.direction = 1 if comp["pct_change"] > 0 else -1
        if self.seen:
            self.seen(i, decision, comp)
        return decision


def max_steps(n):
    """Candidates a clean bisection of n tests: both ends and the halvings
    in between."""
    return 2 + (math.ceil(math.log2(n - 1)) if n > 2 else 0)


class Bisection:
    """One bisection in a dir: the log, the steps, the answer."""
    LOG = LOG
    WHAT = "bisection"
    WHAT_SAYS = "bisect"        # the program its progress lines name

    def __init__(self, out, source, opts):
        self.out, self.source, self.opts = os.path.abspath(out), source, opts
        self.say = Say.of_dir(self.WHAT_SAYS, self.out)
        self.cands = source.candidates()
        self.done = {}
        self.t0 = time.time()
        self.tested = 0
        self._pin = None
        self.path = os.path.join(self.out, self.LOG)
        os.makedirs(self.out, exist_ok=True)
        header = self.header()
        old = read_log(self.path)
        if old:
            keep = {k: v for k, v in old[0].items() if k != "event"}
            want = {k: v for k, v in header.items() if k != "event"}
            if keep != want:
                raise Stop("%s is a %s with other settings: give another "
                           "--out, or the same options" % (self.path,
                                                           self.WHAT))
            for e in old:
                if e["event"] == "step":
                    self.done[e["i"]] = e
            self.say("resuming %s: %d steps logged"
                     % (self.path, len(self.done)))
        else:
            self.write(header)

    def header(self):
        """The log's first entry: the range and the options."""
        o = self.opts
        return {"event": "start", "source": self.source.describe(),
                "metric": o["metric"], "seeds": o["seeds"],
                "seed": o["seed"], "config": o["config"],
                "seconds": o["seconds"], "clients": o["clients"],
                "floor_pct": o["floor_pct"],
                **({k: o[k] for k in ("workload", "loops") if k in o}),
                "candidates": [{"name": c[0], "revision": c[2]}
                               for c in self.cands]}

    def write(self, entry):
        with open(self.path, "a") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")

    def pin(self, *paths):
        """Keep paths (kernels, images) in the cache until this command
        ends (lib/kcache.py), with those of the steps logged before; the
        kernels the steps' commands make are pinned as they make them."""
        if self._pin is None:
            self._pin = kcache.Pin()
            self._pin.add(*kcache.named_in(glob.glob(os.path.join(
                self.out, "step-*", "results", "*", "meta.json"))))
        self._pin.add(*paths)

    def run(self, cmd):
        env = dict(os.environ)
        if self._pin and self._pin.path:
            env[kcache.PIN_VAR] = self._pin.path
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                             text=True, env=env)
        try:
            out, _ = p.communicate()
        except KeyboardInterrupt:
            # Ctrl-C reached the command too: let it stop as it does
            # (bench/run keeps its finished runs), and tell it when only
            # this process was interrupted
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGINT)
                p.wait()
            raise
        return p.returncode, out

    def measure(self, i):
        """Build, image and run candidate i; its step entry."""
        name, spec, rev = self.cands[i]
        o, step_dir = self.opts, os.path.join(self.out, "step-%s" % name)
        os.makedirs(step_dir, exist_ok=True)
        entry = {"event": "step", "i": i, "variant": name, "revision": rev}
        tsv = os.path.join(step_dir, "builds.tsv")
        self.pin()
        rc, _ = self.run([os.path.join(ROOT, "kernel-variants", "build"),
                          "--config", o["config"], "--variant", spec,
                          "--out", tsv])
        if rc != 0:
            entry.update(decision="skip", why="build failed (exit %d)" % rc)
            return entry
        with open(tsv) as f:
            build_dir = f.read().split("\t")[1].strip()
        with open(os.path.join(build_dir, "build.json")) as f:
            entry["build_hash"] = json.load(f)["hash"]
        entry["kernel"] = kernel_digest(build_dir)
        same = self.same_kernel(entry["kernel"])
        if same is not None:
            return self.adopt(i, dict(same, build_hash=entry["build_hash"]),
                              "%s those of %s, measured before (%s)" % (
                                  SAME_KERNEL, same["revision"],
                                  same["results"]))
        image = os.path.join(step_dir, "image.path")
        rc, _ = self.run([os.path.join(ROOT, "guest-image", "build"),
                          "--builds", tsv, "--out", image])
        if rc != 0:
            raise Stop("guest-image/build failed for %s (see above)" % name)
        with open(image) as f:
            image = f.read().strip()
        self.pin(image)
        res_path = os.path.join(step_dir, "results.path")
        root = os.path.join(step_dir, "results")
        cmd = [os.path.join(ROOT, "bench", "run"), "--builds", tsv,
               "--initramfs", image, "--quiet", "--out", res_path]
        partial = interrupted(root)
        if partial:
            self.say("%s: finishing the runs of its interrupted results "
                     "dir %s" % (name, os.path.relpath(partial, self.out)))
            cmd += ["--resume", partial]
        else:
            cmd += ["--accel", "icount", "--no-aa", "--boots",
                    str(o["seeds"]), "--seed", str(o["seed"]), "--clients",
                    str(o["clients"]), "--results-root", root]
            if o["seconds"]:
                cmd += ["--seconds", str(o["seconds"])]
            if "workload" in o:
                cmd += ["--workload", o["workload"], "--loops",
                        str(o["loops"])]
        rc, _ = self.run(cmd)
        if rc == RUN_INTERRUPTED:
            raise Interrupted(name)
        if rc != 0 or not os.path.isfile(res_path):
            raise Untestable("bench/run failed for %s (exit %d): see "
                             "above" % (name, rc))
        with open(res_path) as f:
            resdir = f.read().strip()
        entry["results"] = os.path.relpath(resdir, self.out)
        entry["values"] = figures(resdir, o["metric"])
        if not entry["values"]:
            raise Untestable("%s: no ok run has %s" % (resdir, o["metric"]))
        if i > 0 and self.done.get(0, {}).get("results"):
            entry["top_functions"] = top_functions(
                os.path.join(self.out, self.done[0]["results"]), resdir)
            say_top(self.say, name, entry["top_functions"])
        return entry

    def same_kernel(self, kernel):
        """The entry of a step measured before whose kernel and modules
        are bit for bit those of digest kernel (kernel_digest()), or None:
        a commit that changes no built file (documentation, another arch,
        tools/) boots what its parent booted, and its figures are that
        step's."""
        for e in self.done.values():
            if e.get("kernel") == kernel and e.get("results"):
                return e
        return None

    def adopt(self, i, e, how):
        """Step i from entry e of a step measured before (its results dir
        absolute, or relative to this dir), its figures read from that
        dir; how: where from, said."""
        name, _, rev = self.cands[i]
        e = {k: v for k, v in e.items() if k in (
            "results", "values", "build_hash", "kernel", "decision", "why")}
        e.update(event="step", i=i, variant=name, revision=rev, reused=how)
        if e.get("results"):
            where = os.path.join(self.out, e["results"])
            e["results"] = os.path.relpath(where, self.out)
            e["values"] = figures(where, self.opts["metric"])
            good = self.done.get(0, {}).get("results")
            if i and good:
                e["top_functions"] = top_functions(
                    os.path.join(self.out, good), where)
        self.say("%s: %s: its figures reused" % (name, how))
        return e

    def test(self, i):
        """Candidate i's {seed: value} (from the log when it is there),
        None when it could not be built."""
        if i not in self.done:
            t = time.time()
            name, _, rev = self.cands[i]
            left = self.seconds_left()
            eta = "" if left is None else ", ETA %ds" % left
            self.say("step %d of at most %d: %s (%s)%s" % (
                len(self.done) + 1, self.planned(), name, rev, eta))
            entry = self.measure(i)
            if entry.get("decision") == "skip" and i in (
                    0, len(self.cands) - 1):
                raise BadRange("%s, an end of the range: %s; fix that and "
                               "run the same command again" % (
                                   name, entry["why"]))
            entry["seconds"] = round(time.time() - t, 1)
            self.tested += 1
            self.done[i] = entry
            self.write(entry)
            if entry.get("decision") == "skip":
                self.say("%s: untestable (%s), skipped" % (name, entry["why"]))
        entry = self.done[i]
        if entry.get("decision") == "skip":
            return None
        return seed_values(entry)

    def seconds_left(self):
        """The ETA: the steps left at most, at the pace of those measured
        here so far (None before the first)."""
        if not self.tested:
            return None
        left = max(self.planned() - len(self.done), 1)
        return left * (time.time() - self.t0) / self.tested

    def planned(self):
        """The steps a clean run of it takes at most (for the ETA)."""
        return max_steps(len(self.cands))

    def seen(self, i, decision, comp):
        """Log candidate i's decision and say it."""
        e = self.done[i]
        e.update(decision=decision, vs_good=comp)
        self.write({"event": "decision", "i": i, "decision": decision,
                    "vs_good": comp})
        self.say("%s (%s): %s %s vs the good end: %s" % (
            e["variant"], e["revision"], self.opts["metric"],
            fmt.pct_ci(comp, 3), decision))

    def bisect(self):
        n = len(self.cands)
        first, skipped = search(n, self.test, Judge(
            n, self.test(0), self.opts["floor_pct"], self.seen))
        end = answer(self.cands, first, skipped, self.done)
        end.update(event="end", seconds=round(time.time() - self.t0, 1))
        self.write(end)
        return end


def interrupted(root):
    """The results dir a step's bench/run left under root when it was
    stopped (a step in the log is never measured again, so any dir there
    is an unfinished one), or None: the newest, by name (start time)."""
    if not os.path.isdir(root):
        return None
    dirs = sorted(d for d in os.listdir(root)
                  if os.path.isfile(os.path.join(root, d, "meta.json")))
    return os.path.join(root, dirs[-1]) if dirs else None


def kernel_digest(build_dir):
    """sha256 of what a build's guest boots: the names and file hashes of
    its kernel image and its modules, in name order."""
    files = [os.path.join(build_dir, "bzImage")] + sorted(glob.glob(
        os.path.join(build_dir, "modules", "*.ko")))
    return hashlib.sha256("".join("%s %s\n" % (
        os.path.basename(p), inputs.file_hash(p)) for p in files).encode()
    ).hexdigest()


def top_functions(good_dir, step_dir, n=TOP_FUNCTIONS):
    """The n functions whose kernel instructions per operation changed
    most from the good end's tries to the step's, each [name, change per
    op, interval low, high (None: too few seeds for one), share of the
    total change]; [] when a dir has no profiles."""
    try:
        rows = fprofile.top_changes(good_dir, step_dir, n)
    except fprofile.NoProfiles:
        return []

    def num(x, digits):
        return round(x, digits) if x is not None and math.isfinite(x) \
            else None
    return [[r["name"], num(r["diff"], 2), num(r["lo"], 2),
             num(r["hi"], 2), num(r["share"], 4)]
            for r in rows if r["kind"] == "function"]


def top_text(top):
    """'name +d/op (s%), ...' of top_functions()."""
    return ", ".join("%s %+.1f/op%s" % (
        name, diff, "" if share is None else " (%.0f%%)" % (100 * share))
        for name, diff, _, _, share in top)


def say_top(say, name, top):
    if top:
        say("%s: most changed functions against the good end: %s"
            % (name, top_text(top)))


def figures(resdir, metric):
    """{perturbation seed: metric} of the ok runs of a results dir."""
    res = Results(resdir)
    ok = res.runs[res.runs["status"] == "ok"]
    values, _ = per_run(ok, metric)
    return {int(s): float(v) for s, v in zip(ok["perturb_seed"], values)
            if v == v}


def seed_values(entry):
    """{seed: value} of a step entry (JSON keeps the seeds as strings)."""
    return {int(k): v for k, v in entry["values"].items()}


def answer(cands, first, skipped, done):
    """The end entry: first bad candidate (or range, or none) in words."""
    out = {"first_bad": first, "skipped": skipped,
           "builds": sorted(e["variant"] for e in done.values()),
           "results": {e["variant"]: e.get("results") for e in
                       done.values()}}
    if first is None:
        out["message"] = ("no change found: the bad end is within the floor "
                          "of the good end")
    elif isinstance(first, tuple):
        out["first_bad"] = list(first)
        out["message"] = ("the first change is in %s..%s (the candidates "
                          "between were untestable)"
                          % (cands[first[0]][2], cands[first[1]][2]))
    else:
        e = done[first]
        out["message"] = "first bad: %s (%s): %+.3f%% against the good " \
            "end" % (cands[first][2], e["variant"],
                     e["vs_good"]["pct_change"])
        out["revision"] = cands[first][2]
        out["top_functions"] = e.get("top_functions") or []
        parent = done.get(first - 1)
        if parent and parent.get("values"):
            _, comp = decide(seed_values(e), seed_values(parent), 0, 0.0)
            out["vs_parent"] = comp
    return out


def read_log(path):
    """The entries of a bisect.log, [] when there is none."""
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def from_log(out, name, what):
    """(head, steps by index, logged end or None, candidates, test) of
    the log out/name for a replay: test(i) gives a step's figures from
    the log alone (None: untestable), Stop when it has none."""
    entries = read_log(os.path.join(out, name))
    if not entries or entries[0]["event"] != "start":
        raise Stop("%s has no %s to replay" % (out, name))
    done = {e["i"]: e for e in entries if e["event"] == "step"}
    end = next((e for e in reversed(entries) if e["event"] == "end"), None)
    cands = [(c["name"], None, c["revision"])
             for c in entries[0]["candidates"]]

    def test(i):
        if i not in done:
            raise Stop("the log has no step for %s: resume the %s (the "
                       "same command) instead" % (cands[i][0], what))
        e = done[i]
        return None if e.get("decision") == "skip" else seed_values(e)
    return entries[0], done, end, cands, test


def replay(out):
    """Decide again from a bisect.log's figures; (end entry, logged end)."""
    head, done, logged_end, cands, test = from_log(out, LOG, "bisection")
    good = test(0)
    first, skipped = search(len(cands), test,
                            Judge(len(cands), good, head["floor_pct"]))
    for e in done.values():
        if e.get("values") and "vs_good" not in e:
            e["vs_good"] = decide(seed_values(e), good, 0, 0.0)[1]
    return answer(cands, first, skipped, done), logged_end


def floor_pct(metric, workload=workloads.DEFAULT):
    """The calibrated floor of a difference in metric (points) on
    workload (calibrate.for_workload), 0 where none was measured."""
    return floorfiles.floor(calibrate.for_workload(workload), metric,
                            "difference") or 0.0


def add_step_options(ap, workload=None):
    """The options of how each step is built and run (bench/bisect's and
    bench/scan's); workload: the --workload argument's (metavar, help)
    when it takes more than one name (bench/scan's), checked by the
    caller."""
    ap.add_argument("--on", default=variants.DEFAULT_ON, metavar="VARIANT",
                    help="the built-in variant under the patches "
                    "(default: %(default)s)")
    ap.add_argument("--metric", default=DEFAULT_METRIC,
                    help="the figure (default: %(default)s; ops_per_s, "
                    "a runs.csv figure, or COUNTER_per_op)")
    ap.add_argument("--config", default="full",
                    choices=("full", "smoke", "distro"),
                    help="kernel base config (default: full)")
    ap.add_argument("--seeds", type=int, default=DEFAULT_SEEDS,
                    help="runs per candidate (default: %(default)s, the "
                    "fewest the median rule decides with)")
    ap.add_argument("--seed", type=int, default=1,
                    help="bench/run's seed: the perturbation seeds "
                    "(default: 1)")
    ap.add_argument("--seconds", type=int, default=0,
                    help="tbench seconds per run (default: bench/run's)")
    ap.add_argument("--clients", type=int, default=workloads.CLIENTS,
                    help="tbench clients (default: %d)" % workloads.CLIENTS)
    metavar, text = workload or ("NAME", (
        "what the guest runs (lib/workloads.py; default: %s): a change on "
        "another workload's path (%s)" % (workloads.DEFAULT,
                                          ", ".join(workloads.SUITE[1:]))))
    ap.add_argument("--workload", default=workloads.DEFAULT, metavar=metavar,
                    choices=None if workload else workloads.SUITE, help=text)
    ap.add_argument("--loops", type=int, metavar="N",
                    help="--workload other than tbench: its fixed work per "
                    "run (default: its record's n)")


def check_step_options(ap, args):
    """ap.error() on step options that do not go together."""
    if args.seeds < 6:
        ap.error("--seeds %d: the median rule needs at least 6 pairs"
                 % args.seeds)
    fixed_work = args.workload != workloads.DEFAULT
    if fixed_work and (args.seconds or
                       args.clients != workloads.CLIENTS):
        ap.error("--workload %s does a fixed amount of work: drop "
                 "--seconds/--clients" % args.workload)
    if args.loops is not None and (not fixed_work or args.loops < 1):
        ap.error("--loops N (N >= 1) sets the work of a --workload other "
                 "than tbench")


def step_options(args, say):
    """The opts of a Bisection (or Scan) from the step options, with the
    metric's calibrated floor (say() warns when there is none)."""
    floor = floor_pct(args.metric, args.workload)
    if not floor:
        say("warning: no calibrated floor for %s on %s (analysis/"
            "calibration.json, analysis/floors.json): every change the "
            "median rule resolves counts" % (args.metric, args.workload))
    opts = {"metric": args.metric, "seeds": args.seeds, "seed": args.seed,
            "config": args.config, "seconds": args.seconds,
            "clients": args.clients, "floor_pct": floor}
    if args.workload != workloads.DEFAULT:
        # absent for tbench, as in logs from before the option
        opts["workload"] = args.workload
        opts["loops"] = args.loops or workloads.WORKLOAD[args.workload].n
    return opts
