"""What each dashboard page shows, read from the store: plain dicts and
lists, for the templates (web/templates/) and the JSON the charts load.

Every figure comes from the store's rows as ingest wrote them from the
results dirs (summary.csv and stats.json for a run's comparisons, runs.csv
cells for a comparison of two runs); none is made up here.
"""
import json

from analysis.comparison import runs as two_runs
from analysis.documents.compare import what_changed
from analysis.results import reference
from analysis.results.load import FormatError
from analysis.sections import fmt as F
from analysis.stats import calibrate
from lib import variants, workloads
from lib.format import schema as fs
from lib.store import query, robot as store_robot, schema as store_schema
from web.stored import StoredRun

HEADLINE = "ops_per_s"
# the kinds of run a graph across commits draws by default (env: the
# environment studies; step: a search's candidates, drawn by range)
GRAPH_KINDS = ("run", "suite", "example")
# the series a graph shows when its URL names none
DEFAULT_SERIES = (workloads.DEFAULT, HEADLINE, variants.JUMP)


def fingerprint(db):
    """What changes whenever a run or search is ingested or replaced."""
    return (db.scalar("SELECT max(id) FROM run"),
            db.scalar("SELECT count(*) FROM run"),
            db.scalar("SELECT max(id) FROM search"),
            db.scalar("SELECT count(*) FROM finding_state"))


def change_text(c):
    """A comparison's change as REPORT.md writes it: '+1.42% [+1.38,
    +1.46] ±0.07 env'."""
    return F.pct_ci(c)


def newest_run(db):
    """The newest analysed top-level run (REPORT.md's run), or None."""
    rows = db.query("SELECT * FROM run WHERE kind = 'run' AND analysed = 1 "
                    "ORDER BY created_utc DESC, path DESC LIMIT 1")
    return rows[0] if rows else None


def overview(db):
    """The overview page: the newest run's answer, 2011's table, the A/A
    control, and every workload of its suite against the baseline."""
    run = newest_run(db)
    if run is None:
        return {"run": None}
    comps = query.comparisons(db, run["path"])
    head = run["headline"] or HEADLINE
    by_label = {c["label"]: c for c in comps if c["metric"] == head}
    mbps = {c["label"]: c for c in comps if c["metric"] == "throughput_mbps"}
    kernels = []
    for label in reference.label_order(list(by_label)):
        c = by_label[label]
        if c["label_group"] != "main":
            continue
        kernels.append({
            "label": label, "mean": F.val(c["mean"]),
            "ci": "[%s, %s]" % (F.val(c["ci_lo"]), F.val(c["ci_hi"])),
            "n": c["n"], "change": change_text(c) if c["baseline"] else
            "(baseline)", "marker": c["marker"] or "",
            "mbps_change": change_text(mbps[label]) if label in mbps and
            mbps[label]["baseline"] else "",
            "mbps_2011": reference.MBPS_2011.get(label),
            "pct_2011": F.pct(reference.pct_2011(label))
            if label in reference.MBPS_2011 and label != run["baseline"]
            else ""})
    aa = [dict(c, change=change_text(c)) for c in comps
          if c["label_group"] == "aa"
          and c["metric"] in (head, "throughput_mbps")]
    return {"run": run, "headline": head, "kernels": kernels, "aa": aa,
            "source_2011": reference.SOURCE,
            "across": across(db, run)}


def across(db, run):
    """Per workload of a run and its suite: the headline change of every
    label against the baseline, with its interval and floor."""
    runs = {r["id"]: r for r in db.query(
        "SELECT id, path, workload FROM run WHERE path = ? OR parent = ?",
        [run["path"], run["path"]])}
    # by run first: the planner would otherwise walk every run's rows of
    # the metric
    rows = db.query(
        "SELECT run_id, label, pct_change, pct_ci_lo, pct_ci_hi, floor_pts, "
        "marker, significant FROM comparison WHERE run_id IN (%s) AND "
        "metric = ? AND baseline <> '' AND label_group = 'main'" % ", ".join(
            "?" for _ in runs), list(runs) + [run["headline"] or HEADLINE])
    for r in rows:
        r.update(path=runs[r["run_id"]]["path"],
                 workload=runs[r["run_id"]]["workload"],
                 change=change_text(r))
    return sorted(rows, key=lambda r: (r["workload"], r["label"]))


def distinct(db, table, column, where="", params=()):
    """The sorted distinct values of an indexed column, one index seek
    each (SELECT DISTINCT would read the whole index: 1.3 million
    comparison rows of a 100,000-run store)."""
    out, last = [], None
    cond = (where + " AND ") if where else ""
    while True:
        if last is None:
            v = db.scalar("SELECT min(%s) FROM %s%s" % (
                column, table, " WHERE " + where if where else ""),
                list(params))
        else:
            v = db.scalar("SELECT min(%s) FROM %s WHERE %s%s > ?" % (
                column, table, cond, column), list(params) + [last])
        if v is None:
            return out
        out.append(v)
        last = v


def catalog(db):
    """What a graph can draw: workloads, metrics and labels of the
    comparisons, and the searches (a scanned range)."""
    metrics = distinct(db, "comparison", "metric")
    labels = sorted({lab for m in metrics for lab in distinct(
        db, "comparison", "label", "metric = ?", [m])})
    return {
        "workloads": distinct(db, "run", "workload"),
        "metrics": metrics, "labels": labels,
        "searches": db.query("SELECT path, kind, workload, metric FROM "
                             "search ORDER BY path")}


SERIES_FIELDS = ("run", "created_utc", "kind", "git_commit",
                 "kernel_version", "tree", "label", "mean", "ci_lo",
                 "ci_hi", "pct_change", "pct_ci_lo", "pct_ci_hi", "marker",
                 "floor_pts", "baseline")


def series(db, workload, metric, label, kinds=GRAPH_KINDS):
    """One series of the graph: label's metric on workload in every run
    of kinds, oldest first."""
    return [{k: r[k] for k in SERIES_FIELDS}
            for r in query.history(db, workload, metric, label, kinds)]


def search_series(db, path):
    """A search's candidates along its range: per measured step its
    revision, run, the mean of its seeds' figures and their extremes."""
    s = db.query("SELECT * FROM search WHERE path = ?", [path])
    if not s:
        raise LookupError("no search %s in the store" % path)
    s = s[0]
    steps = db.query(
        "SELECT st.i, st.revision, st.results, st.decision, "
        "avg(v.value) AS mean, min(v.value) AS lo, max(v.value) AS hi, "
        "count(v.value) AS n FROM step st JOIN step_value v ON "
        "v.search_id = st.search_id AND v.i = st.i WHERE st.search_id = ? "
        "GROUP BY st.i, st.revision, st.results, st.decision ORDER BY st.i",
        [s["id"]])
    return {"search": {k: s[k] for k in ("path", "kind", "workload",
                                         "metric", "floor_pct")},
            "steps": steps}


def run_page(db, path):
    """A run's row, its harness and kernels, its comparisons, its tries
    (per line: label, seed, try, status, reason), its suite."""
    rows = db.query("SELECT r.*, h.git_commit, h.git_dirty, h.host, "
                    "h.qemu_version FROM run r LEFT JOIN harness h ON h.id "
                    "= r.harness_id WHERE r.path = ?", [path])
    if not rows:
        raise LookupError("no run %s in the store" % path)
    run = rows[0]
    kernels = db.query(
        "SELECT rk.variant, k.* FROM run_kernel rk JOIN kernel k ON k.id = "
        "rk.kernel_id WHERE rk.run_id = ? ORDER BY rk.variant", [run["id"]])
    tries = db.query(
        "SELECT line, plan_index, label, variant, seed, try, status, "
        "excluded, max(CASE WHEN metric = 'reason' THEN text END) AS reason "
        "FROM figure WHERE run_id = ? GROUP BY line, plan_index, label, "
        "variant, seed, try, status, excluded ORDER BY line", [run["id"]])
    comps = query.comparisons(db, path)
    for c in comps:
        c["change"] = change_text(c) if c["baseline"] else ""
    children = db.query("SELECT path, workload, kind FROM run WHERE parent "
                        "= ? ORDER BY workload, path", [path])
    previous = db.query(
        "SELECT path FROM run WHERE workload = ? AND kind = ? AND "
        "created_utc < ? AND analysed = 1 ORDER BY created_utc DESC LIMIT 1",
        [run["workload"], run["kind"], run["created_utc"]])
    return {"run": run, "kernels": kernels, "tries": tries,
            "previous": previous[0]["path"] if previous else "",
            "comparisons": comps, "children": children,
            "labels": sorted({t["label"] for t in tries})}


def labels(db, path):
    """The labels of a run's tries, sorted."""
    return [r["label"] for r in db.query(
        "SELECT DISTINCT f.label FROM figure f JOIN run r ON r.id = "
        "f.run_id WHERE r.path = ? ORDER BY f.label", [path])]


def workloads_of(db, path):
    """{workload: run path} of a run and its suite's runs."""
    rows = db.query("SELECT path, workload FROM run WHERE path = ? OR "
                    "parent = ?", [path, path])
    return {r["workload"]: r["path"] for r in rows}


def shared_workloads(db, a, b):
    """[(workload, a's run, b's run)] of the workloads two runs share (a
    run's suite runs included); a and b are runs, or one run twice."""
    wa, wb = workloads_of(db, a), workloads_of(db, b)
    # the run's own workload first, then its suite's
    return [(w, wa[w], wb[w]) for w in sorted(
        set(wa) & set(wb), key=lambda w: (wb[w] != b, w))]


def first_label(db, path):
    """The first label of a run, by REPORT.md's order, but its baseline."""
    rows = db.query("SELECT DISTINCT c.label FROM comparison c JOIN run r "
                    "ON r.id = c.run_id WHERE r.path = ? AND c.baseline <> "
                    "'' AND c.label_group = 'main'", [path])
    labels = reference.label_order([r["label"] for r in rows])
    return labels[0] if labels else ""


def compare_runs(db, a, b, workload, which="all"):
    """Two runs (a and b: the paths of one workload's runs) side by side:
    what differs, and per metric (which: analysis/comparison/runs.py
    rows()') and label the change b vs a by analysis/compare's rule."""
    old, new = StoredRun(db, a), StoredRun(db, b)
    rows = [row(r, r.label) for r in two_runs.rows(
        old, new, calibrate.for_run(new.meta), which)]
    return {"workload": workload, "a": old.path, "b": new.path,
            "differs": what_changed(old, new), "rows": rows}


def compare_labels(db, path, a, b, workload, which="all"):
    """Two labels of one run (path: its run of workload) side by side.
    Against the run's baseline the figures are the run's own comparisons
    (REPORT.md's); otherwise analysis/compare's rule on the two labels'
    tries, paired by seed."""
    stored = StoredRun(db, path)
    if a == stored.baseline:
        rows = [{"metric": c["metric"], "label": b, "old": "",
                 "new": F.val(c["mean"]), "change": change_text(c),
                 "p": F.p(c["p_t"]), "n": c["n"], "how": c["method"],
                 "marker": c["marker"] or ""}
                for c in query.comparisons(db, path, label=b)
                if which == "all" or (which == "throughput") == (
                    c["metric"] in fs.THROUGHPUT)]
    else:
        rows = label_rows(stored, a, b, which)
    return {"workload": workload, "a": path, "b": path, "differs": [],
            "rows": rows}


def row(r, label):
    """A compare table row of an analysis/comparison/runs.py Row."""
    return {"metric": r.name, "label": label, "old": F.val(r.old["mean"]),
            "new": F.val(r.new["mean"]), "change": F.pct_ci(r.c),
            "p": F.p(r.c["p_t"]), "n": "%d/%d" % (r.n_old, r.n_new),
            "how": r.how, "marker": r.mark}


def label_rows(stored, a, b, which="all"):
    """The rows of label b against label a of one run: the run split in
    two runs of one label each, compared as two runs are."""
    return [row(r, "%s vs %s" % (b, a)) for r in two_runs.rows(
        _Only(stored, a), _Only(stored, b), calibrate.for_run(stored.meta),
        which)]


class _Only:
    """A stored run's tries of one label, relabelled to one name."""

    def __init__(self, stored, label):
        self.path, self.meta = stored.path, stored.meta
        self.baseline, self.run_id = stored.baseline, stored.run_id
        runs = stored.runs[stored.runs["label"] == label].copy()
        if runs.empty:
            raise FormatError("%s has no label %s" % (stored.path, label))
        # one name on both sides, so that the rows pair them; the image
        # and kernel are each side's own
        runs["label"] = "tries"
        self.runs = runs


def findings(db):
    """Every finding with its search, state, and the run paths of its
    step and its parent's, newest search first."""
    rows = query.findings(db, state="all")
    for f in rows:
        f["top"] = _top(f.get("top_functions"))
        f["change"] = change_text(f)
    rows.sort(key=lambda f: (f["search"], f["id"]), reverse=True)
    return rows


def _top(text):
    """[(function, diff per op)] of a top_functions JSON, at most 3."""
    try:
        top = json.loads(text or "[]")
    except ValueError:
        return []
    return [(t[0], t[1]) for t in top[:3] if isinstance(t, list) and t]


STATES = store_schema.STATES


def robot(db):
    """What the store's robots do (jlbench watch --status's figures):
    {"robots", "queue", "done"} of lib/store/robot.py's status()."""
    return store_robot.status(db, done=20)
