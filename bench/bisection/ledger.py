"""The steps ledger: a commit measured once serves every scan and robot
that shares the store (lib/store/robot.py's robot_step table).

A step of a git range (bench/scan, jlbench watch) is keyed by its commit
and the settings that make its figures (step_key()). Before measuring
one, a search takes its lease in the store: when another search already
measured it (its results dir still there), its figures are read from that
dir instead; while another holds the lease, alive, this one waits for
it. A lease lasts while its holder's heartbeat does (a thread of the
Ledger, every quarter lease), so that a search killed outright is taken
over by the next one that comes to the commit (at once on the same host,
whose processes can be asked).
"""
import os
import threading
import time

from lib import store
from lib.store import robot as ledger


def usable(entry):
    """Whether a step measured before can serve: its results dir (when it
    has one) is still there."""
    return not entry.get("results") or os.path.isdir(entry["results"])


def plan_key(opts):
    """What of a step's opts makes its figures beside the kernel: the
    config, the plan, the workload."""
    keep = ("config", "seeds", "seed", "seconds", "clients", "workload",
            "loops")
    return ",".join("%s=%s" % (k, opts[k]) for k in keep if k in opts)


def step_key(commit, opts, on):
    """The ledger's key of a commit measured with opts (what makes its
    figures: the kernel's config and variant, the plan, the workload)."""
    return "%s:%s,on=%s" % (commit, plan_key(opts), on)


def kernel_key(kernel, opts):
    """The ledger's second key of a step: the digest of what it booted
    (bisection.kernel_digest) and its plan."""
    return "kernel-%s:%s" % (kernel, plan_key(opts))


class Ledger:
    """One process's use of the ledger: its name, lease and heartbeat."""

    def __init__(self, url=None, holder=None, lease=ledger.LEASE):
        self.url = url
        self.holder = holder or ledger.default_holder()
        self.lease = lease
        self.doing = ""
        self.stopping = threading.Event()
        self.beater = None

    def db(self, fn, *args, **kw):
        """fn(store, *args, **kw) on a connection of its own."""
        with store.connect(self.url) as db:
            return fn(db, *args, **kw)

    # -- the heartbeat --------------------------------------------------

    def start(self):
        """Beat now, and every quarter lease until stop()."""
        if self.beater is None:
            self.db(ledger.beat, self.holder, self.doing, os.getpid())
            self.beater = threading.Thread(target=self.beating, daemon=True)
            self.beater.start()

    def beating(self):
        while not self.stopping.wait(max(0.5, self.lease / 4)):
            try:
                with store.connect(self.url) as db:
                    ledger.beat(db, self.holder, self.doing, os.getpid())
            except Exception:
                pass    # the searches say so when the store is gone

    def stop(self, release=True):
        """Stop the heartbeat; release: give back what this holder took
        and did not finish."""
        self.stopping.set()
        if self.beater is not None:
            self.beater.join(timeout=5)
        if release:
            try:
                with store.connect(self.url) as db:
                    ledger.release(db, self.holder)
            except Exception:
                pass

    # -- steps ------------------------------------------------------------

    def before(self, search, i):
        """Called before this holder measures step i of search."""

    def step(self, search, i, measure):
        """Search's step i: from the ledger when measured before with the
        same settings (and its results dir is still there), else
        measure(i) under the commit's lease; its entry."""
        name, _, rev = search.cands[i]
        key = step_key(search.source.commits[i], search.opts,
                       search.source.on)
        self.start()
        while True:
            got, entry = self.db(ledger.take_step, key, self.holder,
                                 self.lease, usable)
            if got == "done":
                return self.adopt(search, i, entry)
            if got != "busy":
                break
            self.doing = "waiting for %s, which measures %s" % (entry, name)
            time.sleep(min(5.0, self.lease / 4))
        self.before(search, i)
        e = measure(i)
        kept = dict(e)
        if kept.get("results"):
            kept["results"] = os.path.normpath(os.path.join(
                search.out, kept["results"]))
        self.db(ledger.finish_step, key, self.holder, kept)
        if kept.get("results") and kept.get("kernel") and \
                not kept.get("reused"):
            self.db(ledger.record_step, kernel_key(
                kept["kernel"], search.opts), self.holder, kept)
        return e

    def adopt(self, search, i, e):
        """Step i of search from the entry logged for the same commit
        and settings (its results dir absolute)."""
        return search.adopt(i, e, "measured before (%s)" % (
            e.get("results") or "no results dir"))

    def same_kernel(self, search, kernel):
        """The entry of a step of any search sharing the store that booted
        the same kernel and modules (kernel, their digest) with search's
        plan, or None."""
        return self.db(ledger.done_step, kernel_key(kernel, search.opts),
                       usable)


class Steps:
    """A Bisection (a Scan, a Recheck) whose steps go through a ledger
    (its attribute ledger; None: measured here, as always)."""
    ledger = None

    def measure(self, i):
        if self.ledger is None:
            return super().measure(i)
        return self.ledger.step(self, i, super().measure)

    def same_kernel(self, kernel):
        got = super().same_kernel(kernel)
        if got is None and self.ledger is not None:
            got = self.ledger.same_kernel(self, kernel)
        return got
