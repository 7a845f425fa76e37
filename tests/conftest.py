"""Shared pytest fixtures and settings for the jlbench test suite."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYTHON = "/usr/bin/python3"


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
