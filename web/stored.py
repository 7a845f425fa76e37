"""A results dir as analysis reads it, made from the store alone.

The store's figure table holds every runs.csv cell of every try, so a
run's runs.csv can be written again from it; with the run's meta.json
facts the store keeps (protocol, baseline, commit, plugin, model) that
is what analysis/comparison/runs.py needs to compare two runs by the
report's rule. The dashboard compares runs this way, so that a run whose
dir is not on this machine (another host's, in a shared store) compares
as well as a local one.
"""
import csv
import io
import json

from analysis.results import reference
from analysis.results.load import FormatError, read_runs, with_derived
from lib.format import schema


class StoredRun:
    """The part of analysis.results.load.Results that comparing two runs
    reads: path, run_id, runs, meta, baseline."""

    def __init__(self, db, path):
        rows = db.query("SELECT r.*, h.git_commit FROM run r LEFT JOIN "
                        "harness h ON h.id = r.harness_id WHERE r.path = ?",
                        [path])
        if not rows:
            raise FormatError("no run %s in the store" % path)
        run = rows[0]
        self.path, self.run_id = path, run["run_id"]
        self.meta = {
            "protocol": json.loads(run["protocol"] or "{}"),
            "baseline": run["baseline"],
            "git": {"commit": run["git_commit"] or ""},
            "plugin": {"path": run["plugin"]} if run["plugin"] else {},
            "model": json.loads(run["model"]) if run["model"] else None,
            "created_utc": run["created_utc"]}
        try:
            self.baseline = reference.baseline(self.meta)
        except ValueError as e:
            raise FormatError("%s: %s" % (path, e))
        self.runs = with_derived(read_runs(io.StringIO(runs_csv(
            db, run["id"], self.meta))), self.meta)


def runs_csv(db, run_id, meta):
    """The runs.csv text of a stored run, from its figure rows (the lines
    analysis left out are left out), its columns in bench/run's order."""
    lines, columns = {}, []
    for f in db.query("SELECT line, plan_index, label, variant, seed, try, "
                      "status, metric, value, text FROM figure WHERE run_id "
                      "= ? AND excluded = 0 ORDER BY line", [run_id]):
        line = lines.get(f["line"])
        if line is None:
            line = lines[f["line"]] = {
                "index": _cell(f["plan_index"]), "label": f["label"],
                "variant": f["variant"], "perturb_seed": _cell(f["seed"]),
                "try": _cell(f["try"]), "status": f["status"]}
        if f["metric"] not in columns:
            columns.append(f["metric"])
        line[f["metric"]] = f["text"] if f["value"] is None \
            else _cell(f["value"])
    protocol = meta["protocol"]
    order = schema.run_columns(protocol.get("perf_events") or (),
                               model=meta["model"],
                               workload=schema.workload(meta))
    # every column bench/run writes (one empty on every line has no
    # figure rows), then any other in the store's order
    header = order + [c for c in columns if c not in order]
    out = io.StringIO()
    w = csv.DictWriter(out, header,
                       restval="", lineterminator="\n")
    w.writeheader()
    for n in sorted(lines):
        w.writerow(lines[n])
    return out.getvalue()


def _cell(x):
    """A number as runs.csv writes it (an integer without a point)."""
    if x is None:
        return ""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)
