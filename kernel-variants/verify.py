#!/usr/bin/python3
"""Verify a jlbench kernel build and write its build.json.

  verify.py build DIR --variant V ... --fragments F...
      check config symbols, the jump table and a hot static-key site;
      write DIR/build.json; exit 1 when a check fails
  verify.py compare ATOMIC_DIR PLAIN_DIR
      count functions whose disassembly differs between the two fallback
      kernels; write PLAIN_DIR/vs-atomic-read.json

The jump table (x86-64): 16-byte entries {s32 code, s32 target, s64 key},
each relative to its own address, every entry aligned to 8 (_ASM_ALIGN in
arch/x86/include/asm/jump_label.h); the low two bits of key are flags.
s390x (--arch s390x) has the same relative layout, big-endian (".long
0b-.,%l[label]-." and ".quad %0+%1-." after ".balign 8" in
arch/s390/include/asm/jump_label.h), and its site is a 6-byte "brcl 0,<label>"
(c0 04 <offset/2>), patched into "brcl 15,<label>" (c0 f4, the same offset).
The binutils of the build's arch read its vmlinux (s390x-linux-gnu-objdump
etc.).
"""
import argparse
import json
import re
import struct
import subprocess
import sys

import kconfig

ENTRY_SIZE = 16
# Hot static-key sites on tbench's path: (function, key symbol). Tracepoints
# keep their static_key at offset 8 of struct tracepoint.
SITES = [
    ("tcp_rcv_established", "__tracepoint_tcp_probe"),
    ("dev_hard_start_xmit", "__tracepoint_net_dev_start_xmit"),
    ("__netif_receive_skb_core", "__tracepoint_netif_receive_skb"),
]
NOP_RE = re.compile(r"^(nop[lw]?|xchg\s+%ax,%ax|data16.*nop)")
JCC_RE = re.compile(r"^j(?!mp)[a-z]+\s")
# s390: mask 0 never branches; newer binutils print it as jgnop.
S390_NOP_RE = re.compile(r"^(brcl\s+0,|jgnop\s)")


class Arch:
    """What verify needs to know about the build's architecture."""

    def __init__(self, name, prefix, endian, nop_re, site_len):
        self.name = name
        self.prefix = prefix        # binutils prefix
        self.endian = endian        # struct byte order of the jump table
        self.nop_re = nop_re        # a disabled site's instruction
        self.site_len = site_len    # bytes of a site (0: variable)


ARCHES = {
    "x86_64": Arch("x86_64", "", "<", NOP_RE, 0),
    "s390x": Arch("s390x", "s390x-linux-gnu-", ">", S390_NOP_RE, 6),
}
X86 = ARCHES["x86_64"]


def tool(*cmd, arch=X86):
    cmd = (arch.prefix + cmd[0],) + cmd[1:]
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def symbols(vmlinux, arch=X86):
    """{name: (address, size)} from nm -S."""
    syms = {}
    for line in tool("nm", "-S", "--defined-only", vmlinux,
                     arch=arch).splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
        elif len(f) == 3:
            syms.setdefault(f[2], (int(f[0], 16), 0))
    return syms


def file_offset(vmlinux, addr, arch=X86):
    """File offset of a virtual address, from the ELF section headers."""
    for line in tool("readelf", "-SW", vmlinux, arch=arch).splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[0].startswith("[") and f[2] == "PROGBITS":
            base, off, size = (int(x, 16) for x in f[3:6])
            if base <= addr < base + size:
                return off + addr - base
    raise ValueError("address %#x is in no PROGBITS section" % addr)


def parse_jump_table(data, base, endian="<"):
    """Decode entries: list of (code, target, key, flags) absolute."""
    out = []
    for off in range(0, len(data) - ENTRY_SIZE + 1, ENTRY_SIZE):
        code, target, key = struct.unpack_from(endian + "iiq", data, off)
        addr = base + off
        k = (addr + 8 + key) & 0xFFFFFFFFFFFFFFFF
        out.append((addr + code, addr + 4 + target, k & ~3, k & 3))
    return out


def jump_table(vmlinux, syms, arch=X86):
    start = syms.get("__start___jump_table", (0, 0))[0]
    stop = syms.get("__stop___jump_table", (0, 0))[0]
    entries = (stop - start) // ENTRY_SIZE if stop else 0
    info = {"entries": entries, "start": hex(start),
            "bytes": stop - start,
            "aligned": start % 8 == 0 and (stop - start) % ENTRY_SIZE == 0,
            "decoded": []}
    if entries:
        with open(vmlinux, "rb") as f:
            f.seek(file_offset(vmlinux, start, arch))
            info["decoded"] = parse_jump_table(f.read(stop - start), start,
                                               arch.endian)
    return info


def parse_disassembly(text):
    """[(address, instruction text)] of objdump -d --no-show-raw-insn."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
        if m:
            out.append((int(m.group(1), 16), m.group(2).strip()))
    return out


def disassemble(vmlinux, start, stop, arch=X86):
    """[(address, instruction text)] between two addresses."""
    return parse_disassembly(tool(
        "objdump", "-d", "--no-show-raw-insn",
        "--start-address=%#x" % start, "--stop-address=%#x" % stop,
        vmlinux, arch=arch))


def site_bytes(vmlinux, addr, n, arch=X86):
    """n bytes of vmlinux at virtual address addr, as hex pairs."""
    with open(vmlinux, "rb") as f:
        f.seek(file_offset(vmlinux, addr, arch))
        return f.read(n).hex(" ")


def classify_site(vmlinux, syms, table, func, key_sym, arch=X86):
    """Describe the check of key_sym inside func: 'nop' or 'load+jcc'."""
    if func not in syms or key_sym not in syms:
        return None
    fstart, fsize = syms[func]
    kstart, ksize = syms[key_sym]
    kend = kstart + max(ksize, 16)
    site = {"function": func, "key": key_sym}
    if table["entries"]:
        hits = [e for e in table["decoded"]
                if fstart <= e[0] < fstart + fsize and kstart <= e[2] < kend]
        if not hits:
            return None
        insns = disassemble(vmlinux, hits[0][0], hits[0][0] + 8, arch)
        site.update(address=hex(hits[0][0]), instructions=[insns[0][1]],
                    kind="nop" if arch.nop_re.match(insns[0][1])
                    else "other")
        if arch.site_len:
            site["bytes"] = site_bytes(vmlinux, hits[0][0], arch.site_len,
                                       arch)
        return site
    insns = disassemble(vmlinux, fstart, fstart + fsize, arch)
    for i, (addr, text) in enumerate(insns):
        if arch is X86:
            if "<%s" % key_sym not in text:
                continue
        elif not s390_refers_to(vmlinux, text, kstart, kend, arch):
            continue
        window = [t for _, t in insns[i:i + 8]]
        test = is_load_test_jcc if arch is X86 else is_load_test_brc
        site.update(address=hex(addr), instructions=window,
                    kind="load+jcc" if test(window) else "other")
        return site
    return None


S390_ADDR_RE = re.compile(r"^(larl|lgrl)\s+%r\d+,([0-9a-f]+)\b")


def s390_refers_to(vmlinux, text, kstart, kend, arch):
    """s390: the instruction puts an address in [kstart, kend) into a
    register: larl of it, or (the kernel is PIE) lgrl of the GOT slot that
    holds it."""
    m = S390_ADDR_RE.match(text)
    if not m:
        return False
    target = int(m.group(2), 16)
    if m.group(1) == "lgrl":
        with open(vmlinux, "rb") as f:
            f.seek(file_offset(vmlinux, target, arch))
            target, = struct.unpack(arch.endian + "Q", f.read(8))
    return kstart <= target < kend


def is_load_test_jcc(window):
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
        if tested and JCC_RE.match(cur) and (
                tested != "flags" or prev is window[0]):
            return True
    return False


S390_COND = r"(?:o|h|p|nle|l|m|nhe|lh|ne|nz|e|z|nlh|he|nl|nm|le|nh|np|no)"
S390_JCC_RE = re.compile(r"^(?:jg?%s|brcl?\s+(?:[1-9]|1[0-4]),)\s" % S390_COND)
S390_CMP_BRANCH_RE = re.compile(
    r"^cl?g?[ri]j%s?\s+(%%r\d+)," % S390_COND)
S390_LOAD_RE = re.compile(
    r"^(l|lt|ly|lg|ltg|lgf|ltgf|llgf|icm|icmy)\s+(%r\d+),(?:\d+,)?"
    r"-?\d*\((?:%r\d+,)?(%r\d+)\)")
S390_CC_LOADS = ("lt", "ltg", "ltgf", "icm", "icmy")
S390_TEST_RE = re.compile(r"^(?:ltg?r|c[gh]?hi|cg?fi|clg?fi|nill)\s+(%r\d+)")


def is_load_test_brc(window):
    """s390: True when window[0] puts the key's address in a register
    (larl %rB,<key...>, or lgrl %rB,<its GOT slot>), a load through %rB
    (l, lt, icm, ...) reads the
    count into %rC, and a conditional branch decides on it: the load itself
    sets the condition code (lt, icm), or a test or compare of %rC (ltr,
    chi, ...) comes before a conditional branch (jh, jne, brc 2,...), or a
    compare-and-branch (cijh %rC,0,...) does both."""
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


def verify(args):
    arch = ARCHES[args.arch]
    vmlinux = args.dir + "/vmlinux"
    with open(args.dir + "/.config") as f:
        final = kconfig.parse(f.read())
    bad = []
    for frag in args.fragments:
        with open(frag) as f:
            bad += kconfig.missing(kconfig.parse(f.read()), final)
    syms = symbols(vmlinux, arch)
    table = jump_table(vmlinux, syms, arch)
    jump_label = final.get("CONFIG_JUMP_LABEL") == "y"
    sites = [s for s in (classify_site(vmlinux, syms, table, f, k, arch)
                         for f, k in SITES) if s]
    want = "nop" if jump_label else "load+jcc"
    checks = {
        "config_symbols": not bad,
        "jump_table_entries": (table["entries"] >= 100 if jump_label
                               else table["entries"] == 0),
        "jump_table_aligned": table["aligned"],
        "site_found": bool(sites),
        "site_kind": bool(sites) and all(s["kind"] == want for s in sites),
    }
    table.pop("decoded")
    return {
        "ok": all(checks.values()), "checks": checks,
        "config": {"missing": ["%s=%s (got %s)" % m for m in bad],
                   "jump_label": jump_label,
                   "plain_reads":
                       final.get("CONFIG_JUMP_LABEL_PLAIN_READS") == "y"},
        "jump_table": table, "expected_site_kind": want, "sites": sites,
    }


def function_bodies(vmlinux):
    """{function: normalised disassembly} with addresses stripped."""
    bodies, name, cur = {}, None, []
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", vmlinux],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            if name:
                bodies[name] = "\n".join(cur)
            name, cur = m.group(1), []
            continue
        m = re.match(r"^\s*[0-9a-f]+:\s+(.*)$", line)
        if m and name:
            ins = re.sub(r"\b[0-9a-f]{8,16}\b", "ADDR", m.group(1))
            ins = re.sub(r"-?0x[0-9a-f]+\(%rip\)", "REL(%rip)", ins)
            ins = re.sub(r"0xffffffff[0-9a-f]{8}", "ADDR", ins)
            cur.append(re.sub(r"<([^>+]+)\+0x[0-9a-f]+>", r"<\1+OFF>", ins))
    if name:
        bodies[name] = "\n".join(cur)
    return bodies


def compare(atomic_dir, plain_dir):
    a = function_bodies(atomic_dir + "/vmlinux")
    p = function_bodies(plain_dir + "/vmlinux")
    common = sorted(set(a) & set(p))
    differ = [f for f in common if a[f] != p[f]]
    return {"atomic_read_build": atomic_dir, "functions_compared":
            len(common), "functions_differing": len(differ),
            "only_in_atomic_read": len(set(a) - set(p)),
            "only_in_plain_read": len(set(p) - set(a)),
            "examples": differ[:20],
            "identical": not differ and set(a) == set(p)}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("dir")
    b.add_argument("--arch", choices=sorted(ARCHES), default="x86_64")
    for opt in ("variant", "config", "hash", "package", "package-version",
                "series-hash", "compiler", "boot-args"):
        b.add_argument("--" + opt, default="")
    b.add_argument("--build-seconds", type=int, default=0)
    b.add_argument("--fragments", nargs="+", required=True)
    c = sub.add_parser("compare")
    c.add_argument("atomic_dir")
    c.add_argument("plain_dir")
    args = ap.parse_args(argv[1:])
    if args.cmd == "compare":
        result = compare(args.atomic_dir, args.plain_dir)
        with open(args.plain_dir + "/vs-atomic-read.json", "w") as f:
            json.dump(result, f, indent=1)
        print("plain-read vs atomic-read: %d of %d functions differ"
              % (result["functions_differing"],
                 result["functions_compared"]), file=sys.stderr)
        return 0
    result = verify(args)
    for name, ok in result["checks"].items():
        print("  %-20s %s" % (name, "ok" if ok else "FAILED"),
              file=sys.stderr)
    print("  jump table: %d entries; sites: %s" % (
        result["jump_table"]["entries"],
        "; ".join("%s %s" % (s["function"], s["kind"])
                  for s in result["sites"]) or "none"), file=sys.stderr)
    if not result["ok"]:
        return 1
    meta = {"variant": args.variant, "arch": args.arch,
            "config": args.config,
            "hash": args.hash, "build_seconds": args.build_seconds,
            "source": {"package": args.package,
                       "version": args.package_version,
                       "series_hash": args.series_hash},
            "compiler": args.compiler, "boot_args": args.boot_args,
            "verify": result}
    tmp = args.dir + "/build.json.tmp"
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=1)
    subprocess.run(["mv", tmp, args.dir + "/build.json"], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
