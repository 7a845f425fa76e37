#!/usr/bin/env python3
"""The cache's bound: the kernel builds and initramfs images, the parts of
$JLBENCH_CACHE that grow with every kernel made, kept under a size limit
by evicting the least recently used.

Usage:
  lib/kcache.py status                 what the bound counts, and why each
                                       entry is kept or could go; then
                                       every other part of the cache, its
                                       size and what bounds it
  lib/kcache.py trim [--keep PATH]...  evict until under the limit (with
                                       the kernels' lock: after a build)
  lib/kcache.py slim DIR               drop a build dir's objects

An entry is a kernel build dir (kernels/<config>-<variant>-<hash>/), a
work dir the git trees and patched variants are made in incrementally
(kernels/work-*/) or an initramfs image (initramfs/*.cpio; *.cpio.gz as
older checkouts wrote them). Its last use is the time of its stamp: a
build dir's .jlbench-used, touched each time kernel-variants/build makes
or reuses it, a work dir's when it makes a kernel, an image's own time,
touched when guest-image/build reuses it.
The limit is $JLBENCH_CACHE_LIMIT (a size: 20G by default, 500M, 0 for
none); the other parts of the cache have bounds of their own (ccache:
$CCACHE_MAXSIZE; the source trees: kernel-variants/build keeps four and
two anchors) or none (the test suite's caches and histories, the store):
status lists each with its size on disk and what bounds it (OUTSIDE).
trim evicts, oldest use first, every entry it may until the total is
under the limit. It never evicts:
  - what a running command pinned: bench/scan and bench/bisect pin every
    kernel and image of their steps until they end, bench/run its own
    for as long as it runs (a pin is a file under kernels/pins/ that its
    command holds locked; it goes with the command, even a killed one);
  - what a results dir under the checkout's results/ names in meta.json
    (the committed report's kernels, the examples' and the studies');
  - what the caller keeps (--keep: kernel-variants/build keeps the
    kernels and work dirs of its own run).
An evicted kernel is made again, bit for bit, the next time it is asked
for (from ccache, incrementally where it can be). A kernel made in a work
dir keeps only what it is run, profiled and given modules with: slim
drops its objects, link intermediates and make's records (230 MB to 30
for a full kernel, 165 to 23 for a smoke one). kernel-variants/build
runs trim with the cache's kernels lock held (one build at a time); trim
takes the images' lock without waiting and leaves the images alone while
an image is made.
"""
import argparse
import errno
import fcntl
import glob
import json
import os
import re
import shutil
import sys
import time

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))

from lib import ROOT, cli, hostinfo  # noqa: E402

LIMIT_VAR = "JLBENCH_CACHE_LIMIT"
DEFAULT_LIMIT = "20G"
STAMP = ".jlbench-used"
# A finished build dir's size, measured once: "<build.json's mtime_ns>
# <bytes>" (a build dir does not change once made, but for its module)
SIZE = ".jlbench-size"
PIN_VAR = "JLBENCH_KERNEL_PIN"
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# What slim drops from a build dir: objects, archives, make's records and
# the link's intermediates (the boot image is copied to DIR/bzImage).
SLIM_SUFFIXES = (".o", ".a", ".cmd")
SLIM_NAMES = re.compile(r"^(\.tmp_vmlinux.*|vmlinux\.o|vmlinux\.a)$")


def parse_size(text):
    """Bytes of a size: 20G, 500M, 1.5T, 123 (bytes); ValueError else."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)i?B?\s*",
                     str(text), re.I)
    if not m:
        raise ValueError("not a size: %r (say 20G, 500M or 0)" % text)
    return int(float(m.group(1)) * UNITS[m.group(2).upper()])


def limit(env=None):
    """The limit in bytes, from $JLBENCH_CACHE_LIMIT (0: none)."""
    env = os.environ if env is None else env
    return parse_size(env.get(LIMIT_VAR) or DEFAULT_LIMIT)


def human(n):
    for unit in ("T", "G", "M", "K"):
        if n >= UNITS[unit]:
            return "%.1f%sB" % (n / UNITS[unit], unit)
    return "%dB" % n


def size_of(path):
    """Bytes a file or a tree holds (its files' sizes, links not
    followed)."""
    if not os.path.isdir(path) or os.path.islink(path):
        return os.lstat(path).st_size
    total = 0
    for top, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(top, f)).st_size
            except FileNotFoundError:
                pass
    return total


class Entry:
    """One evictable part of the cache: a build dir, a work dir or an
    image."""

    def __init__(self, path, kind):
        self.path, self.kind = path, kind
        self.size = self._size()
        stamps = [os.path.join(path, STAMP), os.path.join(path,
                                                          "build.json"), path]
        self.used = next(os.stat(s).st_mtime for s in stamps
                         if os.path.exists(s))

    def _size(self):
        """size_of() the entry; a finished build dir's from its SIZE
        record (walking every build at each trim took seconds)."""
        info = os.path.join(self.path, "build.json")
        if self.kind != "kernel" or not os.path.isfile(info):
            return size_of(self.path)
        key = str(os.stat(info).st_mtime_ns)
        record = os.path.join(self.path, SIZE)
        try:
            with open(record) as f:
                made, size = f.read().split()
            if made == key:
                return int(size)
        except (OSError, ValueError):
            pass
        size = size_of(self.path)
        with open(record, "w") as f:
            f.write("%s %d\n" % (key, size))
        return size


IMAGES = (".cpio", ".cpio.gz")


def is_image(path):
    """Whether path names an initramfs image."""
    return path.endswith(IMAGES)


def entries(cache):
    """Every Entry of the cache, least recently used first."""
    out = []
    kernels = os.path.join(cache, "kernels")
    for d in sorted(glob.glob(os.path.join(kernels, "*", ""))):
        d = d.rstrip("/")
        name = os.path.basename(d)
        if name.startswith("work-"):
            out.append(Entry(d, "work dir"))
        elif name not in ("index", "pins"):
            out.append(Entry(d, "kernel"))
    for suffix in IMAGES:
        for f in glob.glob(os.path.join(cache, "initramfs", "*" + suffix)):
            out.append(Entry(f, "image"))
    return sorted(out, key=lambda e: (e.used, e.path))


class Pin:
    """Paths a running command needs: a file under kernels/pins/ that
    this process holds locked until close() or its end; trim evicts
    nothing it names. In a cache this process cannot write (a read-only
    one, as a nested machine mounts it), where nothing is evicted either,
    a pin holds nothing and path is None."""

    def __init__(self, cache=None):
        d = os.path.join(cache or hostinfo.cache_dir(), "kernels", "pins")
        name = "%d-%d" % (os.getpid(), time.monotonic_ns())
        # locked before it has its name: trim takes an unlocked pin for
        # one whose command has ended
        hidden = os.path.join(d, "." + name)
        self._f = self.path = None
        try:
            os.makedirs(d, exist_ok=True)
            self._f = open(hidden, "a")
        except OSError as e:
            if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
            return
        fcntl.flock(self._f, fcntl.LOCK_EX)
        self.path = os.path.join(d, name)
        os.rename(hidden, self.path)

    def add(self, *paths):
        if not self._f:
            return
        for p in paths:
            self._f.write(os.path.abspath(p) + "\n")
        self._f.flush()

    def close(self):
        if self._f:
            os.unlink(self.path)
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def pinned(cache):
    """The paths the live pins name; a pin whose command has ended (its
    lock free) is removed."""
    out = set()
    for p in glob.glob(os.path.join(cache, "kernels", "pins", "*")):
        try:
            f = open(p)
        except FileNotFoundError:
            continue
        with f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                out.update(ln.strip() for ln in f if ln.strip())
                continue
            os.unlink(p)
    return out


def named_in(metas, env=None):
    """The kernels and images the meta.json files metas name (builds'
    dirs, images' paths; $JLBENCH_CACHE of env, default the process's)."""
    out = set()
    for meta in metas:
        try:
            with open(meta) as f:
                m = json.load(f)
        except (OSError, ValueError):
            continue
        for b in (m.get("builds") or {}).values():
            out.add(hostinfo.local_path((b or {}).get("dir"), env))
        for i in (m.get("images") or {}).values():
            out.add(hostinfo.local_path((i or {}).get("path"), env))
    out.discard(None)
    return {os.path.abspath(p) for p in out}


def named_by_results(root=ROOT):
    """What the results dirs under root/results name."""
    return named_in(glob.glob(os.path.join(root, "results", "**",
                                           "meta.json"), recursive=True))


def why_kept(entry, pins, results, keep):
    p = os.path.abspath(entry.path)
    if p in keep:
        return "this build's"
    if p in pins:
        return "pinned by a running command"
    if p in results:
        return "named by results/"
    return None


def images_lock(cache):
    """The images' lock, taken without waiting; None when an image is
    being made."""
    f = open(os.path.join(cache, "initramfs", ".lock"), "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        return None
    return f


def evict(entry, cache):
    """Remove an entry: renamed out of the way first, so that no half-
    removed build is ever taken for one."""
    gone = os.path.join(cache, "kernels", ".evicting-%d-%s" % (
        os.getpid(), os.path.basename(entry.path)))
    os.rename(entry.path, gone)
    if os.path.isdir(gone):
        shutil.rmtree(gone)
    else:
        os.unlink(gone)


def trim(cache, bound, keep=(), root=ROOT, say=print):
    """Evict least recently used entries until the total is under bound
    (bytes; 0: no bound); the evicted entries."""
    for left in glob.glob(os.path.join(cache, "kernels", ".evicting-*")):
        shutil.rmtree(left, ignore_errors=True)     # an interrupted evict
    all_entries = entries(cache)
    total = sum(e.size for e in all_entries)
    if not bound or total <= bound:
        return []
    pins, results = pinned(cache), named_by_results(root)
    keep = {os.path.abspath(k) for k in keep}
    lock = None
    if os.path.isdir(os.path.join(cache, "initramfs")):
        lock = images_lock(cache)
    gone = []
    for e in all_entries:
        if total <= bound:
            break
        if why_kept(e, pins, results, keep) or (e.kind == "image"
                                                and lock is None):
            continue
        evict(e, cache)
        total -= e.size
        gone.append(e)
    if lock:
        lock.close()
    if gone:
        say("cache: evicted %d least recently used (%s): %s; %s now, "
            "limit %s (%s)" % (len(gone), human(sum(e.size for e in gone)),
                               ", ".join(os.path.basename(e.path)
                                         for e in gone),
                               human(total), human(bound), LIMIT_VAR))
    if total > bound:
        say("cache: %s, over its %s limit: the rest is pinned by running "
            "commands, named by results/ or this build's (raise %s or "
            "free space)" % (human(total), human(bound), LIMIT_VAR))
    return gone


def slim(build):
    """Drop a build dir's objects, archives, make's records and link
    intermediates, and its arch's boot dir (the image is DIR/bzImage);
    the bytes freed. What stays runs, profiles and takes modules:
    bzImage, vmlinux, System.map, .config, Module.symvers, modules/,
    build.json, jump-sites.txt, scripts/ and include/ (module builds)."""
    if not os.path.isfile(os.path.join(build, "bzImage")):
        raise ValueError("%s has no bzImage: not a finished build" % build)
    freed = 0
    if os.path.exists(os.path.join(build, SIZE)):
        os.unlink(os.path.join(build, SIZE))
    for boot in glob.glob(os.path.join(build, "arch", "*", "boot")):
        freed += size_of(boot)
        shutil.rmtree(boot)
    for top, _, files in os.walk(build):
        for f in files:
            if f.endswith(SLIM_SUFFIXES) or SLIM_NAMES.match(f):
                p = os.path.join(top, f)
                freed += os.lstat(p).st_size
                os.unlink(p)
    return freed


# The parts of the cache outside the bound, and what bounds each (status
# lists them with their size; any other part is a tool's own build).
OUTSIDE = {
    "src": "Linux source trees: kernel-variants/build keeps the four "
           "newest and two anchors, by count, not size",
    "ccache": "ccache's own bound ($CCACHE_MAXSIZE, 8G unless set), least "
              "recently used first",
    "jlbench.db": "the results store: never evicted (`jlbench db rebuild` "
                  "makes it again from the results dirs)",
    "dashboard": "REPORT.md and figures jlbench serve made: not bounded, "
                 "each made again when removed",
    "test-caches": "the test suite's own caches (tests/conftest.py): not "
                   "bounded; removing them costs the next tests/run a "
                   "rebuild",
    "test-repos": "the test suite's git histories: not bounded, made again "
                  "when removed",
}
OTHER = "a tool's own build (agent, module, plugin, ...): one per input"


def outside(cache):
    """[(part, bytes on disk, what bounds it)] of every top-level part of
    the cache but the bounded kernels/ and initramfs/, largest first. A
    file with several links (the source trees share most of theirs) is
    counted once, as du does."""
    seen = set()
    out = []
    for name in sorted(os.listdir(cache)) if os.path.isdir(cache) else []:
        if name in ("kernels", "initramfs"):
            continue
        path = os.path.join(cache, name)
        out.append((name, disk_size(path, seen), OUTSIDE.get(name, OTHER)))
    return sorted(out, key=lambda r: -r[1])


def disk_size(path, seen):
    """Bytes on disk of a file or tree, each inode once (seen: the
    (device, inode) pairs counted already); links not followed."""
    if os.path.isdir(path) and not os.path.islink(path):
        files = (os.path.join(top, f) for top, _, names in os.walk(path)
                 for f in names)
    else:
        files = [path]
    total = 0
    for f in files:
        try:
            st = os.lstat(f)
        except FileNotFoundError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def main(argv):
    ap = cli.Parser(
        prog="lib/kcache.py", description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[2:]))
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("status")
    t = sub.add_parser("trim")
    t.add_argument("--keep", action="append", default=[], metavar="PATH")
    t.add_argument("--locked", action="store_true",
                   help="the caller holds kernels/.lock (kernel-variants/"
                   "build); else trim takes it, waiting for a build")
    s = sub.add_parser("slim")
    s.add_argument("dir")
    args = ap.parse_args(argv)
    cache = hostinfo.cache_dir()
    try:
        bound = limit()
    except ValueError as e:
        print("kcache: %s=%s: %s" % (LIMIT_VAR, os.environ.get(LIMIT_VAR),
                                     e), file=sys.stderr)
        return 2
    if args.cmd == "slim":
        try:
            freed = slim(args.dir)
        except ValueError as e:
            print("kcache: %s" % e, file=sys.stderr)
            return 1
        print("slimmed %s: %s freed" % (args.dir, human(freed)))
        return 0
    if args.cmd == "trim":
        def say(m):
            print(m, file=sys.stderr)
        if args.locked:
            trim(cache, bound, args.keep, say=say)
            return 0
        os.makedirs(os.path.join(cache, "kernels"), exist_ok=True)
        with open(os.path.join(cache, "kernels", ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            trim(cache, bound, args.keep, say=say)
        return 0
    all_entries = entries(cache)
    pins, results = pinned(cache), named_by_results()
    rows = ["%s\t%s\t%s\t%s\t%s\n" % (
        time.strftime("%Y-%m-%d %H:%M", time.localtime(e.used)),
        human(e.size), e.kind, os.path.basename(e.path),
        why_kept(e, pins, results, set()) or "evictable")
        for e in all_entries]
    inside = sum(e.size for e in all_entries)
    rows.append("%s in %d entries; limit %s (%s)\n" % (
        human(inside), len(all_entries),
        human(bound) if bound else "none", LIMIT_VAR))
    parts = outside(cache)
    rest = sum(size for _, size, _ in parts)
    rows.append("\noutside the bound: %s in %d parts (the whole cache: %s)"
                "\n" % (human(rest), len(parts), human(inside + rest)))
    rows += ["%s\t%s\t%s\n" % (human(size), name, what)
             for name, size, what in parts]
    cli.safe_write(sys.stdout, "".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
