"""guest-image/build and mkcpio.py: content, reproducibility, module layout.

These build real images from the host's Debian packages (no kernel, no
QEMU); the boots are in test_guest_image_boot.py.
"""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, run

BUILD = str(ROOT / "guest-image" / "build")
MKCPIO = str(ROOT / "guest-image" / "mkcpio.py")
PYTHON = "/usr/bin/python3"

EXPECTED = [
    "init", "dev/console", "proc", "sys", "tmp", "usr/bin/tbench",
    "usr/bin/tbench_srv", "usr/bin/perf", "usr/share/dbench/client.txt",
    "lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/libc.so.6",
    "lib/x86_64-linux-gnu/libpopt.so.0", "etc/hosts", "etc/passwd",
]


def build(cache, *args):
    env = dict(os.environ, JLBENCH_CACHE=str(cache))
    p = run([BUILD] + list(args), env=env)
    image = p.stdout.strip()
    assert image.startswith(str(cache) + "/initramfs/"), p.stdout
    assert image.endswith(".cpio")
    return image, p


def cpio_list(image, verbose=False):
    with open(image, "rb") as f:
        p = subprocess.run(["cpio", "-t"] + (["-v"] if verbose else []),
                           stdin=f, capture_output=True, check=True)
    return p.stdout.decode().splitlines()


def extract(image, root):
    """The image's files under root (made here)."""
    root.mkdir()
    with open(image, "rb") as f:
        subprocess.run(["cpio", "-i", "-d", "--quiet"], stdin=f, cwd=root,
                       check=True)


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """One image built in a private cache: (path, cache dir)."""
    cache = tmp_path_factory.mktemp("cache")
    path, _ = build(cache)
    return path, cache


def test_help_and_usage_errors():
    p = run([BUILD, "--help"])
    assert "Usage: guest-image/build" in p.stdout
    assert run([BUILD, "--bogus"], check=False).returncode == 2
    assert run([BUILD, "--builds"], check=False).returncode == 2
    assert run([BUILD, "--builds", "/nonexistent"], check=False) \
        .returncode == 2


def test_dry_run_builds_nothing(tmp_path):
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path))
    p = run([BUILD, "--dry-run", "--out", str(tmp_path / "o")], env=env)
    assert "dry-run: make" in p.stdout
    assert "mkcpio.py write" in p.stdout
    assert not (tmp_path / "o").exists()
    assert not (tmp_path / "initramfs").exists()


def test_contents(image):
    names = cpio_list(image[0])
    for name in EXPECTED:
        assert name in names, name
    assert names == sorted(names), "entries are not sorted"
    # Every library ldd lists for perf is in the image.
    ldd = run(["ldd", "/usr/bin/perf"]).stdout
    for line in ldd.splitlines():
        parts = line.split()
        if "=>" in parts and parts[2].startswith("/"):
            assert parts[2].lstrip("/") in names, parts[2]


def test_owner_mtime_and_console_node(image):
    lines = cpio_list(image[0], verbose=True)
    for line in lines:
        fields = line.split()
        assert fields[2:4] == ["root", "root"], line
        assert "1970" in line, line
    console = [x for x in lines if x.endswith(" dev/console")]
    assert console and console[0].startswith("crw-------"), console
    assert "5,   1" in console[0] or "5, 1" in console[0], console


def test_binaries_run_from_the_image(image, tmp_path):
    """The image's dynamic binaries start with only the image's libraries."""
    if os.geteuid() != 0:
        pytest.skip("chroot needs root")
    root = tmp_path / "root"
    extract(image[0], root)
    p = run(["chroot", str(root), "/usr/bin/perf", "--version"])
    assert p.stdout.startswith("perf version")
    p = run(["chroot", str(root), "/usr/bin/tbench", "--help"], check=False)
    assert "dbench version 4" in p.stdout + p.stderr


def test_reproducible(image, tmp_path):
    """A second build in a fresh cache gives the same name and bytes."""
    path2, _ = build(tmp_path)
    assert os.path.basename(path2) == os.path.basename(image[0])
    with open(image[0], "rb") as a, open(path2, "rb") as b:
        assert a.read() == b.read()


def test_cached_image_is_reused(image):
    path, p = build(image[1], "--out", str(image[1] / "path.txt"))
    assert path == image[0]
    assert "reusing" in p.stderr
    assert (image[1] / "path.txt").read_text() == path + "\n"


def fake_module(path, depends):
    """A relocatable ELF with a .modinfo section (what modinfo reads)."""
    src = path.with_suffix(".c")
    src.write_text('const char m[] __attribute__((section(".modinfo"), used))'
                   ' = "license=GPL\\0depends=%s\\0";\n' % depends)
    run(["gcc", "-c", str(src), "-o", str(path)])


def test_modules_per_variant_in_dependency_order(tmp_path):
    """Modules of each build land in /lib/modules/jlbench/<variant>/ with a
    load order that puts dependencies first and the kernel's banner."""
    builds = tmp_path / "builds.tsv"
    lines = []
    for variant in ("va", "vb"):
        d = tmp_path / variant
        (d / "modules").mkdir(parents=True)
        fake_module(d / "modules" / "z_base.ko", "")
        fake_module(d / "modules" / "a-top.ko", "mid")
        fake_module(d / "modules" / "mid.ko", "z_base")
        banner = "Linux version 6.1.0-%s (x@y) (gcc) #1 SMP\n" % variant
        # A vmlinux-like ELF whose linux_banner symbol points at the text.
        (d / "v.c").write_text('const char linux_banner[] = "%s";\n'
                               % banner.replace("\n", "\\n"))
        run(["gcc", "-c", str(d / "v.c"), "-o", str(d / "vmlinux")])
        nm = run(["nm", str(d / "vmlinux")]).stdout
        (d / "System.map").write_text(nm)
        lines.append("%s\t%s\n" % (variant, d))
    builds.write_text("".join(lines))
    image, _ = build(tmp_path / "cache", "--builds", str(builds))
    names = cpio_list(image)
    for variant in ("va", "vb"):
        base = "lib/modules/jlbench/%s/" % variant
        for f in ("a-top.ko", "mid.ko", "z_base.ko", "modules.list",
                  "proc_version"):
            assert base + f in names
    root = tmp_path / "x"
    extract(image, root)
    mods = root / "lib/modules/jlbench/vb"
    assert (mods / "modules.list").read_text() == \
        "z_base.ko\nmid.ko\na-top.ko\n"
    assert (mods / "proc_version").read_text() == \
        "Linux version 6.1.0-vb (x@y) (gcc) #1 SMP\n"


def test_missing_module_dependency_fails(tmp_path):
    d = tmp_path / "v"
    (d / "modules").mkdir(parents=True)
    fake_module(d / "modules" / "a.ko", "absent")
    (d / "vmlinux").write_text("")
    (d / "System.map").write_text("")
    (tmp_path / "b.tsv").write_text("v\t%s\n" % d)
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path / "cache"))
    p = run([BUILD, "--builds", str(tmp_path / "b.tsv")], env=env,
            check=False)
    assert p.returncode == 1
    assert "needs module absent" in p.stderr


def mkcpio(*args, **kw):
    return run([PYTHON, MKCPIO] + list(args), check=False, **kw)


def test_mkcpio_rejects_bad_specs(tmp_path):
    spec = tmp_path / "spec"
    for text, message in [
            ("file\t/a/b\t0644\t%s\n" % MKCPIO, "parent directory"),
            ("dir\t/a\t0755\ndir\t/a\t0755\n", "listed twice"),
            ("dir\ta\t0755\n", "bad path"),
            ("dir\t/a/../b\t0755\n", "bad path"),
            ("dir\t/a\t755x\n", "bad mode"),
            ("file\t/a\t0644\t/nonexistent\n", "no such file"),
            ("nod\t/c\t0600\tx\t5\t1\n", "bad device"),
            ("fifo\t/c\t0600\n", "bad entry")]:
        spec.write_text(text)
        p = mkcpio("write", str(spec), str(tmp_path / "out"))
        assert p.returncode == 1, text
        assert message in p.stderr, (text, p.stderr)


def test_mkcpio_hash_follows_content_not_host_paths(tmp_path):
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.write_text("same")
    b.write_text("same")
    spec = tmp_path / "spec"

    def digest(source, mode="0644", epoch="0"):
        spec.write_text("dir\t/d\t0755\nfile\t/d/f\t%s\t%s\n"
                        % (mode, source))
        env = dict(os.environ, SOURCE_DATE_EPOCH=epoch)
        p = mkcpio("hash", str(spec), env=env)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()

    h = digest(a)
    assert digest(b) == h
    assert digest(a, mode="0755") != h
    assert digest(a, epoch="1") != h
    b.write_text("different")
    assert digest(b) != h


def test_mkcpio_archive_reads_back(tmp_path):
    """GNU cpio extracts what mkcpio.py writes, byte for byte."""
    src = tmp_path / "payload"
    src.write_bytes(bytes(range(256)) * 5 + b"x")
    spec = tmp_path / "spec"
    spec.write_text("dir\t/d\t0755\nfile\t/d/p\t0640\t%s\n"
                    "slink\t/d/l\t0777\tp\n" % src)
    out = tmp_path / "a.cpio"
    assert mkcpio("write", str(spec), str(out)).returncode == 0
    dest = tmp_path / "x"
    dest.mkdir()
    with open(out, "rb") as f:
        subprocess.run(["cpio", "-i", "-d", "--quiet"], stdin=f, cwd=dest,
                       check=True)
    assert (dest / "d" / "p").read_bytes() == src.read_bytes()
    assert os.readlink(dest / "d" / "l") == "p"
    assert oct((dest / "d" / "p").stat().st_mode & 0o777) == "0o640"
    shutil.rmtree(dest)


def test_s390x_image(tmp_path):
    """--arch s390x: the agent cross-compiled (a static big-endian s390
    ELF), the modules and the banner of an s390x build, no tbench; an
    x86_64 build in its --builds is refused."""
    d = tmp_path / "jl"
    (d / "modules").mkdir(parents=True)
    src = tmp_path / "m.c"
    src.write_text('const char m[] __attribute__((section(".modinfo"), '
                   'used)) = "license=GPL\\0depends=\\0";\n')
    run(["s390x-linux-gnu-gcc", "-c", str(src), "-o",
         str(d / "modules" / "m.ko")])
    banner = "Linux version 6.1.192 (jlbench@jlbench) #1 SMP\\n"
    (d / "v.c").write_text('const char linux_banner[] = "%s";\n' % banner)
    run(["s390x-linux-gnu-gcc", "-c", str(d / "v.c"), "-o",
         str(d / "vmlinux")])
    (d / "System.map").write_text(
        run(["s390x-linux-gnu-nm", str(d / "vmlinux")]).stdout)
    (d / "build.json").write_text('{"arch": "s390x"}')
    builds = tmp_path / "builds.tsv"
    builds.write_text("jump-label\t%s\n" % d)
    image, _ = build(tmp_path / "cache", "--arch", "s390x",
                     "--builds", str(builds))
    names = cpio_list(image)
    assert "init" in names and "lib/modules/jlbench/jump-label/m.ko" \
        in names
    assert not any("tbench" in n or "perf" in n for n in names)
    root = tmp_path / "x"
    extract(image, root)
    init = (root / "init").read_bytes()
    # ELF64, big-endian, e_machine 22 (EM_S390), no program interpreter
    assert init[:6] == b"\x7fELF\x02\x02" and init[18:20] == b"\x00\x16"
    headers = run(["s390x-linux-gnu-readelf", "-lW", str(root / "init")])
    assert "INTERP" not in headers.stdout
    assert (root / "lib/modules/jlbench/jump-label/proc_version") \
        .read_text() == banner.replace("\\n", "\n")
    (d / "build.json").write_text('{}')
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path / "cache"))
    p = run([BUILD, "--arch", "s390x", "--builds", str(builds)], env=env,
            check=False)
    assert p.returncode == 1
    assert "is an x86_64 build, this is an s390x image" in p.stderr
    assert run([BUILD, "--arch", "arm"], check=False).returncode == 2


def test_kernel_build_without_its_module_fails(tmp_path):
    """A kernel build tree (Module.symvers) is packed only with the
    static-key module kernel-variants/build made for it: missing or stale,
    the error names the command that builds it; nothing is built here."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "Makefile").write_text("# not a kernel\n")
    d = tmp_path / "smoke-jump-label-0123"
    (d / "include" / "config").mkdir(parents=True)
    (d / "include" / "config" / "kernel.release").write_text("6.1.192\n")
    (d / ".config").write_text("CONFIG_MODULES=y\n")
    (d / "Module.symvers").write_text("")
    os.symlink(tree, d / "source")
    (d / "modules").mkdir()
    fake_module(d / "modules" / "test_static_keys.ko", "")
    (tmp_path / "b.tsv").write_text("jump-label\t%s\n" % d)
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path / "cache"))
    p = run([BUILD, "--builds", str(tmp_path / "b.tsv")], env=env,
            check=False)
    assert p.returncode == 1
    assert "jlbench_static_key.ko is missing: run kernel-variants/build" \
        in p.stderr
    fake_module(d / "modules" / "jlbench_static_key.ko", "")
    p = run([BUILD, "--builds", str(tmp_path / "b.tsv")], env=env,
            check=False)
    assert p.returncode == 1
    assert "not built from the current module source" in p.stderr
    assert not (tmp_path / "cache" / "modules").exists()
