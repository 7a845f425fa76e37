"""The results store (lib/store/), on both backends: a rebuild of the
committed results answers as their summary.csv files do, the same on
SQLite and PostgreSQL; ingest is idempotent and replaces a changed dir;
a damaged dir is named and skipped whole; two writers at once lose no
run; a writer killed with SIGKILL mid-ingest leaves the store whole; a
store of another schema version is refused (or migrated); findings keep
the states people set through re-ingests and rebuilds; docs/store.md is
the schema. The PostgreSQL server is conftest.pg_server's."""
import csv
import gzip
import hashlib
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from conftest import PYTHON, ROOT, run
from test_scan_unit import Range

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
from bench.bisection import bisection, scan  # noqa: E402
from lib import store  # noqa: E402
from lib.format import rawfiles  # noqa: E402
from lib.store import backend, docs, ingest, query, read, schema  # noqa: E402
import synth  # noqa: E402

pytestmark = pytest.mark.xdist_group("test_store")
BACKENDS = ["sqlite", "postgresql"]
RESULTS = str(ROOT / "results")
DB = str(ROOT / "lib" / "store" / "db")
SUITE = "20261206T223428Z-7bf1103"
VALUES = {"jump-label": [1.0, 1.02, 1.01], "atomic-read": [1.0, 0.99, 1.0]}


def new_url(kind, tmp_path, request):
    if kind == "sqlite":
        return str(tmp_path / ("store-%d.db" % time.monotonic_ns()))
    return request.getfixturevalue("pg_server").new_database()


@pytest.fixture(params=BACKENDS)
def url(request, tmp_path):
    """A new empty store of each backend."""
    return new_url(request.param, tmp_path, request)


def rebuild_committed(url):
    """The committed results rebuilt into the store at url: its URL, the
    outcome counts, the rebuild's CPU seconds, the dump's hash."""
    said = []
    with store.connect(url) as db:
        cpu = time.process_time()
        counts = ingest.rebuild(db, RESULTS, warn=said.append)
        cpu = time.process_time() - cpu
        dump = hashlib.sha256(db.dump().encode()).hexdigest()
    return SimpleNamespace(url=url, counts=counts, cpu=cpu, said=said,
                           dump=dump)


@pytest.fixture(scope="session")
def sqlite_rebuild(tmp_path_factory):
    return rebuild_committed(str(tmp_path_factory.mktemp("store") /
                                 "committed.db"))


@pytest.fixture(scope="session")
def pg_rebuild(pg_server):
    return rebuild_committed(pg_server.new_database())


@pytest.fixture(params=BACKENDS)
def rebuilt(request):
    """The committed results' store of each backend (once a session)."""
    return request.getfixturevalue(
        {"sqlite": "sqlite_rebuild", "postgresql": "pg_rebuild"}[
            request.param])


def summary(path):
    with open(os.path.join(path, "summary.csv"), newline="") as f:
        return list(csv.DictReader(f))


def cell(text):
    return float(text) if text != "" else None


@pytest.mark.slow
def test_a_rebuild_of_the_committed_results_answers_as_summary_csv(
        rebuilt):
    dirs = read.walk(RESULTS)
    assert rebuilt.counts == {"added": len(dirs)} and not rebuilt.said
    assert len(dirs) > 100
    # the bound, on the process's own CPU (the suite's load aside)
    assert rebuilt.cpu < 60, rebuilt.cpu
    with store.connect(rebuilt.url) as db:
        # README's answer, as history gives it
        rows = [r for r in query.history(db, "tbench", "ops_per_s",
                                         "jump-label") if r["run"] == SUITE]
        want = next(r for r in summary(os.path.join(RESULTS, SUITE))
                    if r["label"] == "jump-label"
                    and r["metric"] == "ops_per_s")
        assert len(rows) == 1
        row = rows[0]
        for k in ("mean", "ci_lo", "ci_hi", "pct_change", "pct_ci_lo",
                  "pct_ci_hi", "p_t"):
            assert row[k] == cell(want[k]), k
        assert (row["n"], row["marker"], row["baseline"]) == (
            6, "*", "atomic-read")
        assert row["pct_change"] == 1.42149 and row["significant"] == 1
        assert row["git_commit"].startswith("7bf1103") and \
            row["git_dirty"] == "false"
        assert (row["build_hash"], row["kernel_version"]) == (
            "f0b31a5745753526", "6.1.192-3")
        # a suite's workload: its own history
        pipe = [r["run"] for r in query.history(db, "pipe", "ops_per_s",
                                                "jump-label")]
        assert "%s/suite/pipe/20261206T225215Z-7bf1103" % SUITE in pipe
        # every committed summary.csv, row for row
        for kind, path in dirs:
            if not os.path.isfile(os.path.join(path, "summary.csv")):
                continue
            rel = os.path.relpath(path, RESULTS)
            got = {(c["label"], c["metric"]): c
                   for c in query.comparisons(db, rel)}
            want = summary(path)
            assert len(got) == len(want), rel
            for w in want:
                c = got[(w["label"], w["metric"])]
                for k in ("mean", "ci_lo", "ci_hi", "pct_change",
                          "pct_ci_lo", "pct_ci_hi", "stdev", "p_rank"):
                    assert c[k] == cell(w[k]), (rel, w["label"], k)
                assert (c["marker"], c["text"], c["method"]) == (
                    w["marker"], w["text"], w["method"]), rel
        # a line analysis left out: marked, and out of the profile's means
        fork = "20261206T082056Z-7ade8bb/suite/fork/20261206T084012Z-6f3bf31"
        assert db.query(
            "SELECT DISTINCT f.plan_index, f.excluded FROM figure f JOIN run "
            "r ON r.id = f.run_id WHERE r.path = ? AND f.line = 6",
            [fork]) == [{"plan_index": 5, "excluded": 1}]
        assert {r["tries"] for r in query.profile(db, fork, "atomic-read")} \
            == {5}
        # the profile adds up to the run's kernel instructions per op
        prof = query.profile(db, SUITE, "jump-label")
        kernel = sum(r["per_op"] for r in prof if r["function"] != "[user]")
        with open(os.path.join(RESULTS, SUITE, "stats.json")) as f:
            want = next(m for m in json.load(f)["metrics"]
                        if m["metric"] == "kernel_insns_per_op")
        assert kernel == pytest.approx(
            want["per_label"]["jump-label"]["mean"], rel=1e-12)
        assert {r["tries"] for r in prof} == {6}
        assert store.newest_two("jump-label", url=rebuilt.url)["tbench"][
            0] == SUITE


@pytest.mark.slow
def test_both_backends_hold_the_same_rows(sqlite_rebuild, pg_rebuild):
    assert sqlite_rebuild.dump == pg_rebuild.dump


@pytest.mark.slow
def test_the_command_reads_the_store(sqlite_rebuild):
    url = sqlite_rebuild.url
    out = run([DB, "history", "--db", url, "--workload", "tbench",
               "--metric", "ops_per_s", "--label", "jump-label",
               "--csv"]).stdout
    rows = {r["run"]: r for r in csv.DictReader(out.splitlines())}
    assert rows[SUITE]["pct_change"] == "1.42149"
    table = run([DB, "history", "--db", url, "--workload", "tbench",
                 "--metric", "ops_per_s"]).stdout
    assert "+1.421% [+1.379, +1.461] *" in table
    both = json.loads(run([DB, "compare", "--db", url, "--metric",
                           "ops_per_s", "--json"]).stdout)
    tbench = next(r for r in both if r["workload"] == "tbench")
    assert tbench["newer"] == SUITE and tbench["newer_pct_change"] == \
        1.42149 and tbench["older"] == "20261206T082056Z-7ade8bb"
    assert len(both) == 15


def write_profile(path, rows):
    """A try's profile.gz as the runner keeps it: header, then rows
    (start, name, insns, site_execs)."""
    text = "format=1\nwindow=1\ncolumns=insns,site_execs\nfunctions=3\n" \
        + "".join("%x %s %d %d\n" % r for r in rows)
    with open(path, "wb") as f:
        f.write(rawfiles.gzip_bytes(text.encode()))


def synthetic(root, name="20261201T000000Z-abc1234", profiles=True):
    """A results dir of make_results with the jump-label tries' profiles:
    rounds 1 and 2 (runs 2 and 3; round 3's has none), two kernel
    functions and two [user] pages."""
    path = synth.make_results(str(root), VALUES, name=name)
    if profiles:
        for index, insns in ((2, 1000), (3, 3000)):
            write_profile(os.path.join(path, "raw", "%03d-jump-label-try1"
                                       ".profile.gz" % index), [
                (0x401000, "[user]", 10, 0), (0x402000, "[user]", 30, 0),
                (0xffffffff81000000, "tcp_sendmsg", insns, 2)]
                + ([(0xffffffff81001000, "only_once", 50, 0)] if index == 2
                   else []))
    return path


def section(dump, table, drop=0):
    """A table's part of a dump, sorted, without its first drop columns
    when it has a run_id column."""
    lines = dump.split("## %s\n" % table)[1].split("## ")[0].splitlines()
    if drop and "run_id" in schema.columns(table):
        lines = [ln.split("\t", drop)[-1] for ln in lines]
    return sorted(lines)


def runs_of(db):
    return [r["path"] for r in db.query("SELECT path FROM run ORDER BY "
                                        "path")]


def test_ingest_is_idempotent_and_replaces_a_changed_dir(url, tmp_path):
    root = tmp_path / "results"
    path = synthetic(root)
    with store.connect(url) as db:
        assert ingest.ingest(db, path, root=str(root)) == {"added": 1}
        first = db.dump()
        assert ingest.ingest(db, path, root=str(root)) == {"unchanged": 1}
        assert db.dump() == first
        # the profile: means over the two profiled tries
        rows = {(r["function"], r["metric"]): r for r in query.profile(
            db, os.path.basename(path), "jump-label", metric="insns")}
        ops = {int(r["plan_index"]): r["value"] for r in db.query(
            "SELECT plan_index, value FROM figure WHERE metric = 'ops'")}
        tcp = rows[("tcp_sendmsg", "insns")]
        assert (tcp["per_try"], tcp["n"], tcp["tries"]) == (2000, 2, 2)
        assert tcp["per_op"] == pytest.approx(
            (1000 / ops[2] + 3000 / ops[3]) / 2)
        assert (rows[("only_once", "insns")]["per_try"],
                rows[("only_once", "insns")]["n"]) == (25, 1)
        assert rows[("[user]", "insns")]["per_try"] == 40
        # a changed dir: its rows replaced, in the same transaction
        meta = os.path.join(path, "meta.json")
        with open(meta) as f:
            m = json.load(f)
        m["end_utc"] = "2026-12-01T02:00:00Z"
        with open(meta, "w") as f:
            json.dump(m, f)
        assert ingest.ingest(db, str(root), root=str(root)) == {
            "replaced": 1}
        assert runs_of(db) == [os.path.basename(path)]
        assert db.scalar("SELECT end_utc FROM run") == "2026-12-01T02:00:00Z"
        now = db.dump()
        for t in schema.TABLES:      # the same rows, of a new run id
            if t.name != "run":
                assert section(now, t.name, 1) == section(first, t.name, 1)
        # two rebuilds: the same rows
        synthetic(root, "20261202T000000Z-abc1234", profiles=False)
        ingest.rebuild(db, str(root))
        again = db.dump()
        ingest.rebuild(db, str(root))
        assert db.dump() == again and len(runs_of(db)) == 2


def test_a_packed_dir_with_its_configs_by_content_gives_the_same_rows(
        tmp_path):
    """A complete run's raw files in raw.tar.xz and its kernels' .config
    in the results root's kernel-configs/ (today's layout) are read as
    raw/ and provenance/kernels/ were."""
    config = b"CONFIG_JUMP_LABEL=y\n"
    digest = hashlib.sha256(config).hexdigest()
    dumps = []
    for packed in (False, True):
        root = tmp_path / ("packed" if packed else "raw") / "results"
        path = synthetic(root)
        prov = os.path.join(path, "provenance")
        os.makedirs(os.path.join(prov, "kernels"))
        if packed:
            os.makedirs(root / "kernel-configs")
            (root / "kernel-configs" / (digest + ".config")).write_bytes(
                config)
            with open(os.path.join(prov, "provenance.json"), "w") as f:
                json.dump({"kernels": {"jump-label": {
                    "config_file": "../../kernel-configs/%s.config"
                    % digest}}}, f)
            rawfiles.pack(path)
            assert not os.path.isdir(os.path.join(path, "raw"))
        else:
            with open(os.path.join(prov, "kernels", "jump-label.config"),
                      "wb") as f:
                f.write(config)
        with store.connect(str(root.parent / "s.db")) as db:
            assert ingest.rebuild(db, str(root)) == {"added": 1}
            assert db.scalar("SELECT config_hash FROM kernel WHERE variant "
                             "= 'jump-label'") == digest[:16]
            assert db.scalar("SELECT count(*) FROM profile") == 4
            dumps.append(db.dump())
    assert dumps[0] == dumps[1]


def damage(root):
    """Dirs of root that cannot be ingested, and why: {path: what the
    message says}."""
    out = {}
    p = synthetic(root, "20261203T000000Z-nometa")
    os.remove(os.path.join(p, "meta.json"))
    out[p] = "no meta.json"
    p = synthetic(root, "20261203T000001Z-stats")
    with open(os.path.join(p, "stats.json"), "w") as f:
        f.write('{"schema": 2, "metr')
    out[p] = "stats.json"
    p = synthetic(root, "20261203T000002Z-torn")
    with open(os.path.join(p, "runs.csv")) as f:
        lines = f.readlines()
    lines.insert(3, "7,1,1,jump-label\n")
    with open(os.path.join(p, "runs.csv"), "w") as f:
        f.writelines(lines)
    out[p] = "runs.csv line 4"
    p = synthetic(root, "20261203T000003Z-profile")
    with gzip.open(os.path.join(p, "raw", "002-jump-label-try1.profile.gz"),
                   "wt") as f:
        f.write("format=1\ncolumns=insns,site_execs\n401000 [user] x 0\n")
    out[p] = "not numbers"
    p = os.path.join(str(root), "bisect-cut")
    os.makedirs(p)
    with open(os.path.join(p, "bisect.log"), "w") as f:
        f.write('{"event": "start", "candidates": []}\n{"event": "st')
    out[p] = "bisect.log line 2"
    return out


def test_a_damaged_dir_is_named_and_skipped_whole(url, tmp_path):
    root = tmp_path / "results"
    good = synthetic(root)
    bad = damage(root)
    said = []
    with store.connect(url) as db:
        counts = ingest.ingest(db, str(root), root=str(root),
                               warn=said.append)
        assert counts == {"added": 1, "skipped": len(bad)}
        for path, why in bad.items():
            line = next(s for s in said if path in s)
            assert line.startswith("skipped ") and why in line, line
        assert runs_of(db) == [os.path.basename(good)]
        assert db.scalar("SELECT count(*) FROM search") == 0
        assert db.scalar("SELECT count(DISTINCT run_id) FROM figure") == 1
    # the command names them and exits 1, having ingested the rest
    p = run([DB, "ingest", "--db", url, "--root", str(root), str(root)],
            check=False)
    assert p.returncode == 1 and all(d in p.stderr for d in bad), p.stderr


def test_a_schema_made_meanwhile_is_waited_for(url, monkeypatch):
    """One process makes a new store's schema while another opens it. The
    second must wait and then see the schema, even when the first commits
    between the second's reading the version and reading the tables
    (PostgreSQL reads each statement at its own snapshot)."""
    made, commit, committed = (threading.Event() for _ in range(3))

    def maker():
        with backend.Store(url) as first, first.transaction():
            first.lock_schema()
            first.create()
            made.set()
            commit.wait(timeout=1)     # the opener's version read, or 1 s
        committed.set()
    real_version = backend.Store.version

    def version(self):
        v = real_version(self)
        if self.in_transaction and v is None and not committed.is_set():
            commit.set()               # the maker commits right here
            committed.wait(timeout=10)
        return v
    monkeypatch.setattr(backend.Store, "version", version)
    making = threading.Thread(target=maker)
    making.start()
    made.wait(timeout=10)
    try:
        with store.connect(url) as db:
            assert db.version() == schema.SCHEMA_VERSION
    finally:
        making.join()


def test_a_new_file_found_busy_is_opened_again(tmp_path, monkeypatch):
    """Two processes opening one new SQLite file: the second may find it
    busy while the first turns it to WAL (seen once in the suite), and
    opens it again rather than failing."""
    real = backend.Store._open_sqlite
    calls = []

    def busy_once(path, parent):
        calls.append(path)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real(path, parent)
    monkeypatch.setattr(backend.Store, "_open_sqlite",
                        staticmethod(busy_once))
    with store.connect(str(tmp_path / "s.db")) as db:
        assert db.version() == schema.SCHEMA_VERSION
    assert len(calls) == 2


def test_two_writers_at_once_lose_no_run(url, tmp_path):
    root = tmp_path / "results"
    dirs = [synth.make_results(str(root), VALUES, name=(
        "20261201T%06dZ-abc1234" % i)) for i in range(100)]
    procs = [subprocess.Popen([PYTHON, DB, "ingest", "--db", url, "--root",
                               str(root)] + half, stderr=subprocess.PIPE,
                              text=True)
             for half in (dirs[:50], dirs[50:])]
    errs = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    with store.connect(url) as db:
        assert len(runs_of(db)) == 100
        assert db.scalar("SELECT count(*) FROM harness") == 1
        assert db.scalar("SELECT count(*) FROM kernel") == 2
        assert db.scalar("SELECT count(DISTINCT run_id) FROM figure") == 100


KILLER = """
import os, signal, sys
sys.path.insert(0, %(root)r)
from lib import store
from lib.store import backend, ingest
real = backend.Store.insert_many
done = []
def insert_many(self, table, cols, rows):
    real(self, table, cols, rows)
    if table == "figure":
        done.append(table)
        if len(done) == 2:      # the second dir's tries are written
            os.kill(os.getpid(), signal.SIGKILL)
backend.Store.insert_many = insert_many
with store.connect(%(url)r) as db:
    ingest.ingest(db, %(dir)r, root=%(dir)r)
"""


def test_a_writer_killed_mid_ingest_leaves_the_store_whole(url, tmp_path):
    root = tmp_path / "results"
    dirs = [synthetic(root, "20261201T00000%dZ-abc1234" % i)
            for i in range(3)]
    p = subprocess.run([PYTHON, "-c", KILLER % {
        "root": str(ROOT), "url": url, "dir": str(root)}],
        capture_output=True, text=True, timeout=300)
    assert p.returncode == -signal.SIGKILL, p.stderr
    with store.connect(url) as db:
        if db.dialect == "sqlite":
            assert db.scalar("PRAGMA integrity_check") == "ok"
            assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        # the first dir whole, the killed one not at all
        assert runs_of(db) == [os.path.basename(dirs[0])]
        for table in ("figure", "profile", "run_kernel", "comparison"):
            assert db.scalar("SELECT count(*) FROM %s WHERE run_id NOT IN "
                             "(SELECT id FROM run)" % table) == 0, table
        figures = db.scalar("SELECT count(*) FROM figure")
        assert figures and db.scalar("SELECT count(*) FROM profile")
        assert ingest.ingest(db, str(root), root=str(root)) == {
            "unchanged": 1, "added": 2}
        assert db.scalar("SELECT count(*) FROM figure") == 3 * figures


def test_another_schema_version_is_refused_or_migrated(url, tmp_path,
                                                       monkeypatch):
    root = tmp_path / "results"
    synthetic(root, profiles=False)

    def set_version(v):
        with backend.Store(url) as db:
            db.write(lambda s: s.execute(
                "UPDATE meta SET value = ? WHERE name = 'schema_version'",
                [str(v)]))
    with store.connect(url) as db:
        db.write(lambda s: s.insert("finding_state", {
            "ref": "scan-a:c07", "state": "confirmed", "note": "seen",
            "changed_utc": "2026-12-07T00:00:00Z"}))
    set_version(0)
    with pytest.raises(store.StoreError, match=r"schema version 0.*`jlbench "
                       "db rebuild --db"):
        store.connect(url)
    p = run([DB, "findings", "--db", url], check=False)
    assert p.returncode == 1 and "jlbench db rebuild" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    # trivial steps from 0 are known: migrated
    steps = {v: [] for v in range(schema.SCHEMA_VERSION)}
    steps[0] = ["INSERT INTO meta (name, value) VALUES ('migrated', "
                "'from 0')"]
    monkeypatch.setattr(schema, "MIGRATIONS", steps)
    with store.connect(url) as db:
        assert db.version() == schema.SCHEMA_VERSION
        assert db.scalar("SELECT value FROM meta WHERE name = "
                         "'migrated'") == "from 0"
    set_version(schema.SCHEMA_VERSION + 1)
    with pytest.raises(store.StoreError, match="a newer jlbench made it"):
        store.connect(url)
    # rebuild makes it again, keeping the states people set
    run([DB, "rebuild", "--db", url, "--root", str(root)])
    with store.connect(url) as db:
        assert db.version() == schema.SCHEMA_VERSION
        assert len(runs_of(db)) == 1
        assert [s["note"] for s in query.states(db, "scan-a:c07")] == [
            "seen"]


def test_a_version_1_store_gains_plugin_and_model_and_reads_them_again(
        url, tmp_path):
    root = tmp_path / "results"
    meta_path = os.path.join(synthetic(root, profiles=False), "meta.json")
    with open(meta_path) as f:
        meta = json.load(f)
    meta["plugin"] = {"path": "$JLBENCH_CACHE/qemu-plugin/branches-test.so"}
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    run([DB, "ingest", "--db", url, "--root", str(root), str(root)])
    with backend.Store(url) as db:      # the store as version 1 made it
        db.write(lambda s: [s.execute(statement) for statement in (
            "ALTER TABLE run DROP COLUMN plugin",
            "ALTER TABLE run DROP COLUMN model",
            "UPDATE meta SET value = '1' WHERE name = 'schema_version'")])
    with store.connect(url) as db:
        assert db.version() == schema.SCHEMA_VERSION
        assert db.query("SELECT plugin, content_hash FROM run") == [
            {"plugin": "", "content_hash": ""}]
        assert ingest.ingest(db, str(root), root=str(root)) == {
            "replaced": 1}
        assert db.scalar("SELECT plugin FROM run") == "branches-test.so"


# Stand-in searches: their logs written by bench/bisection's own code,
# their steps' figures made up (as tests/test_scan_unit.py's).
OPTS = {"metric": bisection.DEFAULT_METRIC, "seeds": 6, "seed": 1,
        "config": "smoke", "seconds": 0, "clients": 20, "floor_pct": 0.5}


def stand_in(base):
    class Search(base):
        def __init__(self, out, n, changes, **opts):
            self.changes = changes
            super().__init__(str(out), Range(n), dict(OPTS, **opts))

        def measure(self, i):
            name, _, rev = self.cands[i]
            x = math.prod(f for at, f in self.changes.items() if i >= at)
            return {"event": "step", "i": i, "variant": name,
                    "revision": rev, "build_hash": "%016x" % i,
                    "results": "step-%s/results/x" % name,
                    "values": {s: 3e4 * x * (1 + 1e-5 * s)
                               for s in range(1, 7)}}
    return Search


def searches(root):
    """A scan (its steps' results dirs too), a bisection and a scan of
    two workloads under root; the refs of their findings."""
    out = root / "scan-a"
    stand_in(scan.Scan)(out, 11, {4: 1.05}, points=3).scan()
    for e in bisection.read_log(str(out / scan.LOG)):
        if e["event"] == "step":
            synth.make_results(str(out / os.path.dirname(e["results"])),
                               VALUES, name="x")
    stand_in(bisection.Bisection)(root / "bisect-b", 9, {3: 0.95}).bisect()
    stand_in(scan.Scan)(root / "scan-m" / "tbench", 5, {2: 1.1},
                        points=2).scan()
    stand_in(scan.Scan)(root / "scan-m" / "pipe", 5, {}, points=2,
                        workload="pipe", loops=9).scan()
    return ["bisect-b:c03", "scan-a:c04", "scan-m/tbench:c02"]


def test_findings_keep_the_states_people_set(url, tmp_path):
    root = tmp_path / "results"
    refs = searches(root)
    with store.connect(url) as db:
        counts = ingest.ingest(db, str(root), root=str(root))
        assert counts == {"added": 4 + len(list(root.glob(
            "scan-a/step-*")))}, counts
        found = query.findings(db)
        assert [f["ref"] for f in sorted(found, key=lambda f: f["ref"])] \
            == refs
        assert {f["state"] for f in found} == {"new"}
        f = {x["ref"]: x for x in found}
        assert f["scan-a:c04"]["pct_change"] == pytest.approx(5.0)
        assert f["scan-a:c04"]["revision"] == "c04 subject 4"
        assert f["bisect-b:c03"]["pct_change"] == pytest.approx(-5.0)
        assert f["scan-m/tbench:c02"]["workload"] == "tbench"
        assert db.scalar("SELECT workload FROM search WHERE path = "
                         "'scan-m/pipe'") == "pipe"
        # a step's results dir is a run of the store
        assert db.query("SELECT r.kind, r.parent FROM step s JOIN search se "
                        "ON se.id = s.search_id JOIN run r ON r.path = "
                        "s.results WHERE se.path = 'scan-a' AND s.i = 4") \
            == [{"kind": "step", "parent": "scan-a"}]
        assert db.scalar("SELECT count(*) FROM step_value") == 6 * \
            db.scalar("SELECT count(*) FROM step")
        query.set_state(db, f["scan-a:c04"]["id"], "confirmed", "seen twice")
        query.set_state(db, "scan-a:c04", "fixed", "reverted")
        query.set_state(db, "bisect-b:c03", "false-positive", "noise")
        assert [x["ref"] for x in query.findings(db)] == [
            "scan-m/tbench:c02"]
        with pytest.raises(ValueError, match="no finding 999"):
            query.set_state(db, 999, "fixed")
        with pytest.raises(ValueError, match="none of"):
            query.set_state(db, "scan-a:c04", "gone")
        # a changed log is ingested again, a rebuild makes all anew: the
        # states stay
        with open(root / "scan-a" / "scan.log", "a") as log:
            log.write("\n")
        assert ingest.ingest(db, str(root), root=str(root))["replaced"] == 1
        ingest.rebuild(db, str(root))
        assert [x["ref"] for x in query.findings(db, "fixed")] == [
            "scan-a:c04"]
        assert [(s["state"], s["note"]) for s in query.states(
            db, "scan-a:c04")] == [("confirmed", "seen twice"),
                                   ("fixed", "reverted")]
        assert len(query.findings(db, "all")) == 3
    # the command: a state by id, a usage error for an unknown one
    fid = json.loads(run([DB, "findings", "--db", url, "--json"]).stdout)[
        0]["id"]
    run([DB, "finding", str(fid), "--db", url, "--state", "acknowledged",
         "--note", "known"])
    p = run([DB, "finding", "999", "--db", url, "--state", "fixed"],
            check=False)
    assert p.returncode == 2 and "no finding 999" in p.stderr
    assert "acknowledged" in run([DB, "findings", "--db", url, "--state",
                                  "acknowledged"]).stdout


def test_record_never_fails_its_caller(tmp_path):
    root = tmp_path / "results"
    path = synthetic(root, profiles=False)
    said = []
    url = str(tmp_path / "s.db")
    assert store.record(path, url=url, root=str(root),
                        warn=said.append) == {"added": 1}
    assert not said
    gone = "postgresql:///x?host=%s" % (tmp_path / "nowhere")
    assert store.record(path, url=gone, warn=said.append) is None
    assert "jlbench db rebuild" in said[-1] and "cannot connect" in said[-1]
    os.remove(os.path.join(path, "meta.json"))
    store.record(path, url=url, root=str(root), warn=said.append)
    assert "no meta.json" in said[-2] and "jlbench db rebuild" in said[-1]


def test_the_default_store_is_in_the_cache():
    assert backend.default_url({"JLBENCH_DB": "postgresql:///j"}) == \
        "postgresql:///j"
    assert backend.default_url({"JLBENCH_CACHE": "/c"}) == "/c/jlbench.db"
    assert backend.default_url({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == \
        "/x/jlbench/jlbench.db"
    assert backend.default_url({"HOME": "/h"}) == \
        "/h/.cache/jlbench/jlbench.db"
    assert backend.sqlite_path("sqlite:///a/b.db") == "/a/b.db"
    assert backend.describe("postgresql://u:secret@h/db") == \
        "postgresql://u@h/db"


def test_docs_store_md_is_the_schema(tmp_path):
    with open(docs.DOC) as f:
        text = f.read()
    assert docs.render(text) == text, (
        "docs/store.md's tables are not lib/store/schema.py's: run "
        "`python3 -m lib.store.docs --write`")
    for t in schema.TABLES:
        assert "| `%s` | %s |" % (t.name, t.doc) in text
    stale = tmp_path / "store.md"
    stale.write_text(text.replace("| `figure` |", "| `figures` |"))
    cmd = [PYTHON, "-m", "lib.store.docs", "--file", str(stale)]
    p = run(cmd + ["--check"], check=False)
    assert p.returncode == 1 and "--write" in p.stderr
    run(cmd + ["--write"])
    assert stale.read_text() == text
    # the DDL of each backend names every table
    for dialect in ("sqlite", "postgresql"):
        ddl = run(cmd + ["--ddl", dialect]).stdout
        assert all("CREATE TABLE IF NOT EXISTS %s (" % t.name in ddl
                   for t in schema.TABLES)
