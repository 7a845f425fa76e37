"""bench/run --executor slurm: the plan's tries as Slurm job arrays.

One array task is one try (bench/tries/slurmtask.py makes it with the local
runner's code). The submitter (run_plan) submits the pending runs' next
tries as one job array, watches squeue and the tasks' row files, merges
the rows into runs.csv in plan order, and submits a run's next try as a
new (one-task) array when a try fails, within --retries as locally; three
runs in a row that fail every try stop the plan. Ctrl-C or SIGTERM cancels
every array it submitted (scancel by job id) and keeps every finished try.

Inputs reach the nodes through a shared filesystem: the checkout, the
results dir, the kernels and images (the cache) and the plugin must be at
the same paths on every node. preflight() checks that before anything is
submitted: a path on a local filesystem is an error naming it, unless every
node of the partition runs on this host (a one-machine cluster, the test
fixture) or --slurm-shared says the storage is shared in a way not
recognised here.
"""
import getpass
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time

from bench.tries import slurmtask
from lib import ROOT

TASK = os.path.join(ROOT, "bench", "slurm-task")
# squeue is asked every estimate/POLL_PER_TRY seconds, within these bounds:
# often enough for the progress line, rarely enough for a busy controller.
POLL_SECONDS = (2.0, 30.0)
POLL_PER_TRY = 20

# A task gone from squeue that exited 0 has written its row file; a shared
# filesystem may show it on this client a little late (NFS caches
# directories for up to a minute): wait this long for it. A task that
# ended otherwise (or that Slurm has forgotten) wrote none: lost at once.
ROW_WAIT_SECONDS = 120.0
CANCEL_WAIT_SECONDS = 60.0
# Filesystem types every node of a cluster can mount at the same path.
SHARED_FS = ("nfs", "nfs4", "lustre", "gpfs", "ceph", "fuse.ceph-fuse",
             "beegfs", "glusterfs", "fuse.glusterfs", "panfs", "wekafs",
             "orangefs", "pvfs2", "afs", "cifs", "smb3", "virtiofs",
             "fuse.juicefs")
RUNNING = ("RUNNING", "COMPLETING", "CONFIGURING", "STAGE_OUT")


def poll_seconds(estimate):
    """Seconds between two looks at squeue, for tries of estimate s."""
    lo, hi = POLL_SECONDS
    return min(hi, max(lo, estimate / POLL_PER_TRY))


class SlurmError(RuntimeError):
    """Slurm is missing, refused a command, or cannot see the inputs."""


def add_options(p):
    """The executor options of bench/run's parser."""
    a = p.add_argument
    a("--executor", choices=("local", "slurm"), default="local",
      help="where tries run: local (default) or slurm (one Slurm job array "
           "task per try; the checkout, results dir and cache must be on a "
           "filesystem every node mounts at the same path)")
    a("--slurm-partition", metavar="NAME", help="sbatch --partition")
    a("--slurm-account", metavar="NAME", help="sbatch --account")
    a("--slurm-time", type=int, metavar="MIN",
      help="time limit per try in minutes (default: the try's timeout plus "
           "two minutes, rounded up)")
    a("--slurm-args", metavar="ARGS", default="",
      help="extra sbatch arguments, one shell-quoted string (e.g. "
           "\"--qos=short --mem=2G\")")
    a("--slurm-shared", action="store_true",
      help="the paths are on storage every node sees, though their "
           "filesystem type is not one jlbench knows as shared: skip the "
           "check")


def check_args(args):
    """A usage problem of the executor options (text), or None."""
    given = [o for o in ("slurm_partition", "slurm_account", "slurm_time")
             if getattr(args, o) is not None]
    given += [o for o in ("slurm_args", "slurm_shared") if getattr(args, o)]
    if args.executor != "slurm" and given:
        return "%s need --executor slurm" % ", ".join(
            "--" + o.replace("_", "-") for o in given)
    if args.slurm_time is not None and args.slurm_time < 1:
        return "--slurm-time must be at least 1 minute"
    try:
        shlex.split(args.slurm_args or "")
    except ValueError as e:
        return "--slurm-args: %s" % e
    return None


def command(argv, what):
    """stdout of a Slurm command; SlurmError with its stderr if it fails."""
    try:
        # its own session: a Ctrl-C on the terminal reaches only bench/run,
        # which then cancels what it submitted
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                           check=False, start_new_session=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SlurmError("%s: %s failed: %s" % (what, argv[0], e))
    if p.returncode != 0:
        raise SlurmError("%s: `%s` exited %d: %s" % (
            what, " ".join(map(shlex.quote, argv)), p.returncode,
            p.stderr.strip()[-400:] or "no message"))
    return p.stdout


def mount_of(path, mounts="/proc/self/mounts"):
    """(mount point, filesystem type) that path lies on."""
    real = os.path.realpath(path)
    best = ("/", "unknown")
    with open(mounts) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 3:
                continue
            point = fields[1].encode().decode("unicode_escape")
            inside = real == point or real.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best[0]):
                best = (point, fields[2])
    return best


def nodes(partition=None):
    """{node name: host name or address} of the partition (all nodes when
    none is named)."""
    out = {}
    text = command(["scontrol", "show", "nodes", "-o"], "listing the nodes")
    for line in text.splitlines():
        f = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if "NodeName" not in f:
            continue
        if partition and partition not in f.get("Partitions", "").split(","):
            continue
        out[f["NodeName"]] = f.get("NodeHostName") or f.get("NodeAddr", "")
    return out


def this_host_names():
    names = {"localhost", "127.0.0.1", "::1", socket.gethostname(),
             socket.getfqdn(), os.uname().nodename}
    return names | {n.split(".")[0] for n in names}


def check_shared(paths, node_hosts, shared_ok=False,
                 mounts="/proc/self/mounts"):
    """Raise SlurmError naming the first path the nodes could not read.

    paths: [(what, path)]. Fine when shared_ok, when every node runs on
    this host, or when the path's filesystem is one of SHARED_FS.
    """
    remote = sorted(n for n, h in node_hosts.items()
                    if h not in this_host_names())
    if shared_ok or not remote:
        return
    for what, path in paths:
        point, fstype = mount_of(path, mounts)
        if fstype not in SHARED_FS:
            raise SlurmError(
                "%s %s is on a local filesystem (%s at %s), but Slurm nodes "
                "%s run on other machines and would not find it. Put the "
                "checkout, the results (--results-root) and the cache "
                "(JLBENCH_CACHE: kernels, images, plugin) on a filesystem "
                "every node mounts at the same path (NFS, Lustre, GPFS, "
                "CephFS, BeeGFS, ...), or pass --slurm-shared if it is "
                "shared in a way jlbench does not recognise"
                % (what, path, fstype, point, ", ".join(remote[:5])))


def preflight(args, builds):
    """Before a results dir is made or reopened: Slurm answers, and the
    nodes can read the checkout, the results, the kernels and the image."""
    if not shutil.which("sbatch"):
        raise SlurmError("--executor slurm: sbatch not found (install "
                         "slurm-client, or run lib/deps)")
    hosts = nodes(args.slurm_partition)
    if not hosts:
        raise SlurmError("--executor slurm: no Slurm nodes%s" % (
            " in partition %s" % args.slurm_partition
            if args.slurm_partition else ""))
    root = args.results_root or os.path.join(ROOT, "results")
    paths = [("the checkout", ROOT), ("the results dir", args.resume)
             if args.resume else ("the results root", root)]
    paths += [("kernel %s" % v, b.dir) for v, b in builds.items()]
    if args.initramfs:
        paths.append(("the image", args.initramfs))
    check_shared(paths, hosts, args.slurm_shared)


def time_limit(args, timeout):
    """sbatch --time in minutes: --slurm-time, else the try's timeout plus
    two minutes (the harness's own timeout ends a hung guest first)."""
    return args.slurm_time or int((timeout + 120 + 59) // 60)


def sbatch_argv(args, ctx, script, submission, n, name):
    """The sbatch command of an array of n tries."""
    out = os.path.join(slurmtask.folder(ctx.resdir.path, "logs"),
                       "%A_%a.out")
    array = "0-%d" % (n - 1)
    if args.jobs:
        array += "%%%d" % args.jobs
    argv = ["sbatch", "--parsable", "--array=" + array,
            "--job-name=" + name, "--output=" + out, "--chdir=" + ROOT,
            "--time=%d" % time_limit(args, ctx.timeout), "--no-requeue",
            "--ntasks=1", "--cpus-per-task=%d" % ctx.smp]
    if ctx.accel != "icount":
        # wall-clock accelerators: one guest per machine, as locally
        argv.append("--exclusive")
    if args.slurm_partition:
        argv.append("--partition=" + args.slurm_partition)
    if args.slurm_account:
        argv.append("--account=" + args.slurm_account)
    return argv + shlex.split(args.slurm_args or "") + [script, submission]


def write_script(resdir_path):
    """slurm/task.sh: the batch script every array task runs."""
    path = slurmtask.folder(resdir_path, "task.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n# one try of %s per array task "
                "(bench/tries/slurm.py)\nexec %s %s %s \"$1\"\n" % (
                    resdir_path, shlex.quote(sys.executable),
                    shlex.quote(TASK), shlex.quote(resdir_path)))
    os.chmod(path, 0o755)
    return path


def queue(job_ids):
    """{(job id, array task id): (state, start epoch or None, nodes)} of
    our arrays' tasks still in squeue."""
    text = command(["squeue", "-h", "-r", "-u", getpass.getuser(), "-o",
                    "%F|%K|%T|%S|%N"], "watching the jobs")
    out = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) != 5 or parts[0] not in job_ids:
            continue
        try:
            task = int(parts[1])
        except ValueError:
            continue
        try:
            start = time.mktime(time.strptime(parts[3], "%Y-%m-%dT%H:%M:%S"))
        except ValueError:
            start = None
        out[(parts[0], task)] = (parts[2], start, parts[4])
    return out


def job_info(job, task):
    """scontrol's fields of an array task ({} once Slurm forgot it)."""
    try:
        line = command(["scontrol", "show", "job", "-o",
                        "%s_%d" % (job, task)], "asking about a task")
    except SlurmError:
        return {}
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def ended_well(info):
    """True when the task exited 0 (it then wrote its row file)."""
    return info.get("JobState") == "COMPLETED" and \
        info.get("ExitCode") == "0:0"


def describe(info):
    """'STATE (reason, exit code) on NODES' of job_info()."""
    if not info:
        return "Slurm no longer knows it"
    return "%s (%s, exit code %s) on %s" % (
        info.get("JobState", "?"), info.get("Reason", "?"),
        info.get("ExitCode", "?"), info.get("NodeList", "?"))


def tail(path, lines=3):
    try:
        with open(path, errors="replace") as f:
            text = f.read().strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])
