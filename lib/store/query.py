"""What the store answers: rows (lists of dicts), for the commands and
the API to render; no text here.

- history(): a label's figure and its change across harness commits and
  kernels, with intervals (the comparisons of every run);
- newest_two() and compare(): the two newest runs of a label per
  workload, side by side;
- comparisons(), profile(): one run's;
- findings(), set_state(), states(): the searches' findings and their
  lifecycle.
"""
import time

from lib.store import schema

_HISTORY = """
SELECT r.path AS run, r.created_utc, r.kind, r.workload, r.accel,
       h.git_commit, h.git_dirty, h.host, h.qemu_version,
       k.version AS kernel_version, k.build_hash, k.config,
       k.config_hash, k.patches_hash, k.tree,
       c.label_group, c.label, c.variant, c.metric, c.n, c.failed, c.mean,
       c.ci_lo, c.ci_hi, c.text, c.baseline, c.pct_change, c.pct_ci_lo,
       c.pct_ci_hi, c.method, c.p_t, c.marker, c.significant, c.floor_pts
FROM comparison c
JOIN run r ON r.id = c.run_id
LEFT JOIN harness h ON h.id = r.harness_id
LEFT JOIN run_kernel rk ON rk.run_id = r.id AND rk.variant = c.variant
LEFT JOIN kernel k ON k.id = rk.kernel_id
"""


def history(store, workload, metric, label=None, kinds=None):
    """Every run's row of metric on workload (of label: one label's),
    oldest first: the run, its harness, the label's kernel, the mean
    with its interval and the change against the baseline with its."""
    where, params = ["r.workload = ?", "c.metric = ?"], [workload, metric]
    if label:
        where.append("c.label = ?")
        params.append(label)
    if kinds:
        where.append("r.kind IN (%s)" % ", ".join("?" for _ in kinds))
        params += list(kinds)
    return store.query(_HISTORY + "WHERE %s ORDER BY r.created_utc, "
                       "r.path, c.label" % " AND ".join(where), params)


def newest_two(store, label, workload=None):
    """{workload: [newer run path, older run path]} of the two newest
    runs (by created_utc) that compare label against a baseline (a
    workload with one such run: [that run])."""
    where, params = ["c.label = ?", "c.baseline <> ''"], [label]
    if workload:
        where.append("r.workload = ?")
        params.append(workload)
    rows = store.query(
        "SELECT DISTINCT r.workload, r.path, r.created_utc FROM comparison "
        "c JOIN run r ON r.id = c.run_id WHERE %s ORDER BY r.workload, "
        "r.created_utc DESC, r.path DESC" % " AND ".join(where), params)
    out = {}
    for r in rows:
        runs = out.setdefault(r["workload"], [])
        if len(runs) < 2:
            runs.append(r["path"])
    return out


def compare(store, label, workload=None, metric=None):
    """Per workload and metric, label's change in the two newest runs
    side by side: {workload, metric, older, newer (their paths),
    older_/newer_ pct_change, pct_ci_lo, pct_ci_hi, marker, and delta:
    newer's change - older's, points}."""
    out = []
    for w, runs in sorted(newest_two(store, label, workload).items()):
        per = {}
        for side, path in zip(("newer", "older"), runs):
            for c in comparisons(store, path, label=label):
                if metric and c["metric"] != metric:
                    continue
                per.setdefault(c["metric"], {})[side] = c
        for m in sorted(per):
            row = {"workload": w, "metric": m,
                   "older": runs[1] if len(runs) > 1 else "",
                   "newer": runs[0]}
            for side in ("older", "newer"):
                c = per[m].get(side) or {}
                for k in ("pct_change", "pct_ci_lo", "pct_ci_hi",
                          "marker"):
                    row["%s_%s" % (side, k)] = c.get(k)
            a, b = row["older_pct_change"], row["newer_pct_change"]
            row["delta"] = b - a if a is not None and b is not None \
                else None
            out.append(row)
    return out


def comparisons(store, run, label=None):
    """The comparison rows of a run (its path), by label and metric."""
    where, params = ["r.path = ?"], [run]
    if label:
        where.append("c.label = ?")
        params.append(label)
    return store.query(
        "SELECT c.* FROM comparison c JOIN run r ON r.id = c.run_id WHERE "
        "%s ORDER BY c.label_group DESC, c.label, c.metric" % " AND ".join(
            where), params)


def profile(store, run, label, metric="insns"):
    """A label's per-function profile in a run (its path): one row per
    function of the profile column metric, the most per op first."""
    return store.query(
        "SELECT p.function, p.metric, p.per_try, p.per_op, p.n, p.tries "
        "FROM profile p JOIN run r ON r.id = p.run_id WHERE r.path = ? AND "
        "p.label = ? AND p.metric = ? ORDER BY p.per_op DESC, p.per_try "
        "DESC, p.function", [run, label, metric])


def states(store, ref):
    """A finding's state changes, oldest first."""
    return store.query("SELECT state, note, changed_utc FROM finding_state "
                       "WHERE ref = ? ORDER BY id", [ref])


def findings(store, state="open"):
    """The findings whose current state is state ('open': new or
    confirmed; 'all': every one), each with its search's path and kind,
    its state and the note and date of the last change."""
    rows = store.query(
        "SELECT f.*, s.path AS search, s.kind AS search_kind, "
        "fs.state, fs.note AS state_note, fs.changed_utc FROM finding f "
        "JOIN search s ON s.id = f.search_id LEFT JOIN finding_state fs ON "
        "fs.id = (SELECT max(id) FROM finding_state WHERE ref = f.ref) "
        "ORDER BY f.id")
    want = {"open": schema.OPEN, "all": schema.STATES}.get(state, (state,))
    out = []
    for r in rows:
        r["state"] = r["state"] or "new"
        r["state_note"] = r["state_note"] or ""
        r["changed_utc"] = r["changed_utc"] or ""
        if r["state"] in want:
            out.append(r)
    return out


def find(store, finding):
    """The finding row of an id (a number) or a ref, None when none."""
    if str(finding).isdigit():
        rows = store.query("SELECT * FROM finding WHERE id = ?",
                           [int(finding)])
    else:
        rows = store.query("SELECT * FROM finding WHERE ref = ?",
                           [finding])
    return rows[0] if rows else None


def set_state(store, finding, state, note=""):
    """Record a person's change of a finding's state (kept by every
    ingest and rebuild); the finding's row. ValueError for an unknown
    state or finding."""
    if state not in schema.STATES:
        raise ValueError("state %r is none of %s" % (
            state, ", ".join(schema.STATES)))
    f = find(store, finding)
    if f is None:
        raise ValueError("no finding %s (jlbench db findings --state all "
                         "lists them)" % finding)
    store.write(lambda s: s.insert("finding_state", {
        "ref": f["ref"], "state": state, "note": note,
        "changed_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                     time.gmtime())}))
    return f
