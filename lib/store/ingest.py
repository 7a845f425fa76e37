"""Ingest: results dirs and searches into the store, one transaction per
dir, idempotent.

A dir is keyed by its path relative to the results root and a content
hash of its runs.csv, meta.json, stats.json and summary.csv (a search:
of its log): the same dir twice adds nothing, a changed one has its rows
replaced in the same transaction that writes the new ones. A dir is read
whole before its transaction begins (lib/store/read.py, searches.py), so
a damaged or partial one (no meta.json, an unreadable runs.csv,
truncated JSON) is named on stderr and skipped, never half-ingested; a
process killed
mid-ingest leaves the store as it was before that dir (the transaction,
and SQLite's write-ahead log). rebuild() makes the store again from
every dir under a root, keeping the finding states people set.
"""
import os
import sys
import time

from lib import ROOT
from lib.log import duration
from lib.store import read, searches

RESULTS = os.path.join(ROOT, "results")


def say(message):
    """A log line of the store on stderr (the jlbench format)."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    sys.stderr.write("%s store: %s\n" % (stamp, message))
    sys.stderr.flush()


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _kernel(s, k):
    """The id of kernel row k (by build hash and variant), filling in a
    .config hash it lacked."""
    key = {c: k[c] for c in ("build_hash", "variant")}
    kid = s.scalar("SELECT id FROM kernel WHERE build_hash = ? AND "
                   "variant = ?", list(key.values()))
    if kid is None:
        return s.get_or_create("kernel", k)
    if k["config_hash"]:
        s.execute("UPDATE kernel SET config_hash = ? WHERE id = ? AND "
                  "config_hash = ''", [k["config_hash"], kid])
    return kid


def _write_run(rec):
    """fn(store) that writes a results dir's record in its transaction:
    'added', 'replaced' or 'unchanged' (another writer got there)."""
    run = rec["run"]

    def write(s):
        old = s.scalar("SELECT content_hash FROM run WHERE path = ?",
                       [run["path"]])
        if old == run["content_hash"]:
            return "unchanged"
        if old is not None:
            s.execute("DELETE FROM run WHERE path = ?", [run["path"]])
        hid = s.get_or_create("harness", rec["harness"])
        rid = s.insert("run", dict(run, harness_id=hid,
                                   ingested_utc=_now()), returning=True)
        s.insert_many("run_kernel", ("run_id", "variant", "kernel_id"),
                      [(rid, v, _kernel(s, k)) for v, k in rec["kernels"]])
        s.insert_many("figure", (
            "run_id", "line", "plan_index", "label", "variant", "seed",
            "try", "status", "excluded", "metric", "value", "text"),
            [(rid,) + f for f in rec["figures"]])
        s.insert_many("profile", (
            "run_id", "label", "function", "metric", "per_try", "per_op",
            "n", "tries"), [(rid,) + p for p in rec["profiles"]])
        if rec["comparisons"]:
            cols = list(rec["comparisons"][0])
            s.insert_many("comparison", ["run_id"] + cols, [
                (rid,) + tuple(c[k] for k in cols)
                for c in rec["comparisons"]])
        return "replaced" if old is not None else "added"
    return write


def _rows(rows, sid):
    """(columns, tuples) of dict rows with search_id first."""
    if not rows:
        return [], []
    cols = list(rows[0])
    return ["search_id"] + cols, [(sid,) + tuple(r[c] for c in cols)
                                  for r in rows]


def _write_search(rec):
    search = rec["search"]

    def write(s):
        old = s.scalar("SELECT content_hash FROM search WHERE path = ?",
                       [search["path"]])
        if old == search["content_hash"]:
            return "unchanged"
        if old is not None:
            s.execute("DELETE FROM search WHERE path = ?", [search["path"]])
        sid = s.insert("search", dict(search, ingested_utc=_now()),
                       returning=True)
        for table, rows in (("step", rec["steps"]),
                            ("decision", rec["decisions"]),
                            ("finding", rec["findings"])):
            s.insert_many(table, *_rows(rows, sid))
        s.insert_many("step_value", ("search_id", "i", "seed", "value"),
                      [(sid,) + v for v in rec["values"]])
        return "replaced" if old is not None else "added"
    return write


def ingest_one(store, kind, path, root, warn=say):
    """Ingest one dir of walk()'s: 'added', 'replaced', 'unchanged' or
    'skipped' (damaged: named through warn)."""
    rel = read.rel_path(path, root)
    table, names = ("run", read.RUN_FILES) if kind == "run" else (
        "search", None)
    if names is None:
        names = [n for n in read.SEARCH_LOGS
                 if os.path.isfile(os.path.join(path, n))][:1]
    if store.scalar("SELECT content_hash FROM %s WHERE path = ?" % table,
                    [rel]) == read.content_hash(path, names):
        return "unchanged"
    try:
        if kind == "run":
            fn = _write_run(read.read_run(path, rel))
        else:
            fn = _write_search(searches.read_search(path, rel))
    except read.Damaged as e:
        warn("skipped %s: %s" % (path, e))
        return "skipped"
    return store.write(fn)


def ingest(store, path, root=None, warn=say):
    """Ingest the dir at path and every results dir and search under it
    (a suite's runs, a search's steps); {outcome: count}. root: the
    results root paths are relative to (default: the checkout's
    results/)."""
    root = RESULTS if root is None else root
    counts = {}
    if not os.path.isdir(path):
        warn("skipped %s: not a directory" % path)
        return {"skipped": 1}
    for kind, d in read.walk(path):
        outcome = ingest_one(store, kind, d, root, warn)
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def rebuild(store, root=None, warn=say, progress=None):
    """Make the store again from every dir under root (default: the
    checkout's results/): every table but the finding states emptied,
    then each dir ingested in path order. {outcome: count}."""
    root = RESULTS if root is None else root
    t0 = time.time()
    store.reset()
    dirs = read.walk(root)
    counts = {}
    for n, (kind, d) in enumerate(dirs, 1):
        outcome = ingest_one(store, kind, d, root, warn)
        counts[outcome] = counts.get(outcome, 0) + 1
        if progress:
            took = time.time() - t0
            progress("%d of %d dirs, %s, ETA %s" % (
                n, len(dirs), duration(took),
                duration(took / n * (len(dirs) - n))))
    return counts
