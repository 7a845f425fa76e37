"""The results store: every results dir, bisection and scan in one
database, for questions across runs (docs/store.md).

The results dirs stay the record; the store is made from them and can
always be made again (`jlbench db rebuild`). Its schema is written once
(schema.py) for two backends (backend.py): SQLite, the default, a file
in the cache, and PostgreSQL, a server several machines share.
read.py reads a results dir whole (searches.py a bisection's or scan's
log), ingest.py writes it in one transaction, query.py answers;
`lib/store/db` (`jlbench db`) is the command.

The API (each function takes url=None: --db's URL, else $JLBENCH_DB,
else the SQLite file jlbench.db in $JLBENCH_CACHE, or
${XDG_CACHE_HOME:-$HOME/.cache}/jlbench):

    from lib import store
    store.record(dir)               # ingest a dir and what it holds, best
                                    # effort: never raises, warns naming
                                    # `jlbench db rebuild` on failure
    store.history(workload, metric, label=None)
                                    # [row] per run, oldest first: harness,
                                    # kernel, mean [ci], change [ci], marker
    store.newest_two(label)         # {workload: [newer path, older path]}
    store.comparisons(run)          # [row] of summary.csv + stats.json
    store.profile(run, label)       # [row] per function: per_try, per_op
    store.findings(state="open")    # open = new + confirmed; or a state,
                                    # or "all"

and with a connection of one's own (a context manager):

    with store.connect(url) as db:
        ingest.ingest(db, dir); ingest.rebuild(db, root)
        query.history(db, ...); query.set_state(db, id, state, note)

A run is named by its path relative to the results root
(`20261206T223428Z-7bf1103`, `.../suite/pipe/20261206T225215Z-7bf1103`),
as the store's run.path holds it. connect() raises StoreError (with what
to do) when the database cannot be opened or is of another schema
version.
"""
from lib.store import ingest as _ingest
from lib.store import query as _query
from lib.store.backend import Store, StoreError, default_url

__all__ = ["Store", "StoreError", "connect", "default_url", "record",
           "history", "newest_two", "comparisons", "profile", "findings"]


def connect(url=None):
    """A Store at url (default_url() when None), its schema made when
    new, migrated when older by known steps; StoreError otherwise."""
    db = Store(url)
    try:
        db.prepare()
    except BaseException:
        db.close()
        raise
    return db


def record(path, url=None, root=None, warn=_ingest.say):
    """Ingest the dir at path (and every results dir and search under
    it) into the store, best effort: whatever goes wrong is a warning
    naming `jlbench db rebuild`, never an exception, so that the command
    that made the dir does not fail for it. {outcome: count}, or None."""
    try:
        with connect(url) as db:
            counts = _ingest.ingest(db, path, root=root, warn=warn)
        if counts.get("skipped"):
            warn("warning: %s was not all recorded in the store (above): "
                 "`jlbench db rebuild` makes it again" % path)
        return counts
    except Exception as e:
        warn("warning: could not record %s in the store %s: %s; `jlbench "
             "db rebuild` makes it again from the results dirs"
             % (path, url or default_url(), e))
        return None


def _with(fn):
    def call(*args, url=None, **kw):
        with connect(url) as db:
            return fn(db, *args, **kw)
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


history = _with(_query.history)
newest_two = _with(_query.newest_two)
comparisons = _with(_query.comparisons)
profile = _with(_query.profile)
findings = _with(_query.findings)
