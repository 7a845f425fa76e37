#!/usr/bin/python3
"""The guest architectures jlbench builds, verifies, packs and boots.

One record per architecture: kernel-variants/build, kernel-variants/verify.py,
kernel-variants/module/build, guest-image/build, bench/guest/qemu.py and
lib/deps all read this table. Adding an architecture is one record here
plus its Kconfig fragment kernel-variants/config/<name>.config.

  arch.py names                  the architectures, one a line
  arch.py shell NAME             the record as a bash associative array body:
                                 declare -A a="($(arch.py shell NAME))"
  arch.py shell --build DIR      the same for the arch of a kernel build dir
  arch.py get NAME FIELD         one field of `shell`
  arch.py of-build DIR           the arch of a kernel build dir
  arch.py packages               the Debian packages of every architecture

Exit codes: 0 ok; 1 a build dir names an unknown arch or cannot be read;
2 usage error (an unknown NAME or FIELD included).
"""
import json
import os
import re
import shlex
import struct
import sys

# The benchmark's architecture; also that of kernel builds whose build.json
# predates the choice of architecture (it has no "arch").
DEFAULT = "x86_64"


class Arch:
    """One guest architecture.

    Building: name (jlbench's, = Debian's multiarch CPU name), kernel_arch
    (make ARCH=, the directory under arch/), cross (the toolchain prefix;
    "" builds natively with the host's gcc and binutils, without ARCH=),
    packages (Debian packages of the cross toolchain, static libc and QEMU),
    image (the boot image in a build dir), configs (base configs it builds),
    tagged (its name is part of cache names and build hashes: every arch but
    x86_64, whose builds predate the choice and keep their names).

    Booting: qemu (Debian's binary) or $qemu_env, machine (extra QEMU
    arguments), console (the kernel's name of the device behind -serial),
    boot_args (always on its kernel command line), accels (the
    accelerators it runs under), benchmark (the image carries the host's
    tbench and perf, so bench/run can measure it), plugin (the TCG
    branch-count plugin decodes its code).

    Verifying: jump_entry (struct format of a jump table entry {code,
    target, key}, each relative to its own address), jump_align, nop_re (a
    disabled site's instruction in objdump's text), site_len (bytes of a
    site, 0 when variable), refers_to(text, key_sym, kstart, kend, read)
    (whether an instruction puts the key's address [kstart, kend) into
    play; read(addr, n) gives n bytes of vmlinux at a virtual address),
    is_check(window) (whether instructions starting at such a reference
    load the key's count, test it and branch on it: the fallback's check),
    compare (verify.py compare's normalisation knows its disassembly).
    """

    def __init__(self, name, **fields):
        self.name = name
        self.__dict__.update(fields)
        self.jump_entry_size = struct.calcsize(self.jump_entry)
        self.endian = self.jump_entry[0]

    @property
    def make_vars(self):
        """make variables of a kernel or module build for this arch."""
        if not self.cross:
            return []
        return ["ARCH=" + self.kernel_arch, "CROSS_COMPILE=" + self.cross]

    @property
    def tag(self):
        """The arch's part of cache names ("" for an untagged arch)."""
        return self.name if self.tagged else ""

    @property
    def name_prefix(self):
        """The arch's prefix of file and cache names: "" or "<tag>-"."""
        return self.tag and self.tag + "-"

    def tool(self, name):
        """The binutils or gcc command for this arch (objdump, nm, ...)."""
        return self.cross + name

    def jump_entries(self, data, base):
        """Decode jump table bytes at address base into absolute
        (code, target, key, flags); the key's low two bits are flags."""
        out = []
        size = self.jump_entry_size
        for off in range(0, len(data) - size + 1, size):
            code, target, key = struct.unpack_from(self.jump_entry, data, off)
            addr = base + off
            k = (addr + 8 + key) & 0xFFFFFFFFFFFFFFFF
            out.append((addr + code, addr + 4 + target, k & ~3, k & 3))
        return out

    def shell(self):
        """{field: string} of what the shell stages need."""
        return {
            "name": self.name, "kernel_arch": self.kernel_arch,
            "cross": self.cross, "cc": self.tool("gcc"),
            "make_vars": " ".join(self.make_vars),
            "image": self.image, "configs": " ".join(self.configs),
            "tag": self.tag, "name_prefix": self.name_prefix,
            "hash_tag": self.tag and "arch=" + self.tag,
            "gcc_package": self.gcc_package,
            "binutils_package": self.binutils_package,
            "libc_static": self.libc_static,
            "libc_package": self.libc_package,
            "qemu": self.qemu, "qemu_package": self.qemu_package,
            "benchmark": "1" if self.benchmark else "0",
            "compare": "1" if self.compare else "0",
        }


# x86_64: sites are 2- or 5-byte NOPs (arch/x86/include/asm/jump_label.h);
# the fallback compares the key's count in memory (cmpl $0x0,key(%rip)) or
# loads it (mov key(%rip),%reg) for a test; objdump names the key in a
# "# <sym>" comment.
X86_NOP_RE = re.compile(r"^(nop[lw]?|xchg\s+%ax,%ax|data16.*nop)")
X86_JCC_RE = re.compile(r"^j(?!mp)[a-z]+\s")


def x86_refers_to(text, key_sym, kstart, kend, read):
    """x86: objdump's comment names the key symbol."""
    return "<%s" % key_sym in text


def x86_is_check(window):
    """True when window[0] reads the key and a test of it feeds a Jcc.

    Either the load is itself a compare (cmpl $0x0,key(%rip)) followed by a
    Jcc, or it loads a register that a later test/cmp examines right before
    a Jcc; the compiler may schedule other instructions in between.
    """
    first = window[0].split("#")[0]
    tested = None
    if first.startswith(("cmp", "test")):
        tested = "flags"
    else:
        m = re.match(r"^mov\w*\s+\S+,(%\w+)$", first.strip())
        if not m:
            return False
        reg = m.group(1)
    for prev, cur in zip(window, window[1:]):
        if tested is None and prev.startswith(("test", "cmp")) \
                and reg in prev:
            tested = reg
        if tested and X86_JCC_RE.match(cur) and (
                tested != "flags" or prev is window[0]):
            return True
    return False


# s390x: a site is a 6-byte "brcl 0,<label>" (c0 04 <offset/2>), patched
# into "brcl 15,<label>" (c0 f4); newer binutils print mask 0 as jgnop
# (arch/s390/include/asm/jump_label.h).
S390_NOP_RE = re.compile(r"^(brcl\s+0,|jgnop\s)")
S390_ADDR_RE = re.compile(r"^(larl|lgrl)\s+%r\d+,([0-9a-f]+)\b")
S390_COND = r"(?:o|h|p|nle|l|m|nhe|lh|ne|nz|e|z|nlh|he|nl|nm|le|nh|np|no)"
S390_JCC_RE = re.compile(r"^(?:jg?%s|brcl?\s+(?:[1-9]|1[0-4]),)\s" % S390_COND)
S390_CMP_BRANCH_RE = re.compile(
    r"^cl?g?[ri]j%s?\s+(%%r\d+)," % S390_COND)
S390_LOAD_RE = re.compile(
    r"^(l|lt|ly|lg|ltg|lgf|ltgf|llgf|icm|icmy)\s+(%r\d+),(?:\d+,)?"
    r"-?\d*\((?:%r\d+,)?(%r\d+)\)")
S390_CC_LOADS = ("lt", "ltg", "ltgf", "icm", "icmy")
S390_TEST_RE = re.compile(r"^(?:ltg?r|c[gh]?hi|cg?fi|clg?fi|nill)\s+(%r\d+)")


def s390_refers_to(text, key_sym, kstart, kend, read):
    """s390: the instruction puts an address in [kstart, kend) into a
    register: larl of it, or (the kernel is PIE) lgrl of the GOT slot that
    holds it."""
    m = S390_ADDR_RE.match(text)
    if not m:
        return False
    target = int(m.group(2), 16)
    if m.group(1) == "lgrl":
        target, = struct.unpack(">Q", read(target, 8))
    return kstart <= target < kend


def s390_is_check(window):
    """s390: True when window[0] puts the key's address in a register
    (larl %rB,<key...>, or lgrl %rB,<its GOT slot>), a load through %rB
    (l, lt, icm, ...) reads the count into %rC, and a conditional branch
    decides on it: the load itself sets the condition code (lt, icm), or a
    test or compare of %rC (ltr, chi, ...) comes before a conditional
    branch (jh, jne, brc 2,...), or a compare-and-branch (cijh %rC,0,...)
    does both."""
    m = re.match(r"^l(?:a|g)rl\s+(%r\d+),", window[0])
    if not m:
        return False
    base, count, flags = m.group(1), None, False
    for ins in window[1:]:
        ins = ins.split("#")[0].strip()
        if count is None:
            load = S390_LOAD_RE.match(ins)
            if load and load.group(3) == base:
                count, flags = load.group(2), load.group(1) in S390_CC_LOADS
            continue
        test = S390_TEST_RE.match(ins)
        if test and test.group(1) == count:
            flags = True
            continue
        cb = S390_CMP_BRANCH_RE.match(ins)
        if cb:
            return cb.group(1) == count
        if S390_JCC_RE.match(ins):
            return flags
    return False


ARCHES = {a.name: a for a in (
    Arch("x86_64", kernel_arch="x86", cross="",
         gcc_package="build-essential", binutils_package="binutils",
         libc_static="", libc_package="",
         image="arch/x86/boot/bzImage", configs=("full", "smoke", "distro"),
         tagged=False,
         qemu="qemu-system-x86_64", qemu_env="JLBENCH_QEMU",
         qemu_package="qemu-system-x86", machine=(), console="ttyS0",
         # nokaslr: the same layout every boot (icount determinism)
         boot_args=("nokaslr",), accels=("kvm", "tcg", "icount"),
         benchmark=True, plugin=True,
         jump_entry="<iiq", jump_align=8, nop_re=X86_NOP_RE, site_len=0,
         refers_to=x86_refers_to, is_check=x86_is_check, compare=True),
    # Selftest boots only (the s390 jump labels of 2011): smoke config,
    # no tbench or perf in its image. The default CPU model under TCG is
    # "qemu"; the smoke kernel has no KASLR (and would pass an unknown
    # nokaslr to init).
    Arch("s390x", kernel_arch="s390", cross="s390x-linux-gnu-",
         gcc_package="gcc-s390x-linux-gnu",
         binutils_package="binutils-s390x-linux-gnu",
         libc_static="/usr/s390x-linux-gnu/lib/libc.a",
         libc_package="libc6-dev-s390x-cross",
         image="arch/s390/boot/bzImage", configs=("smoke",), tagged=True,
         qemu="qemu-system-s390x", qemu_env="JLBENCH_QEMU_S390X",
         qemu_package="qemu-system-misc", machine=("-M", "s390-ccw-virtio"),
         console="ttysclp0", boot_args=(), accels=("tcg", "icount"),
         benchmark=False, plugin=False,
         jump_entry=">iiq", jump_align=8, nop_re=S390_NOP_RE, site_len=6,
         refers_to=s390_refers_to, is_check=s390_is_check, compare=False),
)}


def get(name):
    """The Arch called name; ValueError for an unknown one."""
    if name not in ARCHES:
        raise ValueError("unknown arch %r (have: %s)"
                         % (name, " ".join(sorted(ARCHES))))
    return ARCHES[name]


def of_build(build_dir):
    """The Arch of the kernel build in build_dir (its build.json's "arch";
    DEFAULT when there is no build.json or it names none)."""
    path = os.path.join(build_dir, "build.json")
    name = DEFAULT
    if os.path.exists(path):
        with open(path) as f:
            name = json.load(f).get("arch") or DEFAULT
    try:
        return get(name)
    except ValueError as e:
        raise ValueError("%s: %s" % (path, e)) from None


def packages():
    """Debian packages every architecture needs, without duplicates."""
    out = []
    for a in ARCHES.values():
        for p in (a.gcc_package, a.binutils_package, a.libc_package,
                  a.qemu_package):
            if p and p not in out:
                out.append(p)
    return out


def _shell_line(a):
    return " ".join("[%s]=%s" % (k, shlex.quote(v))
                    for k, v in a.shell().items())


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    try:
        # a build dir that cannot be read or names an unknown arch: 1
        if len(args) == 2 and args[0] == "of-build":
            print(of_build(args[1]).name)
            return 0
        if len(args) == 3 and args[:2] == ["shell", "--build"]:
            print(_shell_line(of_build(args[2])))
            return 0
    except (OSError, ValueError) as e:
        sys.stderr.write("arch.py: %s\n" % e)
        return 1
    try:
        if args == ["names"]:
            print("\n".join(ARCHES))
        elif args == ["packages"]:
            print("\n".join(packages()))
        elif len(args) == 2 and args[0] == "shell":
            print(_shell_line(get(args[1])))
        elif len(args) == 3 and args[0] == "get":
            fields = get(args[1]).shell()
            if args[2] not in fields:
                raise ValueError("unknown field %r (have: %s)"
                                 % (args[2], " ".join(fields)))
            print(fields[args[2]])
        else:
            raise ValueError("usage error (see arch.py --help)")
    except ValueError as e:
        sys.stderr.write("arch.py: %s\n" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
