"""Results dirs from before a format change: what their files lack and
what analysis reads in its place. Every such fallback is here, so a
newer reader and an old dir agree in one place, and one day's cleanup
is one file.

- stats.json before "headline": MB/s was the headline.
- stats.json before "linux": every run was of Linux 6.1 (lib/source.py).
- stats.json before "workload": every run was of tbench.
- stats.json and meta.json before `bench/run --baseline`: the baseline
  was atomic-read (lib/format/schema.py BASELINE).
- runs.csv before its `seconds` column: meta.json's protocol.seconds.
- runs.csv, summary.csv, history.csv and stats.json before the accelerator
  was `accel`: it was `mode` (stats.json's description `mode_description`;
  runs.csv's rename is lib/format/schema.py RENAMED, which bench/ reads too).
- history.csv before `metric` and `headline`: MB/s columns named
  mean_mbps, ci_lo_mbps, ci_hi_mbps, all of them headline rows; before
  `config`: every row of the full config (left empty).
"""
import pandas as pd

from lib import source, workloads
from lib.format import schema

HEADLINE = "throughput_mbps"
WORKLOAD = workloads.DEFAULT
HISTORY_NAMES = {"mean_mbps": "mean", "ci_lo_mbps": "ci_lo",
                 "ci_hi_mbps": "ci_hi"}


def headline(st):
    """The headline metric of a stats dict."""
    return st.get("headline", HEADLINE)


def linux(st):
    """The Linux version of a stats dict."""
    return st.get("linux") or source.DEFAULT


def workload(st):
    """The workload of a stats dict."""
    return st.get("workload", WORKLOAD)


def baseline(st):
    """The baseline of a stats dict."""
    return st.get("baseline", schema.BASELINE)


def run_seconds(runs, meta):
    """tbench's run length per run of a runs.csv frame."""
    default = (meta.get("protocol") or {}).get("seconds")
    col = runs["seconds"] if "seconds" in runs.columns \
        else pd.Series(float("nan"), index=runs.index)
    out = pd.to_numeric(col, errors="coerce")
    return out.fillna(float(default) if default else float("nan"))


def stats(st):
    """A stats dict with today's keys."""
    for old, new in (("mode", "accel"),
                     ("mode_description", "accel_description")):
        if old in st and new not in st:
            st[new] = st.pop(old)
    return st


def history(h):
    """A history.csv frame with today's columns."""
    h = h.rename(columns={"mode": "accel"})
    if "metric" not in h.columns:
        h = h.rename(columns=HISTORY_NAMES)
        h["metric"], h["headline"] = HEADLINE, "1"
    if "config" not in h.columns:
        h["config"] = ""
    return h
