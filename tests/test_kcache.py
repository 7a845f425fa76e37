"""lib/kcache.py, the cache's bound, on a cache of stand-in entries: the
least recently used go first, down to the limit and no further; what a
live pin, a results dir or the caller keeps stays; a pin whose command
ended is dropped; images wait while one is made; slim keeps what a kernel
is run, profiled and given modules with. (tests/test_scan.py runs the
bound on real kernels: a scan under a tiny limit, and an evicted kernel
made again bit for bit.)"""
import errno
import fcntl
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from lib import kcache

MB = 1 << 20


def entry(path, size, used):
    """A stand-in entry of size bytes last used at time used."""
    if kcache.is_image(str(path)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
        os.utime(path, (used, used))
        return path
    path.mkdir(parents=True)
    (path / "vmlinux").write_bytes(b"x" * size)
    (path / kcache.STAMP).touch()
    os.utime(path / kcache.STAMP, (used, used))
    return path


@pytest.fixture
def cache(tmp_path):
    c = tmp_path / "cache"
    k = c / "kernels"
    entry(k / "smoke-old-1", MB, 100)
    entry(k / "work-smoke-jump-label-2", 2 * MB, 200)
    entry(c / "initramfs" / "3.cpio", MB, 300)
    entry(k / "smoke-new-4", MB, 400)
    (k / "index").mkdir()
    (k / "index" / "x").write_text(str(k / "smoke-new-4"))
    return c


def names(gone):
    return [os.path.basename(e.path) for e in gone]


def left(cache):
    return sorted(os.path.basename(e.path) for e in kcache.entries(str(cache)))


def test_an_older_checkouts_gzipped_image_is_an_entry(cache):
    entry(cache / "initramfs" / "5.cpio.gz", MB, 50)
    assert kcache.entries(str(cache))[0].path.endswith("5.cpio.gz")


def test_sizes_parse_and_refuse():
    assert kcache.parse_size("20G") == 20 << 30
    assert kcache.parse_size("500M") == 500 << 20
    assert kcache.parse_size("1.5k") == 1536
    assert kcache.parse_size("0") == 0
    assert kcache.parse_size("2GiB") == 2 << 30
    for bad in ("", "lots", "-1G", "5X"):
        with pytest.raises(ValueError):
            kcache.parse_size(bad)
    assert kcache.limit({}) == 20 << 30
    assert kcache.limit({kcache.LIMIT_VAR: "1M"}) == MB


def test_least_recently_used_go_first_down_to_the_limit(cache, tmp_path):
    said = []
    gone = kcache.trim(str(cache), int(3.5 * MB), root=str(tmp_path),
                       say=said.append)
    # 5 MB to 3.5: the oldest (1 MB) is not enough, the work dir next
    assert names(gone) == ["smoke-old-1", "work-smoke-jump-label-2"]
    assert left(cache) == ["3.cpio", "smoke-new-4"]
    assert "evicted 2 least recently used" in said[0]
    # nothing half-removed is left behind
    assert sorted(os.listdir(cache / "kernels")) == ["index", "smoke-new-4"]
    assert kcache.trim(str(cache), int(3.5 * MB), root=str(tmp_path)) == []


def test_no_limit_or_under_it_evicts_nothing(cache, tmp_path):
    (cache / "kernels" / ".evicting-1-smoke-x" / "arch").mkdir(parents=True)
    assert kcache.trim(str(cache), 0, root=str(tmp_path)) == []
    # what an interrupted eviction left is removed all the same
    assert not (cache / "kernels" / ".evicting-1-smoke-x").exists()
    assert kcache.trim(str(cache), 6 * MB, root=str(tmp_path)) == []
    assert len(left(cache)) == 4


def test_a_live_pin_results_and_keep_are_never_evicted(cache, tmp_path):
    results = tmp_path / "repo" / "results" / "20261206T000000Z-abc"
    results.mkdir(parents=True)
    (results / "meta.json").write_text(json.dumps({
        "builds": {"jump-label": {"dir": "$JLBENCH_CACHE/kernels/x"}},
        "images": {"jump-label": {
            "path": str(cache / "initramfs" / "3.cpio")}}}))
    said = []
    with kcache.Pin(str(cache)) as pin:
        pin.add(str(cache / "kernels" / "smoke-old-1"))
        gone = kcache.trim(
            str(cache), 1, root=str(tmp_path / "repo"),
            keep=[str(cache / "kernels" / "work-smoke-jump-label-2")],
            say=said.append)
        assert os.path.exists(pin.path)
    assert names(gone) == ["smoke-new-4"]
    assert left(cache) == ["3.cpio", "smoke-old-1",
                           "work-smoke-jump-label-2"]
    assert "over its 1B limit" in said[-1] and kcache.LIMIT_VAR in said[-1]
    # the pin went with its command: the kernel it named can go now
    gone = kcache.trim(str(cache), 1, root=str(tmp_path / "repo"))
    assert names(gone) == ["smoke-old-1", "work-smoke-jump-label-2"]


def test_the_pin_of_an_ended_command_is_dropped(cache, tmp_path):
    code = ("import sys; sys.path.insert(0, %r); from lib import kcache; "
            "p = kcache.Pin(%r); p.add(%r); print(p.path)" % (
                str(ROOT), str(cache), str(cache / "kernels" / "smoke-old-1")))
    # the process ends without closing its pin (a kill, a crash)
    path = subprocess.run([sys.executable, "-c", code], check=True,
                          capture_output=True, text=True).stdout.strip()
    assert os.path.isfile(path)
    assert kcache.pinned(str(cache)) == set()
    assert not os.path.exists(path)


def test_images_wait_while_one_is_made(cache, tmp_path):
    with open(cache / "initramfs" / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        gone = kcache.trim(str(cache), 1, root=str(tmp_path))
    assert "3.cpio" not in names(gone) and left(cache) == ["3.cpio"]


def test_slim_keeps_what_a_kernel_runs_and_takes_modules_with(tmp_path):
    d = tmp_path / "smoke-a-1"
    keep = ["bzImage", "vmlinux", "System.map", ".config", "Module.symvers",
            "build.json", "jump-sites.txt", "modules/jlbench_static_key.ko",
            "scripts/mod/modpost", "include/config/kernel.release",
            "include/generated/autoconf.h", "tools/objtool/objtool",
            "arch/x86/include/generated/asm/x.h", "Makefile"]
    drop = ["kernel/sched/core.o", "kernel/sched/.core.o.cmd",
            "built-in.a", "vmlinux.a", "vmlinux.o", ".tmp_vmlinux.kallsyms1",
            ".tmp_vmlinux.kallsyms2.S", "arch/x86/boot/bzImage",
            "arch/x86/boot/compressed/vmlinux.bin", "scripts/mod/.modpost.o"]
    for f in keep + drop:
        (d / f).parent.mkdir(parents=True, exist_ok=True)
        (d / f).write_bytes(b"x" * 10)
    assert kcache.slim(str(d)) == 10 * len(drop)
    have = sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_file())
    assert have == sorted(keep)
    with pytest.raises(ValueError):
        kcache.slim(str(tmp_path))          # no bzImage: not a build


def test_status_says_why_each_entry_stays(cache, tmp_path):
    env = dict(os.environ, JLBENCH_CACHE=str(cache),
               **{kcache.LIMIT_VAR: "4M"})
    p = subprocess.run([str(ROOT / "lib" / "kcache.py"), "status"], env=env,
                       capture_output=True, text=True, check=True)
    lines = p.stdout.split("\n\n")[0].splitlines()
    assert len(lines) == 5 and "evictable" in lines[0], p.stdout
    assert lines[-1] == "5.0MB in 4 entries; limit 4.0MB (%s)" \
        % kcache.LIMIT_VAR
    bad = subprocess.run([str(ROOT / "lib" / "kcache.py"), "trim"],
                         env=dict(env, **{kcache.LIMIT_VAR: "lots"}),
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "say 20G" in bad.stderr


def test_status_names_every_part_outside_the_bound(cache):
    """The cache's parts the bound does not count are listed with their
    size on disk (hard links once) and what bounds them."""
    tree = cache / "src" / "stash" / "anchor-1"
    tree.mkdir(parents=True)
    (tree / "Makefile").write_bytes(b"x" * 3 * MB)
    linked = cache / "src" / "stash" / "tree-2"
    linked.mkdir()
    os.link(tree / "Makefile", linked / "Makefile")   # counted once
    (cache / "test-repos").mkdir()
    (cache / "test-repos" / "pack").write_bytes(b"x" * MB)
    (cache / "agent").mkdir()
    (cache / "a.db").write_bytes(b"x" * 4096)
    p = subprocess.run([str(ROOT / "lib" / "kcache.py"), "status"],
                       env=dict(os.environ, JLBENCH_CACHE=str(cache)),
                       capture_output=True, text=True, check=True)
    head, rest = p.stdout.split("\n\n")
    rows = [r.split("\t") for r in rest.splitlines()[1:]]
    assert [r[1] for r in rows][:2] == ["src", "test-repos"]
    assert rows[0][0] == "3.0MB" and rows[0][2] == kcache.OUTSIDE["src"]
    assert rows[1][0] == "1.0MB"
    assert {r[1] for r in rows} == {"src", "test-repos", "agent", "a.db"}
    assert rest.splitlines()[0].startswith("outside the bound: 4.0MB in 4 "
                                           "parts (the whole cache: 9.0MB)")


def test_a_finished_builds_size_is_measured_once(tmp_path):
    d = entry(tmp_path / "kernels" / "smoke-a-1", MB, 100)
    (d / "build.json").write_text("{}")
    assert [e.size for e in kcache.entries(str(tmp_path))] == [MB + 2]
    (d / "vmlinux").write_bytes(b"")        # not measured again ...
    assert [e.size for e in kcache.entries(str(tmp_path))] == [MB + 2]
    (d / "build.json").write_text("{ }")    # ... until it is made again
    os.utime(d / "build.json", ns=(1, 1))
    record = (d / kcache.SIZE).stat().st_size
    assert [e.size for e in kcache.entries(str(tmp_path))] == [3 + record]


def test_a_pin_in_a_cache_it_cannot_write_holds_nothing(
        tmp_path, monkeypatch):
    """A nested machine mounts the cache read-only: bench/run goes on,
    with a pin that holds nothing (nothing is evicted there either)."""
    def read_only(*a, **kw):
        raise OSError(errno.EROFS, "Read-only file system")
    monkeypatch.setattr(kcache.os, "makedirs", read_only)
    with kcache.Pin(str(tmp_path)) as pin:
        pin.add("/k/x")
        assert pin.path is None
    assert not (tmp_path / "kernels").exists()
    monkeypatch.undo()

    def other(*a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(kcache.os, "makedirs", other)
    with pytest.raises(OSError):                # any other trouble is said
        kcache.Pin(str(tmp_path))
