"""kernel-variants: fragments, hashing, patch application, verification."""
import fcntl
import json
import lzma
import os
import signal
import struct
import subprocess
import sys
import tarfile

import pytest

from conftest import ROOT, SMOKE_VARIANTS, run

KV = ROOT / "kernel-variants"
sys.path.insert(0, str(KV))
import kconfig  # noqa: E402
import verify  # noqa: E402
sys.path.insert(0, str(ROOT))
from lib import arch, source  # noqa: E402

X86 = arch.get("x86_64")
S390 = arch.get("s390x")

BUILD = str(KV / "build")


def test_parse_fragment_and_missing():
    frag = kconfig.parse("# c\nCONFIG_A=y\n# CONFIG_B is not set\n"
                         "CONFIG_C=\"x\"\nCONFIG_D=m\n")
    assert frag == {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": '"x"',
                    "CONFIG_D": "m"}
    final = kconfig.parse("CONFIG_A=y\nCONFIG_C=\"y\"\nCONFIG_D=m\n")
    assert kconfig.missing(frag, final) == [("CONFIG_C", '"x"', '"y"')]
    # an unset symbol absent from .config counts as not set
    assert kconfig.missing({"CONFIG_B": "n"}, final) == []


def test_check_cli_names_the_lost_symbol(tmp_path):
    (tmp_path / ".config").write_text("CONFIG_A=y\n")
    (tmp_path / "f.config").write_text("CONFIG_A=y\nCONFIG_LOST=y\n")
    p = run([str(KV / "kconfig.py"), "check", str(tmp_path / ".config"),
             str(tmp_path / "f.config")], check=False)
    assert p.returncode == 1
    assert "CONFIG_LOST=y requested, .config has n" in p.stdout


def test_a_later_fragment_wins_as_in_merge_config(tmp_path):
    """A variant may undo what a base asks for (the distro base has
    JUMP_LABEL=y): the check wants the last fragment's value."""
    (tmp_path / ".config").write_text("# CONFIG_JUMP_LABEL is not set\n")
    (tmp_path / "base.config").write_text("CONFIG_JUMP_LABEL=y\n")
    (tmp_path / "variant.config").write_text(
        "# CONFIG_JUMP_LABEL is not set\n")
    frags = [str(tmp_path / f) for f in ("base.config", "variant.config")]
    p = run([str(KV / "kconfig.py"), "check", str(tmp_path / ".config")]
            + frags, check=False)
    assert p.returncode == 0, p.stdout
    p = run([str(KV / "kconfig.py"), "check", str(tmp_path / ".config")]
            + frags[::-1], check=False)
    assert p.returncode == 1
    assert p.stdout.startswith(frags[0] + ": CONFIG_JUMP_LABEL=y")


def test_built_in_only_turns_modules_off_but_what_is_asked():
    debian = ("CONFIG_A=y\nCONFIG_NET_MOD=m\nCONFIG_TEST_STATIC_KEYS=m\n"
              "CONFIG_DEBUG_INFO=y\n# CONFIG_DEBUG_INFO_NONE is not set\n"
              "# comment\n")
    frags = [("common", "CONFIG_TEST_STATIC_KEYS=m\nCONFIG_NEW=y\n"),
             ("distro", "CONFIG_DEBUG_INFO_NONE=y\n")]
    out = kconfig.built_in_only(debian, frags)
    assert kconfig.parse(out) == {
        "CONFIG_A": "y", "CONFIG_NET_MOD": "n",
        "CONFIG_TEST_STATIC_KEYS": "m", "CONFIG_DEBUG_INFO": "y",
        "CONFIG_DEBUG_INFO_NONE": "y", "CONFIG_NEW": "y"}
    # Debian's order stays (a choice's values are read in order)
    assert out.splitlines()[:5] == [
        "CONFIG_A=y", "# CONFIG_NET_MOD is not set",
        "CONFIG_TEST_STATIC_KEYS=m", "CONFIG_DEBUG_INFO=y",
        "CONFIG_DEBUG_INFO_NONE=y"]
    assert "# comment" in out


def test_content_hash_is_stable_and_sensitive():
    h = kconfig.content_hash(["6.1.192-3", b"CONFIG_A=y\n"])
    assert h == kconfig.content_hash(["6.1.192-3", b"CONFIG_A=y\n"])
    assert h != kconfig.content_hash(["6.1.192-3", b"CONFIG_A=m\n"])
    # length prefixes: moving a byte between parts changes the hash
    assert kconfig.content_hash(["ab", "c"]) != kconfig.content_hash(
        ["a", "bc"])


def test_variants_are_data():
    names = sorted(p.stem for p in (KV / "variants").glob("*.config"))
    assert names == sorted(SMOKE_VARIANTS)
    for name in names:
        frag = kconfig.parse((KV / "variants" / (name + ".config"))
                             .read_text())
        assert frag["CONFIG_JUMP_LABEL"] == ("y" if name == "jump-label"
                                             else "n")


def test_parse_jump_table_relative_entries():
    base = 0xffffffff81000000
    # entry 0 at base: code = base - 0x100, target = base + 4 + 0x20,
    # key = base + 8 + 0x1000 with flag bit 1 set
    data = struct.pack("<iiq", -0x100, 0x20, 0x1000 + 1)
    data += struct.pack("<iiq", 0x10, 0x30, 0x2000)
    entries = X86.jump_entries(data, base)
    assert entries[0] == (base - 0x100, base + 4 + 0x20, base + 8 + 0x1000, 1)
    assert entries[1] == (base + 16 + 0x10, base + 20 + 0x30,
                          base + 24 + 0x2000, 0)


def test_parse_jump_table_big_endian():
    """s390x: the same relative entries, big-endian."""
    base = 0x1000000
    data = struct.pack(">iiq", -0x100, 0x20, 0x1000 + 2)
    assert S390.jump_entries(data, base) == [
        (base - 0x100, base + 4 + 0x20, base + 8 + 0x1000, 2)]
    # read little-endian, the same bytes are another table
    assert X86.jump_entries(data, base)[0][0] != base - 0x100


FIX = ROOT / "tests" / "fixtures" / "kernel-variants"


def test_s390x_real_jump_entry_and_site():
    """A real entry of the s390x smoke jump-label vmlinux (build
    0c1801a487107f5b, at 0x5e4f90): code, target and key, big-endian and
    relative; and objdump's text of that site, which verify classifies as
    the NOP (brcl 0, printed jgnop by binutils 2.40)."""
    entry = bytes.fromhex("ff e5 c4 78 ff e5 c5 38 00 00 00 00 00 0a b4 80")
    assert S390.jump_entries(entry, 0x5e4f90) == [
        (0x441408, 0x4414cc, 0x690418, 0)]  # key: __tracepoint_tcp_probe+8
    insns = verify.parse_disassembly(
        (FIX / "s390x-objdump-site.txt").read_text())
    assert [a for a, _ in insns] == [0x4413f6, 0x4413fa, 0x4413fe,
                                     0x441404, 0x441408, 0x44140e,
                                     0x441412, 0x441418]
    site = dict(insns)[0x441408]
    assert site == "jgnop\t4414cc <tcp_rcv_established+0xec>"
    s390 = S390
    assert s390.nop_re.match(site)
    assert s390.nop_re.match("brcl\t0,4414cc <tcp_rcv_established+0xec>")
    # enabled, the same site is brcl 15 (jg); other instructions are no NOP
    for text in ("jg\t4414cc <tcp_rcv_established+0xec>",
                 "brcl\t15,4414cc", "lgr\t%r2,%r11", "nopr\t%r7"):
        assert not s390.nop_re.match(text), text
    assert not X86.nop_re.match(site)


def test_s390x_load_test_branch_classifier():
    """The fallback kernels' check on s390: the key's address (larl), a load
    of its count through it, and a conditional branch on the count."""
    # the first: the real check in tcp_rcv_established of the s390x smoke
    # atomic-read vmlinux (build f9a94b5056bbac02)
    ok = [["lgrl\t%r1,5e8a08 <_GLOBAL_OFFSET_TABLE_+0x1a08>",
           "l\t%r1,8(%r1)", "ltr\t%r1,%r1",
           "jh\t44279e <tcp_rcv_established+0x2ee>",
           "lgr\t%r2,%r11", "brasl\t%r14,445410 <tcp_mstamp_refresh>"],
          ["larl\t%r1,690410 <__tracepoint_tcp_probe>",
           "l\t%r1,8(%r1)", "ltr\t%r1,%r1", "jh\t4414cc <f+0xec>"],
          ["larl\t%r1,690418 <__tracepoint_tcp_probe+0x8>",
           "lgr\t%r2,%r11", "lt\t%r3,0(%r1)", "jne\t4414cc <f+0xec>"],
          ["larl\t%r1,690410 <__tracepoint_tcp_probe>",
           "l\t%r4,8(%r1)", "cijh\t%r4,0,4414cc <f+0xec>"],
          ["larl\t%r1,690410 <k>", "icm\t%r2,15,8(%r1)",
           "jgne\t4414cc <f+0xec>"]]
    for window in ok:
        assert S390.is_check(window), window
    bad = [["larl\t%r1,690410 <k>", "l\t%r1,8(%r1)",
            "j\t4414cc <f+0xec>"],                    # unconditional
           ["larl\t%r1,690410 <k>", "l\t%r2,8(%r1)", "ltr\t%r3,%r3",
            "jh\t4414cc <f+0xec>"],                   # another register
           ["larl\t%r1,690410 <k>", "l\t%r2,8(%r5)",
            "ltr\t%r2,%r2", "jh\t4414cc"],           # not through the key
           ["lg\t%r1,0(%r2)", "ltr\t%r1,%r1", "jh\t4414cc"],
           ["larl\t%r1,690410 <k>", "l\t%r2,8(%r1)",
            "cijh\t%r3,0,4414cc"]]
    for window in bad:
        assert not S390.is_check(window), window


def test_s390x_key_reference_through_the_got(tmp_path):
    """The s390x kernel is PIE: a fallback check loads the key's address
    from a GOT slot (lgrl), which verify follows to the key; larl names the
    key directly. Checked on a small linked s390x executable whose data
    word `slot` holds &key, as a GOT slot does."""
    src = tmp_path / "got.c"
    src.write_text("long key[4];\nlong *slot = &key[0];\nlong other;\n"
                   "void _start(void) {}\n")
    exe = str(tmp_path / "got")
    run(["s390x-linux-gnu-gcc", "-O2", "-nostdlib", "-static", "-o", exe,
         str(src)])
    syms = verify.symbols(exe, S390)
    key, slot, other = (syms[n][0] for n in ("key", "slot", "other"))

    def refers(text, kstart, kend):
        return S390.refers_to(text, "key", kstart, kend,
                              lambda a, n: verify.read_at(exe, a, n, S390))

    assert refers("lgrl\t%%r1,%x <slot>" % slot, key, key + 32)
    assert refers("larl\t%%r1,%x <key+0x8>" % (key + 8), key, key + 32)
    assert not refers("larl\t%%r1,%x <other>" % other, key, key + 32)
    assert not refers("lg\t%%r1,%x" % slot, key, key + 32)


def test_load_test_jcc_classifier():
    scheduled = ["mov    0x86339e(%rip),%eax        # <k+0x8>",
                 "mov    0xc0(%rsi),%r13", "mov    0x68(%rsi),%r12d",
                 "test   %eax,%eax", "jg     ffffffff812a7c15 <f+0x2a5>"]
    assert X86.is_check(scheduled)
    assert X86.is_check(["cmpl   $0x0,0x1(%rip)  # <k+0x8>",
                         "jg     ffffffff81000000 <f+0x5>"])
    # a load whose register is never tested is not a check
    assert not X86.is_check(["mov    0x1(%rip),%eax  # <k>",
                             "test   %ebx,%ebx",
                             "jne    ffffffff81000000 <f>"])
    assert not X86.is_check(["mov    0x1(%rip),%eax  # <k>",
                             "test   %eax,%eax",
                             "jmp    ffffffff81000000 <f>"])


def test_build_usage_errors():
    for args, text in ((["--variant", "nope"], "unknown variant 'nope'"),
                       (["--config", "huge"], "unknown --config 'huge'"),
                       (["--jobs", "0"], "--jobs must be a positive"),
                       (["--bogus"], "unknown option '--bogus'")):
        p = run([BUILD] + args, check=False)
        assert p.returncode == 2, args
        assert text in p.stderr


def test_build_arch_usage_errors():
    for args, text in ((["--arch", "arm64"], "unknown --arch 'arm64'"),
                       (["--arch", "s390x"], "--arch s390x builds only "
                        "--config smoke"),
                       (["--arch"], "--arch needs a value")):
        p = run([BUILD] + args, check=False)
        assert p.returncode == 2, args
        assert text in p.stderr


def test_build_dry_run_per_arch(tmp_path):
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path))
    x86 = run([BUILD, "--dry-run", "--config", "smoke", "--variant",
               "jump-label"], env=env).stdout
    s390 = run([BUILD, "--dry-run", "--config", "smoke", "--variant",
                "jump-label", "--arch", "s390x"], env=env).stdout
    # x86_64 keeps its names, make variables and fragments' order
    assert "common.config x86_64.config smoke.config jump-label.config" \
        in x86
    assert "/kernels/smoke-jump-label-HASH make -f " in x86
    assert "CC=ccache\\ gcc\n" in x86
    assert "ARCH=" not in x86 and "s390" not in x86
    assert "common.config s390x.config smoke.config jump-label.config" \
        in s390
    assert "/kernels/s390x-smoke-jump-label-HASH make -f " in s390
    assert "ARCH=s390 CROSS_COMPILE=s390x-linux-gnu- " \
        "CC=ccache\\ s390x-linux-gnu-gcc\n" in s390


def test_arch_fragments_split_common():
    """common.config holds only what every arch can have; the console
    device of each arch is in its own fragment."""
    common = kconfig.parse((KV / "config" / "common.config").read_text())
    assert not any("8250" in sym for sym in common)
    x86 = kconfig.parse((KV / "config" / "x86_64.config").read_text())
    assert x86 == {"CONFIG_SERIAL_8250": "y",
                   "CONFIG_SERIAL_8250_CONSOLE": "y"}
    s390 = kconfig.parse((KV / "config" / "s390x.config").read_text())
    assert s390["CONFIG_SCLP_VT220_CONSOLE"] == "y"
    assert common["CONFIG_TEST_STATIC_KEYS"] == "m"
    assert common["CONFIG_MODULES"] == "y"


def test_build_dry_run_lists_every_variant(tmp_path):
    p = run([BUILD, "--dry-run", "--config", "smoke"],
            env=dict(os.environ, JLBENCH_CACHE=str(tmp_path)))
    for v in SMOKE_VARIANTS:
        assert "%s.config" % v in p.stdout
    assert not (tmp_path / "src").exists()


def test_patch_that_does_not_apply_is_named_and_nothing_kept(tmp_path):
    tree = tmp_path / "linux" / "include" / "linux"
    tree.mkdir(parents=True)
    (tree / "jump_label.h").write_text("not the real header\n")
    (tmp_path / "linux" / "arch").mkdir()
    (tmp_path / "linux" / "arch" / "Kconfig").write_text("config X\n")
    tarball = tmp_path / "linux.tar.xz"
    with tarfile.open(tarball, "w:xz") as t:
        t.add(tmp_path / "linux", arcname="linux")
    cache = tmp_path / "cache"
    p = run([BUILD, "--config", "smoke", "--variant", "jump-label"],
            check=False, env=dict(os.environ, JLBENCH_CACHE=str(cache),
                                  JLBENCH_KERNEL_TARBALL=str(tarball)))
    assert p.returncode == 1
    assert "patch 0001-jump_label-add-a-plain-read" in p.stderr
    assert "does not apply" in p.stderr
    assert os.listdir(cache / "src") == []


def test_patches_are_checkpatch_clean(checkpatch):
    """Every kernel version's series (lib/source.py)."""
    for src in source.SOURCES.values():
        pdir = src.patches_dir
        series = open(os.path.join(pdir, "series")).read().split()
        assert series, pdir
        for patch in series:
            # The tarball has no git history to look commit ids up in.
            p = run([checkpatch, "--no-tree", "--ignore",
                     "UNKNOWN_COMMIT_ID", os.path.join(pdir, patch)],
                    check=False)
            assert p.returncode == 0, p.stdout
            assert "total: 0 errors, 0 warnings" in p.stdout, p.stdout


@pytest.mark.integration
def test_smoke_builds_verified(smoke_builds):
    facts = {}
    for variant, d in smoke_builds.items():
        with open(os.path.join(d, "build.json")) as f:
            b = json.load(f)
        v = b["verify"]
        assert v["ok"] and all(v["checks"].values()), (variant, v)
        assert b["variant"] == variant and b["config"] == "smoke"
        assert b["source"]["version"]
        for name in ("bzImage", "vmlinux", "System.map", ".config"):
            assert os.path.getsize(os.path.join(d, name)) > 0
        assert os.path.exists(os.path.join(d, "modules",
                                           "test_static_keys.ko"))
        facts[variant] = v
    assert facts["jump-label"]["jump_table"]["entries"] > 500
    assert {s["kind"] for s in facts["jump-label"]["sites"]} == {"nop"}
    for variant in ("atomic-read", "plain-read"):
        assert facts[variant]["jump_table"]["entries"] == 0
        assert {s["kind"] for s in facts[variant]["sites"]} == {"load+jcc"}
    assert facts["plain-read"]["config"]["plain_reads"]
    with open(os.path.join(smoke_builds["plain-read"],
                           "vs-atomic-read.json")) as f:
        cmp = json.load(f)
    assert 0 < cmp["functions_differing"] < cmp["functions_compared"]


@pytest.mark.integration
def test_cached_build_is_reused_without_make(smoke_builds, tmp_path):
    out = tmp_path / "b.tsv"
    p = subprocess.run([BUILD, "--config", "smoke", "--variant",
                        "jump-label", "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True, check=True)
    assert "cached build" in p.stderr
    assert "make -j" not in p.stderr
    assert out.read_text() == "jump-label\t%s\n" % smoke_builds["jump-label"]


def _fake_tree_tarball(tmp_path):
    """A tarball of a one-file 'kernel tree', for patch application tests."""
    src = tmp_path / "linux"
    src.mkdir()
    (src / "README").write_text("tree\n")
    tarball = tmp_path / "linux.tar.xz"
    with tarfile.open(tarball, "w:xz") as t:
        t.add(src, arcname="linux")
    return tarball


def _series(tmp_path, name, new_file):
    """A patches dir whose one patch adds NEW_FILE to the tree."""
    d = tmp_path / name
    d.mkdir()
    (d / "series").write_text("0001-add.patch\n")
    (d / "0001-add.patch").write_text(
        "--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+%s\n" % (new_file, name))
    return d


def test_changed_series_replaces_the_tree_at_the_same_path(tmp_path):
    """ccache hits need one source path for every series: a new series is
    applied to a fresh extraction swapped in whole, stamped with its hash."""
    tarball = _fake_tree_tarball(tmp_path)
    cache = tmp_path / "cache"
    trees = []
    for name, new_file in (("one", "ONE"), ("two", "TWO")):
        env = dict(os.environ, JLBENCH_CACHE=str(cache),
                   JLBENCH_KERNEL_TARBALL=str(tarball),
                   JLBENCH_PATCHES=str(_series(tmp_path, name, new_file)))
        # the fake tree has no kconfig: the build stops after the source
        p = run([BUILD, "--config", "smoke", "--variant", "jump-label"],
                check=False, env=env)
        assert "source ready" in p.stderr, p.stderr
        trees.append(sorted(os.listdir(cache / "src")))
        tree = cache / "src" / trees[-1][0]
        assert (tree / new_file).read_text() == name + "\n"
        stamp = (tree / ".jlbench-ready").read_text().strip()
        assert len(stamp) >= 16
    # the same path for both; the first tree waits in the stash
    assert len(trees[0]) == 1
    assert trees[1] == sorted([trees[0][0], "stash"])
    assert not (tree / "ONE").exists()
    (stashed,) = os.listdir(cache / "src" / "stash")
    assert (cache / "src" / "stash" / stashed / "ONE").exists()


def _fake_env(tmp_path, cache):
    tarball = _fake_tree_tarball(tmp_path)
    return dict(os.environ, JLBENCH_CACHE=str(cache),
                JLBENCH_KERNEL_TARBALL=str(tarball),
                JLBENCH_PATCHES=str(_series(tmp_path, "ours", "OURS")))


def test_user_variant_tree_is_ours_plus_its_patches_then_swapped_back(
        tmp_path):
    """A user variant's tree: our series' tree (hard links) plus its own
    patches, at the same path; the built-in tree comes back from the
    stash afterwards, not extracted again."""
    cache = tmp_path / "cache"
    env = _fake_env(tmp_path, cache)
    mine = _series(tmp_path, "mine", "MINE")
    p = run([BUILD, "--config", "smoke", "--variant", "jump-label"],
            check=False, env=env)
    assert "source ready" in p.stderr, p.stderr
    (tree,) = [t for t in (cache / "src").iterdir() if t.name != "stash"]
    ours_ino = (tree / "README").stat().st_ino
    p = run([BUILD, "--config", "smoke", "--variant",
             "mine=patches:%s" % mine], check=False, env=env)
    assert "copying the tree of our series (hard links)" in p.stderr, \
        p.stderr
    assert (tree / "MINE").read_text() == "mine\n"
    assert (tree / "OURS").exists()
    assert (tree / "README").stat().st_ino == ours_ino
    p = run([BUILD, "--config", "smoke", "--variant", "jump-label"],
            check=False, env=env)
    assert "back from" in p.stderr, p.stderr
    assert not (tree / "MINE").exists() and (tree / "OURS").exists()


def test_user_variant_git_tree_is_built_as_it_is(tmp_path):
    """tree:REPO@REV: the repository's tree at REV, without our series."""
    cache = tmp_path / "cache"
    env = _fake_env(tmp_path, cache)
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t",
           "-c", "user.email=t@t"]
    run(["git", "init", "-q", str(repo)])
    (repo / "README").write_text("git tree\n")
    run(git + ["add", "README"])
    run(git + ["commit", "-q", "-m", "one"])
    (repo / "LATER").write_text("later\n")
    run(git + ["add", "LATER"])
    run(git + ["commit", "-q", "-m", "two"])
    p = run([BUILD, "--config", "smoke", "--variant",
             "mine=tree:%s@HEAD~1" % repo], check=False, env=env)
    assert "source ready" in p.stderr, p.stderr
    (tree,) = [t for t in (cache / "src").iterdir() if t.name != "stash"]
    assert (tree / "README").read_text() == "git tree\n"
    assert not (tree / "LATER").exists() and not (tree / "OURS").exists()


@pytest.mark.parametrize("spec, said", [
    ("mine=frobnicate:x", "is not on:VARIANT"),
    ("jump-label=patches:/x", "built-in variant's"),
    ("Mine=patches:/x", "lower-case"),
    ("mine=patches:/nonexistent", "no such file"),
    ("mine=on:nope", "not a built-in variant"),
    ("mine=tree:/nonexistent@HEAD", "no such directory"),
])
def test_bad_user_variant_is_named(tmp_path, spec, said):
    p = run([BUILD, "--config", "smoke", "--variant", spec, "--dry-run"],
            check=False, env=dict(os.environ,
                                  JLBENCH_CACHE=str(tmp_path / "c")))
    assert p.returncode == 2 and said in p.stderr, p.stderr


def test_changed_series_without_series_file_is_named(tmp_path):
    p = run([BUILD, "--config", "smoke", "--variant", "jump-label"],
            check=False, env=dict(os.environ, JLBENCH_PATCHES=str(tmp_path),
                                  JLBENCH_CACHE=str(tmp_path / "c")))
    assert p.returncode == 1
    assert "no series file in %s" % tmp_path in p.stderr


def test_bench_rebuild_usage_errors():
    bench = str(KV / "bench-rebuild")
    for args, text in ((["--change", "both"], "unknown --change 'both'"),
                       (["--config"], "--config needs a value"),
                       (["--fast"], "unknown option '--fast'")):
        p = run([bench] + args, check=False)
        assert p.returncode == 2, args
        assert text in p.stderr
    assert "one-line change" in run([bench, "--help"]).stdout


def test_second_build_waits_for_the_first(tmp_path):
    """Builds sharing a cache take turns: one with another series would
    swap the tree under the other. A dry run changes nothing: no wait."""
    (tmp_path / "kernels").mkdir()
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path))
    with open(tmp_path / "kernels" / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        dry = run([BUILD, "--dry-run", "--config", "smoke"], env=env,
                  timeout=60)
        assert "waiting" not in dry.stderr
        err = tmp_path / "build.err"
        with open(err, "w") as f:
            p = subprocess.Popen([BUILD, "--config", "smoke"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=f,
                                 start_new_session=True)
        try:
            with pytest.raises(subprocess.TimeoutExpired):
                p.wait(timeout=3)
            assert "waiting for another kernel-variants/build" in \
                err.read_text()
        finally:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=30)
    assert not (tmp_path / "src").exists()      # it never got the lock


def _fake_kconfig_tree(tmp_path, makefile):
    """(cache, env) of a build from a 'kernel tree' whose merge_config.sh
    concatenates the fragments and whose Makefile is makefile, with a
    one-patch series, into an empty cache."""
    src = tmp_path / "linux"
    kconfig_dir = src / "scripts" / "kconfig"
    kconfig_dir.mkdir(parents=True)
    merge = kconfig_dir / "merge_config.sh"
    # merge_config.sh -n -O DIR FRAGMENT...: their concatenation
    merge.write_text('#!/bin/sh\nshift 2\nout=$1\nshift\n'
                     'cat "$@" >"$out/.config"\n')
    merge.chmod(0o755)
    (src / "Makefile").write_text(makefile)
    tarball = tmp_path / "linux.tar.xz"
    with tarfile.open(tarball, "w:xz") as t:
        t.add(src, arcname="linux")
    cache = tmp_path / "cache"
    return cache, dict(os.environ, JLBENCH_CACHE=str(cache),
                       JLBENCH_KERNEL_TARBALL=str(tarball),
                       JLBENCH_PATCHES=str(_series(tmp_path, "s", "NEW")))


def test_distro_base_is_debians_config_built_in_only(tmp_path):
    """--config distro: Debian's configuration with its modules off and
    jlbench's fragments in, settled by olddefconfig and checked: a value
    olddefconfig drops stops the build, naming config/distro.config."""
    cache, env = _fake_kconfig_tree(tmp_path, (
        "olddefconfig:\n"
        "\t@if grep -q '^CONFIG_BROKEN=y' $(O)/.config; then "
        "sed -i '/SERIAL_8250_CONSOLE/d' $(O)/.config; fi\n"
        "bzImage modules:\n\t@echo 'error: not a kernel' >&2; exit 2\n"))
    debian = ("CONFIG_INET=y\nCONFIG_E1000=m\n"
              "# CONFIG_TEST_STATIC_KEYS is not set\n"
              "CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y\n")
    for name, extra in (("ok", ""), ("broken", "CONFIG_BROKEN=y\n")):
        deb = tmp_path / (name + ".config.xz")
        with lzma.open(deb, "wt") as f:
            f.write(debian + extra)
        p = run([BUILD, "--config", "distro", "--variant", "jump-label"],
                check=False, env=dict(env, JLBENCH_DISTRO_CONFIG=str(deb)))
        assert p.returncode == 1, p.stderr
        assert ("make failed for jump-label" in p.stderr) == (name == "ok")
    assert "CONFIG_SERIAL_8250_CONSOLE=y requested, .config has n" \
        in p.stderr
    assert "fix config/distro.config" in p.stderr
    (base,) = (cache / "kernels").glob("distro-base-*.config")
    got = kconfig.parse(base.read_text())
    assert got["CONFIG_INET"] == "y" and got["CONFIG_E1000"] == "n"
    assert got["CONFIG_TEST_STATIC_KEYS"] == "m"     # common.config's
    assert got["CONFIG_DEBUG_INFO_NONE"] == "y"      # distro.config's
    assert got["CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT"] == "n"
    # the ok base went on to the merge and the make of jump-label
    (d,) = (cache / "kernels").glob("distro-jump-label-*")
    merged = kconfig.parse((d / ".config").read_text())
    assert merged["CONFIG_E1000"] == "n" and merged["CONFIG_JUMP_LABEL"] == "y"


def test_failed_make_of_one_kernel_stops_the_others(tmp_path):
    """The kernels share one make (kernels.mk); when one kernel's make
    fails, the build names it and its log, and stops the others' makes."""
    cache, env = _fake_kconfig_tree(tmp_path, (
        "bzImage modules:\n"
        "\t@if grep -q '^CONFIG_JUMP_LABEL=y' $(O)/.config; then "
        "echo 'error: no such thing' >&2; exit 2; else sleep 60; fi\n"))
    p = run([BUILD, "--config", "smoke"], check=False, env=env)
    assert p.returncode == 1, p.stderr
    assert "making 3 kernel(s) at once" in p.stderr
    assert "error: no such thing" in p.stderr
    assert "make failed for jump-label" in p.stderr
    kernels = cache / "kernels"
    for v in ("atomic-read", "plain-read"):
        (d,) = kernels.glob("smoke-%s-*" % v)
        assert not (d / "make.rc").exists(), v  # stopped, not finished
        assert not (d / "build.json").exists()
    (jl,) = kernels.glob("smoke-jump-label-*")
    assert (jl / "make.rc").read_text().strip() == "2"
    # The rerun resumes in the same dirs, without the link count of the
    # first make (a relink would otherwise say #2 in the image).
    (jl / ".version").write_text("1\n")
    p = run([BUILD, "--config", "smoke"], check=False, env=env)
    assert "make failed for jump-label" in p.stderr
    assert not (jl / ".version").exists()


def test_ccache_mode_is_checked(tmp_path):
    p = run([BUILD, "--dry-run", "--config", "smoke"], check=False,
            env=dict(os.environ, JLBENCH_CACHE=str(tmp_path),
                     JLBENCH_CCACHE_MODE="fast"))
    assert p.returncode == 2
    assert "JLBENCH_CCACHE_MODE must be depend or preprocessor" in p.stderr
