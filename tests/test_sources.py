"""lib/source.py: the kernel versions the built-ins are built from, each
Debian's linux-source package with our series ported to it."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run, tarball_files

sys.path.insert(0, str(ROOT))
from bench.replay.provenance import source_of  # noqa: E402
from lib import source  # noqa: E402

BUILD = str(ROOT / "kernel-variants" / "build")
SOURCE_PY = str(ROOT / "lib" / "source.py")


def series(src):
    with open(os.path.join(src.patches_dir, "series")) as f:
        return [ln.split()[0] for ln in f if ln.strip()
                and not ln.startswith("#")]


def test_every_source_has_its_series_and_its_packages_are_deps():
    listed = run([str(ROOT / "lib" / "deps"), "--list"]).stdout.split()
    assert source.DEFAULT == next(iter(source.SOURCES))
    for s in source.SOURCES.values():
        names = series(s)
        assert names, s.name
        for n in names:
            assert os.path.isfile(os.path.join(s.patches_dir, n)), n
        assert s.package in listed and s.config_package in listed
        assert s.tarball == "/usr/src/%s.tar.xz" % s.package


@pytest.mark.parametrize("text,want", [
    ("6.12.118-1~deb12u1", "6.12"), ("6.1.192-3", "6.1"),
    ("6.12.118", "6.12"), ("", None), (None, None), ("git", None)])
def test_version_of_a_package_or_kernel_version(text, want):
    assert source.version_of(text) == want


def test_source_cli():
    assert run([SOURCE_PY, "names"]).stdout.split() == list(source.SOURCES)
    assert run([SOURCE_PY, "get", "6.12", "package"]).stdout.strip() == \
        "linux-source-6.12"
    assert run([SOURCE_PY, "of-package", "linux-source-6.12"]) \
        .stdout.strip() == "6.12"
    p = run([SOURCE_PY, "of-package", "git"], check=False)
    assert p.returncode == 1 and "no kernel source of package 'git'" \
        in p.stderr
    p = run([SOURCE_PY, "shell", "5.10"], check=False)
    assert p.returncode == 2 and "unknown kernel source '5.10'" in p.stderr


def test_build_takes_a_known_source_only(tmp_path):
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path))
    p = run([BUILD, "--source", "5.10"], check=False, env=env)
    assert p.returncode == 2
    assert "unknown --source '5.10' (have: 6.1 6.12)" in p.stderr
    out = run([BUILD, "--dry-run", "--source", "6.12", "--config", "smoke",
               "--variant", "plain-read"], env=env).stdout
    assert "/usr/src/linux-source-6.12.tar.xz" in out
    assert "kernel-variants/patches-6.12/" in out
    assert "/src/linux-6.12." in out
    default = run([BUILD, "--dry-run", "--config", "smoke", "--variant",
                   "plain-read"], env=env).stdout
    assert "/usr/src/linux-source-6.1.tar.xz" in default
    assert "kernel-variants/patches/" in default


def _touched(patch):
    with open(patch) as f:
        return [ln.split()[1][2:] for ln in f if ln.startswith("+++ b/")]


def _apply(pristine, patches, tree):
    """patch's result of applying patches to a copy of the files in
    pristine, in tree: (ok, output)."""
    shutil.copytree(pristine, tree)
    for p in patches:
        r = subprocess.run(["patch", "-p1", "-d", str(tree), "--batch",
                            "--forward", "-i", p], capture_output=True,
                           text=True, check=False)
        if r.returncode != 0:
            return False, r.stdout + r.stderr
    return True, (tree / "include" / "linux" / "jump_label.h").read_text()


@pytest.mark.parametrize("name", list(source.SOURCES))
def test_each_series_applies_to_its_own_tarball(name, tmp_path):
    """Each version's series applies to Debian's tree of that version and
    gives it the plain-read fallback; 6.1's does not apply to 6.12 (its
    fallback reads with raw_atomic_read()), which is why 6.12 has a port."""
    s = source.get(name)
    if not os.path.isfile(s.tarball):
        pytest.skip("%s not installed (lib/deps installs it)" % s.package)
    patches = [os.path.join(s.patches_dir, n) for n in series(s)]
    old = source.get("6.1")
    old_patches = [os.path.join(old.patches_dir, n) for n in series(old)]
    pristine = tarball_files(s.tarball, sorted({
        f for p in patches + old_patches for f in _touched(p)}))
    ok, text = _apply(pristine, patches, tmp_path / "tree")
    assert ok, text
    assert "#ifdef CONFIG_JUMP_LABEL_PLAIN_READS" in text
    assert "return key->enabled.counter;" in text
    if name == "6.12":
        assert "return raw_atomic_read(&key->enabled);" in text
        ok, out = _apply(pristine, old_patches, tmp_path / "old")
        assert not ok and "jump_label.h" in out


def test_provenance_names_the_kernels_source():
    assert source_of({"a": {"package": "linux-source-6.12"}}).name == "6.12"
    assert source_of({"a": {"package": "git"}, "b": {}}).name == "6.1"
    assert source_of({"a": {"package": "linux-source-6.1"}}).patches_dir \
        == str(ROOT / "kernel-variants" / "patches")
