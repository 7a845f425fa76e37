"""jlbench watch: a robot that follows branches, scans each push, confirms
and tracks every finding, and writes its reports as mails.

Usage:
  jlbench watch --git REPO --branch NAME [--branch NAME...] --out DIR
                [--from REV] [--poll SECONDS] [--once] [--name NAME]
                [--lease SECONDS] [--points K | --every N] [step options]
  jlbench watch --kick --out DIR
  jlbench watch --status

The robot polls each branch every --poll seconds (default 300), or at
once when `jlbench watch --kick --out DIR` is run (a git post-receive
hook's line: docs/robot.md). A new head queues the range from the head
queued before it (the first head seen is only recorded, unless --from
REV queues REV..head) in the store; after a force push the range starts
at the merge base, and the range's note says so. Each range is scanned
as bench/scan scans one (sampled commits, every change bisected to its
first commit), in DIR/BRANCH/range-ID/. A commit measured once with the
same settings is never measured again, by this robot or another on the
same store: before measuring, a robot takes the commit's lease, which
lasts while its heartbeat does (--lease, default 120 s); a commit that
does not build or run is skipped as untestable.

Every finding then lives on (bench/robot/life.py): a change that undoes
a confirmed regression of the branch marks it fixed (the regression
`fixed`, the change `fix`); any other is measured again on seeds of its
own and becomes `confirmed` or `not-confirmed` (both figures in its
note). States a person set (`jlbench db finding`) are left alone. For
each confirmed finding the robot writes DIR/mail/BRANCH_range-ID_cSHA.mbox
(it never sends one), and a triage summary per range (DIR/BRANCH/
range-ID/triage.md).

--status prints the robots of the store (heartbeat, the step in flight
and its ETA), the queue and the last ranges done; the dashboard's
/robot page shows the same. --once scans what is queued and new, then
exits. Ctrl-C or SIGTERM stops the robot and gives back its range; a
robot killed outright is taken over when its lease runs out (at once
on the same host), and resumes the range at the step (no run measured
twice). The store is read with --db, $JLBENCH_DB, or the cache's
jlbench.db; while it cannot be reached (a server restarting) the robot
retries for --db-wait seconds, then stops losing nothing.

Exit codes: 0 stopped after --once; 1 a step, the disk or the store
failed (said); 2 usage error; 130 Ctrl-C or SIGTERM.
"""
import argparse
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

from bench.bisection import bisection, ledger as steps, scan, scanmain
from bench.robot import life, mail
from lib import cli, hostinfo, kcache, store
from lib.store import robot as ledger
from lib.store.backend import StoreUnavailable, describe

DEFAULT_POLL = 300
DEFAULT_DB_WAIT = 300
# a step needs this much free space in the cache (a kernel, an image,
# its results dir), else the robot trims the cache or stops
MIN_FREE = 2 << 30
KICK = "kick"

UNAVAILABLE = (StoreUnavailable, sqlite3.OperationalError)
try:
    import psycopg2
    UNAVAILABLE += (psycopg2.OperationalError, psycopg2.InterfaceError)
except ImportError:
    pass


class DiskFull(bisection.Stop):
    """The cache's disk has no room for a step: the robot stops."""


def parse(argv):
    ap = cli.Parser(
        prog="jlbench watch", description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[2:]))
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--git", metavar="REPO",
                      help="the kernel git repository whose branches to "
                      "watch")
    what.add_argument("--kick", action="store_true",
                      help="wake the robot of --out DIR now")
    what.add_argument("--status", action="store_true",
                      help="what the store's robots do, queue and done")
    ap.add_argument("--branch", action="append", metavar="NAME",
                    help="a branch to follow (again for several)")
    ap.add_argument("--out", metavar="DIR",
                    help="the robot's dir: scans, mails, triage summaries")
    ap.add_argument("--from", dest="start", metavar="REV",
                    help="a branch seen for the first time: scan REV..its "
                    "head (default: record its head, scan later pushes)")
    ap.add_argument("--poll", type=float, default=DEFAULT_POLL,
                    metavar="SECONDS", help="seconds between looks at the "
                    "branches (default: %(default)s)")
    ap.add_argument("--once", action="store_true",
                    help="scan what is queued and new, then exit")
    ap.add_argument("--name", help="this robot's name in the store "
                    "(default: HOST:PID)")
    ap.add_argument("--lease", type=float, default=ledger.LEASE,
                    metavar="SECONDS", help="a robot silent this long "
                    "loses its range and leases (default: %(default)s)")
    ap.add_argument("--db", metavar="URL", help="the store (default: "
                    "$JLBENCH_DB, else the cache's jlbench.db)")
    ap.add_argument("--db-wait", type=float, default=DEFAULT_DB_WAIT,
                    metavar="SECONDS", help="how long to retry a store "
                    "that does not answer (default: %(default)s)")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--points", type=int, metavar="K",
                     help="sample K commits of each range (default: 5)")
    how.add_argument("--every", type=int, metavar="N",
                     help="sample every N-th commit of each range")
    bisection.add_step_options(ap, workload=(
        "NAME[,NAME...]|suite", "what the guest runs, as bench/scan's "
        "--workload"))
    args = ap.parse_args(argv)
    if args.kick and not args.out:
        ap.error("--kick needs --out DIR: the robot's dir")
    if args.git:
        if not args.branch:
            ap.error("--branch NAME is needed (again for several)")
        if not args.out:
            ap.error("--out DIR is needed")
        if args.poll <= 0 or args.lease <= 0:
            ap.error("--poll and --lease take seconds > 0")
        args.workloads = scanmain.names(ap, args.workload)
        for w in args.workloads:
            bisection.check_step_options(ap, scanmain.of(args, w))
    return args


class Robot(steps.Ledger):
    """One robot: its branches, its dir, its store; the ledger of the
    steps its scans and rechecks measure."""

    def __init__(self, args, say, measure=None):
        """measure(search, i): a step's entry instead of building and
        running the commit (tests give stand-ins)."""
        super().__init__(args.db, args.name, args.lease)
        git = args.git
        self.repo = os.path.abspath(git) if os.path.exists(git) else git
        self.branches = args.branch
        self.out = os.path.abspath(args.out)
        self.db_wait = args.db_wait
        self.poll_every, self.first = args.poll, args.start
        self.on, self.say, self.measure = args.on, say, measure
        self.opts = {}
        for w in args.workloads:
            o = bisection.step_options(scanmain.of(args, w), say)
            if args.every:
                o["every"] = args.every
            else:
                o["points"] = args.points or 5
            self.opts[w] = o
        self.doing = "starting"
        self.missing = set()        # branches said to be missing
        self.seen_kick = self.kicked()

    # -- the store ----------------------------------------------------

    def db(self, fn, *args, **kw):
        """fn(store, *args, **kw) on a connection of its own, tried again
        while the store cannot be reached (--db-wait seconds), then Stop."""
        t0, said = time.monotonic(), False
        while True:
            try:
                with store.connect(self.url) as db:
                    return fn(db, *args, **kw)
            except UNAVAILABLE as e:
                waited = time.monotonic() - t0
                if waited >= self.db_wait:
                    raise bisection.Stop(
                        "the store %s has not answered for %d s (%s): "
                        "stopping; the queue and every step done are kept "
                        "there, and the same command resumes once it is "
                        "back" % (describe(self.url or store.default_url()),
                                  waited, str(e).strip().splitlines()[0]))
                if not said:
                    self.say("the store does not answer (%s): trying again "
                             "for up to %d s" % (str(e).strip().splitlines()
                                                 [0], self.db_wait))
                    said = True
                time.sleep(min(5.0, max(0.5, self.db_wait / 20)))

    # -- the branches -------------------------------------------------

    def git(self, *args):
        p = subprocess.run(["git", "-C", self.repo] + list(args),
                           capture_output=True, text=True, check=False)
        return p.stdout.strip() if p.returncode == 0 else None

    def poll(self):
        """Queue every branch's new range."""
        for b in self.branches:
            head = self.git("rev-parse", "--verify", "-q",
                            "refs/heads/%s^{commit}" % b) or \
                self.git("rev-parse", "--verify", "-q", b + "^{commit}")
            if head is None:
                if b not in self.missing:
                    self.say("%s: no such branch in %s (yet)" % (
                        b, self.repo))
                self.missing.add(b)
                continue
            self.missing.discard(b)
            last = self.db(ledger.last_head, self.repo, b)
            if head == last:
                continue
            base, note = self.base_of(last, head)
            rid = self.db(ledger.queue, self.repo, b, last, head, base, note)
            if rid:
                self.say("%s: %s..%s queued as range %d%s" % (
                    b, base[:12], head[:12], rid, "; " + note if note
                    else ""))
            elif last is None and base is None:
                self.say("%s: watching from %s; every push after it is "
                         "scanned" % (b, head[:12]))
            elif note:
                self.say("%s: %s" % (b, note))

    def base_of(self, last, head):
        """(the base of the range that ends at head, after last was
        queued; a note), base None when there is nothing to scan."""
        if last is None:
            if self.first is None:
                return None, ""
            base = self.git("rev-parse", "--verify", "-q",
                            self.first + "^{commit}")
            if base is None:
                raise bisection.Stop("--from %s: no such commit in %s" % (
                    self.first, self.repo))
            return base, ""
        if self.git("merge-base", "--is-ancestor", last, head) is not None:
            return last, ""
        mb = self.git("merge-base", last, head)
        if not mb:
            return None, ("force-pushed onto a history that does not hold "
                          "%s: nothing to scan from; watching from %s" % (
                              last[:12], head[:12]))
        return mb, ("force-pushed: %s is no longer on the branch; scanned "
                    "from the merge base %s" % (last[:12], mb[:12]))

    # -- the work -----------------------------------------------------

    def mine(self):
        return {(self.repo, b) for b in self.branches}

    def work(self):
        """Scan the next range of the queue; False when there is none to
        take now."""
        r = self.db(ledger.take_range, self.holder, self.lease, self.mine())
        if r is None:
            return False
        self.scan_range(r)
        return True

    def scan_range(self, r):
        d = r["dir"] or os.path.join(self.out, mail.safe(r["branch"]),
                                     "range-%d" % r["id"])
        if not r["dir"]:
            self.db(ledger.set_range, r["id"], dir=d)
        what = "range %d (%s %s..%s)" % (r["id"], r["branch"],
                                         r["base"][:12], r["head"][:12])
        self.say("%s: %s in %s" % (what, "resumed" if r["resumed"]
                                   else "scanning", d))
        self.doing = what
        try:
            source = bisection.GitRange(r["repo"], r["base"], r["head"],
                                        self.on)
            parts = scan.Workloads(d, source, self.opts,
                                   ledger=self).scan()
            scanmain.finish(d, parts, url=self.url)
            note = life.settle(self, r, d)
        except bisection.BadRange as e:
            self.db(ledger.set_range, r["id"], state="failed",
                    note="; ".join(x for x in (r["note"], str(e)) if x))
            self.say("%s failed: %s; going on" % (what, e))
            return
        self.db(ledger.set_range, r["id"], state="done",
                note="; ".join(x for x in (r["note"], note) if x))
        self.say("%s done: %s" % (what, note))

    def step(self, search, i, measure):
        """Step i of search through the ledger; a commit that does not
        run is untestable (skipped, as git bisect skip does)."""
        def guarded(i):
            try:
                return self.measure(search, i) if self.measure \
                    else measure(i)
            except bisection.Untestable as x:
                name, _, rev = search.cands[i]
                return {"event": "step", "i": i, "variant": name,
                        "revision": rev, "decision": "skip",
                        "why": "did not run: %s" % x}
        return super().step(search, i, guarded)

    def before(self, search, i):
        """Room in the cache for step i of search, and say it is in
        flight (with its ETA) in the heartbeat."""
        self.room()
        name, _, rev = search.cands[i]
        left = search.seconds_left()
        eta = "" if left is None else ", ETA %s" % ledger.utc(
            time.time() + left)
        self.doing = "%s: measuring %s (%s)%s" % (
            os.path.relpath(search.out, self.out), name, rev, eta)

    def room(self):
        """Make room for a step in the cache (a trim to its bound), or
        stop (DiskFull)."""
        cache = hostinfo.cache_dir()
        os.makedirs(cache, exist_ok=True)
        free = shutil.disk_usage(cache).free
        if free >= MIN_FREE:
            return
        bounded = bool(kcache.limit())
        if bounded:
            self.say("the cache's disk has %.1f GB free: trimming the cache "
                     "to its bound" % (free / 1e9))
            subprocess.run([os.path.join(bisection.ROOT, "lib", "kcache.py"),
                            "trim"], check=False)
            free = shutil.disk_usage(cache).free
            if free >= MIN_FREE:
                self.say("the trim left %.1f GB free: going on" % (free / 1e9))
                return
        raise DiskFull(
            "the cache's disk (%s) has %.1f GB free, less than the %.0f GB "
            "a step needs%s: stopping; the queue is kept, and the same "
            "command resumes the range once there is room" % (
                cache, free / 1e9, MIN_FREE / 1e9,
                ", after a trim to %s's bound" % kcache.LIMIT_VAR if bounded
                else " (%s=0: no bound to trim to)" % kcache.LIMIT_VAR))

    # -- the loop -----------------------------------------------------

    def kicked(self):
        try:
            return os.stat(os.path.join(self.out, KICK)).st_mtime_ns
        except OSError:
            return 0

    def wait(self):
        """Sleep --poll seconds, or until kicked."""
        end = time.monotonic() + self.poll_every
        self.doing = "idle: next look at the branches at %s" % \
            ledger.utc(time.time() + self.poll_every)
        while time.monotonic() < end:
            k = self.kicked()
            if k != self.seen_kick:
                self.seen_kick = k
                self.say("kicked: looking at the branches now")
                return
            time.sleep(min(1.0, max(0.05, end - time.monotonic())))

    def run(self, once=False):
        self.start()
        self.say("%s watching %s (%s); dir %s" % (
            self.holder, self.repo, ", ".join(self.branches), self.out))
        try:
            while True:
                self.poll()
                if self.work():
                    continue
                if not once:
                    self.wait()
                elif not self.db(ledger.pending, self.mine()):
                    return cli.OK
                else:
                    # another robot scans this branch's range before
                    self.doing = "waiting for another robot's range"
                    time.sleep(min(5.0, self.lease / 4))
        except BaseException:
            self.stop(release=True)
            raise
        finally:
            self.stop(release=False)


def show_status(url):
    """Print what the store's robots do: --status."""
    with store.connect(url) as db:
        st = ledger.status(db)
    out = ["robots:"]
    for r in st["robots"]:
        out.append("  %s (pid %s): heartbeat %s ago: %s" % (
            r["holder"], r["pid"], ago(r["age"]), r["doing"] or "-"))
    if not st["robots"]:
        out.append("  none has run on this store")
    out.append("queue:")
    out += ["  %s since %s" % (range_text(r), (
        "%s by %s" % (r["started_utc"], r["holder"]) if r["state"] ==
        "running" else r["queued_utc"])) for r in st["queue"]] or ["  empty"]
    out.append("done (newest first):")
    out += ["  %s at %s: %s" % (range_text(r), r["finished_utc"], r["note"])
            for r in st["done"]] or ["  none yet"]
    cli.safe_write(sys.stdout, "\n".join(out) + "\n")


def range_text(r):
    """A range row as --status names it."""
    return "range %d: %s %s..%s %s" % (r["id"], r["branch"], r["base"][:12],
                                       r["head"][:12], r["state"])


def ago(seconds):
    return "%d s" % seconds if seconds < 120 else "%d min" % (seconds / 60)


def main(argv):
    args = parse(argv)
    if args.status:
        try:
            show_status(args.db)
        except store.StoreError as e:
            print("jlbench watch: %s" % e, file=sys.stderr)
            return cli.FAILED
        return cli.OK
    if args.kick:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, KICK), "a"):
            pass
        os.utime(os.path.join(args.out, KICK))
        return cli.OK
    cli.catch_ctrl_c()
    # systemd's stop: as Ctrl-C (the step's command stops as it does)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    say = bisection.Say.of_dir("watch", args.out)
    os.makedirs(args.out, exist_ok=True)
    try:
        return Robot(args, say).run(once=args.once)
    except bisection.Stop as e:
        say(str(e))
        return cli.FAILED
    except (KeyboardInterrupt, bisection.Interrupted):
        say("stopped: a range in flight is queued again, and the next "
            "robot resumes it at the step")
        return cli.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
