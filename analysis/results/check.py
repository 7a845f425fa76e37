"""Check every runs.csv row and sample against the raw files it came from.

Each try's raw files (raw/<NNN>-<variant>-try<K>.*) are re-parsed with the
function bench/run built the row with (lib/format/rawtry.py derive), and the
row must agree field by field: status, kernel_warnings and every figure
(throughput, ops, samples, ticks, perf and plugin counters; the reason of
a failed try is not compared, as it names how QEMU ended, which only the
runner saw). A try with a manifest (raw/...sha256) must also match it
byte for byte, and its per-function profile (raw/...profile.gz, when it
has one) must add up to the instructions of its .counts' window (kernel
and user; its kernel rows to kernel_insns). A row that disagrees, lacks
its raw files or its log, or holds a value that is not a number or is
negative, is a finding: named (file, line, field, both values) and left
out of the statistics. So is a value far outside its label's ok runs
(OUTLIER_RULE), even when its raw log agrees: such a run measured
something else than its twins.

A finding is a dict (see Check.add); stats.json keeps them under
`findings`, their texts join the report's warnings, and `excluded` lists
the runs.csv lines and the runs whose samples are left out, which
analysis/results/load.py drops wherever the results dir is read afterwards.
"""
import csv
import json
import os

import pandas as pd

from analysis.results.load import ok_rows
from lib import workloads
from lib.format import profile, rawfiles, rawtry, schema

# How QEMU ended is known only to the runner: the phrase a re-derived
# reason gets in its place.
ENDED = "on re-reading the log"
OUTLIER_K = 5.0
OUTLIER_FLOOR = 0.005
MAD_SCALE = 1.4826
OUTLIER_RULE = (
    "a value is an outlier when |x - median| > %g x max(%g x MAD, %g%% of "
    "the median, and for a counter per op its counting noise: the square "
    "root of the median count, per op) among the label's ok runs (at least "
    "3), for throughput_mbps, ops and each counter per op; outliers are "
    "left out" % (OUTLIER_K, MAD_SCALE, 100 * OUTLIER_FLOOR))
LEFT_OUT = "row left out of the statistics"
KEY_COLUMNS = ("index", "variant", "try", "status")


class Check:
    """Findings and notes of one results dir, and what they leave out."""

    def __init__(self, path):
        self.path = path
        self.findings = []
        self.notes = []
        self.lines = {}          # (index, try) -> its runs.csv line
        self.rows = 0
        self.manifests = 0
        self.excluded_lines = set()
        self.sample_runs = set()

    def add(self, file, line, run, field, value, raw_file, raw_value, text,
            what, samples_of=None):
        """Record a finding; it leaves its runs.csv line out and, with
        samples_of, that run's samples."""
        self.findings.append({
            "file": file, "line": line, "run": run, "field": field,
            "value": value, "raw_file": raw_file, "raw_value": raw_value,
            "what": what, "excluded": True, "text": text})
        if file == "runs.csv":
            self.excluded_lines.add(line)
        if samples_of is not None:
            self.sample_runs.add(samples_of)

    def excluded(self):
        """What analysis/results/load.py leaves out: runs.csv lines, and the
        runs whose samples go too."""
        return {"lines": sorted(self.excluded_lines),
                "sample_runs": sorted(self.sample_runs)}

    def record(self, st):
        """Add the findings to a stats dict (warnings, findings, check)."""
        st["warnings"] = st["warnings"] + [f["text"] for f in self.findings]
        st["findings"] = self.findings
        st["excluded"] = self.excluded()
        st["check"] = {"rows": self.rows, "manifests": self.manifests,
                       "notes": self.notes, "outlier_rule": OUTLIER_RULE}


def _int(x):
    try:
        return int(str(x).strip())
    except ValueError:
        return None


def _float(x):
    try:
        v = float(str(x).strip())
    except ValueError:
        return None
    return v if v == v and abs(v) != float("inf") else None


def _text(x):
    return "" if x is None else str(x).strip()


def _same(a, b):
    """Cells agree: the same text, or the same finite number."""
    a, b = _text(a), _text(b)
    return a == b or (_float(a) is not None and _float(a) == _float(b))


def _show(x):
    return "'%s'" % _text(x) if _text(x) != "" else "an empty cell"


def _problem(value, texts_ok):
    """Why a figure cell cannot be used ("" when it can)."""
    value = _text(value)
    if value == "" or (texts_ok and value in schema.NOT_MEASURED):
        return ""
    x = _float(value)
    if x is None:
        return "not a number"
    return "negative" if x < 0 else ""


def _read_csv(path):
    """(rows as dicts, header) or (None, []) when unreadable."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = [schema.current_row(r) for r in reader]
            return rows, schema.current(reader.fieldnames or [])
    except (OSError, csv.Error, UnicodeDecodeError):
        return None, []


def _meta_plugin(path):
    """The run used the branch-count plugin (meta.json plugin.path)."""
    try:
        with open(os.path.join(path, "meta.json")) as f:
            return bool((json.load(f).get("plugin") or {}).get("path"))
    except (OSError, ValueError, AttributeError):
        return False


def _meta_workload(path):
    """The run's workload (meta.json protocol.workload; tbench)."""
    try:
        with open(os.path.join(path, "meta.json")) as f:
            name = schema.workload(json.load(f))
    except (OSError, ValueError, AttributeError):
        return workloads.DEFAULT
    return name if name in workloads.WORKLOAD else workloads.DEFAULT


class _Row:
    """One runs.csv row and where its raw files are."""

    def __init__(self, path, line, row):
        self.line = line
        self.row = row
        self.index, self.try_no = _int(row["index"]), _int(row["try"])
        self.rel = "raw/%03d-%s-try%d" % (self.index or 0,
                                          _text(row["variant"]),
                                          self.try_no or 0)
        self.base = os.path.join(path, self.rel)
        self.log = self.rel + ".log"
        self.ok = _text(row["status"]) == "ok"

    def add(self, chk, field, value, raw_file, raw_value, text, what):
        where = "runs.csv line %d (run %s %s try %s)" % (
            self.line, _text(self.row["index"]), _text(self.row["variant"]),
            _text(self.row["try"]))
        chk.add("runs.csv", self.line, self.index, field, _text(value),
                raw_file, _text(raw_value),
                "%s: %s; %s" % (where, text, LEFT_OUT), what,
                samples_of=self.index if self.ok else None)


def check_raw(path):
    """Check runs.csv and samples.csv of a results dir against raw/.

    Never raises on a malformed dir: analysis/results/load.py says what is
    unusable about it."""
    chk = Check(path)
    rows, header = _read_csv(os.path.join(path, "runs.csv"))
    if not rows or any(c not in header for c in KEY_COLUMNS):
        return chk
    events = [c[len("perf_"):] for c in header if c.startswith("perf_")]
    workload = _meta_workload(path)
    ctx = {"compared": [c for c in rawtry.columns(events, None, workload) + [
        m.column for m in schema.MODEL_COUNTERS] if c in header],
           "events": events,
           "counters": set(schema.counter_columns(header)),
           "plugin": _meta_plugin(path), "workload": workload,
           "any_manifest": any(n.endswith(rawtry.MANIFEST) for n in
                               _listdir(os.path.join(path, rawfiles.RAW)))}
    kept = {}
    for pos, row in enumerate(rows):
        r = _Row(path, pos + 2, row)
        got = _check_row(chk, r, ctx)
        if got is not None:
            kept[r.index] = (r, got)
    chk.rows = len(rows)
    if not ctx["any_manifest"]:
        chk.notes.append(
            "no raw/*.sha256 manifests (a results dir from before bench/run "
            "wrote them): rows checked by re-parsing their raw files only")
    _check_samples(chk, path, kept, {_int(r["index"]) for r in rows
                                     if _text(r["status"]) == "ok"})
    return chk


def _listdir(path):
    try:
        return rawfiles.listdir(path)
    except OSError:
        return []


def _check_manifest(chk, r, ctx):
    """Manifest findings of a row; True when the manifest lists a log that
    is gone."""
    problems = rawtry.verify_manifest(r.base)
    man = r.rel + rawtry.MANIFEST
    if problems is None:
        if ctx["any_manifest"]:
            r.add(chk, "sha256", "", man, "", "no manifest %s, though other "
                  "tries have one" % man, "manifest")
        return False
    chk.manifests += 1
    for name, what, recorded, now in problems:
        digests = ": sha256 %s... recorded, %s... now" % (
            recorded[:12], now[:12]) if recorded and now else ""
        r.add(chk, "sha256", recorded, "raw/" + name, now,
              "raw/%s %s since the try ended (manifest %s%s)"
              % (name, what, man, digests), "manifest")
    return any(p[:2] == (os.path.basename(r.log), "is missing")
               for p in problems)


def _check_row(chk, r, ctx):
    """Findings of one runs.csv row; its Derived when it is a kept ok row
    (whose samples are checked next), else None."""
    key = (r.index, r.try_no)
    if key in chk.lines:
        r.add(chk, "index", r.row["index"], "", "", "a second row for run "
              "%s try %s (the first is on line %d)"
              % (r.index, r.try_no, chk.lines[key]), "duplicate")
        return None
    chk.lines[key] = r.line
    if None in key or not rawtry.present(r.base):
        r.add(chk, "raw", "", r.rel + ".*", "", "no raw files (%s.log, "
              ".qemu-cmd): nothing to check it against" % r.rel,
              "no raw files")
        return None
    before = len(chk.findings)
    log_gone = _check_manifest(chk, r, ctx)
    if not rawfiles.isfile(r.base + ".log") and (r.ok or log_gone):
        if not log_gone:
            r.add(chk, "log", "", r.log, "", "its raw log %s is missing"
                  % r.log, "missing log")
        return None
    plugin = ctx["plugin"] or rawfiles.isfile(r.base + ".counts")
    got = rawtry.derive(r.base, ctx["events"], plugin, ENDED,
                        ctx["workload"])
    if not _same(r.row["status"], got.status):
        r.add(chk, "status", r.row["status"], r.log, got.status,
              "status is %s, but %s gives '%s'%s"
              % (_show(r.row["status"]), r.log, got.status,
                 " (%s)" % got.reason if got.reason else ""), "disagrees")
        return None
    for c in ctx["compared"]:
        if c == "reason" and not r.ok:
            continue
        why = _problem(r.row[c], c in ctx["counters"]) \
            if r.ok and c not in ("status", "reason") else ""
        src = r.rel + ".counts" if c in schema.PLUGIN_COLUMNS \
            or schema.is_model(c) else r.log
        if not _same(r.row[c], got.cells.get(c)):
            r.add(chk, c, r.row[c], src, got.cells.get(c),
                  "%s is %s%s, but %s gives %s"
                  % (c, _show(r.row[c]), " (%s)" % why if why else "", src,
                     _show(got.cells.get(c))), "disagrees")
        elif why:
            r.add(chk, c, r.row[c], src, got.cells.get(c),
                  "%s is %s: %s (its raw files say so too)"
                  % (c, _show(r.row[c]), why), why)
    if r.ok:
        _check_profile(chk, r, got)
    return got if r.ok and len(chk.findings) == before else None


# (column of a profile, rows: all or kernel only, what of its .counts
# they add up to). A column the profile lacks (the model's, without
# --model) or a figure not counted (site_execs without sites) is skipped.
PROFILE_SUMS = (("insns", False, ("kernel_insns", "user_insns")),
                ("insns", True, ("kernel_insns",)),
                ("site_execs", False, ("site_execs",)),
                ("mispredicts", False,
                 ("kernel_mispredicts", "user_mispredicts")),
                ("l1i_misses", False, ("kernel_l1i_misses",
                                       "user_l1i_misses")),
                ("l1d_misses", False, ("kernel_l1d_misses",
                                       "user_l1d_misses")))


def _check_profile(chk, r, got):
    """An ok try's per-function profile, when it has one, against its
    .counts: each column adds up to the window's figure (its insns also
    over the kernel rows alone to kernel_insns; lib/format/profile.py)."""
    rel = r.rel + profile.RAW_EXT
    if not rawfiles.isfile(r.base + profile.RAW_EXT):
        return
    try:
        p = profile.read(r.base + profile.RAW_EXT)
        if "insns" not in p.columns:
            raise profile.ProfileError("%s has no insns column" % rel)
    except profile.ProfileError as e:
        r.add(chk, "profile", "", rel, "", str(e), "unreadable")
        return
    for col, kernel_only, cols in PROFILE_SUMS:
        want = [_int(got.cells.get(c)) for c in cols]
        if col not in p.columns or None in want:
            continue
        have = p.total(col, kernel_only)
        if have != sum(want):
            rows = "its kernel rows" if kernel_only else "all its rows"
            r.add(chk, "profile", str(have), rel, str(sum(want)),
                  "%s: %s over %s %d, but %s.counts gives %s = %d" % (
                      rel, col, rows, have, r.rel, " + ".join(cols),
                      sum(want)),
                  "disagrees")


def _check_samples(chk, path, kept, ok_runs):
    """samples.csv rows of each kept ok run against its raw log."""
    rows, _ = _read_csv(os.path.join(path, "samples.csv"))
    if rows is None:
        chk.notes.append("no samples.csv: per-second samples not checked")
        return
    by_run = {}
    for pos, s in enumerate(rows):
        by_run.setdefault(_int(s.get("index")), []).append((pos + 2, s))
    for index, got in by_run.items():
        if index not in ok_runs:
            chk.add("samples.csv", got[0][0], index, "index",
                    _text(got[0][1].get("index")), "", "",
                    "samples.csv line %d: %d sample(s) of run %s, which has "
                    "no ok try in runs.csv; left out"
                    % (got[0][0], len(got), _text(got[0][1].get("index"))),
                    "no ok run", samples_of=index)
    for index, (r, got) in kept.items():
        _check_run_samples(chk, r, by_run.get(index, []), got)


def _check_run_samples(chk, r, rows, got):
    """One ok run's samples.csv rows against its raw log's samples."""
    want = [(x, "1") for x in got.warmup] + [(x, "0") for x in got.measured]
    bad = []
    for k, (line, s) in enumerate(rows[:len(want)]):
        warm = "1" if _text(s.get("warmup")).lower() in ("1", "true",
                                                         "yes") else "0"
        if not _same(s.get("throughput_mbps"), want[k][0]) \
                or warm != want[k][1] or _int(s.get("second")) != k + 1:
            bad.append((line, s, want[k]))
    left = "run %s's samples left out" % r.index
    if len(rows) != len(want):
        chk.add("samples.csv", rows[0][0] if rows else 0, r.index,
                "samples", str(len(rows)), r.log, str(len(want)),
                "samples.csv: %d sample(s) of run %s, but %s gives %d; %s"
                % (len(rows), r.index, r.log, len(want), left),
                "disagrees", samples_of=r.index)
    elif bad:
        line, s, (x, warm) = bad[0]
        chk.add("samples.csv", line, r.index, "throughput_mbps",
                _text(s.get("throughput_mbps")), r.log, repr(x),
                "samples.csv line %d (run %s, second %s): throughput_mbps "
                "%s, warmup %s, but %s gives '%r', warmup '%s'%s; %s"
                % (line, r.index, _text(s.get("second")),
                   _show(s.get("throughput_mbps")), _show(s.get("warmup")),
                   r.log, x, warm, " (%d samples differ)" % len(bad)
                   if len(bad) > 1 else "", left),
                "disagrees", samples_of=r.index)


def _per_label_values(ok):
    """{metric: values of the ok runs} for the outlier rule: throughput,
    operations and the measured counters per op. Not the model's counters
    (bench/run --model): they describe a model of the same runs, and a
    rare event (BTB misses, key-word misses) varies by a few per cent
    between seeds without anything being wrong with the run."""
    out = {"throughput_mbps": ok["throughput_mbps"].astype(float),
           "ops": ok["ops"].astype(float)}
    for c in schema.counter_columns(ok.columns):
        if schema.is_model(c):
            continue
        out[c + "_per_op"] = pd.to_numeric(ok[c].astype(str).str.strip(),
                                           errors="coerce") / ok["ops"]
    return out


def outliers(chk, res):
    """Flag ok runs far outside their label's (OUTLIER_RULE) and leave
    them and their samples out of res.runs / res.samples."""
    runs = res.runs
    ok = ok_rows(runs)
    flagged = set()
    values = _per_label_values(ok)
    for label, idx in ok.groupby("label").groups.items():
        for metric, series in values.items():
            v = series.loc[idx].dropna()
            if len(v) < 3:
                continue
            med = v.median()
            scale = max(MAD_SCALE * (v - med).abs().median(),
                        OUTLIER_FLOOR * abs(med))
            if metric.endswith("_per_op"):
                # a rare event (80 context switches in a run) moves by a
                # few counts from seed to seed: no outlier for that
                ops = values["ops"].loc[idx].median()
                scale = max(scale, (abs(med) / ops) ** 0.5)
            for i, x in v.items():
                if not scale > 0 or abs(x - med) <= OUTLIER_K * scale:
                    continue
                flagged.add(i)
                _outlier(chk, ok.loc[i], label, metric, x, med,
                         abs(x - med) / scale, len(v))
    if flagged:
        res.runs = runs.drop(index=sorted(flagged)).reset_index(drop=True)
    if res.samples is not None and chk.sample_runs:
        res.samples = res.samples[~res.samples["index"].isin(
            chk.sample_runs)].reset_index(drop=True)


def _outlier(chk, run, label, metric, x, med, dev, n):
    index, try_no = int(run["index"]), int(run["try"])
    line = chk.lines.get((index, try_no), 0)
    chk.add("runs.csv", line, index, metric, "%.6g" % x, "", "%.6g" % med,
            "runs.csv line %d (run %d %s try %d): %s %.6g is an outlier, "
            "%.1f scaled MADs from the median %.6g of %s's %d ok runs "
            "(rule: > %g, the scale at least %g%% of the median); "
            "row left out of the statistics"
            % (line, index, run["variant"], try_no, metric, x, dev, med,
               label, n, OUTLIER_K, 100 * OUTLIER_FLOOR),
            "outlier", samples_of=index)


def log_findings(chk, log, kind):
    """Log every finding as `<kind>: <text>` (analysis/analyze)."""
    for f in chk.findings:
        log("analyze", "%s: %s" % (kind, f["text"]))
