"""The robot's state in the store (bench/robot, `jlbench watch`): the
branches it watches, the queue of ranges, the lease on each commit it
measures and its heartbeat.

Several robots may share one store (SQLite on one machine, PostgreSQL
for a team). Every decision that two of them could both make, queueing
a push, taking a range, taking a commit, is one transaction that reads
and writes the row it decides on (Store.write: SQLite's BEGIN IMMEDIATE
serialises writers; on PostgreSQL a lost race is a unique-key conflict
or a row that changed under it, and the write is tried again). A robot
holds what it took while its heartbeat is younger than the lease; after
that another robot (or the same one started again) takes it over.
"""
import json
import os
import socket
import time

# a robot's heartbeat is older than this many seconds: its leases are free
LEASE = 120.0


def utc(t=None):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def default_holder():
    """A robot's default name: HOST:PID."""
    return "%s:%d" % (socket.gethostname(), os.getpid())


def beat(db, holder, doing=None, pid=0):
    """Record holder's heartbeat now (and what it is doing, when given)."""
    def write(s):
        row = s.query("SELECT doing FROM robot_beat WHERE holder = ?",
                      [holder])
        if row:
            s.execute("UPDATE robot_beat SET beat = ?, doing = ? WHERE "
                      "holder = ?", [time.time(), row[0]["doing"]
                                     if doing is None else doing, holder])
        else:
            s.insert("robot_beat", {
                "holder": holder, "host": socket.gethostname(), "pid": pid,
                "started_utc": utc(), "beat": time.time(),
                "doing": doing or ""})
    db.write(write)


def alive(s, holder, lease):
    """Whether holder's heartbeat is younger than lease seconds (and, for
    a robot of this host, whether its process is still there: one killed
    here is taken over at once)."""
    rows = s.query("SELECT host, pid, beat FROM robot_beat WHERE holder = ?",
                   [holder])
    if not rows or time.time() - (rows[0]["beat"] or 0) >= lease:
        return False
    if rows[0]["host"] == socket.gethostname() and rows[0]["pid"]:
        try:
            os.kill(rows[0]["pid"], 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
    return True


def last_head(db, repo, branch):
    """The newest head of branch queued, None before the first."""
    return db.scalar("SELECT head FROM robot_branch WHERE repo = ? AND "
                     "branch = ?", [repo, branch])


def queue(db, repo, branch, last, head, base, note=""):
    """Queue base..head of branch, if its last queued head is still last
    (another robot may have queued this push first); the range's id, or
    None when nothing was queued. last None: the first head seen, which
    is only recorded (base None) or queued from base."""
    def write(s):
        now = s.scalar("SELECT head FROM robot_branch WHERE repo = ? AND "
                       "branch = ?", [repo, branch])
        if now != last:
            return None
        if last is None:
            s.insert("robot_branch", {"repo": repo, "branch": branch,
                                      "head": head, "changed_utc": utc()})
        else:
            s.execute("UPDATE robot_branch SET head = ?, changed_utc = ? "
                      "WHERE repo = ? AND branch = ?",
                      [head, utc(), repo, branch])
        if base is None or base == head:
            return None
        s.execute("INSERT INTO robot_range (repo, branch, base, head, state, "
                  "note, queued_utc) VALUES (?, ?, ?, ?, 'queued', ?, ?) ON "
                  "CONFLICT DO NOTHING",
                  [repo, branch, base, head, note, utc()])
        return s.scalar("SELECT id FROM robot_range WHERE repo = ? AND "
                        "branch = ? AND base = ? AND head = ?",
                        [repo, branch, base, head])
    return db.write(write)


def take_range(db, holder, lease=LEASE, branches=None):
    """The next range for holder to scan, marked running by it: a
    branch's ranges are scanned in order, one at a time (a later range
    settles its findings against the earlier ones': a fix needs its
    regression confirmed), so only each branch's oldest range not done
    is a candidate: taken when queued, when holder itself was scanning
    it (started again under the same name), or when its robot's
    heartbeat stopped. None: nothing to take now. branches: {(repo,
    branch)} to take from (None: any)."""
    def write(s):
        rows = s.query("SELECT * FROM robot_range WHERE state IN "
                       "('queued', 'running') ORDER BY id")
        first = {}
        for r in rows:
            first.setdefault((r["repo"], r["branch"]), r)
        for (repo, branch), r in sorted(first.items(),
                                        key=lambda x: x[1]["id"]):
            if branches is not None and (repo, branch) not in branches:
                continue
            if r["state"] == "running" and r["holder"] != holder and \
                    alive(s, r["holder"], lease):
                continue
            s.execute("UPDATE robot_range SET state = 'running', holder = ?, "
                      "started_utc = ? WHERE id = ?", [holder, utc(),
                                                       r["id"]])
            r.update(state="running", holder=holder,
                     resumed=r["state"] == "running")
            return r
        return None
    return db.write(write)


def pending(db, branches):
    """How many ranges of branches ({(repo, branch)}) are not done."""
    return sum(1 for r in db.query(
        "SELECT repo, branch FROM robot_range WHERE state IN ('queued', "
        "'running')") if (r["repo"], r["branch"]) in branches)


def set_range(db, rid, **cols):
    """Update a range's columns (dir, note, state: finished_utc is set
    with an end state)."""
    if cols.get("state") in ("done", "failed"):
        cols["finished_utc"] = utc()
    names = sorted(cols)
    db.write(lambda s: s.execute("UPDATE robot_range SET %s WHERE id = ?" % (
        ", ".join("%s = ?" % c for c in names)),
        [cols[c] for c in names] + [rid]))


def take_step(db, key, holder, lease=LEASE, usable=lambda entry: True):
    """Take the lease on the step key for holder: ("done", its entry)
    when a robot measured it, ("mine", None) when holder is to measure
    it now, ("busy", the other robot) while that one holds it alive. A
    done step whose entry is of no use (usable(entry) false: its results
    dir is gone) is leased to holder as one never measured, so that no
    other robot measures it again beside holder."""
    def write(s):
        rows = s.query("SELECT * FROM robot_step WHERE step_key = ?", [key])
        if not rows:
            s.insert("robot_step", {"step_key": key, "holder": holder,
                                    "state": "leased", "entry": "",
                                    "changed_utc": utc()})
            return "mine", None
        r = rows[0]
        if r["state"] == "done":
            entry = json.loads(r["entry"])
            if usable(entry):
                return "done", entry
        elif r["holder"] != holder and alive(s, r["holder"], lease):
            return "busy", r["holder"]
        s.execute("UPDATE robot_step SET holder = ?, state = 'leased', "
                  "changed_utc = ? WHERE step_key = ?", [holder, utc(), key])
        return "mine", None
    return db.write(write)


def finish_step(db, key, holder, entry):
    """Record the step key measured by holder: entry, its log entry."""
    db.write(lambda s: s.execute(
        "UPDATE robot_step SET state = 'done', holder = ?, entry = ?, "
        "changed_utc = ? WHERE step_key = ?",
        [holder, json.dumps(entry, sort_keys=True), utc(), key]))


def done_step(db, key, usable=lambda entry: True):
    """The entry of step key when a robot measured it and usable(entry),
    else None (a read: no lease is taken)."""
    rows = db.query("SELECT entry FROM robot_step WHERE step_key = ? AND "
                    "state = 'done'", [key])
    if not rows:
        return None
    entry = json.loads(rows[0]["entry"])
    return entry if usable(entry) else None


def record_step(db, key, holder, entry):
    """Record entry, a step measured by holder, under a second key."""
    def add(s):
        if not s.query("SELECT 1 FROM robot_step WHERE step_key = ?", [key]):
            s.insert("robot_step", {"step_key": key, "holder": holder,
                                    "state": "leased", "entry": "",
                                    "changed_utc": utc()})
    db.write(add)
    finish_step(db, key, holder, entry)


def status(db, done=10):
    """What the robots sharing db do: {"robots": [beat rows, each with
    "age": seconds since its heartbeat], "queue": [queued and running
    ranges, oldest first], "done": [the last done or failed ranges,
    newest first]}."""
    robots = db.query("SELECT * FROM robot_beat ORDER BY holder")
    for r in robots:
        r["age"] = time.time() - (r["beat"] or 0)
    return {"robots": robots,
            "queue": db.query("SELECT * FROM robot_range WHERE state IN "
                              "('queued', 'running') ORDER BY id"),
            "done": db.query("SELECT * FROM robot_range WHERE state IN "
                             "('done', 'failed') ORDER BY id DESC LIMIT ?",
                             [done])}


def release(db, holder):
    """Give back what holder took and did not finish (it stops cleanly):
    its running ranges are queued again, its leased steps free."""
    def write(s):
        s.execute("UPDATE robot_range SET state = 'queued', holder = '' "
                  "WHERE state = 'running' AND holder = ?", [holder])
        s.execute("DELETE FROM robot_step WHERE state = 'leased' AND "
                  "holder = ?", [holder])
        s.execute("UPDATE robot_beat SET doing = 'stopped' WHERE holder = ?",
                  [holder])
    db.write(write)
