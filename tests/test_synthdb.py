"""tests/fixtures/synthdb.py, the synthetic results store of the web
dashboard's performance targets and browser tests: a small one answers
lib/store/query.py's questions with the counts and figures its history
makes, on SQLite and on PostgreSQL (conftest.pg_server); its figure rows
give its comparison rows again; its hostile strings are stored
verbatim; one seed makes the same store, by make() and by the command,
with the schema's indexes and consistent ids; a changed schema or a
store with runs stops it."""
import json
import re
import sys

import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from lib import store, variants, workloads  # noqa: E402
from lib.store import query, schema  # noqa: E402
import synthdb  # noqa: E402
from synthruns import AA, HOSTILE  # noqa: E402

pytestmark = pytest.mark.xdist_group("test_synthdb")
RUNS = 300
TBENCH = workloads.DEFAULT
LABELS = list(variants.BUILTIN) + [AA]
SHA = re.compile(r"[0-9a-f]{40}")
INDEXES = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND " \
    "sql IS NOT NULL ORDER BY name"


def new_url(kind, tmp_path, request, name="synth.db"):
    if kind == "sqlite":
        return str(tmp_path / name)
    return request.getfixturevalue("pg_server").new_database()


def sessions():
    """(top-level tbench runs, suites) of the plan of RUNS."""
    plan = synthdb.plan(RUNS)
    return (sum(isinstance(s, str) for s in plan),
            sum(s == "suite" for s in plan))


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_small_store_answers_the_queries(kind, tmp_path, request):
    url = new_url(kind, tmp_path, request)
    made = synthdb.make(url, runs=RUNS, hostile=True)
    tops, suites = sessions()
    assert made["runs"] == made["counts"]["run"] == RUNS
    assert suites >= 3 and made["counts"]["search"] == 5
    older, newer = made["pair"]
    with store.connect(url) as db:
        # history: every top-level run, oldest first, jump-label's gain
        rows = query.history(db, TBENCH, "ops_per_s", variants.JUMP)
        assert len(rows) == tops
        assert [r["created_utc"] for r in rows] == sorted(
            r["created_utc"] for r in rows)
        assert rows[-1]["run"] == newer and rows[-2]["run"] == older
        for r in rows:
            assert SHA.fullmatch(r["git_commit"])
            assert r["run"].split("/")[0].endswith("-" + r["git_commit"][:7])
            assert r["kernel_version"] in ("6.1.192-3", "6.12.118-1~deb12u1")
            assert 1.1 < r["pct_change"] < 1.6 and r["marker"] == "*"
            assert r["pct_ci_lo"] < r["pct_change"] < r["pct_ci_hi"]
            assert (r["n"], r["significant"], r["method"]) == (
                6, 1, "sign test")
        plain = query.history(db, TBENCH, "ops_per_s", variants.PLAIN)
        assert all(abs(r["pct_change"]) < 0.2 and r["marker"] == "~"
                   for r in plain)
        assert len(query.history(db, "pipe", "kernel_insns_per_op",
                                 variants.JUMP)) == suites
        for w, metric, label in made["series"]:
            assert query.history(db, w, metric, label), (w, metric, label)
        # the newest two of each workload
        assert query.newest_two(db, variants.JUMP) == {
            w: [b, a] for w, (a, b) in made["pairs"].items()}
        # one run's comparisons: the baseline's without a change, the A/A
        # twin in its own group, the hostile label as any other
        got = {(c["label"], c["metric"]): c
               for c in query.comparisons(db, newer)}
        assert set(got) == {(lab, m) for lab in LABELS + [HOSTILE["label"]]
                            for m in ("ops_per_s", "throughput_mbps",
                                      "kernel_insns_per_op", "ops")}
        base = got[(variants.BASELINE, "ops_per_s")]
        assert (base["baseline"], base["pct_change"], base["marker"]) == (
            "", None, "")
        assert got[(AA, "ops_per_s")]["label_group"] == "aa"
        assert got[(AA, "ops_per_s")]["floor_pts"] == 0.0
        assert 0.05 < got[(variants.JUMP, "ops_per_s")]["floor_pts"] < 0.1
        # its tries give its comparisons again: ops / seconds per label,
        # six seeds, the main labels' shared
        tries = {}
        for f in db.query("SELECT f.* FROM figure f JOIN run r ON r.id = "
                          "f.run_id WHERE r.path = ?", [newer]):
            tries.setdefault((f["label"], f["line"]), {"seed": f["seed"]})[
                f["metric"]] = f["value"] if f["value"] is not None \
                else f["text"]
        assert len(tries) == 6 * 5
        for label in LABELS:
            mine = [t for (lab, _), t in tries.items() if lab == label]
            assert len(mine) == 6 and all(t["accel"] == "icount"
                                          for t in mine)
            assert sum(t["ops"] / t["seconds"] for t in mine) / 6 == \
                pytest.approx(got[(label, "ops_per_s")]["mean"], rel=1e-12)
        seeds = {lab: sorted(t["seed"] for (x, _), t in tries.items()
                             if x == lab) for lab in LABELS}
        assert seeds[variants.JUMP] == seeds[variants.BASELINE] != seeds[AA]
        # findings: their states, their steps' runs
        found = query.findings(db, state="all")
        assert [f["id"] for f in found] == made["finding_ids"]
        assert {f["ref"]: f["state"] for f in found} == dict(
            {ref: "new" for ref in made["finding_refs"]}, **made["states"])
        assert set(made["states"].values()) == {
            "confirmed", "fixed", "false-positive"}
        assert len(query.findings(db)) == 2
        paths = {r["path"]: r for r in db.query(
            "SELECT path, kind, parent FROM run WHERE kind = 'step'")}
        for f in found:
            assert re.fullmatch(r"[0-9a-f]{12} .+", f["revision"])
            assert f["variant"] == "c" + f["revision"][:12]
            for at in (f["results"], f["parent_results"]):
                assert paths[at] == {"path": at, "kind": "step",
                                     "parent": f["search"]}
            assert abs(f["pct_change"]) > 1
            assert all(len(x) == 5 for x in json.loads(f["top_functions"]))
        assert made["step_run"] == found[0]["results"]
        # a profile of the profiled runs only
        prof = query.profile(db, newer, variants.JUMP)
        assert len(prof) == 37 and prof[0]["function"] == "[user]"
        assert [p["per_op"] for p in prof] == sorted(
            (p["per_op"] for p in prof), reverse=True)
        assert {(p["n"], p["tries"]) for p in prof} == {(6, 6)}
        assert newer in made["profiled"] and older in made["profiled"]
        assert {r["path"] for r in db.query(
            "SELECT DISTINCT r.path FROM profile p JOIN run r ON r.id = "
            "p.run_id")} == set(made["profiled"])
        # the hostile strings, verbatim where the summary says
        odd = made["hostile"]
        assert odd["strings"] == HOSTILE
        assert db.query("SELECT DISTINCT r.path FROM run r JOIN harness h "
                        "ON h.id = r.harness_id WHERE h.host = ?",
                        [HOSTILE["script"]]) == [{"path": newer}]
        assert odd["host_runs"] == [newer]
        assert odd["label_runs"] == [older, newer]
        f = {x["ref"]: x for x in found}
        assert [f[ref]["revision"][13:] for ref in odd["revision_refs"]] \
            == [HOSTILE["script"]]
        assert [f[ref]["state_note"] for ref in odd["note_refs"]] == [
            HOSTILE["note"]]
        assert tries[(HOSTILE["label"], 26)]["kernel_hash"] == \
            db.scalar("SELECT build_hash FROM kernel WHERE variant = ?",
                      [HOSTILE["label"]])


def test_one_seed_makes_one_store(tmp_path):
    a, b, c = (str(tmp_path / n) for n in ("a.db", "b.db", "c.db"))
    made = synthdb.make(a, runs=RUNS, seed=7)
    p = run([PYTHON, str(ROOT / "tests" / "fixtures" / "synthdb.py"),
             "--db", b, "--runs", str(RUNS), "--seed", "7"])
    assert json.loads(p.stdout) == json.loads(json.dumps(made))
    synthdb.make(c, runs=RUNS, seed=8)
    with store.connect(a) as x, store.connect(b) as y, \
            store.connect(c) as z:
        assert x.dump() == y.dump() != z.dump()
        # the indexes it dropped while writing are back; its ids hold
        assert x.query(INDEXES) == y.query(INDEXES)
        assert len(x.query(INDEXES)) == sum(
            len(t.index) for t in schema.TABLES)
        assert x.execute("PRAGMA foreign_key_check").fetchall() == []
    with pytest.raises(ValueError, match="already holds runs"):
        synthdb.make(a, runs=RUNS)


def test_a_changed_schema_stops_it(tmp_path, monkeypatch):
    t = schema.TABLE["run"]
    monkeypatch.setitem(schema.TABLE, "run", t._replace(
        columns=t.columns + [schema.Column("plugin", "text", "")]))
    with pytest.raises(synthdb.SchemaChanged, match=r"run has \(.*plugin"):
        synthdb.make(str(tmp_path / "s.db"), runs=RUNS)
    assert not (tmp_path / "s.db").exists()
