"""Shared pytest fixtures and settings for the jlbench test suite."""
import fcntl
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from lib import hostinfo  # noqa: E402
PYTHON = "/usr/bin/python3"
# The suite run behind the committed REPORT.md (`./run_all.sh --workload
# suite`): tbench at its top, every other workload under suite/<workload>/.
SUITE_RUN = ROOT / "results" / "20261206T223428Z-7bf1103"
# Synthetic results dirs are analysed against a fixed calibration, not the
# committed study's (analysis/stats/calibrate.py path()), which a new study
# moves.
os.environ.setdefault("JLBENCH_CALIBRATION", str(
    ROOT / "tests" / "fixtures" / "analysis" / "calibration.json"))
# ... and without function floors (a test that wants them writes its own).
os.environ.setdefault("JLBENCH_FUNCTION_FLOORS", str(
    ROOT / "tests" / "fixtures" / "analysis" / "no-function-floors"))
# What the tests' commands record (bench/run, analyze, bisect, scan) goes
# into a store of the session's own, never the user's (lib/store),
# removed when the session ends (pytest_unconfigure; the workers of
# pytest-xdist inherit it).
SESSION_STORE = None
if "JLBENCH_DB" not in os.environ:
    SESSION_STORE = tempfile.mkdtemp(prefix="jlbench-tests-store.")
    os.environ["JLBENCH_DB"] = os.path.join(SESSION_STORE, "jlbench.db")


# The modules tests/run starts first (docs/testing.md, "How the suite
# runs"), in this order; other integration modules follow, then the unit
# tests (which tests/run's default runs in a pytest of their own, beside
# all of these). First the modules that hold both CPUs (bench-boot, the
# first test of test_guest_image_boot, takes the lock alone too: as its
# last, it waited 100 s for the nested machine, ee8140e), longest first:
# while one worker holds them the other waits, so none may come after a
# long one-guest module (tests/test_suite_order.py keeps every one of
# them in this list). Then the nested machine (about three minutes of
# one guest) with every module that boots one guest only beside it,
# reproduce.sh from an empty cache (about two) first: placed after the
# last two-core module with nothing left beside it, it ran alone for most
# of two minutes, one CPU idle; placed early, beside reproduce.sh and the
# unit tier, it made all three slower (bench/timing/bench-suite's
# timelines at 4f2b083 and 8b1dd21).
FIRST = ("test_scan", "test_bisect", "test_bench_slurm_boot",
         "test_bench_parallel_boot", "test_workloads_known",
         "test_workloads_boot", "test_source_boot",
         "test_bench_integration", "test_module_boot",
         "test_model_validation", "test_bench_pipe_boot",
         "test_guest_image_boot", "test_s390x_boot",
         "test_nested_kvm", "test_reproduce", "test_profile",
         "test_plugin_boot", "test_plugin_crosscheck")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "integration: builds kernels and boots them in QEMU")
    config.addinivalue_line(
        "markers", "xdist_group(name): tests that one pytest worker runs")
    config.addinivalue_line(
        "markers", "slow: a unit test of more than a few CPU seconds (the "
        "store's rebuild of results/)")


def _own_wide_fixture(item):
    """Whether item uses a module- or session-scoped fixture of its own
    module (which a worker that ran some of its tests would redo)."""
    module = item.nodeid.split("::")[0]
    return any(fd.scope != "function" and fd.baseid == module
               for defs in item._fixtureinfo.name2fixturedefs.values()
               for fd in defs)


def pytest_unconfigure(config):
    if SESSION_STORE:
        shutil.rmtree(SESSION_STORE, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Order the items as FIRST says, and keep each integration module (and
    each unit module with a fixture of its own beyond a test) on one
    worker: tests/run's --dist loadgroup hands out one group at a time."""
    def rank(item):
        name = item.module.__name__
        if name in FIRST:
            return FIRST.index(name)
        return len(FIRST) + (0 if item.get_closest_marker("integration")
                             else 1)

    items.sort(key=rank)
    for item in items:
        if item.get_closest_marker("xdist_group") is None and (
                item.get_closest_marker("integration")
                or _own_wide_fixture(item)):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def run(cmd, check=True, **kw):
    """Run a command from the repository root; return CompletedProcess."""
    kw.setdefault("cwd", ROOT)
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    p = subprocess.run(cmd, check=False, **kw)
    if check and p.returncode != 0:
        raise AssertionError(
            "%s exited %d\nstdout:\n%s\nstderr:\n%s"
            % (cmd, p.returncode, p.stdout[-4000:], p.stderr[-4000:]))
    return p


def front_door():
    """{subcommand: its path under the root}, as `jlbench commands` lists
    them, in `jlbench help`'s order."""
    out = run([str(ROOT / "jlbench"), "commands"]).stdout
    return dict(ln.split("\t") for ln in out.splitlines())


def cache_path():
    """The build cache shared with run_all.sh (lib/hostinfo.cache_dir)."""
    return pathlib.Path(hostinfo.cache_dir())


# The parts of a cache that its bound (lib/kcache.py) evicts from, or that
# hold them: a test of the bound has its own, and shares the rest.
BOUNDED = ("kernels", "src", "initramfs")


def private_cache(name):
    """A cache of a test's own, kept in the shared one (test-caches/NAME):
    its kernels, source trees and images are its own (so that a test's
    tiny limit evicts only what it made), and its other parts (ccache,
    agent, modules, plugin, ...) are links to the shared cache's."""
    shared = cache_path()
    path = shared / "test-caches" / name
    path.mkdir(parents=True, exist_ok=True)
    for part in ("ccache", "modules"):          # shared even when cold
        (shared / part).mkdir(parents=True, exist_ok=True)
    for part in sorted(os.listdir(shared)):
        if part not in BOUNDED + ("test-caches",) and \
                (shared / part).is_dir() and not (path / part).exists():
            (path / part).symlink_to(shared / part)
    for part in BOUNDED:
        (path / part).mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="session")
def committed_store(tmp_path_factory):
    """The store of the committed results/ (SQLite), made once per worker
    for the dashboard's tests, which only read it (tests/webserver.py)."""
    import webserver
    return webserver.rebuild(str(tmp_path_factory.mktemp("committed") /
                                 "c.db"))


# The dir of a PostgreSQL server .ci/run started for the suite
# (tests/pgserver.py start).
PG_VAR = "JLBENCH_TEST_PG"


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server of the session's own (tests/pgserver.py), for
    the results store's tests of its PostgreSQL backend; skipped, saying
    why, where the postgresql package is not installed."""
    import pgserver
    if os.environ.get(PG_VAR):
        # .ci/run's server: the suite's PostgreSQL tests must run on it
        yield pgserver.Server(os.environ[PG_VAR])
        return
    why = pgserver.missing()
    if why:
        pytest.skip("no PostgreSQL server: %s" % why)
    server = pgserver.Server().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cache_dir():
    """cache_path(), for tests."""
    return cache_path()


SMOKE_VARIANTS = ("jump-label", "atomic-read", "plain-read")
CPU_LOCK = "/tmp/jlbench-cpu.lock"


class cpu_lock:
    """Hold the CPUs a build or a boot needs. cores=2 (the default: a
    kernel build, a plan of --jobs 2) holds CPU_LOCK alone, as
    `flock CPU_LOCK` does; cores=1 (one TCG guest) shares it with the
    other one-core holders (with tests/run's two workers, one). A turnstile
    (CPU_LOCK.turn) keeps a two-core waiter from being starved by one-core
    holders that come and go."""

    def __init__(self, cores=2):
        assert cores in (1, 2), cores
        self.cores = cores

    def __enter__(self):
        asked = time.time()
        with open(CPU_LOCK + ".turn", "a") as turn:
            fcntl.flock(turn, fcntl.LOCK_EX)
            self.f = open(CPU_LOCK, "a")
            fcntl.flock(self.f, fcntl.LOCK_EX if self.cores == 2
                        else fcntl.LOCK_SH)
        self.got, self.wait = time.time(), time.time() - asked
        self.cpu = _children_cpu()
        return self

    def __exit__(self, *exc):
        self.f.close()
        timeline(event="lock", cores=self.cores, start=self.got,
                 end=time.time(), wait=self.wait,
                 cpu=_children_cpu() - self.cpu)


# $JLBENCH_TEST_TIMELINE (bench/timing/bench-suite sets it): a file that
# gets a JSON line per test (its worker, start and end) and per cpu_lock
# held (its cores, the wait for it, and the CPU seconds the commands it
# covered used), for bench-suite's account of where the minutes went.
TIMELINE = os.environ.get("JLBENCH_TEST_TIMELINE")


def _children_cpu():
    t = os.times()
    return t.children_user + t.children_system


def timeline(**entry):
    if TIMELINE:
        entry.setdefault("test", os.environ.get(
            "PYTEST_CURRENT_TEST", "").split(" ")[0])
        entry["worker"] = os.environ.get("PYTEST_XDIST_WORKER", "")
        with open(TIMELINE, "a") as f:
            f.write(json.dumps(entry) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = time.time()
    yield
    timeline(event="test", test=item.nodeid, start=start, end=time.time(),
             integration=bool(item.get_closest_marker("integration")))


def build_kernels(args):
    """kernel-variants/build ARGS (each kernel named by a --variant),
    under cpu_lock() when it has a kernel to make. When its --dry-run
    finds every kernel cached, the build only reads the cache: it runs
    without the lock, instead of waiting minutes for a worker's boots."""
    cmd = [str(ROOT / "kernel-variants" / "build")] + list(args)
    dry = run(cmd + ["--dry-run"])
    if dry.stderr.count("would not rebuild") == args.count("--variant"):
        return run(cmd)
    with cpu_lock():
        return run(cmd)


def once(tmp_path_factory, name, make):
    """A dir that make(dir) fills once per test session, whichever pytest
    worker asks first: work that tests of several modules share (a boot, a
    plan's results dir, a git repository) is paid for once. Other callers
    wait for it; when make failed, each of them fails saying so."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent      # the session's dir, shared by the workers
    d = root / ("once-" + name)
    failed = root / ("once-" + name + ".failed")
    with open(str(d) + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if failed.exists():
            pytest.fail("%s failed once this session: %s"
                        % (name, failed.read_text()))
        if not d.exists():
            d.mkdir()
            try:
                make(d)
            except BaseException as e:
                failed.write_text("%s: %s" % (type(e).__name__, e))
                raise
    return d


def read_builds(path):
    """{variant: build_dir} from a builds.tsv."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                variant, build_dir = line.rstrip("\n").split("\t")
                out[variant] = build_dir
    return out


@pytest.fixture(scope="session")
def smoke_builds_tsv(tmp_path_factory):
    """builds.tsv of the three smoke kernels: JLBENCH_SMOKE_BUILDS when
    set, else kernel-variants/build --config smoke (cached, so cheap once
    built)."""
    path = os.environ.get("JLBENCH_SMOKE_BUILDS")
    if not path:
        def build(d):
            args = ["--config", "smoke", "--out", str(d / "builds.tsv")]
            for v in SMOKE_VARIANTS:
                args += ["--variant", v]
            build_kernels(args)
        path = str(once(tmp_path_factory, "smoke-builds", build)
                   / "builds.tsv")
    assert set(SMOKE_VARIANTS) <= set(read_builds(path)), path
    return path


@pytest.fixture(scope="session")
def smoke_builds(smoke_builds_tsv):
    """{variant: build_dir} of the smoke kernels."""
    return read_builds(smoke_builds_tsv)


@pytest.fixture(scope="session")
def plugin_so(tmp_path_factory):
    """Path of the branch-count plugin, built (cached, so cheap once built;
    the first build fetches QEMU's header) as run_all.sh's stage after the
    image does: icount boots of bench/run and bench/selftest, stand-in
    QEMUs included, only locate it."""
    def build(d):
        p = run([str(ROOT / "bench" / "plugin" / "build")])
        (d / "path").write_text(p.stdout.strip().splitlines()[-1])
    path = (once(tmp_path_factory, "plugin", build) / "path").read_text()
    assert os.path.isfile(path), path
    return path


@pytest.fixture(scope="session")
def smoke_image(smoke_builds_tsv, plugin_so, tmp_path_factory):
    """Path of the one initramfs for all smoke variants, as
    guest-image/build writes it, and the plugin built."""
    def build(d):
        run([str(ROOT / "guest-image" / "build"), "--builds",
             smoke_builds_tsv, "--out", str(d / "image.path")])
    d = once(tmp_path_factory, "smoke-image", build)
    return (d / "image.path").read_text().strip()


@pytest.fixture(scope="session")
def testinit(tmp_path_factory):
    """The dir of bench/plugin/build-testinit's initramfs (cached)."""
    def build(d):
        p = run([str(ROOT / "bench" / "plugin" / "build-testinit")])
        (d / "path").write_text(p.stdout.strip())
    return (once(tmp_path_factory, "testinit", build) / "path").read_text()


@pytest.fixture(scope="session")
def smoke_selftest(smoke_builds_tsv, smoke_image, plugin_so,
                   tmp_path_factory):
    """One bench/selftest boot of every smoke kernel (icount, the plugin's
    model on), which test_module_boot and test_model_validation read:
    (its exit status, its stderr, its results dir)."""
    def boot(d):
        with cpu_lock():
            p = subprocess.run(
                [str(ROOT / "bench" / "selftest"), "--builds",
                 smoke_builds_tsv, "--initramfs", smoke_image, "--results",
                 str(d / "results"), "--accel", "icount"],
                cwd=ROOT, capture_output=True, text=True, timeout=1800)
        (d / "status").write_text(str(p.returncode))
        (d / "stderr").write_text(p.stderr)
    d = once(tmp_path_factory, "smoke-selftest", boot)
    return (int((d / "status").read_text()), (d / "stderr").read_text(),
            d / "results")


# A short icount plan: two kernels, two seeds, 2 s of tbench with 2
# clients. Its figures only need to be the same bits wherever it runs.
SHORT_PLAN = ["--accel", "icount", "--clients", "2", "--seconds", "2",
              "--boots", "2", "--variants", "jump-label,atomic-read",
              "--no-aa", "--seed", "2026", "--quiet", "--timeout", "600"]


@pytest.fixture(scope="session")
def side_by_side(smoke_builds_tsv, smoke_image, plugin_so, tmp_path_factory):
    """The results dir of SHORT_PLAN run by bench/run --jobs 2, which
    test_bench_parallel_boot sets beside --jobs 1 and test_bench_slurm_boot
    beside a Slurm cluster."""
    def plan(d):
        with cpu_lock():
            run([str(ROOT / "bench" / "run"), "--builds", smoke_builds_tsv,
                 "--initramfs", smoke_image, "--results-root",
                 str(d / "results"), "--out", str(d / "out"),
                 "--jobs", "2"] + SHORT_PLAN)
    d = once(tmp_path_factory, "side-by-side", plan)
    return (d / "out").read_text().strip()


MAKE_SERIES = str(ROOT / "tests" / "fixtures" / "bisect" / "make_series.py")
TARBALL = "/usr/src/linux-source-6.1.tar.xz"
# The files make_series.py's patches change (our series changes none).
SERIES_FILES = ("net/ipv4/tcp.c", "kernel/futex/syscalls.c",
                "init/main.c", "kernel/panic.c",
                "kernel/fork.c", "README",
                "Documentation/networking/index.rst",
                "drivers/net/ethernet/3com/3c509.c",
                "drivers/net/ethernet/8390/ne.c")
# The committed calibration: its floors, not the synthetic fixture's
# (above), which has none for counters.
CALIBRATED = dict(os.environ, JLBENCH_CALIBRATION=str(
    ROOT / "analysis" / "calibration.json"))


@pytest.fixture(scope="session")
def series_tree():
    """The files make_series.py changes, from the tarball (tarball_files)."""
    return tarball_files(TARBALL, SERIES_FILES)


# The A/B's planted change: an inline-assembly loop of LOOPS iterations in
# tcp_sendmsg() (make_series.py --asm: mov, then LOOPS x (dec; jnz)).
LOOPS = 400
AB_SEEDS = 6


@pytest.fixture(scope="session")
def ab(series_tree, plugin_so, tmp_path_factory):
    """./run_all.sh of a user's patch against jump-label on the smoke
    kernels: --variant loop=patches:FILE, AB_SEEDS seeds of 2 s under
    icount, no A/A twin. test_bisect checks its report, provenance and
    reproduce.sh, test_profile its per-function profiles. A namespace:
    results (the results dir), meta (its meta.json), report (REPORT.md's
    path), patch (the patch file), builds ({variant: build dir})."""
    def ab_run(d):
        run([MAKE_SERIES, str(series_tree), str(d / "series"), "--count",
             "1", "--planted", "1", "--loops", str(LOOPS), "--asm"])
        (patch,) = (d / "series" / "series").read_text().split()
        with cpu_lock():
            run([str(ROOT / "run_all.sh"), "--config", "smoke",
                 "--no-s390x", "--no-aa",
                 "--variant", "loop=patches:%s" % (d / "series" / patch),
                 "--boots", str(AB_SEEDS), "--seconds", "2", "--clients",
                 "2", "--results-root", str(d / "results"),
                 "--report", str(d / "REPORT.md")], env=CALIBRATED)
    d = once(tmp_path_factory, "ab", ab_run)
    (results,) = [x for x in (d / "results").iterdir() if x.is_dir()]
    with open(results / "meta.json") as f:
        meta = json.load(f)
    builds = {v: hostinfo.local_path(b["dir"])
              for v, b in meta["builds"].items()}
    (patch,) = (d / "series" / "series").read_text().split()
    return types.SimpleNamespace(results=results, report=d / "REPORT.md",
                                 patch=d / "series" / patch, meta=meta,
                                 builds=builds)


def tarball_files(tarball, files):
    """A dir holding files (paths inside the tree) of a linux-source
    tarball, kept in the cache (tarball-files/<hash of the tarball's name,
    size and time and of the files>/): made once, by decompressing all of
    the tarball (from several seconds to most of a minute)."""
    st = os.stat(tarball)
    key = hashlib.sha256(repr((tarball, st.st_size, st.st_mtime,
                               sorted(files))).encode()).hexdigest()[:16]
    kept = cache_path() / "tarball-files" / key
    if kept.is_dir():
        return kept
    kept.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(dir=kept.parent))
    try:
        run(["tar", "-xf", tarball, "-C", str(tmp), "--strip-components=1",
             "--wildcards"] + ["*/" + f for f in files])
        os.rename(tmp, kept)
    except OSError:         # another worker's copy came first
        pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return kept


CHECKPATCH_FILES = ("scripts/checkpatch.pl", "scripts/spelling.txt",
                    "scripts/const_structs.checkpatch")


@pytest.fixture(scope="session")
def checkpatch():
    """Path of scripts/checkpatch.pl of linux-source-6.1 (tarball_files)."""
    return str(tarball_files(TARBALL, CHECKPATCH_FILES) / CHECKPATCH_FILES[0])
