"""guest-image/vary: images that differ from a base only on the harness
side (size:, order, agent:), checked with a newc reader of the tests' own
and GNU cpio.

The base is a small image mkcpio.py writes from a spec, with a real agent
(guest-image/agent, built with gcc in a few seconds) as /init; nothing
boots.
"""
import gzip
import os
import stat
import subprocess

import pytest

from conftest import PYTHON, ROOT, run

VARY = str(ROOT / "guest-image" / "vary")
MKCPIO = str(ROOT / "guest-image" / "mkcpio.py")
AGENT = str(ROOT / "guest-image" / "agent")


def archives(stream):
    """The newc archives of a decompressed stream: per archive a list of
    entries {name, fields (13 ints), data, start, end}, trailer last."""
    out, off = [], 0
    while off < len(stream):
        entries = []
        while True:
            assert stream[off:off + 6] == b"070701", off
            fields = [int(stream[off + 6 + 8 * i:off + 14 + 8 * i], 16)
                      for i in range(13)]
            size, namesize = fields[6], fields[11]
            name = stream[off + 110:off + 110 + namesize - 1]
            start = off + 110 + namesize
            start += -start % 4
            end = start + size + (-size % 4)
            entries.append({"name": name.decode(), "fields": fields,
                            "data": stream[start:start + size],
                            "start": off, "end": end})
            off = end
            if name == b"TRAILER!!!":
                break
        out.append(entries)
        while off < len(stream) and stream[off] == 0:
            off += 1
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def stream_of(path):
    """The archives' bytes of an image, plain or gzip'd."""
    data = read(path)
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def gzipped(path, out):
    """path gzip'd as older checkouts of guest-image/build wrote it."""
    with open(out, "wb") as f:
        subprocess.run(["gzip", "-n", "-6", "-c", str(path)], stdout=f,
                       check=True)
    return out


def vary(*args, check=True):
    return run([VARY] + [str(a) for a in args], check=check)


def is_dir(e):
    return stat.S_ISDIR(e["fields"][1])


def make_image(tmp, init):
    """A newc image of a few dirs, files, a link and a device, with the
    file init as /init, as guest-image/build writes it; its path."""
    (tmp / "tool").write_bytes(bytes(range(256)) * 3 + b"xyz")
    (tmp / "passwd").write_text("root:x:0:0:root:/tmp:/bin/sh\n")
    (tmp / "ko").write_bytes(b"\x7fELF fake module" * 11)
    (tmp / "list").write_text("a.ko\n")
    spec = tmp / "spec"
    spec.write_text("".join(line + "\n" for line in [
        "dir\t/bin\t0755", "dir\t/dev\t0755", "dir\t/etc\t0755",
        "dir\t/lib\t0755", "dir\t/lib/modules\t0755",
        "dir\t/lib/modules/jlbench\t0755",
        "dir\t/lib/modules/jlbench/jump-label\t0755",
        "dir\t/tmp\t1777", "file\t/init\t0755\t%s" % init,
        "file\t/bin/tool\t0755\t%s" % (tmp / "tool"),
        "slink\t/bin/sh\t0777\ttool",
        "file\t/etc/passwd\t0644\t%s" % (tmp / "passwd"),
        "file\t/lib/modules/jlbench/jump-label/a.ko\t0644\t%s" % (
            tmp / "ko"),
        "file\t/lib/modules/jlbench/jump-label/modules.list\t0644\t%s" % (
            tmp / "list"),
        "nod\t/dev/console\t0600\tc\t5\t1"]))
    out = tmp / "base.cpio"
    run([PYTHON, MKCPIO, "write", str(spec), str(out)])
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The base image, with the agent built as guest-image/build builds
    it (no CFLAGS) as /init."""
    tmp = tmp_path_factory.mktemp("vary")
    env = {k: v for k, v in os.environ.items() if k != "CFLAGS"}
    run(["make", "-s", "-C", AGENT, "BUILD=%s" % (tmp / "agent"), "CC=gcc",
         "agent"], env=env)
    return make_image(tmp, tmp / "agent" / "agent")


def test_help_usage_errors_and_bad_bases(base, tmp_path):
    p = vary("-h")
    assert "Usage: guest-image/vary" in p.stdout and "size:BYTES" in p.stdout
    out = tmp_path / "out.cpio"
    for args, msg in [
            ([], "give BASE.cpio KIND OUT.cpio"),
            ([base, "shuffle", out], "unknown KIND 'shuffle'"),
            ([base, "size", out], "unknown KIND"),
            ([base, "size:0", out], "BYTES must be an integer"),
            ([base, "size:-5", out], "BYTES must be an integer"),
            ([base, "size:1.5", out], "BYTES must be an integer"),
            ([base, "size:abc", out], "BYTES must be an integer"),
            ([base, "size:%d" % (257 << 20), out], "1..268435456"),
            ([base, "agent:O2", out], "'O2' is not a compiler flag"),
            ([base, "agent:-DX=$(HOME)", out], "not a compiler flag"),
            ([tmp_path / "nope.gz", "order", out], "no such file"),
            ([base, "order", base], "OUT is BASE")]:
        p = vary(*args, check=False)
        assert p.returncode == 2 and msg in p.stderr, (args, p.stderr)
    assert not out.exists()
    junk = tmp_path / "junk.cpio"
    junk.write_bytes(b"not a cpio archive at all" * 9)
    junk_gz = gzipped(junk, tmp_path / "junk.gz")
    cut = tmp_path / "cut.gz"
    cut.write_bytes(read(gzipped(base, tmp_path / "base.gz"))[:-100])
    half = tmp_path / "half.cpio"
    half.write_bytes(read(base)[:-200])
    for path, msg in [(junk, "is not a newc cpio archive: no newc header"),
                      (junk_gz, "is not a newc cpio archive: no newc"),
                      (cut, "not a readable gzip file"),
                      (half, "is not a newc cpio archive")]:
        p = vary(path, "order", out, check=False)
        assert p.returncode == 1 and msg in p.stderr, (path, p.stderr)
    assert not out.exists()


def test_size_appends_an_archive_with_the_pad(base, tmp_path):
    a, b = tmp_path / "a.cpio", tmp_path / "b.cpio"
    p = vary(base, "size:1001", a)
    assert p.stdout == "%s\n" % a
    assert "size:1001: /jlbench-pad of 1001 bytes" in p.stderr
    vary(base, "size:1001", b)
    assert read(a) == read(b)
    # BASE's bytes as they are, then an archive of its own
    got = read(a)
    assert got.startswith(read(base)) and \
        got[len(read(base)):len(read(base)) + 6] == b"070701"
    stream = stream_of(a)
    base_stream = stream_of(base)
    assert stream.startswith(base_stream)
    second = archives(stream[len(base_stream):])
    assert len(second) == 1
    pad, trailer = second[0]
    assert pad["name"] == "jlbench-pad" and len(pad["data"]) == 1001
    assert pad["fields"][1] == stat.S_IFREG | 0o644
    assert trailer["name"] == "TRAILER!!!"
    assert len(archives(stream)) == 2
    assert len(set(pad["data"])) > 200     # pseudo-random, not zeros
    c = tmp_path / "c.cpio"
    vary(base, "size:1002", c)
    other = archives(stream_of(c))[1][0]["data"]
    assert len(other) == 1002 and other[:1001] != pad["data"]
    # GNU cpio reads BASE's archive, unchanged, from the front
    listing = subprocess.run(["cpio", "-t", "--quiet"], input=stream,
                             capture_output=True, check=True).stdout
    assert b"init\n" in listing and b"jlbench-pad" not in listing
    # order and agent take one archive
    p = vary(a, "order", tmp_path / "d.cpio", check=False)
    assert p.returncode == 1 and "holds 2 cpio archives" in p.stderr
    # a gzip'd BASE (an older checkout's) gets a second gzip member
    old = gzipped(base, tmp_path / "base.cpio.gz")
    e = tmp_path / "e.cpio.gz"
    vary(old, "size:1001", e)
    assert read(e).startswith(read(old)) and \
        read(e)[len(read(old)):len(read(old)) + 2] == b"\x1f\x8b"
    assert stream_of(e) == stream


def test_order_writes_the_same_entries_in_another_order(base, tmp_path):
    out = tmp_path / "o.cpio"
    p = vary(base, "order", out)
    assert "15 entries reordered" in p.stderr
    old, = archives(stream_of(base))
    new, = archives(stream_of(out))
    assert new[-1]["name"] == "TRAILER!!!" and len(new) == len(old)
    old, new = old[:-1], new[:-1]

    def key(e):     # everything but the inode number
        return (e["name"], tuple(e["fields"][1:]), e["data"])
    assert sorted(map(key, old)) == sorted(map(key, new))
    assert [e["name"] for e in new] != [e["name"] for e in old]
    assert [e["fields"][0] for e in new] == list(range(1, len(new) + 1))
    kinds = [is_dir(e) for e in new]
    assert kinds == sorted(kinds, reverse=True)    # directories first
    where = {e["name"]: i for i, e in enumerate(new)}
    for i, e in enumerate(new):
        parent = os.path.dirname(e["name"])
        if parent:
            assert is_dir(new[where[parent]]) and where[parent] < i, e
    files = [e["name"] for e in new if not is_dir(e)]
    assert files == sorted(files, reverse=True)
    assert files[-1] == "bin/sh" and files[0] == \
        "lib/modules/jlbench/jump-label/modules.list"
    again = tmp_path / "again.cpio"
    vary(base, "order", again)
    assert read(again) == read(out)
    # GNU cpio lists the same paths, in the new order
    listing = subprocess.run(["cpio", "-t", "--quiet"],
                             input=stream_of(out), capture_output=True,
                             check=True).stdout.decode().split()
    assert listing == [e["name"] for e in new]


def test_agent_replaces_only_init(base, tmp_path):
    out = tmp_path / "a.cpio"
    p = vary(base, "agent:-falign-functions=64", out)
    assert "the agent built with -falign-functions=64" in p.stderr
    assert "which this checkout builds without them" in p.stderr
    assert "warning" not in p.stderr
    old_stream, new_stream = stream_of(base), stream_of(out)
    old, = archives(old_stream)
    new, = archives(new_stream)
    assert [e["name"] for e in new] == [e["name"] for e in old]
    i = [e["name"] for e in old].index("init")
    o, n = old[i], new[i]
    assert n["data"] != o["data"] and n["data"][:4] == b"\x7fELF"
    assert int.from_bytes(n["data"][18:20], "little") == 62   # x86_64
    assert n["fields"][:6] + n["fields"][7:] == \
        o["fields"][:6] + o["fields"][7:]
    # every other byte as in BASE
    assert new_stream[:n["start"]] == old_stream[:o["start"]]
    assert new_stream[n["end"]:] == old_stream[o["end"]:]
    for a, b in zip(old, new):
        if a["name"] != "init":
            assert a == dict(b, start=a["start"], end=a["end"])


def test_agent_refuses_an_init_that_is_not_an_x86_64_agent(tmp_path):
    (tmp_path / "script").write_text("#!/bin/sh\necho not an agent\n")
    img = make_image(tmp_path, tmp_path / "script")
    p = vary(img, "agent:-falign-functions=64", tmp_path / "o.cpio",
             check=False)
    assert p.returncode == 1
    assert "/init is not an x86_64 ELF file" in p.stderr
    p = vary("--dry-run", img, "order", tmp_path / "o.cpio")
    assert "dry run: would write" in p.stderr
    assert not (tmp_path / "o.cpio").exists()
