"""The results store's schema, written once.

Every table of the store is a Table here: its name, a line that says what
a row is, its columns (each with a type and a line), its keys. The DDL of
both backends (SQLite and PostgreSQL) is generated from these records
(ddl()), and so are docs/store.md's tables (lib/store/docs.py).

Types: id (a row number the database assigns), text (never NULL: '' is
"unknown" or "none"), int and real (NULL: undefined or not measured).
"""
from collections import namedtuple

# The layout's version, kept in meta. A database of another version is
# refused (Store.prepare) unless MIGRATIONS leads from its version to
# this one; `jlbench db rebuild` makes it again from the results dirs.
SCHEMA_VERSION = 4
# {version: [statements]} that turn a database of that version into one
# of version + 1 (trivial changes only: an added column or index).
MIGRATIONS = {
    # run's plugin and model (the dashboard's compare names them); its
    # content hash is forgotten, so that the next ingest reads them
    1: ["ALTER TABLE run ADD COLUMN plugin TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE run ADD COLUMN model TEXT NOT NULL DEFAULT ''",
        "UPDATE run SET content_hash = ''"],
    # a run's suite and the newest runs, looked up by the dashboard
    2: ["CREATE INDEX IF NOT EXISTS run_parent ON run (parent)",
        "CREATE INDEX IF NOT EXISTS run_created_utc ON run (created_utc)"],
    # the robot's tables (bench/robot): new tables only, made by create()
    3: [],
}
REBUILD = "jlbench db rebuild"

Column = namedtuple("Column", "name type doc")
# key: the primary key's columns (None: the id column); unique: other
# keys; refs: {column: parent table} (a parent's deletion deletes the
# row); index: column tuples looked up by; volatile: columns left out of
# dump() (ingest time stamps); kept: rows a person made, which a rebuild
# keeps.
Table = namedtuple("Table", "name doc columns key unique refs index "
                   "volatile kept")
TYPES = ("id", "text", "int", "real")


def _table(name, doc, columns, key=None, unique=(), refs=None, index=(),
           volatile=(), kept=False):
    cols = [Column(*c) for c in columns]
    for c in cols:
        assert c.type in TYPES, (name, c)
    return Table(name, doc, cols, key, tuple(unique), refs or {},
                 tuple(index), tuple(volatile), kept)


_ID = ("id", "id", "row number")
TABLES = [
    _table("meta", "the store's own facts: `schema_version`", [
        ("name", "text", "the fact's name"),
        ("value", "text", "its value")], key=("name",)),
    _table("harness", "the harness a run was made with: commit and host", [
        _ID,
        ("git_commit", "text", "meta.json `git.commit` (else the dir "
         "name's short sha)"),
        ("git_dirty", "text", "meta.json `git.dirty`: `true`, `false`, or "
         "'' when unknown"),
        ("host", "text", "meta.json `host.hostname`, else runs.csv "
         "`host`'s values, `,`-joined"),
        ("qemu_version", "text", "runs.csv `qemu_version` (first), else "
         "meta.json `host.qemu`'s first line")],
        unique=[("git_commit", "git_dirty", "host", "qemu_version")]),
    _table("kernel", "a kernel as built (build.json), one per build hash "
           "and variant name", [
               _ID,
               ("build_hash", "text", "build.json `hash` (runs.csv "
                "`kernel_hash`)"),
               ("variant", "text", "the variant's name"),
               ("arch", "text", "build.json `arch` (`x86_64` where absent)"),
               ("version", "text", "Linux version: build.json "
                "`source.version`"),
               ("package", "text", "build.json `source.package` (`git` "
                "for a git tree)"),
               ("tree", "text", "the git commit of a kernel built from a "
                "git tree (`definition.tree.commit`), else ''"),
               ("patches_hash", "text", "build.json `source.series_hash`: "
                "the patch series applied"),
               ("config", "text", "base config: `full`, `smoke`, `distro`"),
               ("config_hash", "text", "sha256 of the kernel's .config "
                "(provenance/kernels/VARIANT.config), 16 hex; '' without "
                "one"),
               ("compiler", "text", "build.json `compiler`")],
           unique=[("build_hash", "variant")]),
    _table("run", "one results dir that bench/run wrote", [
        _ID,
        ("path", "text", "the dir, relative to the results root (absolute "
         "when outside it)"),
        ("run_id", "text", "the dir's name (stats.json `run_id`)"),
        ("kind", "text", "`run` (`results/RUN`), `suite` "
         "(`RUN/suite/W/RUN`), `env` (`results/env-*/.../RUN`), `example` "
         "(`results/example-*/RUN`), `step` (a bisect or scan step's)"),
        ("parent", "text", "the dir holding it: the suite's run, the "
         "study, the bisect or scan ('' for a top-level run)"),
        ("harness_id", "int", "its harness"),
        ("created_utc", "text", "meta.json `created_utc`"),
        ("end_utc", "text", "meta.json `end_utc` ('' while running)"),
        ("accel", "text", "the accelerator (meta.json `accel.name`)"),
        ("workload", "text", "meta.json `protocol.workload` (`tbench` "
         "where absent)"),
        ("profile", "text", "meta.json `plan.profile`"),
        ("boots", "int", "meta.json `plan.boots`: runs per label"),
        ("plan_seed", "int", "meta.json `plan.seed`"),
        ("seeds", "text", "the perturbation seeds of its tries, "
         "space-separated, in numeric order"),
        ("baseline", "text", "meta.json `baseline` (`atomic-read` where "
         "absent)"),
        ("headline", "text", "stats.json `headline` ('' before analysis)"),
        ("protocol", "text", "meta.json `protocol`, JSON (the options the "
         "workload ran with)"),
        ("analysed", "int", "1 when the dir has stats.json"),
        ("content_hash", "text", "sha256 of its runs.csv, meta.json, "
         "stats.json and summary.csv: a changed dir is ingested again"),
        ("ingested_utc", "text", "when it was ingested"),
        ("plugin", "text", "the branch-count plugin's file name "
         "(meta.json `plugin.path`), '' without one"),
        ("model", "text", "meta.json `model`, JSON, '' without one")],
        unique=[("path",)], refs={"harness_id": "harness"},
        index=[("workload",), ("parent",), ("created_utc",)],
        volatile=("ingested_utc",)),
    _table("run_kernel", "which kernel each variant of a run booted", [
        ("run_id", "int", "the run"),
        ("variant", "text", "the variant"),
        ("kernel_id", "int", "its kernel")],
        key=("run_id", "variant"), refs={"run_id": "run",
                                         "kernel_id": "kernel"}),
    _table("figure", "one runs.csv cell of one try (long and narrow: a "
           "row per column of each line)", [
               ("run_id", "int", "the run"),
               ("line", "int", "runs.csv line number (the header is 1)"),
               ("plan_index", "int", "runs.csv `index`"),
               ("label", "text", "runs.csv `label`"),
               ("variant", "text", "runs.csv `variant`"),
               ("seed", "int", "runs.csv `perturb_seed` (NULL when empty)"),
               ("try", "int", "runs.csv `try`"),
               ("status", "text", "runs.csv `status`: `ok` or `failed`"),
               ("excluded", "int", "1 when analysis left the line out "
                "(stats.json `excluded.lines`)"),
               ("metric", "text", "the runs.csv column (today's name)"),
               ("value", "real", "the cell as a number, NULL when it is "
                "not one"),
               ("text", "text", "the cell when it is not a number "
                "(`not-supported`, `not-counted`, a reason, a hash), "
                "else ''")],
           key=("run_id", "line", "metric"), refs={"run_id": "run"},
           index=[("metric",)]),
    _table("profile", "one function's figure per kernel of a run: its "
           "mean over the label's profiled tries (per-try rows are not "
           "kept)", [
               ("run_id", "int", "the run"),
               ("label", "text", "runs.csv `label`"),
               ("function", "text", "the function (`[kernel]`, `[user]`: "
                "code outside the symbol table)"),
               ("metric", "text", "the profile column: `insns`, "
                "`site_execs`, ..."),
               ("per_try", "real", "mean per try"),
               ("per_op", "real", "mean of the figure / the try's `ops`"),
               ("n", "int", "tries in which the function ran"),
               ("tries", "int", "tries averaged over: the label's ok tries "
                "of the longest length with a profile, bar those analysis "
                "left out")],
           key=("run_id", "label", "metric", "function"),
           refs={"run_id": "run"}),
    _table("comparison", "one summary.csv row: a label's metric and its "
           "change against the baseline, with stats.json's details", [
               ("run_id", "int", "the run"),
               ("label_group", "text", "summary.csv `group`: `main`, "
                "`aa`"),
               ("label", "text", "summary.csv `label`"),
               ("variant", "text", "summary.csv `variant`"),
               ("accel", "text", "summary.csv `accel`"),
               ("metric", "text", "summary.csv `metric`"),
               ("n", "int", "ok runs with a number"),
               ("failed", "int", "failed tries of the label"),
               ("mean", "real", "mean over the ok runs"),
               ("stdev", "real", "their standard deviation"),
               ("cov_pct", "real", "coefficient of variation, %"),
               ("min", "real", "smallest"),
               ("max", "real", "largest"),
               ("ci_lo", "real", "t 95% CI of the mean"),
               ("ci_hi", "real", "(upper end)"),
               ("text", "text", "`not-supported` / `not-counted` when no "
                "run has a number"),
               ("baseline", "text", "the label it is compared with, '' "
                "when none"),
               ("pct_change", "real", "% change against the baseline"),
               ("pct_ci_lo", "real", "its 95% interval"),
               ("pct_ci_hi", "real", "(upper end)"),
               ("method", "text", "the test of `p_t`"),
               ("p_t", "real", "two-sided p of `method`"),
               ("p_rank", "real", "two-sided p of the rank test"),
               ("marker", "text", "significance marker: `***`, `**`, `*`, "
                "`~`, `?`"),
               ("mde_pct", "real", "minimum detectable effect, %"),
               ("significant", "int", "stats.json `significant`: 1 when "
                "the rule calls it a change"),
               ("floor_pts", "real", "stats.json `floor_pts`: the "
                "environment floor that widened the interval, points"),
               ("noise_pct", "real", "stats.json `noise_pct`"),
               ("paired", "int", "stats.json `paired`: 1 when paired by "
                "seed")],
           key=("run_id", "label", "metric"), refs={"run_id": "run"},
           index=[("metric", "label")]),
    _table("search", "one bisection or scan (a dir's bisect.log or "
           "scan.log; a scan of several workloads has one per workload)", [
               _ID,
               ("path", "text", "the dir of its log, relative to the "
                "results root (absolute when outside it)"),
               ("kind", "text", "`bisect` or `scan`"),
               ("workload", "text", "the workload it measured"),
               ("metric", "text", "the metric it judged by"),
               ("source", "text", "the range: the start entry's `source`, "
                "JSON"),
               ("config", "text", "the kernels' base config"),
               ("seeds", "int", "seeds per candidate"),
               ("plan_seed", "int", "the start entry's `seed`"),
               ("floor_pct", "real", "the floor it judged with, points"),
               ("candidates", "int", "candidates in the range"),
               ("sampled", "text", "a scan's sampled candidates, JSON"),
               ("first_bad", "text", "a bisection's answer: the first bad "
                "candidate, JSON ('' before its end)"),
               ("message", "text", "the end entry's `message`"),
               ("measured", "int", "candidates measured"),
               ("seconds", "real", "the end entry's `seconds`"),
               ("complete", "int", "1 when the log has its end entry"),
               ("content_hash", "text", "sha256 of the log"),
               ("ingested_utc", "text", "when it was ingested")],
           unique=[("path",)], volatile=("ingested_utc",)),
    _table("step", "one candidate a search built and measured", [
        ("search_id", "int", "the search"),
        ("i", "int", "the candidate's position in the range"),
        ("variant", "text", "its variant name"),
        ("revision", "text", "its revision (commit and subject, or "
         "patches)"),
        ("results", "text", "its results dir, as run `path`"),
        ("build_hash", "text", "its kernel's build hash"),
        ("decision", "text", "the last decision on it: `good`, `bad`, "
         "`skip`; ''"),
        ("why", "text", "why it was skipped"),
        ("top_functions", "text", "the functions that changed most against "
         "the good end, JSON [name, diff/op, lo, hi, share]"),
        ("seconds", "real", "what measuring it took")],
        key=("search_id", "i"), refs={"search_id": "search"}),
    _table("step_value", "a step's figure of one seed", [
        ("search_id", "int", "the search"),
        ("i", "int", "the step"),
        ("seed", "int", "the perturbation seed"),
        ("value", "real", "the metric's figure")],
        key=("search_id", "i", "seed"), refs={"search_id": "search"}),
    _table("decision", "one decision of a search, in log order", [
        ("search_id", "int", "the search"),
        ("seq", "int", "its order in the log"),
        ("i", "int", "the candidate judged"),
        ("against", "int", "the candidate it was compared with (a "
         "bisection's: the good end, 0)"),
        ("decision", "text", "`good` or `bad`"),
        ("n", "int", "seeds compared"),
        ("pct_change", "real", "% change against `against`"),
        ("pct_ci_lo", "real", "its interval"),
        ("pct_ci_hi", "real", "(upper end)")],
        key=("search_id", "seq"), refs={"search_id": "search"}),
    _table("finding", "a change a search found: a scan's finding, a "
           "bisection's first bad candidate", [
               _ID,
               ("ref", "text", "its stable name, `SEARCH:VARIANT`: what "
                "finding_state refers to"),
               ("search_id", "int", "the search"),
               ("workload", "text", "the search's workload"),
               ("metric", "text", "the search's metric"),
               ("i", "int", "the first changed candidate (NULL: a range)"),
               ("revision", "text", "its revision (`a..b` for a range "
                "hiding it)"),
               ("variant", "text", "its variant name"),
               ("parent", "text", "the revision before it"),
               ("results", "text", "its results dir, as run `path`"),
               ("parent_results", "text", "the parent's results dir"),
               ("n", "int", "seeds compared with the parent"),
               ("pct_change", "real", "% change of the metric against the "
                "parent"),
               ("pct_ci_lo", "real", "its interval"),
               ("pct_ci_hi", "real", "(upper end)"),
               ("headline_pct", "real", "% change of the headline "
                "(`ops_per_s`) against the parent, when the metric is "
                "another"),
               ("top_functions", "text", "the functions that changed "
                "most, JSON"),
               ("static_keys", "text", "static keys at their sites, JSON"),
               ("note", "text", "the search's note on it")],
           unique=[("ref",)], refs={"search_id": "search"}),
    _table("finding_state", "each change of a finding's state, by a "
           "person or the robot: kept by rebuilds and re-ingests", [
               _ID,
               ("ref", "text", "the finding's `ref`"),
               ("state", "text", "`new`, `confirmed` or `not-confirmed` "
                "(measured again on new seeds), `fixed`, `fix` (the change "
                "that fixed a regression), `false-positive`, "
                "`acknowledged`"),
               ("note", "text", "why"),
               ("changed_utc", "text", "when")],
           index=[("ref",)], kept=True),
    # The robot's own state (bench/robot, jlbench watch): what it was told
    # and did, which no results dir holds, so kept by rebuilds too.
    _table("robot_branch", "a branch a robot watches: the newest head "
           "queued", [
               ("repo", "text", "the repository (absolute path or URL)"),
               ("branch", "text", "the branch's name"),
               ("head", "text", "the newest head queued (the next "
                "range's base)"),
               ("changed_utc", "text", "when it was queued")],
           key=("repo", "branch"), kept=True),
    _table("robot_range", "a range of a branch queued for a scan, in "
           "queue order", [
               _ID,
               ("repo", "text", "the repository"),
               ("branch", "text", "the branch"),
               ("base", "text", "the commit measured last (after a force "
                "push: the merge base)"),
               ("head", "text", "the branch's new head"),
               ("state", "text", "`queued`, `running`, `done`, `failed`"),
               ("dir", "text", "the scan's dir"),
               ("holder", "text", "the robot that took it"),
               ("note", "text", "what happened: a force push, why it "
                "failed, what it found"),
               ("queued_utc", "text", "when it was queued"),
               ("started_utc", "text", "when a robot took it"),
               ("finished_utc", "text", "when it ended")],
           unique=[("repo", "branch", "base", "head")],
           index=[("state",)], kept=True),
    _table("robot_step", "a commit measured (or being measured) by a "
           "robot: its lease, then its step", [
               ("step_key", "text", "the commit and the settings that make "
                "its figures (`SHA:config=...,seed=...,on=...`), or a done "
                "step's second key: the digest of the kernel and modules it "
                "booted and its plan (`kernel-SHA256:config=...`)"),
               ("holder", "text", "the robot measuring it, or that did"),
               ("state", "text", "`leased` or `done`"),
               ("entry", "text", "the step's log entry, JSON, its results "
                "dir absolute ('' while leased)"),
               ("changed_utc", "text", "when it was leased or done")],
           key=("step_key",), kept=True),
    _table("robot_beat", "a robot's heartbeat: what it is doing", [
        ("holder", "text", "the robot's name (`HOST:PID` by default)"),
        ("host", "text", "its host"),
        ("pid", "int", "its process"),
        ("started_utc", "text", "when it started"),
        ("beat", "real", "its last heartbeat, seconds since the epoch: "
         "its leases expire after `--lease` seconds without one"),
        ("doing", "text", "the step in flight and its ETA, or what it "
         "waits for")],
        key=("holder",), kept=True),
]
TABLE = {t.name: t for t in TABLES}
# A finding's lifecycle; one without a state change is new.
STATES = ("new", "confirmed", "not-confirmed", "fixed", "fix",
          "false-positive", "acknowledged")
OPEN = ("new", "confirmed")

# Column types per dialect.
_SQL_TYPES = {
    "sqlite": {"id": "INTEGER PRIMARY KEY", "text": "TEXT NOT NULL "
               "DEFAULT ''", "int": "INTEGER", "real": "REAL"},
    "postgresql": {"id": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY "
                   "KEY", "text": "TEXT NOT NULL DEFAULT ''",
                   "int": "BIGINT", "real": "DOUBLE PRECISION"},
}


DIALECTS = tuple(_SQL_TYPES)


def create_table(t, dialect):
    """CREATE TABLE IF NOT EXISTS of a Table in dialect ('sqlite',
    'postgresql'), and CREATE INDEX of its index."""
    types = _SQL_TYPES[dialect]
    lines = []
    for c in t.columns:
        ref = t.refs.get(c.name)
        lines.append("%s %s%s" % (c.name, types[c.type], (
            " REFERENCES %s (id) ON DELETE CASCADE" % ref) if ref else ""))
    if t.key:
        lines.append("PRIMARY KEY (%s)" % ", ".join(t.key))
    for u in t.unique:
        lines.append("UNIQUE (%s)" % ", ".join(u))
    # SQLite: a table keyed by its columns is stored in its key's order
    # (no second copy of the key in an index of its own)
    out = ["CREATE TABLE IF NOT EXISTS %s (\n  %s\n)%s"
           % (t.name, ",\n  ".join(lines), " WITHOUT ROWID" if t.key
              and dialect == "sqlite" else "")]
    for cols in t.index:
        out.append("CREATE INDEX IF NOT EXISTS %s_%s ON %s (%s)" % (
            t.name, "_".join(cols), t.name, ", ".join(cols)))
    return out


def ddl(dialect):
    """Every statement that creates the schema, parents first."""
    return [s for t in TABLES for s in create_table(t, dialect)]


def drop(name, dialect):
    """DROP TABLE of a table (PostgreSQL: with what depends on it)."""
    return "DROP TABLE IF EXISTS %s%s" % (
        name, " CASCADE" if dialect == "postgresql" else "")


def columns(name, volatile=True):
    """The column names of a table (without its volatile ones when
    volatile is False)."""
    t = TABLE[name]
    return [c.name for c in t.columns
            if volatile or c.name not in t.volatile]
