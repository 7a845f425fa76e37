"""The submitting side of bench/run --executor slurm: submit, watch, merge.

run_plan() has runner.run_plan's contract (returns the runs that failed
all tries; raises runner.Interrupted or RuntimeError) and runs the pending
runs' tries as Slurm array tasks (bench/tries/slurm.py,
bench/tries/slurmtask.py):

- the first tries of all pending runs go out as one job array; a failed
  try's successor (while the run has tries left, --retries as locally)
  goes out as a new array at the next poll;
- every slurm.poll_seconds() (2-30 s: a twentieth of a try) it reads
  squeue (tasks pending and running, their nodes and start times) and
  the tasks' row files: each finished try is
  logged as locally, and the same progress line (runs done, in flight,
  failed tries, ETA) is shown, after the tasks pending and running;
- runs.csv and samples.csv get the rows in plan order: a row is merged
  once every run before it is settled (ok, or out of tries), the rest when
  the loop ends, however it ends;
- a task that leaves squeue without a row (Slurm's time limit, a node
  failure, a task that could not start: scontrol says it did not exit 0)
  is lost: its Slurm state and the tail of its output are logged, its raw
  files removed, and it counts as a failed try without a row (nothing was
  measured, and there are no raw files to check a row against);
- Ctrl-C/SIGTERM (ctx.stop()) and ABORT_AFTER runs in a row failing all
  tries scancel every array submitted, wait for the tasks to end (a task
  stopped by SIGTERM discards its try as locally), and keep every
  finished try.
"""
import os
import time

from bench.guest import boot
from bench.tries import runner, slurm, slurmtask
from lib.log import duration


def _jobs_file(path):
    return slurmtask.folder(path, "jobs.txt")


def _recorded_jobs(path):
    try:
        with open(_jobs_file(path)) as f:
            return {ln.split()[1] for ln in f if len(ln.split()) == 2}
    except FileNotFoundError:
        return set()


def reopen(resdir, log):
    """For --resume: refuse while arrays of an earlier session still run;
    merge the rows their tasks wrote after their submitter stopped."""
    jobs = _recorded_jobs(resdir.path)
    if jobs:
        try:
            left = slurm.queue(jobs)
        except slurm.SlurmError as e:
            log.warn("cannot ask Slurm whether the jobs of an earlier "
                     "session still run (%s)" % e)
            left = {}
        if left:
            raise slurm.SlurmError(
                "%d Slurm tasks of %s (jobs %s) still run: wait for them or "
                "scancel them, then resume" % (
                    len(left), resdir.path,
                    ", ".join(sorted({j for j, _ in left}))))
    merged = slurmtask.merge(resdir)
    if merged:
        log.warn("merged %d rows that Slurm tasks wrote after their "
                 "submitter stopped" % len(merged))


class _Plan:
    """The state of one submitting session."""

    def __init__(self, ctx, args, pending, next_try, total, estimate):
        self.ctx = ctx
        self.args = args
        self.path = ctx.resdir.path
        self.prog = runner.Progress(ctx, total, len(pending), estimate, 1)
        self.last = {r.index: next_try[r.index] + ctx.retries
                     for r in pending}
        self.todo = [(r, next_try[r.index]) for r in pending]
        self.active = {}        # (job, task) -> (run, try)
        self.gone = {}          # (job, task) -> (when, job_info)
        self.unsettled = {r.index for r in pending}
        self.jobs = []
        self.streak = runner.Streak(ctx.retries)
        self.script = slurm.write_script(self.path)
        names = os.listdir(slurmtask.folder(self.path))
        self.number = sum(1 for n in names if n.startswith("submit-"))

    def submit(self):
        """The tries in todo as one job array."""
        tries, self.todo = self.todo, []
        self.number += 1
        sub = slurmtask.write_submission(self.path, self.number, tries)
        name = "jlbench-" + os.path.basename(self.path)
        argv = slurm.sbatch_argv(self.args, self.ctx, self.script, sub,
                                 len(tries), name)
        out = slurm.command(argv, "submitting %d tries" % len(tries))
        job = out.strip().split(";")[0]
        self.jobs.append(job)
        with open(_jobs_file(self.path), "a") as f:
            f.write("%d %s\n" % (self.number, job))
        for task, (run, t) in enumerate(tries):
            self.active[(job, task)] = (run, t)
        self.ctx.log.write("submitted job %s: %d tries (%s)" % (
            job, len(tries), " ".join(argv)), always=True)

    def finished(self, run, t, row):
        """Book a finished try (row None: lost); raise RuntimeError after
        ABORT_AFTER runs in a row failed all tries."""
        ok = row is not None and row["status"] == "ok"
        last = t >= self.last[run.index]
        if row is not None:
            self.prog.finish(run, row, ok or last)
            runner._report(self.ctx, run, t, row, self.prog)
        else:
            self.prog.finish(run, {"wall_seconds": 0, "status": "failed"},
                             last)
        if not ok and not last:
            self.todo.append((run, t + 1))
            return
        self.unsettled.discard(run.index)
        self.streak.settled(run, boot.Settled(ok, row))
        if self.streak.aborted:
            raise self.streak.error()

    def rows(self):
        """Book the tries whose row files appeared."""
        files = slurmtask.pending_files(self.path)
        owner = {(run.index, t): jt
                 for jt, (run, t) in self.active.items()}
        for key in sorted(files):
            jt = owner.get(key)
            if jt is None:
                continue
            run, t = self.active.pop(jt)
            self.gone.pop(jt, None)
            self.finished(run, t, slurmtask.read_row(files[key])["row"])

    def lost(self, queue):
        """Book the tasks gone from squeue that wrote no row: at once when
        Slurm says they did not exit 0, else after ROW_WAIT_SECONDS."""
        now = time.monotonic()
        for jt in [jt for jt in self.active if jt not in queue]:
            if jt not in self.gone:
                self.gone[jt] = (now, slurm.job_info(*jt))
            since, info = self.gone[jt]
            if slurm.ended_well(info) and \
                    now - since < slurm.ROW_WAIT_SECONDS:
                continue
            run, t = self.active.pop(jt)
            del self.gone[jt]
            slurmtask.discard(self.ctx.resdir, run, t)
            self.ctx.log.warn(
                "run %d try %d: Slurm task %s_%d ended without a row: %s; "
                "its output: %s" % (
                    run.index, t, jt[0], jt[1], slurm.describe(info),
                    slurm.tail(os.path.join(slurmtask.folder(
                        self.path, "logs"), "%s_%d.out" % jt))
                    or "none"))
            self.finished(run, t, None)

    def show(self, queue):
        """Update the runs in flight from squeue; draw the progress line."""
        running = {jt: v for jt, v in queue.items() if v[0] in slurm.RUNNING}
        now, mono = time.time(), time.monotonic()
        flight = {}
        for jt, (_, start, _) in running.items():
            if jt in self.active:
                run = self.active[jt][0]
                flight[run.index] = (run, mono - (now - (start or now)))
        with self.prog.lock:
            self.prog.flight = flight
            # slots: the most tasks seen running at once
            self.prog.jobs = max(self.prog.jobs, len(running))
        nodes = sorted({v[2] for v in running.values()})
        self.ctx.log.progress("slurm %s: %d pending, %d running%s | %s" % (
            ",".join(self.jobs[-3:]), len(queue) - len(running), len(running),
            " on %s" % " ".join(nodes) if nodes else "", self.prog.line()))

    def wait(self, seconds):
        """Sleep, but return at once when ctx.stop() turns true."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self.ctx.stop():
            time.sleep(0.2)

    def cancel(self):
        """scancel every array; wait for their tasks to end; drop the raw
        files of tries that left no row."""
        if not self.jobs:
            return
        self.ctx.log.done()
        self.ctx.log.warn("cancelling Slurm jobs %s" % " ".join(self.jobs))
        slurm.command(["scancel"] + self.jobs, "cancelling the jobs")
        t0 = time.monotonic()
        while slurm.queue(set(self.jobs)):
            if time.monotonic() - t0 > slurm.CANCEL_WAIT_SECONDS:
                self.ctx.log.warn("tasks still running %s after scancel"
                                  % duration(time.monotonic() - t0))
                return
            time.sleep(1.0)
        done = set(slurmtask.pending_files(self.path))
        for run, t in self.active.values():
            if (run.index, t) not in done:
                slurmtask.discard(self.ctx.resdir, run, t)


def run_plan(ctx, pending, next_try, total, estimate, args):
    """Run the pending runs as Slurm array tasks (see the module doc)."""
    slurmtask.write_context(ctx)
    p = _Plan(ctx, args, pending, next_try, total, estimate)
    try:
        while p.todo or p.active:
            if ctx.stop():
                raise runner.Interrupted()
            if p.todo:
                p.submit()
            queue = slurm.queue(set(p.jobs))
            p.rows()
            p.lost(queue)
            slurmtask.merge(ctx.resdir, min(p.unsettled, default=None))
            p.show(queue)
            if p.active or p.todo:
                p.wait(slurm.poll_seconds(estimate))
    except (runner.Interrupted, RuntimeError):
        p.cancel()
        raise
    finally:
        slurmtask.merge(ctx.resdir)
        ctx.log.done()
    return sorted(p.streak.gave_up, key=lambda r: r.index)
