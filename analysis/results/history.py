"""results/history.csv: one row per label and throughput metric per
analysed run, across commits.

analysis/analyze updates it. Re-analysing a run replaces that run's rows
(key: run_id), so the file never holds a run twice. `metric` names the
figure (ops_per_s, throughput_mbps: analysis/results/metrics.py) and `headline`
is 1 on the rows of the run's headline metric; `config` is the kernels' base
config (kernel-variants/build --config). Files from before these columns
are read as analysis/results/compat.py says.
"""
import os
import re

import pandas as pd

from analysis.results import compat, metrics
from analysis.results.runinfo import accel_key
from lib.format import outputs

COLUMNS = outputs.HISTORY_COLUMNS
RUN_ID = re.compile(r"^(.+)-([0-9a-f]{4,40})$")


def run_facts(run_id, meta):
    """Date, git commit and profile of a run: meta.json as bench/run writes
    it, else the dir name (results/<UTC time>-<git short sha>)."""
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    plan = meta.get("plan") if isinstance(meta.get("plan"), dict) else {}
    m = RUN_ID.match(run_id)
    date = meta.get("created_utc") or (m.group(1) if m else "")
    commit = git.get("commit") or (m.group(2) if m else "")
    dirty = git.get("dirty")
    return {"date": str(date), "git_commit": str(commit),
            "git_dirty": "" if dirty is None else str(bool(dirty)).lower(),
            "profile": str(plan.get("profile", ""))}


def rows(st, meta, builds):
    """History rows of one analysed run: its throughput metrics."""
    out = []
    for m in st["metrics"]:
        if m["metric"] in metrics.names():
            out += _metric_rows(st, meta, builds, m)
    return pd.DataFrame(out, columns=COLUMNS)


def _metric_rows(st, meta, builds, thr):
    facts = run_facts(st["run_id"], meta)
    comps = {c["label"]: c for c in thr["comparisons"]}
    out = []
    for info in st["labels"]:
        d = thr["per_label"][info["label"]]
        c = comps.get(info["label"], {})
        b = builds.get(info["variant"], {})
        src = b.get("source") if isinstance(b.get("source"), dict) else {}
        out.append(dict(
            facts, run_id=st["run_id"], accel=accel_key(st),
            group=info["group"], label=info["label"],
            variant=info["variant"], n=d["n"], failed=info["failed"],
            kernel_version=src.get("version", ""),
            config_hash=b.get("hash") or ",".join(info["kernel_hashes"]),
            metric=thr["metric"],
            headline=int(thr["metric"] == st.get("headline")),
            mean=d["mean"], ci_lo=d["ci_lo"],
            ci_hi=d["ci_hi"], baseline=c.get("baseline", ""),
            pct_change=c.get("pct_change"), pct_ci_lo=c.get("pct_ci_lo"),
            pct_ci_hi=c.get("pct_ci_hi"), method=c.get("test_t", ""),
            p_t=c.get("p_t"), marker=c.get("marker", ""),
            config=b.get("config", "")))
    return out


def read(path):
    """The history table, empty when the file does not exist."""
    if not os.path.exists(path):
        return pd.DataFrame(columns=COLUMNS)
    h = pd.read_csv(path, dtype=str, keep_default_na=False)
    return compat.history(h)[COLUMNS]


def update(path, new):
    """Replace the rows of new's run(s) in the history file, keep the rest,
    sort by date (stable), write atomically. Returns the table written."""
    old = read(path)
    old = old[~old["run_id"].isin(set(new["run_id"]))]
    fmt = new.copy()
    for c in ("mean", "ci_lo", "ci_hi", "pct_change",
              "pct_ci_lo", "pct_ci_hi", "p_t"):
        fmt[c] = fmt[c].map(lambda x: "" if x is None or x != x
                            else "%.6g" % x)
    fmt = fmt.astype(str)
    both = pd.concat([old, fmt], ignore_index=True)[COLUMNS]
    both = both.sort_values(["date", "run_id"], kind="mergesort")
    tmp = path + ".tmp"
    both.to_csv(tmp, index=False)
    os.replace(tmp, path)
    return both
