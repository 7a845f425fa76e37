"""Linters as tests: shellcheck for shell, flake8 for Python."""
import subprocess

from conftest import ROOT, run


def tracked_files():
    out = subprocess.run(["git", "ls-files", "--cached", "--others",
                          "--exclude-standard"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [ROOT / f for f in out.split() if (ROOT / f).is_file()]


def has_shebang(path, interpreter):
    with open(path, "rb") as f:
        first = f.readline()
    return first.startswith(b"#!") and interpreter in first


def is_shell(path):
    return path.suffix == ".sh" or has_shebang(path, b"bash") or \
        has_shebang(path, b"busybox sh")


def is_python(path):
    return path.suffix == ".py" or has_shebang(path, b"python")


def test_shellcheck():
    files = [str(f) for f in tracked_files() if is_shell(f)]
    assert files, "no shell scripts found"
    run(["shellcheck", "-x"] + files)


def test_flake8():
    files = [str(f) for f in tracked_files() if is_python(f)]
    assert files, "no Python files found"
    run(["flake8"] + files)
