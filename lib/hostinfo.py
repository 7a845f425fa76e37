"""Facts about the host and the checkout for meta.json, and the paths of
this machine written portably (portable(), local_path())."""
import functools
import os
import platform
import re
import subprocess

from lib import ROOT, source

# How portable() writes the places of this machine, most specific first.
CACHE_VAR = "$JLBENCH_CACHE"
ROOT_VAR = "$JLBENCH_ROOT"
HOME_VAR = "~"


def _out(cmd, cwd=None):
    """First line of a command's stdout, or "unknown" when it fails."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                           timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    line = p.stdout.strip().splitlines()[0] if p.stdout.strip() else ""
    return line if p.returncode == 0 and line else "unknown"


def node():
    """The machine a try runs on: the Slurm node's name inside a Slurm job
    (two nodes may share a host), else the host name."""
    return os.environ.get("SLURMD_NODENAME") or os.uname().nodename


@functools.lru_cache(maxsize=None)
def qemu_version(qemu):
    """First line of `qemu --version` ("unknown" when it fails)."""
    return _out([qemu, "--version"])


def _package(name):
    return _out(["dpkg-query", "-W", "-f", "${Version}", name])


def cpu_model(cpuinfo="/proc/cpuinfo"):
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# Set by tests/nested/run inside its machine: what that machine is.
NESTED_ENV = "JLBENCH_NESTED"
# The model name QEMU's TCG gives its CPU models max and base.
EMULATED_CPU = "QEMU TCG CPU"


def nested(env=None, cpuinfo="/proc/cpuinfo"):
    """Why this host is itself an emulated machine (text), or None.

    A KVM guest here runs on emulated hardware: its figures are not
    hardware throughput. Known from $JLBENCH_NESTED (tests/nested/run sets
    it) or from a CPU model name that QEMU's TCG gives.
    """
    env = os.environ if env is None else env
    if env.get(NESTED_ENV):
        return env[NESTED_ENV]
    model = cpu_model(cpuinfo)
    if model.startswith(EMULATED_CPU):
        return "the CPU is %r: emulated by QEMU (TCG)" % model
    return None


def git_state(root):
    """commit, short sha, dirty flag and the changed paths of the checkout.
    Untracked results dirs (results/NAME/, earlier runs' outputs) are
    changed paths, but leave the tree the commit's: not dirty."""
    commit = _out(["git", "rev-parse", "HEAD"], cwd=root)
    short = _out(["git", "rev-parse", "--short=7", "HEAD"], cwd=root)
    try:
        p = subprocess.run(["git", "status", "--porcelain"], cwd=root,
                           capture_output=True, text=True, timeout=30,
                           check=False)
        lines = p.stdout.splitlines() if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        lines = None
    changed = None if lines is None else [ln[3:] for ln in lines]
    dirty = None if lines is None else any(
        not ln.startswith("?? results/") for ln in lines)
    return {"commit": commit, "short": short if short != "unknown" else "",
            "dirty": dirty, "changed": changed}


def host(qemu):
    """Host hardware, kernel and tool versions."""
    u = os.uname()
    return {
        "hostname": u.nodename,
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "kernel": "%s %s" % (u.release, u.version),
        "machine": u.machine,
        "nested": nested(),
        "qemu": _out([qemu, "--version"]),
        "gcc": _out(["gcc", "--version"]),
        "python": platform.python_version(),
        "packages": {p: _package(p) for p in
                     ["qemu-system-x86", "dbench", "linux-perf"] +
                     [s.package for s in source.SOURCES.values()]},
        "loadavg_at_start": _loadavg(),
    }


def _loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[:3]
    except OSError:
        return None


def cache_dir(env=None):
    """The build cache: $JLBENCH_CACHE, else $XDG_CACHE_HOME/jlbench, else
    ~/.cache/jlbench (lib/common.sh's rule)."""
    env = os.environ if env is None else env
    if env.get("JLBENCH_CACHE"):
        return env["JLBENCH_CACHE"]
    base = env.get("XDG_CACHE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jlbench")


def places(env=None, root=ROOT):
    """[(absolute path, its portable name)]: the cache, the checkout and
    the home dir, longest path first (a cache inside the home dir is
    $JLBENCH_CACHE, not ~/...)."""
    env = os.environ if env is None else env
    out = {}
    home = env.get("HOME") or ""
    for path, name in ((cache_dir(env), CACHE_VAR), (root, ROOT_VAR),
                       (home, HOME_VAR)):
        path = os.path.normpath(os.path.abspath(path)) if path else ""
        if len(path) > 1 and path not in out:
            out[path] = name
    return sorted(out.items(), key=lambda x: -len(x[0]))


def portable(obj, where=None):
    """obj (JSON-like) with every path of this machine's cache, checkout and
    home dir written as $JLBENCH_CACHE/..., $JLBENCH_ROOT/... or ~/...,
    wherever it occurs in a string; where: places() (the default) or a
    list like it."""
    where = places() if where is None else where
    if not where:
        return obj
    pattern = re.compile("|".join(
        "(?<![\\w./-])(%s)(?=/|$|[\\s,'\"=:])" % re.escape(p)
        for p, _ in where))
    names = [n for _, n in where]

    def fix(x):
        if isinstance(x, str):
            return pattern.sub(lambda m: names[m.lastindex - 1], x)
        if isinstance(x, dict):
            return {fix(k): fix(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [fix(v) for v in x]
        return x
    return fix(obj)


def local_path(path, env=None, root=ROOT):
    """A path from meta.json as a path of this machine: $JLBENCH_CACHE/...,
    $JLBENCH_ROOT/... and ~/... expanded; an absolute path (results dirs
    written before portable paths) unchanged."""
    if not isinstance(path, str):
        return path
    for prefix, value in ((CACHE_VAR, cache_dir(env)), (ROOT_VAR, root),
                          (HOME_VAR, (env or os.environ).get("HOME", ""))):
        if path == prefix or path.startswith(prefix + "/"):
            return value + path[len(prefix):]
    return path
