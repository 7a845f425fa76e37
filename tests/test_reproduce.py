"""A results dir replays itself: reproduce.sh of a smoke run, in a clean
clone and with an empty JLBENCH_CACHE, rebuilds the kernel (same build
hash, same bzImage bytes) and the initramfs (same hash), reruns the try
and gets the same bits.

Cost: one smoke run of jump-label (--seconds 2, under half a minute of
icount) with the cached smoke kernel, then in the empty cache: extracting and
patching the kernel source (about a minute), the jump-label smoke kernel
and its static-key module, the agent, the initramfs, the plugin, one
rerun. The kernel build uses the shared ccache ($CCACHE_DIR, else the
default cache's ccache): a compiler cache returns the objects the compiler
would, so it is no part of what defines the run, and a make with hits
takes a few minutes instead of about six. JLBENCH_REPRODUCE_COLD=1 builds
with an empty ccache too. The only other thing the empty cache is given is
the qemu-plugin.h that bench/plugin/fetch-header downloads (a Debian source
file, not a build output), so that the test needs no network.
"""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, cpu_lock, run

pytestmark = pytest.mark.integration


def seed_plugin_header(cache_dir, empty):
    """Copy the downloaded qemu-plugin.h dirs of cache_dir into empty."""
    src = cache_dir / "qemu-plugin"
    for d in src.iterdir() if src.is_dir() else ():
        if (d / "qemu-plugin.h").is_file() and (d / "source.txt").is_file():
            shutil.copytree(d, empty / "qemu-plugin" / d.name)


def test_reproduce_sh_gives_the_same_bits_from_a_clean_clone(
        cache_dir, tmp_path):
    builds = tmp_path / "builds.tsv"
    image = tmp_path / "image.path"
    # one CPU: the kernel and image are cached, the run boots one guest
    with cpu_lock(cores=1):
        run([str(ROOT / "kernel-variants" / "build"), "--config", "smoke",
             "--variant", "jump-label", "--out", str(builds)])
        run([str(ROOT / "guest-image" / "build"), "--builds", str(builds),
             "--out", str(image)])
        run([str(ROOT / "bench" / "run"), "--builds", str(builds),
             "--initramfs", image.read_text().strip(), "--accel", "icount",
             "--boots", "1", "--seconds", "2", "--clients", "2",
             "--variants", "jump-label", "--no-aa", "--seed", "7",
             "--timeout", "600", "--quiet",
             "--results-root", str(tmp_path / "results"),
             "--out", str(tmp_path / "out")])
    d = (tmp_path / "out").read_text().strip()
    # A clean clone of this checkout, the results dir committed in it.
    clone = tmp_path / "clone"
    run(["git", "clone", "--quiet", str(ROOT), str(clone)])
    committed = clone / "results" / os.path.basename(d)
    shutil.copytree(d, committed)
    empty = tmp_path / "cache"
    empty.mkdir()
    seed_plugin_header(cache_dir, empty)
    env = dict(os.environ, JLBENCH_CACHE=str(empty))
    if os.environ.get("JLBENCH_REPRODUCE_COLD"):
        env["CCACHE_DIR"] = str(tmp_path / "ccache")
    else:
        env.setdefault("CCACHE_DIR", str(cache_dir / "ccache"))
    # one CPU: most of it is the tarball's single-threaded xz, one guest
    # and a make whose objects ccache returns (a timeline of the suite:
    # 0.92 CPUs busy under the lock held alone)
    with cpu_lock(cores=1):
        p = subprocess.run([str(committed / "reproduce.sh"), "--work",
                            str(tmp_path / "work")], env=env,
                           capture_output=True, text=True, check=False,
                           cwd=tmp_path)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-6000:]
    assert p.stdout.strip().splitlines()[-1] == "PASS", out[-6000:]
    assert "jump-label: build" in p.stdout and "as recorded" in p.stdout
    assert "initramfs" in p.stdout
    # the kernel and image were built in the empty cache, from the clone
    assert list((empty / "kernels").glob("smoke-jump-label-*/bzImage"))
    assert list((empty / "initramfs").glob("*.cpio"))
    assert not (tmp_path / "work" / "jlbench").exists()   # PASS cleans up
