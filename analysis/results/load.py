"""Read a jlbench results dir (format: lib/format/FORMATS.md) into pandas.

Statistics come from runs.csv, samples.csv, meta.json (with each variant's
build.json under builds.<variant>.build) and the optional selftest.csv (and
selftest-<arch>.csv). analysis/results/check.py checks the rows against their
raw files first; the runs.csv lines and the runs' samples it leaves out
(stats.json `excluded`) are left out here too, wherever the dir is read.
"""
import json
import os
import re
import sys
import time

import pandas as pd

from analysis.results import compat, metrics, reference
from lib import model
from lib.format import schema

# Per-run figures compared as they are (lib/format/schema.py METRICS).
RAW_METRICS = tuple(m.name for m in schema.METRICS)


class FormatError(Exception):
    """A results dir that does not match lib/format/FORMATS.md."""


def log(stage, msg):
    """One line in the project's log format on stderr."""
    sys.stderr.write("%s %s: %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S"),
                                      stage, msg))


def read_runs(path, drop_lines=()):
    """runs.csv as a DataFrame; counter columns stay text (see split_counter).
    drop_lines: file lines (the header is line 1) left out."""
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as e:
        raise FormatError("cannot read %s: %s" % (path, e))
    df.columns = schema.current(df.columns)
    df = df.drop(index=[n - 2 for n in drop_lines if 0 <= n - 2 < len(df)]) \
        .reset_index(drop=True)
    missing = [c for c in schema.required_columns()
               if c not in df.columns]
    if missing:
        raise FormatError("%s lacks columns %s (see lib/format/FORMATS.md)"
                          % (path, ", ".join(missing)))
    if df.empty:
        raise FormatError("%s has no runs" % path)
    for c in schema.numeric_columns():
        if c in df.columns:
            df[c] = pd.to_numeric(df[c].str.strip(), errors="coerce")
    df["label"] = df["label"].where(df["label"] != "", df["variant"])
    bad = sorted(set(df["accel"]) - set(schema.RUN_ACCELS))
    if bad:
        raise FormatError("%s: unknown accelerator %s"
                          % (path, ", ".join(bad)))
    bad = sorted(set(df["status"]) - {"ok", "failed"})
    if bad:
        raise FormatError("%s: unknown status %s" % (path, ", ".join(bad)))
    ok = df["status"] == "ok"
    # a pipe run's figure is its time per round trip, another workload's
    # the guest seconds of its command (schema WORKLOADS)
    figure = next((c.name for c in schema.WORKLOAD_COLUMNS
                   if c.name in df.columns), "throughput_mbps")
    broken = df[ok & ~(df[figure] > 0)]
    if not broken.empty:
        raise FormatError("%s: ok run(s) %s without a throughput"
                          % (path, list(broken["index"])))
    return df


def split_counter(series):
    """A counter column -> (numeric values, set of textual markers).

    Empty cells are "not measured" and yield NaN with no marker;
    not-supported / not-counted stay text, never 0.
    """
    s = series.astype(str).str.strip()
    text = s.isin(schema.NOT_MEASURED)
    texts = set(s[text])
    other = s[(s != "") & ~text]
    num = pd.to_numeric(s.where(~text & (s != "")), errors="coerce")
    if num[other.index].isna().any():
        raise FormatError("counter %s has values that are neither integers"
                          " nor %s" % (series.name,
                                       "/".join(schema.NOT_MEASURED)))
    return num, texts


def per_run(ok, metric):
    """(values, textual markers) of metric for the runs in ok: ops_per_s,
    a per-run figure of runs.csv (lib/format/schema.py METRICS) as it is,
    or a counter per operation (NAME_per_op, or the counter's own NAME)."""
    if metric == "ops_per_s":
        return metrics.ops_per_s(ok), set()
    if metric in RAW_METRICS:
        return ok[metric].astype(float), set()
    col = metric[:-len("_per_op")] if metric.endswith("_per_op") else metric
    if col not in ok.columns:
        raise FormatError("runs.csv has no column %r" % col)
    num, texts = split_counter(ok[col])
    return num / ok["ops"].astype(float), texts


def longest(runs):
    """The runs of the longest run length (a dir of several lengths, the
    long profile, is summarised at its longest; analysis/stats/analyze.py)."""
    lengths = set(runs["seconds"].dropna())
    return runs[runs["seconds"] == max(lengths)] if len(lengths) > 1 \
        else runs


def read_samples(path):
    """samples.csv as a DataFrame, or None when the file is absent."""
    if not os.path.exists(path):
        return None
    df = pd.read_csv(path)
    missing = [c for c in schema.SAMPLE_COLUMNS if c not in df.columns]
    if missing:
        raise FormatError("%s lacks columns %s" % (path, ", ".join(missing)))
    df["warmup"] = df["warmup"].astype(str).str.lower().isin(
        ("1", "true", "yes"))
    return df


def read_stats(path):
    """stats.json (analysis/analyze's) as a dict with today's keys (older
    files through compat), or {} when absent."""
    return compat.stats(read_json(path))


def read_json(path):
    """A JSON file as a dict, or {} when absent."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise FormatError("%s: %s" % (path, e))


def read_builds(variants, meta):
    """build.json of each variant, as bench/run copies it into meta.json
    (builds.<variant>.build); variants without one are left out."""
    out = {}
    builds = meta.get("builds") if isinstance(meta.get("builds"), dict) \
        else {}
    for v in variants:
        b = builds.get(v)
        if isinstance(b, dict) and isinstance(b.get("build"), dict):
            out[v] = b["build"]
    return out


def read_selftest(path):
    """selftest.csv (variant,name,value) or None when absent."""
    if not os.path.exists(path):
        return None
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    for c in ("variant", "name", "value"):
        if c not in df.columns:
            raise FormatError("%s lacks column %s" % (path, c))
    return df


def _derived(runs, column, need, cycles):
    """runs with column: cycles({column: int}) of each row where every
    figure of need is a number, else the first textual marker
    (not-counted), empty where the run has no figures; runs as they are
    when a column of need is absent."""
    if any(c not in runs.columns for c in need):
        return runs

    def one(row):
        cells = {c: str(row[c]).strip() for c in need}
        text = [v for v in cells.values() if v in schema.NOT_MEASURED]
        if text:
            return text[0]
        if any(v in ("", "nan") for v in cells.values()):
            return ""
        return str(cycles({c: int(v) for c, v in cells.items()}))

    runs = runs.copy()
    runs[column] = runs.apply(one, axis=1) if len(runs) else ""
    return runs


def model_cycles(runs, meta):
    """runs with the derived counter columns model_cycles (the in-order
    sum) and model_cycles_ooo (with the overlap rule; lib/model.py) when
    meta.json has the model's penalties (and its "overlap")."""
    m = meta.get("model") or {}
    penalties, overlap = m.get("penalties"), m.get("overlap")
    if not penalties:
        return runs
    need = list(model.INSNS) + [c for name in penalties
                                for c in model.PENALTY_EVENTS[name]]
    runs = _derived(runs, schema.MODEL_CYCLES.column, need,
                    lambda f: model.cycles(f, penalties))
    if overlap:
        runs = _derived(
            runs, schema.MODEL_CYCLES_OOO.column,
            list(model.INSNS) + model.overlap_columns(penalties),
            lambda f: model.overlap_cycles(f, penalties, overlap))
    return runs


def with_derived(runs, meta):
    """runs.csv's frame with what analysis derives from it and meta.json:
    each run's length (seconds), the modelled cycles."""
    runs["seconds"] = compat.run_seconds(runs, meta)
    return model_cycles(runs, meta)


class Results:
    """Everything analysis reads from one results dir."""

    def __init__(self, path, exclude=None):
        """exclude: {"lines": runs.csv lines, "sample_runs": run indexes}
        to leave out (analysis/results/check.py); default: stats.json's."""
        self.path = os.path.abspath(path)
        self.run_id = os.path.basename(self.path.rstrip("/"))
        if not os.path.isfile(os.path.join(self.path, "runs.csv")):
            raise FormatError("%s: no runs.csv (is it a results dir?)" % path)
        if exclude is None:
            exclude = read_json(os.path.join(self.path, "stats.json")).get(
                "excluded") or {}
        self.runs = read_runs(os.path.join(self.path, "runs.csv"),
                              exclude.get("lines", ()))
        self.samples = read_samples(os.path.join(self.path, "samples.csv"))
        if self.samples is not None and exclude.get("sample_runs"):
            self.samples = self.samples[~self.samples["index"].isin(
                exclude["sample_runs"])].reset_index(drop=True)
        self.meta = read_json(os.path.join(self.path, "meta.json"))
        # the kernel every other one is compared with (meta.json)
        try:
            self.baseline = reference.baseline(self.meta)
        except ValueError as e:
            raise FormatError("%s: %s" % (path, e))
        self.runs = with_derived(self.runs, self.meta)
        variants = sorted(set(self.runs["variant"]))
        self.builds = read_builds(variants, self.meta)
        self.selftest = read_selftest(os.path.join(self.path, "selftest.csv"))
        # selftest-<arch>.csv of other architectures' boots (s390x)
        self.arch_selftest = {}
        for name in sorted(os.listdir(self.path)):
            m = re.fullmatch(r"selftest-([a-z0-9_]+)\.csv", name)
            if m:
                self.arch_selftest[m.group(1)] = read_selftest(
                    os.path.join(self.path, name))

    def file(self, name):
        """Absolute path of a file in the results dir."""
        return os.path.join(self.path, name)


def per_key(ok, values, column):
    """values (one per run of ok) averaged per key of ok's column, e.g.
    perturb_seed or round: a Series indexed by the key."""
    return pd.Series(values.values, index=ok[column].values) \
        .groupby(level=0).mean()


def counted(df, variant, name):
    """A whole-number figure of selftest.csv (df) for variant, or None
    when the table has none (not-counted, not-exact, no row)."""
    if df is None:
        return None
    hit = df[(df["variant"] == variant) & (df["name"] == name)]["value"]
    return int(hit.iloc[0]) if len(hit) == 1 and hit.iloc[0].isdigit() \
        else None


def ok_rows(runs):
    """The rows of runs.csv (a read_runs() frame) whose try ended ok."""
    return runs[runs["status"] == "ok"]
