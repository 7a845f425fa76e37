"""lib/arch.py (the architecture table) and verify.py sites (the plugin's
sites file, decoded from a jump table of either byte order)."""
import json
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from lib import arch  # noqa: E402

ARCH = str(ROOT / "lib" / "arch.py")
VERIFY = str(ROOT / "kernel-variants" / "verify.py")


def test_every_arch_has_its_config_fragment_and_base_configs():
    for a in arch.ARCHES.values():
        assert (ROOT / "kernel-variants" / "config" /
                (a.name + ".config")).is_file(), a.name
        for c in a.configs:
            assert (ROOT / "kernel-variants" / "config" /
                    (c + ".config")).is_file(), (a.name, c)
        assert set(a.accels) <= {"kvm", "tcg", "icount"}
        assert a.jump_entry_size == 16 and a.endian in "<>"
    assert arch.DEFAULT in arch.ARCHES
    assert not arch.get(arch.DEFAULT).tagged


def test_shell_record_in_bash():
    """The `shell` line is the body of a bash associative array."""
    script = ('declare -A r="($(%s shell s390x))"; '
              'read -r -a mv <<<"${r[make_vars]}"; '
              'printf "%%s|" "${r[cc]}" "${mv[@]}" "${r[name_prefix]}" '
              '"${r[hash_tag]}" "${r[configs]}" "${r[benchmark]}"' % ARCH)
    out = run(["bash", "-c", script]).stdout
    assert out == ("s390x-linux-gnu-gcc|ARCH=s390|CROSS_COMPILE=s390x-linux-"
                   "gnu-|s390x-|arch=s390x|smoke|0|")
    script = 'declare -A r="($(%s shell x86_64))"; ' \
        'printf "%%s|" "${r[cc]}" "${r[make_vars]}" "${r[name_prefix]}" ' \
        '"${r[hash_tag]}" "${r[configs]}"' % ARCH
    # x86_64 builds natively and adds nothing to names and hashes
    assert run(["bash", "-c", script]).stdout == "gcc||||full smoke distro|"


def test_cli_errors_and_lookups(tmp_path):
    p = run([ARCH, "shell", "arm64"], check=False)
    assert p.returncode == 2 and "unknown arch 'arm64'" in p.stderr
    p = run([ARCH, "get", "s390x", "colour"], check=False)
    assert p.returncode == 2 and "unknown field 'colour'" in p.stderr
    assert run([ARCH, "get", "s390x", "image"]).stdout == \
        "arch/s390/boot/bzImage\n"
    assert run([ARCH, "names"]).stdout.split() == list(arch.ARCHES)
    assert run([ARCH, "bogus"], check=False).returncode == 2
    # a build dir's arch: build.json's, x86_64 when it names none
    assert run([ARCH, "of-build", str(tmp_path)]).stdout == "x86_64\n"
    (tmp_path / "build.json").write_text(json.dumps({"arch": "s390x"}))
    assert run([ARCH, "of-build", str(tmp_path)]).stdout == "s390x\n"
    (tmp_path / "build.json").write_text(json.dumps({"arch": "vax"}))
    p = run([ARCH, "shell", "--build", str(tmp_path)], check=False)
    assert p.returncode == 1 and "unknown arch 'vax'" in p.stderr


def test_deps_lists_every_arch_package():
    listed = run([str(ROOT / "lib" / "deps"), "--list"]).stdout.split()
    for p in arch.packages():
        assert p in listed, p


# The jump table of both test objects: four entries, site 1 twice, each
# with a key field of 0, in the order 2, 1, 3, 1.
TABLE_SECTION_ASM = """\
    .section __jump_table, "aw"
    .balign 8
    .globl __start___jump_table, __stop___jump_table
__start___jump_table:
    .long .Lsite2 - ., f3 - .
    .quad 0
    .long .Lsite1 - ., f3 - .
    .quad 0
    .long .Lsite3 - ., f3 - .
    .quad 0
    .long .Lsite1 - ., f3 - .
    .quad 0
__stop___jump_table:
"""

JUMP_TABLE_ASM = """\
    .text
    .globl f1, f2, f3
f1: nop
.Lsite1: .byte 0x66, 0x90
    ret
f2: nop
.Lsite2: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00
.Lsite3: .byte 0x66, 0x90
    ret
f3: ret
""" + TABLE_SECTION_ASM

# s390x: the same table, big-endian, the sites 6-byte brcl 0 (c0 04 ...).
S390_ASM = """\
    .text
    .globl f1, f2, f3
f1: nopr %r7
.Lsite1: brcl 0, f3
    br %r14
f2: nopr %r7
.Lsite2: brcl 0, f3
.Lsite3: brcl 0, f3
    br %r14
f3: br %r14
""" + TABLE_SECTION_ASM


def fake_build(d, asm, prefix=""):
    """A dir with a linked 'vmlinux' and its System.map (nm output);
    returns {symbol: address}."""
    (d / "jt.s").write_text(asm)
    run([prefix + "as", "-o", str(d / "jt.o"), str(d / "jt.s")])
    run([prefix + "ld", "-e", "f1", "-o", str(d / "vmlinux"),
         str(d / "jt.o")])
    nm = run([prefix + "nm", "-n", str(d / "vmlinux")]).stdout
    (d / "System.map").write_text(nm)
    return {ln.split()[2]: int(ln.split()[0], 16) for ln in nm.splitlines()}


@pytest.mark.parametrize("name,asm,site2_len", [
    ("x86_64", JUMP_TABLE_ASM, 5), ("s390x", S390_ASM, 6)])
def test_sites_from_the_jump_table(tmp_path, name, asm, site2_len):
    """verify.py sites: each entry's code address, once, in order; with
    --functions the functions that hold them. The arch comes from
    build.json, so a big-endian table is read as one."""
    a = arch.get(name)
    syms = fake_build(tmp_path, asm, a.cross)
    (tmp_path / "build.json").write_text(json.dumps({"arch": name}))
    p = run([VERIFY, "sites", str(tmp_path)])
    lines = p.stdout.splitlines()
    assert lines[0] == "# jump table sites of %s: 3" % tmp_path
    nop = 2 if name == "s390x" else 1       # nopr / nop before the site
    assert lines[1:] == ["%x" % x for x in (
        syms["f1"] + nop, syms["f2"] + nop, syms["f2"] + nop + site2_len)]
    run([VERIFY, "sites", str(tmp_path), "--functions", "--out",
         str(tmp_path / "f.txt")])
    lines = (tmp_path / "f.txt").read_text().splitlines()
    assert lines[0].endswith(": 3, in 2 functions")
    assert lines[1:] == ["%x-%x" % (syms["f1"], syms["f2"]),
                         "%x-%x" % (syms["f2"], syms["f3"])]
    if name == "s390x":
        # read as the other byte order, the table is garbage
        (tmp_path / "build.json").write_text("{}")
        p = run([VERIFY, "sites", str(tmp_path)], check=False)
        assert p.returncode != 0 or p.stdout.splitlines()[1:] != \
            lines[1:]


def test_sites_empty_table_and_errors(tmp_path):
    asm = JUMP_TABLE_ASM.split("__start___jump_table:")[0] + \
        "__start___jump_table:\n__stop___jump_table:\n"
    fake_build(tmp_path, asm)
    p = run([VERIFY, "sites", str(tmp_path)])
    assert p.stdout == "# jump table sites of %s: 0\n" % tmp_path
    p = run([VERIFY, "sites", str(tmp_path / "nothing")], check=False)
    assert p.returncode == 1 and "vmlinux" in p.stderr
