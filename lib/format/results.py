"""The results dir: raw logs, runs.csv, samples.csv, plan.csv, meta.json.

runs.csv gets one row per try, appended as one write() on an O_APPEND file
under a process-wide lock (tries end in their own threads) and fsync'ed
before the runner moves on, so a crash or Ctrl-C keeps every finished
try. A torn last line (a crash inside that write) is cut off when the dir
is reopened. meta.json is replaced atomically (write, fsync, rename).
"""
import csv
import io
import json
import os
import threading
import time

from lib import hostinfo, workloads
from lib.format import rawfiles, schema

# Columns that results dirs from before them lack: a row for such a dir
# leaves them out (ResultsDir.fit).
LATER_COLUMNS = tuple(c.name for c in schema.RUN_COLUMNS if c.later) + \
    tuple(schema.OVERLAP_COLUMNS + schema.OVERLAP_L2_COLUMNS)


def dir_name(utc_struct, short_sha):
    """results/<UTC time>-<git short sha> basename."""
    return "%s-%s" % (time.strftime("%Y%m%dT%H%M%SZ", utc_struct),
                      short_sha or "nogit")


def _csv_line(values):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


# Guests run side by side (bench/guest/parallel.py), and their tries end in
# their own threads: one lock makes every append of this process whole and
# in turn, whatever the file system does with concurrent O_APPEND writes.
_APPEND_LOCK = threading.Lock()


def _append(path, text):
    """Append text with one write() and fsync, holding _APPEND_LOCK."""
    data = text.encode()
    with _APPEND_LOCK:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            n = os.write(fd, data)
            if n != len(data):
                raise OSError("short write to %s (%d of %d bytes)"
                              % (path, n, len(data)))
            os.fsync(fd)
        finally:
            os.close(fd)


def _repair(path):
    """Cut a torn (newline-less) last line; return True if one was cut."""
    with open(path, "rb+") as f:
        data = f.read()
        if not data or data.endswith(b"\n"):
            return False
        f.truncate(data.rfind(b"\n") + 1)
        return True


def write_json(path, obj):
    """Replace path with obj as JSON, atomically."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class ResultsDir:
    """One results dir. Create it with create(), reopen with open()."""

    def __init__(self, path, header):
        """header: runs.csv's, as the dir has it; columns: today's names
        of it (schema.current: an older dir's resume keeps its header)."""
        self.path = path
        self.raw = os.path.join(path, "raw")
        self.runs_csv = os.path.join(path, "runs.csv")
        self.samples_csv = os.path.join(path, "samples.csv")
        self.plan_csv = os.path.join(path, "plan.csv")
        self.meta_json = os.path.join(path, "meta.json")
        self.log_file = os.path.join(path, "bench.log")
        self.header = header
        self.columns = schema.current(header)

    @classmethod
    def create(cls, path, perf_events, model=None,
               workload=workloads.DEFAULT):
        """A new results dir at path (runs.csv with the columns of
        perf_events, of model, meta.json's "model" entry, and of the
        workload)."""
        os.makedirs(os.path.join(path, "raw"))
        self = cls(path, schema.run_columns(perf_events, model=model,
                                            workload=workload))
        _append(self.runs_csv, _csv_line(self.header))
        _append(self.samples_csv, _csv_line(schema.SAMPLE_COLUMNS))
        return self

    @classmethod
    def open(cls, path):
        """Reopen for --resume; returns (ResultsDir, notes)."""
        notes = []
        if rawfiles.unpack(path):
            notes.append("unpacked %s into raw/ to append to it"
                         % rawfiles.ARCHIVE)
        for name in ("runs.csv", "samples.csv", "plan.csv", "meta.json"):
            if not os.path.isfile(os.path.join(path, name)):
                raise FileNotFoundError(
                    "%s is not a bench results dir (no %s)" % (path, name))
        for name in ("runs.csv", "samples.csv"):
            if _repair(os.path.join(path, name)):
                notes.append("cut a torn last line from %s" % name)
        with open(os.path.join(path, "runs.csv"), newline="") as f:
            header = next(csv.reader(f))
        self = cls(path, header)
        dropped = self._drop_orphan_samples()
        if dropped:
            notes.append("dropped %d samples of tries that never finished"
                         % dropped)
        return self, notes

    def _drop_orphan_samples(self):
        """Samples are written just before their run row: remove those whose
        run row never made it (a crash in between), so a rerun of that run
        does not duplicate them."""
        ok = {r["index"] for r in self.rows() if r["status"] == "ok"}
        with open(self.samples_csv, newline="") as f:
            rows = list(csv.reader(f))
        keep = [rows[0]] + [r for r in rows[1:] if r and r[0] in ok]
        if len(keep) == len(rows):
            return 0
        tmp = self.samples_csv + ".tmp"
        with open(tmp, "w") as f:
            f.write("".join(_csv_line(r) for r in keep))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.samples_csv)
        return len(rows) - len(keep)

    def rows(self):
        """runs.csv rows as dicts, by today's column names."""
        with open(self.runs_csv, newline="") as f:
            return [schema.current_row(r) for r in csv.DictReader(f)]

    def meta(self):
        with open(self.meta_json) as f:
            return json.load(f)

    def write_meta(self, meta):
        """meta.json, with this machine's paths written portably."""
        write_json(self.meta_json, hostinfo.portable(meta))

    def raw_base(self, run, try_no):
        """raw/<NNN>-<variant>-try<K> (add .log, .qemu-cmd, ...)."""
        return os.path.join(self.raw, "%03d-%s-try%d"
                            % (run.index, run.variant, try_no))

    def fit(self, row):
        """row without the LATER_COLUMNS this dir's runs.csv lacks (the
        overlap rule's model columns too: a --model dir from before them
        resumed by a plugin that reports them)."""
        return {c: v for c, v in row.items()
                if c in self.columns or c not in LATER_COLUMNS}

    def append_run(self, row):
        """Append one try; unknown keys are an error, missing ones empty."""
        extra = set(row) - set(self.columns)
        if extra:
            raise KeyError("not runs.csv columns: %s" % sorted(extra))
        _append(self.runs_csv, _csv_line(
            ["" if row.get(c) is None else row.get(c, "")
             for c in self.columns]))

    def append_samples(self, run, warmup, measured):
        """Per-second samples of an ok try: warm-up first, then measured.
        Call it before append_run() of that try (see open())."""
        lines = []
        values = [(x, 1) for x in warmup] + [(x, 0) for x in measured]
        for second, (x, is_warmup) in enumerate(values, 1):
            cells = {"index": run.index, "variant": run.variant,
                     "label": run.label, "second": second,
                     "throughput_mbps": x, "warmup": is_warmup}
            lines.append(_csv_line([cells[c]
                                    for c in schema.SAMPLE_COLUMNS]))
        if lines:
            _append(self.samples_csv, "".join(lines))


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def figures(block, perf_events, workload=workloads.DEFAULT):
    """runs.csv cells from an ok result block (missing keys stay empty):
    every column with an agent key (lib/format/schema.py) and the
    workload's own, total_ticks and the perf events."""
    b = block
    cells = {c.name: b.get(c.block) for c in schema.RUN_COLUMNS
             + schema.figures(workload).columns if c.block}
    for c in schema.RUN_COLUMNS:
        if c.unit == "ticks" and c.block:
            cells[c.name] = _int(cells[c.name])
    ticks = [_int(b.get("stat.%s_ticks" % f)) for f in schema.STAT_FIELDS]
    known = [v for v in ticks if v is not None]
    cells["total_ticks"] = sum(known) if len(known) == len(ticks) else None
    for e in perf_events:
        cells[schema.perf_column(e)] = b.get("perf." + schema.event_key(e))
    return cells
