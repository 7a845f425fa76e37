"""The store's two backends behind one Store: SQLite (the default, a file
in the cache) and PostgreSQL (a shared server, through psycopg2).

The SQL is written once, with `?` parameters; sql() translates it for
psycopg2 in this one place. Writes go through Store.write(fn): fn(store)
runs in one transaction, which is retried from the start when the
database is busy (another SQLite writer holds the lock past the busy
timeout) or PostgreSQL aborts it (a serialization failure, a deadlock, or
a unique key another writer took first). A Store whose schema is of
another version is refused with a message naming `jlbench db rebuild`,
or migrated when schema.MIGRATIONS holds the steps.
"""
import io
import os
import random
import sqlite3
import time
from contextlib import contextmanager

from lib import hostinfo
from lib.store import schema

DB_VAR = "JLBENCH_DB"
DB_FILE = "jlbench.db"
BUSY_MS = 60000
RETRIES = 20
# PostgreSQL errors after which the transaction is tried again:
# serialization_failure, deadlock_detected, unique_violation (another
# writer inserted the same key first)
PG_RETRY = ("40001", "40P01", "23505")
# the PostgreSQL advisory lock under which the schema is made, migrated
# or reset (any constant of our own; SQLite's BEGIN IMMEDIATE is its lock)
SCHEMA_LOCK = 0x6a6c62


def back_off(attempt):
    """Wait before trying again (attempt: the tries so far - 1), longer
    each time, at random so that two waiting processes part."""
    time.sleep(random.uniform(0.01, 0.05) * (attempt + 1))


class StoreError(Exception):
    """The store cannot be used as it is; the message says what to do."""


class StoreUnavailable(StoreError):
    """The store could not be reached (a server down, a file locked):
    trying again later may work."""


def default_url(env=None):
    """$JLBENCH_DB, else the SQLite file jlbench.db in the cache
    (lib/hostinfo.cache_dir: $JLBENCH_CACHE, else
    ${XDG_CACHE_HOME:-$HOME/.cache}/jlbench)."""
    env = os.environ if env is None else env
    return env.get(DB_VAR) or os.path.join(hostinfo.cache_dir(env), DB_FILE)


def is_postgres(url):
    return url.startswith(("postgresql://", "postgres://"))


def sqlite_path(url):
    """The file of an SQLite url: sqlite:///abs/path, sqlite:path, or a
    plain path."""
    if url.startswith("sqlite://"):
        return url[len("sqlite://"):]
    if url.startswith("sqlite:"):
        return url[len("sqlite:"):]
    return url


def describe(url):
    """url without a password, for messages."""
    if is_postgres(url) and "@" in url.split("//", 1)[1].split("/", 1)[0]:
        scheme, rest = url.split("//", 1)
        auth, host = rest.split("@", 1)
        return "%s//%s@%s" % (scheme, auth.split(":", 1)[0], host)
    return url


class Store:
    """One connection to a store. connect() (lib/store/__init__.py) opens
    one with its schema checked; use it as a context manager."""

    def __init__(self, url=None):
        self.url = url or default_url()
        if is_postgres(self.url):
            try:
                import psycopg2
            except ImportError:
                raise StoreError("%s needs psycopg2: apt-get install "
                                 "python3-psycopg2 (lib/deps)" % describe(
                                     self.url))
            self.dialect = "postgresql"
            self._pg = psycopg2
            try:
                self.conn = psycopg2.connect(self.url)
            except psycopg2.Error as e:
                raise StoreUnavailable("cannot connect to %s: %s" % (
                    describe(self.url), str(e).strip()))
            self.conn.autocommit = True
        else:
            self.dialect = "sqlite"
            path = sqlite_path(self.url)
            parent = os.path.dirname(os.path.abspath(path))
            for attempt in range(RETRIES + 1):
                try:
                    self.conn = self._open_sqlite(path, parent)
                    break
                except (OSError, sqlite3.Error) as e:
                    # two processes opening a new file at once: the one
                    # that turns it to WAL may find it busy
                    if attempt == RETRIES or not self._transient(e):
                        raise StoreUnavailable("cannot open %s: %s" % (
                            path, e))
                back_off(attempt)
        self.in_transaction = False

    @staticmethod
    def _open_sqlite(path, parent):
        os.makedirs(parent, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_MS / 1000.0,
                               isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout = %d" % BUSY_MS)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            conn.close()
            raise
        return conn

    # -- plumbing ---------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def sql(self, text):
        """text's `?` parameters in the backend's style."""
        if self.dialect == "postgresql":
            return text.replace("%", "%%").replace("?", "%s")
        return text

    def execute(self, text, params=()):
        cur = self.conn.cursor()
        cur.execute(self.sql(text), tuple(params))
        return cur

    def query(self, text, params=()):
        """[{column: value}] of a SELECT."""
        cur = self.execute(text, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def scalar(self, text, params=()):
        row = self.execute(text, params).fetchone()
        return row[0] if row else None

    def insert(self, table, row, returning=False):
        """INSERT one row ({column: value}); its id when returning."""
        cols = list(row)
        text = "INSERT INTO %s (%s) VALUES (%s)%s" % (
            table, ", ".join(cols), ", ".join("?" for _ in cols),
            " RETURNING id" if returning else "")
        cur = self.execute(text, [row[c] for c in cols])
        return cur.fetchone()[0] if returning else None

    def insert_many(self, table, cols, rows):
        """INSERT rows (tuples in the order of cols), in batches."""
        if not rows:
            return
        cur = self.conn.cursor()
        if self.dialect == "postgresql":
            # COPY: a tenth of the time of INSERTs for a run's profile
            data = io.StringIO("".join(
                "\t".join(_text(v) for v in r) + "\n" for r in rows))
            cur.copy_expert("COPY %s (%s) FROM STDIN" % (
                table, ", ".join(cols)), data)
        else:
            cur.executemany("INSERT INTO %s (%s) VALUES (%s)" % (
                table, ", ".join(cols), ", ".join("?" for _ in cols)), rows)

    def get_or_create(self, table, row):
        """The id of the row of table with these values of its unique
        key, inserted when there is none (a writer that inserts it first
        wins; its row is the one returned)."""
        cols = list(row)
        where = " AND ".join("%s = ?" % c for c in cols)
        found = self.scalar("SELECT id FROM %s WHERE %s" % (table, where),
                            [row[c] for c in cols])
        if found is not None:
            return found
        self.execute("INSERT INTO %s (%s) VALUES (%s) ON CONFLICT DO "
                     "NOTHING" % (table, ", ".join(cols),
                                  ", ".join("?" for _ in cols)),
                     [row[c] for c in cols])
        return self.scalar("SELECT id FROM %s WHERE %s" % (table, where),
                           [row[c] for c in cols])

    def _transient(self, e):
        """Whether e ends a transaction that trying again may finish."""
        if self.dialect == "postgresql":
            return isinstance(e, self._pg.Error) and e.pgcode in PG_RETRY
        return isinstance(e, sqlite3.OperationalError) and (
            "locked" in str(e) or "busy" in str(e))

    @contextmanager
    def transaction(self):
        """One transaction (SQLite: taking the write lock at its start,
        so that two writers queue instead of deadlocking)."""
        assert not self.in_transaction, "transactions do not nest"
        self.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite"
                     else "BEGIN")
        self.in_transaction = True
        try:
            yield self
        except BaseException:
            self.in_transaction = False
            try:
                self.execute("ROLLBACK")
            except Exception:
                pass
            raise
        self.in_transaction = False
        self.execute("COMMIT")

    def write(self, fn):
        """fn(self) in one transaction, tried again while the database is
        busy or aborts it (RETRIES times, backing off); fn's result."""
        for attempt in range(RETRIES + 1):
            try:
                with self.transaction():
                    return fn(self)
            except Exception as e:
                if attempt == RETRIES or not self._transient(e):
                    raise
            back_off(attempt)

    # -- the schema -------------------------------------------------------

    def lock_schema(self):
        """Hold the schema still for the rest of the caller's transaction.
        PostgreSQL reads each statement at its own snapshot, so without
        it another process's CREATEs may commit between reading the
        version and reading the tables."""
        if self.dialect == "postgresql":
            self.execute("SELECT pg_advisory_xact_lock(?)", [SCHEMA_LOCK])

    def tables(self):
        """The names of the tables the database has."""
        if self.dialect == "sqlite":
            rows = self.execute("SELECT name FROM sqlite_master WHERE type "
                                "= 'table'").fetchall()
        else:
            rows = self.execute("SELECT table_name FROM information_schema."
                                "tables WHERE table_schema = "
                                "current_schema()").fetchall()
        return {r[0] for r in rows}

    def version(self):
        """The schema version the database holds, None when it has none."""
        if "meta" not in self.tables():
            return None
        v = self.scalar("SELECT value FROM meta WHERE name = "
                        "'schema_version'")
        return int(v) if v else None

    def create(self):
        """Create every table that is missing and record the version (in
        the caller's transaction)."""
        for statement in schema.ddl(self.dialect):
            self.execute(statement)
        self.execute("INSERT INTO meta (name, value) VALUES "
                     "('schema_version', ?) ON CONFLICT (name) DO UPDATE "
                     "SET value = excluded.value",
                     [str(schema.SCHEMA_VERSION)])

    def prepare(self):
        """Make a new database's schema, migrate an older one when the
        steps are known, refuse any other (StoreError naming `jlbench db
        rebuild`)."""
        have = self.version()
        want = schema.SCHEMA_VERSION
        if have == want:
            return
        if have is None:
            def make(s):
                # decided inside the transaction: another process may
                # have made the schema since version() was read
                s.lock_schema()
                if s.version() is not None:
                    return
                if s.tables() - {"meta"}:
                    raise self.refusal("has tables but no schema version")
                s.create()
            self.write(make)
            return self.prepare()
        if have < want and all(v in schema.MIGRATIONS
                               for v in range(have, want)):
            def migrate(s):
                s.lock_schema()
                if s.version() != have:     # another process did it
                    return
                for v in range(have, want):
                    for statement in schema.MIGRATIONS[v]:
                        s.execute(statement)
                s.create()
            self.write(migrate)
            return
        raise self.refusal("has schema version %d, this jlbench reads "
                           "version %d" % (have, want) + (
                               " (a newer jlbench made it)" if have > want
                               else ""))

    def refusal(self, what):
        return StoreError(
            "%s %s: `%s --db %s` makes it again from the results dirs "
            "(finding states are kept)" % (describe(self.url), what,
                                           schema.REBUILD,
                                           describe(self.url)))

    def reset(self):
        """Drop every table but those of rows a person made, and create
        the schema anew (rebuild's first step: one transaction)."""
        kept = {t.name for t in schema.TABLES if t.kept}

        def reset(s):
            s.lock_schema()
            for name in sorted(s.tables() - kept):
                if name.startswith("sqlite_"):
                    continue
                s.execute(schema.drop(name, s.dialect))
            s.create()
        if self.dialect == "sqlite":
            # dropping a parent before its children would check keys
            self.execute("PRAGMA foreign_keys = OFF")
            try:
                self.write(reset)
            finally:
                self.execute("PRAGMA foreign_keys = ON")
        else:
            self.write(reset)

    def dump(self):
        """Every table as sorted text, tab-separated (NULL as \\N), without
        the volatile columns: two stores with the same rows give the same
        text."""
        out = []
        for t in schema.TABLES:
            cols = schema.columns(t.name, volatile=False)
            rows = self.execute("SELECT %s FROM %s" % (
                ", ".join(cols), t.name)).fetchall()
            out.append("## %s\n%s\n" % (t.name, "\t".join(cols)))
            lines = sorted("\t".join(_text(v) for v in r) for r in rows)
            out += [ln + "\n" for ln in lines]
        return "".join(out)


def _text(v):
    """A value as dump() and COPY's text format write it (NULL: \\N)."""
    if v is None:
        return "\\N"
    if isinstance(v, float):
        return repr(v)
    return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace(
        "\n", "\\n").replace("\r", "\\r")
