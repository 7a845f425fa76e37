"""Unit tests of the static-key module's sources and its build script.

kernel-variants/module: the sources of jlbench_static_key.ko (*.c, *.h,
linked by Kbuild) must be checkpatch clean; kernel-variants/module/build
validates its options and its kernel build dirs before it runs make.
Builds against real kernels and boots are in test_module_boot.py
(integration).
"""
import fcntl
import os
import re
import subprocess
import time

from conftest import ROOT, run

MODULE = ROOT / "kernel-variants" / "module"
BUILD = str(MODULE / "build")
C_FILES = sorted(MODULE.glob("*.c"))
H_FILES = sorted(MODULE.glob("*.h"))


def kbuild_objects():
    """The object files Kbuild links into jlbench_static_key.ko."""
    objs = set()
    for line in (MODULE / "Kbuild").read_text().splitlines():
        m = re.match(r"jlbench_static_key-(?:y|\$\(CONFIG_\w+\)) \+?:?= "
                     r"(.*)$", line)
        if m:
            objs.update(m.group(1).split())
    return objs


def test_sources_are_checkpatch_clean(checkpatch):
    assert len(C_FILES) > 1 and len(H_FILES) > 1
    for path in C_FILES + H_FILES:
        p = run([checkpatch, "--no-tree", "--strict", "-f", str(path)],
                check=False)
        assert p.returncode == 0, p.stdout
        assert "total: 0 errors, 0 warnings, 0 checks" in p.stdout, p.stdout


def test_sources_are_gpl():
    for path in C_FILES:
        assert path.read_text().startswith(
            "// SPDX-License-Identifier: GPL-2.0\n"), path
    for path in H_FILES:
        assert path.read_text().startswith(
            "/* SPDX-License-Identifier: GPL-2.0 */\n"), path
    assert sum('MODULE_LICENSE("GPL");' in p.read_text()
               for p in C_FILES) == 1


def test_kbuild_links_every_source_into_one_module():
    """One jlbench_static_key.ko from all the .c files; no source may take
    the module's name (Kbuild would build it as a module of its own)."""
    kbuild = (MODULE / "Kbuild").read_text()
    assert "obj-m := jlbench_static_key.o\n" in kbuild
    assert not (MODULE / "jlbench_static_key.c").exists()
    assert kbuild_objects() == {p.stem + ".o" for p in C_FILES}


def test_header_maps_every_2011_name():
    """The 2011 static branch interface, each name onto the 6.1 API."""
    h = (MODULE / "jump_label_2011.h").read_text()
    for pattern in (r"struct jump_label_key \{\n\tstruct static_key_false",
                    r"#define JUMP_LABEL_INIT \{ \.key = "
                    r"STATIC_KEY_FALSE_INIT \}",
                    r"bool static_branch\(struct jump_label_key \*key\)\n"
                    r"\{\n\treturn static_branch_unlikely\(",
                    r"void jump_label_inc\(struct jump_label_key \*key\)\n"
                    r"\{\n\tstatic_branch_inc\(",
                    r"void jump_label_dec\(struct jump_label_key \*key\)\n"
                    r"\{\n\tstatic_branch_dec\(",
                    r"#undef jump_label_enabled\n",
                    r"bool jump_label_enabled\(struct jump_label_key \*key\)"
                    r"\n\{\n\treturn static_key_enabled\("):
        assert re.search(pattern, h), pattern


def test_every_check_is_reported():
    """Each check named in the module's comment is reported by name."""
    c = "".join(p.read_text() for p in C_FILES)
    for check in ("default_off", "inc_inc_dec", "dec_disables",
                  "enabled_follows_count", "concurrent", "text_patching",
                  "site_bytes", "bench_branch"):
        assert 'jlb_report("%s", ' % check in c, check


def test_usage(tmp_path):
    p = run([BUILD, "--help"])
    assert p.stdout.startswith("kernel-variants/module/build: ")
    assert "Exit codes:" in p.stdout
    for args in ([], ["--bogus"], ["--builds"], ["--build-dir"],
                 ["--builds", str(tmp_path / "none.tsv")]):
        p = run([BUILD] + args, check=False)
        assert p.returncode == 2, (args, p.stderr)
    bad = tmp_path / "bad.tsv"
    bad.write_text("jump-label\n")
    p = run([BUILD, "--builds", str(bad)], check=False)
    assert p.returncode == 2 and "variant<TAB>build_dir" in p.stderr


def fake_build_dir(tmp_path):
    """A build dir with the files the script checks; its tree is empty."""
    tree = tmp_path / "tree"
    tree.mkdir(parents=True)
    (tree / "Makefile").write_text("# not a kernel\n")
    d = tmp_path / "smoke-x-0123"
    (d / "include" / "config").mkdir(parents=True)
    (d / "include" / "config" / "kernel.release").write_text("6.1.192\n")
    (d / ".config").write_text("CONFIG_MODULES=y\n")
    (d / "Module.symvers").write_text("")
    os.symlink(tree, d / "source")
    return d, tree


def test_dry_run_writes_nothing(tmp_path):
    d, tree = fake_build_dir(tmp_path)
    cache = tmp_path / "cache"
    env = dict(os.environ, JLBENCH_CACHE=str(cache))
    p = run([BUILD, "--build-dir", str(d), "--dry-run"], env=env)
    assert "dry-run: make -C %s O=%s M=%s/modules/jlbench_static_key-" % (
        tree, d, cache) in p.stdout
    assert "%s/modules/jlbench_static_key.ko" % d in p.stdout
    assert not cache.exists()
    assert not (d / "modules").exists()


def test_dry_run_cross_builds_for_the_build_arch(tmp_path):
    """A build.json with "arch": "s390x" makes a cross build; an unknown
    arch is an error."""
    d, tree = fake_build_dir(tmp_path)
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path / "cache"))
    (d / "build.json").write_text('{"arch": "s390x"}')
    p = run([BUILD, "--build-dir", str(d), "--dry-run"], env=env)
    assert "dry-run: make -C %s O=%s ARCH=s390 CROSS_COMPILE=s390x-linux-" \
        "gnu- M=" % (tree, d) in p.stdout
    (d / "build.json").write_text('{"arch": "x86_64"}')
    p = run([BUILD, "--build-dir", str(d), "--dry-run"], env=env)
    assert "O=%s M=" % d in p.stdout and "ARCH=" not in p.stdout
    (d / "build.json").write_text('{"arch": "vax"}')
    p = run([BUILD, "--build-dir", str(d), "--dry-run"], env=env,
            check=False)
    assert p.returncode == 1 and "unknown arch 'vax'" in p.stderr


def test_bad_build_dirs_fail(tmp_path):
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path / "cache"))
    p = run([BUILD, "--build-dir", str(tmp_path / "nope")], env=env,
            check=False)
    assert p.returncode == 1 and "kernel build dir not found" in p.stderr
    d, _ = fake_build_dir(tmp_path)
    os.unlink(d / "Module.symvers")
    p = run([BUILD, "--build-dir", str(d)], env=env, check=False)
    assert p.returncode == 1 and "Module.symvers is missing" in p.stderr
    d2, _ = fake_build_dir(tmp_path / "b")
    p = run([BUILD, "--build-dir", str(d2)], env=env, check=False)
    assert p.returncode == 1 and "building jlbench_static_key" in p.stderr
    assert not (d2 / "modules").exists()


def test_a_check_waits_for_a_build_that_swaps_the_trees(tmp_path):
    """While kernel-variants/build holds the kernels' lock (it swaps the
    trees at the path source links name), module/build waits for it,
    saying so, rather than read a tree that may be gone mid-swap."""
    d, _ = fake_build_dir(tmp_path)
    cache = tmp_path / "cache"
    (cache / "kernels").mkdir(parents=True)
    env = dict(os.environ, JLBENCH_CACHE=str(cache))
    env.pop("JLBENCH_KERNELS_LOCKED", None)
    with open(cache / "kernels" / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = subprocess.Popen([BUILD, "--check", "--build-dir", str(d)],
                             env=env, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        assert p.poll() is None          # waiting
    _, err = p.communicate(timeout=60)
    assert "waiting for a kernel-variants/build" in err, err
    assert p.returncode == 1 and "modules/jlbench_static_key.ko is " \
        "missing" in err, err
