"""One try as a Slurm array task, and the files it hands back.

bench/run --executor slurm (bench/tries/slurm.py) writes, in the results dir's
slurm/ folder: context.json (what runner.Context needs: accel, protocol,
kernels, images, plugin, timeout), task.sh (the batch script) and one
submit-<N>.tsv per job array (`task<TAB>index<TAB>try`). Each array task
runs bench/slurm-task, which makes its try with runner.one_try, the local
runner's code: the same QEMU command, the same raw files and manifest. Only
where the row goes differs: instead of appending to runs.csv and
samples.csv (O_APPEND is not atomic across NFS clients), the task writes
the try's row and samples to one file of its own, slurm/rows/NNN-tryK.json,
atomically (write, fsync, rename). The submitter merges these files into
runs.csv and samples.csv with ResultsDir's own appends, in plan order
(merge()); a file whose (index, try) runs.csv already has is dropped, so a
merge cut short is simply done again. SIGTERM (scancel, Slurm's time
limit) discards the try in flight as Ctrl-C does locally, even when QEMU,
which Slurm signals too, ended first.
"""
import csv
import json
import os
import re
import signal
import sys
import time
import types

from bench.tries import inputs, runner
from bench.tries import plan as planmod
from lib import hostinfo
from lib.format import rawtry, results
from lib.log import Log

SUBDIR = "slurm"
ROW_RE = re.compile(r"^(\d+)-try(\d+)\.json$")
STOP_WAIT_SECONDS = 1.0


def folder(resdir_path, *parts):
    return os.path.join(resdir_path, SUBDIR, *parts)


def row_file(resdir_path, index, try_no):
    return folder(resdir_path, "rows", "%03d-try%d.json" % (index, try_no))


def write_context(ctx):
    """slurm/context.json: everything a task needs to rebuild ctx."""
    os.makedirs(folder(ctx.resdir.path, "rows"), exist_ok=True)
    os.makedirs(folder(ctx.resdir.path, "logs"), exist_ok=True)
    results.write_json(folder(ctx.resdir.path, "context.json"), {
        "accel": ctx.accel, "params": ctx.params, "smp": ctx.smp,
        "memory_mb": ctx.memory_mb, "qemu_bin": ctx.qemu_bin,
        "plugin": ctx.plugin, "retries": ctx.retries,
        "timeout": ctx.timeout, "sites": ctx.sites,
        "plugin_args": ctx.plugin_args,
        "builds": {v: {"dir": b.dir, "info": b.info, "hash": b.hash}
                   for v, b in ctx.builds.items()},
        "images": {v: {"path": i.path, "hash": i.hash}
                   for v, i in ctx.images.items()}})


def read_context(resdir, log, stop):
    """A runner.Context from slurm/context.json, writing into resdir."""
    with open(folder(resdir.path, "context.json")) as f:
        c = json.load(f)
    builds = {}
    for v, b in c["builds"].items():
        builds[v] = inputs.Build(v, b["dir"], b["info"])
        builds[v].hash = b["hash"]
    images = {v: inputs.Image(i["path"], i["hash"])
              for v, i in c["images"].items()}
    return runner.Context(
        # context.json of a run from before `accel`: `mode`
        accel=c.get("accel") or c["mode"], params=c["params"], smp=c["smp"],
        builds=builds, images=images, resdir=resdir, log=log,
        plugin=c["plugin"],
        retries=c["retries"], timeout=c["timeout"],
        memory_mb=c["memory_mb"], stop=stop, qemu_bin=c["qemu_bin"],
        sites=c["sites"], plugin_args=c.get("plugin_args") or {})


def write_submission(resdir_path, number, tries):
    """slurm/submit-<number>.tsv for tries [(run, try_no)], array task i
    being tries[i]; returns its path."""
    path = folder(resdir_path, "submit-%d.tsv" % number)
    with open(path, "w") as f:
        f.write("".join("%d\t%d\t%d\n" % (i, run.index, t)
                        for i, (run, t) in enumerate(tries)))
    return path


def read_submission(path, task_id):
    """(index, try) of array task task_id."""
    with open(path) as f:
        for line in f:
            task, index, try_no = (int(x) for x in line.split("\t"))
            if task == task_id:
                return index, try_no
    raise ValueError("%s has no array task %d" % (path, task_id))


class TaskResults(results.ResultsDir):
    """A results dir as one task sees it: raw files go to raw/ as usual;
    the row and samples of its one try go to slurm/rows/NNN-tryK.json."""

    def __init__(self, path, stopped=lambda: False):
        with open(os.path.join(path, "runs.csv"), newline="") as f:
            columns = next(csv.reader(f))
        super().__init__(path, columns)
        self.samples = ([], [])
        self.stopped = stopped

    def append_samples(self, run, warmup, measured):
        self.samples = (list(warmup), list(measured))

    def append_run(self, row):
        extra = set(row) - set(self.columns)
        if extra:
            raise KeyError("not runs.csv columns: %s" % sorted(extra))
        if row["status"] != "ok":
            # Slurm signals every process of the task, QEMU too: a guest
            # killed by scancel is not a failed try. Give our own SIGTERM
            # the time to arrive.
            time.sleep(STOP_WAIT_SECONDS)
        if self.stopped():
            raise runner.Interrupted()
        results.write_json(row_file(self.path, int(row["index"]),
                                    int(row["try"])),
                           {"row": row, "warmup": self.samples[0],
                            "measured": self.samples[1]})


def pending_files(resdir_path):
    """{(index, try): path} of the row files not merged yet."""
    out = {}
    try:
        names = os.listdir(folder(resdir_path, "rows"))
    except FileNotFoundError:
        return out
    for name in names:
        m = ROW_RE.match(name)
        if m:
            out[(int(m.group(1)), int(m.group(2)))] = folder(
                resdir_path, "rows", name)
    return out


def read_row(path):
    """The dict a task wrote: row, warmup, measured."""
    with open(path) as f:
        return json.load(f)


def merge(resdir, below=None):
    """Append the tasks' row files to runs.csv and samples.csv in (index,
    try) order: samples first, then the row, as the local runner does;
    only runs with index < below when given. Returns the rows merged."""
    files = pending_files(resdir.path)
    if not files:
        return []
    have = {(int(r["index"]), int(r["try"])) for r in resdir.rows()}
    merged = []
    for key in sorted(files):
        if below is not None and key[0] >= below:
            break
        path = files[key]
        if key not in have:
            got = read_row(path)
            row = got["row"]
            if row["status"] == "ok":
                run = types.SimpleNamespace(index=key[0],
                                            variant=row["variant"],
                                            label=row["label"])
                resdir.append_samples(run, got["warmup"], got["measured"])
            resdir.append_run(row)
            merged.append(row)
        os.unlink(path)
    return merged


def discard(resdir, run, try_no):
    """Remove the raw files of a try that has no row."""
    base = resdir.raw_base(run, try_no)
    for p in rawtry.present(base) + [base + rawtry.MANIFEST]:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def main(argv):
    """bench/slurm-task RESULTS_DIR SUBMISSION: make the try that array
    task $SLURM_ARRAY_TASK_ID of SUBMISSION names. Exit 0 when its row is
    written (whatever the try's status), 1 on an error, 143 when Slurm
    stopped it (nothing written)."""
    log = Log(quiet=True)
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) != 2 or "SLURM_ARRAY_TASK_ID" not in os.environ:
        log.error("usage: bench/slurm-task RESULTS_DIR SUBMISSION, as a "
                  "Slurm array task (bench/run --executor slurm submits it)")
        return 2
    path, submission = argv
    flag = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: flag.append(signum))
    try:
        index, try_no = read_submission(
            submission, int(os.environ["SLURM_ARRAY_TASK_ID"]))
        resdir = TaskResults(path, lambda: bool(flag))
        ctx = read_context(resdir, log, resdir.stopped)
        run = planmod.read(resdir.plan_csv, ctx.params["seconds"])[index - 1]
        log.write("run %d try %d (%s) on %s" % (index, try_no, run.label,
                                                hostinfo.node()), always=True)
        row = runner.one_try(ctx, run, try_no)
    except runner.Interrupted:
        discard(resdir, run, try_no)
        log.error("stopped by a signal: the try left no row and no raw "
                  "files")
        return 143
    except (OSError, ValueError, KeyError, IndexError) as e:
        log.error("%s: %s" % (type(e).__name__, e))
        return 1
    log.write("run %d try %d: %s %s" % (index, try_no, row["status"],
                                        row.get("reason") or
                                        runner.figure(row)), always=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
