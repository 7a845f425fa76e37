"""A finding's life after the scan that found it (jlbench watch).

- A change that undoes a confirmed regression of the branch fixes it:
  the regression becomes `fixed` and the change `fix`, each note naming
  the other. It undoes it when the metric is back within the floor of
  the regression's parent's figure, or when its change against its own
  parent is the regression's reversed, to within the floor (a revert
  after other changes landed).
- Any other new finding is measured again, the commit and its parent,
  on perturbation seeds the scan did not use (a Recheck in the range's
  dir, recheck-SHA/), and becomes `confirmed` when that second
  measurement changes the metric the same way beyond the floor, else
  `not-confirmed`; its note has both figures.
- States a person set are left alone: only a `new` finding is settled,
  and only a `confirmed` regression is marked fixed.

Then each confirmed finding of the range gets its mail (DIR/mail/
BRANCH_range-ID_cSHA.mbox) and the range its triage summary (its dir's
triage.md).
"""
import json
import os
import statistics

from analysis.sections import fmt
from bench.bisection import bisection, ledger
from bench.bisection.bisection import decide
from bench.robot import mail
from lib.store import ingest, query

# the plan seed of a recheck: the scan's plus this (bench/run draws each
# plan's perturbation seeds from its plan seed: other seeds)
RECHECK_SEED = 1000


class Recheck(ledger.Steps, bisection.Bisection):
    """A finding's commit and its parent measured again (candidates 0, 1)."""
    LOG = "recheck.log"
    WHAT = "recheck"
    WHAT_SAYS = "watch"


def where(path):
    """The absolute path of a path as the store keeps it."""
    return path if os.path.isabs(path) else os.path.join(ingest.RESULTS,
                                                         path)


def under(path, d):
    """Whether the store's path is the dir d or in it."""
    p, d = where(path), os.path.realpath(d)
    return p == d or p.startswith(d + os.sep)


def of_range(db, d):
    """The findings of the searches in dir d (store rows with state),
    in search and commit order."""
    return sorted((f for f in query.findings(db, state="all")
                   if under(f["search"], d)),
                  key=lambda f: (f["search_id"], f["i"] or 0))


def values(db, search_id, i):
    """{seed: figure} of a search's step i."""
    return {r["seed"]: r["value"] for r in db.query(
        "SELECT seed, value FROM step_value WHERE search_id = ? AND i = ?",
        [search_id, i]) if r["value"] is not None}


def undoes(db, f, r, floor):
    """How finding f undoes regression r (a line), or None."""
    x, xp = values(db, f["search_id"], f["i"]), values(db, f["search_id"],
                                                       f["i"] - 1)
    y, yp = values(db, r["search_id"], r["i"]), values(db, r["search_id"],
                                                       r["i"] - 1)
    if not (x and xp and y and yp):
        return None
    decision, comp = decide(x, yp, 0, floor)
    if decision == "good":
        return "%s is back within the floor (%.2f points) of its figure " \
            "before the regression: %s" % (f["metric"], floor,
                                           fmt.pct_ci(comp, 3))
    seeds = sorted(set(x) & set(xp) & set(y) & set(yp))
    if not seeds:
        return None
    dx = statistics.median(x[s] - xp[s] for s in seeds)
    dy = statistics.median(y[s] - yp[s] for s in seeds)
    rest = statistics.median((x[s] - xp[s]) + (y[s] - yp[s])
                             for s in seeds)
    base = statistics.median(yp[s] for s in seeds)
    if dx * dy < 0 and base and abs(rest) / abs(base) * 100 <= floor:
        return "its change against its parent is the regression's, " \
            "reversed, to within the floor (%.2f points): %+.3f%% is left" \
            % (floor, rest / base * 100)
    return None


def fixes(db, f, branch_dir):
    """(the confirmed regression of the branch that finding f undoes,
    how), or (None, None)."""
    if f["i"] is None or mail.kind_of_change(
            f["metric"], f["pct_change"]) == "regression":
        return None, None
    floor = db.scalar("SELECT floor_pct FROM search WHERE id = ?",
                      [f["search_id"]]) or 0.0
    for r in query.findings(db, state="confirmed"):
        if r["id"] == f["id"] or r["i"] is None or \
                (r["workload"], r["metric"]) != (f["workload"],
                                                 f["metric"]) or \
                mail.kind_of_change(r["metric"], r["pct_change"]) != \
                "regression" or not under(r["search"], branch_dir):
            continue
        how = undoes(db, f, r, floor)
        if how:
            return r, how
    return None, None


def recheck(robot, f, d):
    """Measure finding f's commit and parent again on new seeds: (state,
    note)."""
    search = robot.db(lambda db: db.query(
        "SELECT * FROM search WHERE id = ?", [f["search_id"]])[0])
    used = set(robot.db(values, f["search_id"], f["i"]))
    source = json.loads(search["source"])
    sha, parent = f["variant"][1:], f["parent"].split(" ")[0]
    opts = {k: v for k, v in robot.opts[f["workload"]].items()
            if k not in ("every", "points")}
    opts["seed"] += RECHECK_SEED
    rc = Recheck(os.path.join(d, "recheck-%s" % sha),
                 bisection.GitRange(source["repo"], parent, sha,
                                    source["on"]), opts)
    rc.ledger = robot
    a, b = rc.test(0), rc.test(1)
    if a is None or b is None:
        return "not-confirmed", "untestable when measured again (%s)" % rc.out
    if used & set(b):
        raise bisection.Stop("%s: the recheck's seeds %s are the scan's" % (
            rc.out, sorted(used & set(b))))
    way = 1 if (f["pct_change"] or 0) > 0 else -1
    decision, comp = decide(b, a, way, opts["floor_pct"])
    rc.write({"event": "end", "decision": decision, "vs_parent": comp})
    note = "measured again on %d new seeds (plan seed %d): %s; the " \
        "scan's: %s" % (comp["n"], opts["seed"], fmt.pct_ci(comp, 3),
                        fmt.pct_ci(f, 3))
    return ("confirmed" if decision == "bad" else "not-confirmed"), note


def settle(robot, r, d):
    """Settle the findings of range r's scan in dir d, write the mails of
    the confirmed ones and the range's triage summary; the range's note
    (one line)."""
    branch_dir = os.path.realpath(os.path.join(robot.out, os.path.basename(
        os.path.dirname(d))))
    told = {}

    def set_state(db, f, state, note):
        query.set_state(db, f["ref"], state, note)
        told[state] = told.get(state, 0) + 1
        robot.say("%s (%s): %s: %s" % (f["revision"], f["workload"], state,
                                       note))

    for f in robot.db(of_range, d):
        if f["state"] != "new" or f["i"] is None:
            continue
        fixed, how = robot.db(fixes, f, branch_dir)
        if fixed is not None:
            robot.db(set_state, fixed, "fixed", "fixed by %s (finding %s): "
                     "%s" % (f["revision"], f["ref"], how))
            robot.db(set_state, f, "fix", "fixes the regression of %s "
                     "(finding %s)" % (fixed["revision"], fixed["ref"]))
            continue
        robot.doing = "measuring %s again on new seeds" % f["revision"]
        state, note = recheck(robot, f, d)
        robot.db(set_state, f, state, note)
    mails = robot.db(write_mails, r, d, robot.out)
    parts = ["%d %s" % (n, s) for s, n in sorted(told.items())]
    return "%s; %d mail(s)%s" % (", ".join(parts) or "no finding",
                                 len(mails), " in %s" % os.path.dirname(
                                     mails[0]) if mails else "")


def write_mails(db, r, d, out):
    """The mails of range r's confirmed findings (out/mail/
    BRANCH_range-ID_cSHA.mbox) and its triage summary (d/triage.md); the
    mails' paths."""
    found = of_range(db, d)
    searches = {s["id"]: s for s in db.query("SELECT * FROM search")}
    paths = []
    for f in found:
        if f["state"] == "confirmed":
            os.makedirs(os.path.join(out, "mail"), exist_ok=True)
            name = "%s:%s" % (os.path.relpath(where(f["search"]), out),
                              f["variant"])
            p = os.path.join(out, "mail", mail.safe(name) + ".mbox")
            mail.write_mbox(p, [mail.message(f, searches[f["search_id"]],
                                             r["branch"])])
            paths.append(p)
    with open(os.path.join(d, "triage.md"), "w") as fh:
        fh.write("\n".join(mail.triage(s, [
            f for f in found if f["search_id"] == sid], r["branch"])
            for sid, s in sorted(searches.items()) if under(s["path"], d)))
    return paths
