"""Shared pytest fixtures and settings for the jlbench test suite."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYTHON = "/usr/bin/python3"
# Synthetic results dirs are analysed against a fixed calibration, not the
# committed study's (analysis/calibrate.py path()), which a new study moves.
os.environ.setdefault("JLBENCH_CALIBRATION", str(
    ROOT / "tests" / "fixtures" / "analysis" / "calibration.json"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "integration: builds kernels and boots them in QEMU")


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


@pytest.fixture(scope="session")
def cache_dir():
    """The build cache shared with run_all.sh (JLBENCH_CACHE or default)."""
    d = os.environ.get("JLBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "jlbench")
    return pathlib.Path(d)


SMOKE_VARIANTS = ("jump-label", "atomic-read", "plain-read")
CPU_LOCK = "/tmp/jlbench-cpu.lock"


class cpu_lock:
    """Hold the CPU lock (flock(1)-compatible) around a build or a boot."""

    def __enter__(self):
        import fcntl
        self.f = open(CPU_LOCK, "a")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        self.f.close()


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
        path = str(tmp_path_factory.mktemp("builds") / "builds.tsv")
        cmd = [str(ROOT / "kernel-variants" / "build"), "--config", "smoke",
               "--out", path]
        for v in SMOKE_VARIANTS:
            cmd += ["--variant", v]
        with cpu_lock():
            run(cmd)
    assert set(SMOKE_VARIANTS) <= set(read_builds(path)), path
    return path


@pytest.fixture(scope="session")
def smoke_builds(smoke_builds_tsv):
    """{variant: build_dir} of the smoke kernels."""
    return read_builds(smoke_builds_tsv)


@pytest.fixture(scope="session")
def plugin_so():
    """Path of the branch-count plugin, built (cached, so cheap once built;
    the first build fetches QEMU's header) as run_all.sh's stage after the
    image does: icount boots of bench/run and bench/selftest, stand-in
    QEMUs included, only locate it."""
    p = run([str(ROOT / "bench" / "plugin" / "build")])
    path = p.stdout.strip().splitlines()[-1]
    assert os.path.isfile(path), p.stdout
    return path


@pytest.fixture(scope="session")
def smoke_image(smoke_builds_tsv, plugin_so, tmp_path_factory):
    """Path of the one initramfs for all smoke variants (and the plugin
    built)."""
    out = tmp_path_factory.mktemp("image") / "image.path"
    run([str(ROOT / "guest-image" / "build"), "--builds", smoke_builds_tsv,
         "--out", str(out)])
    return out.read_text().strip()


@pytest.fixture(scope="session")
def checkpatch(tmp_path_factory):
    """Path of scripts/checkpatch.pl taken from the linux-source tarball."""
    d = tmp_path_factory.mktemp("checkpatch")
    run(["tar", "-xf", "/usr/src/linux-source-6.1.tar.xz", "-C", str(d),
         "--strip-components=1", "--wildcards",
         "*/scripts/checkpatch.pl", "*/scripts/spelling.txt",
         "*/scripts/const_structs.checkpatch"])
    return str(d / "scripts" / "checkpatch.pl")
