#!/usr/bin/python3
"""Verify a jlbench kernel build and write its build.json.

  verify.py build DIR --variant V ... [--definition SPEC] --fragments F...
      check config symbols, the jump table and a hot static-key site;
      write DIR/build.json (with a user variant's definition, variant.py's
      spec.json); exit 1 when a check fails
  verify.py compare ATOMIC_DIR PLAIN_DIR
      count functions whose disassembly differs between the two fallback
      kernels; write PLAIN_DIR/vs-atomic-read.json
  verify.py sites DIR [--functions] [--out FILE]
      the static-key sites of DIR/vmlinux (the jump table's code addresses),
      a sites= file for the branch-count plugin (bench/plugin/README.md);
      `build` writes it as DIR/jump-sites.txt

What differs between architectures (the jump table's byte order, what a
site and a fallback check look like, the binutils that read vmlinux) comes
from the arch's record in lib/arch.py; the jump table entries are
{code, target, key}, each relative to its own address, every entry aligned
to 8, the low two bits of key flags.
"""
import argparse
import bisect
import json
import os
import re
import subprocess
import sys

import kconfig

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from lib import arch as archmod  # noqa: E402
from lib.vmlinux import jump_table, read_at, symbols, tool  # noqa: E402

SITES_FILE = "jump-sites.txt"
# Hot static-key sites on tbench's path: (function, key symbol). Tracepoints
# keep their static_key at offset 8 of struct tracepoint.
SITES = [
    ("tcp_rcv_established", "__tracepoint_tcp_probe"),
    ("dev_hard_start_xmit", "__tracepoint_net_dev_start_xmit"),
    ("__netif_receive_skb_core", "__tracepoint_netif_receive_skb"),
]
X86 = archmod.get("x86_64")


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
            site["bytes"] = read_at(vmlinux, hits[0][0], arch.site_len,
                                    arch).hex(" ")
        return site
    insns = disassemble(vmlinux, fstart, fstart + fsize, arch)

    def read(addr, n):
        return read_at(vmlinux, addr, n, arch)

    for i, (addr, text) in enumerate(insns):
        if not arch.refers_to(text, key_sym, kstart, kend, read):
            continue
        window = [t for _, t in insns[i:i + 8]]
        site.update(address=hex(addr), instructions=window,
                    kind="load+jcc" if arch.is_check(window) else "other")
        return site
    return None


def verify(args):
    """(the verify part of build.json, the jump table's site addresses)."""
    arch = archmod.get(args.arch)
    vmlinux = args.dir + "/vmlinux"
    with open(args.dir + "/.config") as f:
        final = kconfig.parse(f.read())
    bad = [m[1:] for m in kconfig.unmet(kconfig.read_all(args.fragments),
                                        final)]
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
    addrs = site_addresses(table.pop("decoded"))
    return {
        "ok": all(checks.values()), "checks": checks,
        "config": {"missing": ["%s=%s (got %s)" % m for m in bad],
                   "jump_label": jump_label,
                   "plain_reads":
                       final.get("CONFIG_JUMP_LABEL_PLAIN_READS") == "y"},
        "jump_table": table, "expected_site_kind": want, "sites": sites,
    }, addrs


def site_addresses(decoded):
    """Sorted unique code addresses of decoded jump table entries."""
    return sorted({e[0] & 0xFFFFFFFFFFFFFFFF for e in decoded})


def text_symbols(system_map):
    """Sorted addresses of the text symbols of a System.map."""
    out = []
    with open(system_map) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                out.append(int(parts[0], 16))
    return sorted(out)


def containing_functions(text, addrs):
    """Sorted unique (start, end) of the text symbols (sorted addresses)
    that contain addrs: a symbol up to the next one at a higher address."""
    out = set()
    for a in addrs:
        i = bisect.bisect_right(text, a) - 1
        if i < 0:
            continue
        j = bisect.bisect_right(text, text[i])
        if j < len(text):
            out.add((text[i], text[j]))
    return sorted(out)


def sites_text(build_dir, addrs, functions=None):
    """The sites= file of the plugin: a header comment, then one hex
    address a line, or with functions (their (start, end) ranges) one
    START-END a line."""
    head = "# jump table sites of %s: %d" % (os.path.abspath(build_dir),
                                             len(addrs))
    if functions is None:
        lines = ["%x" % a for a in addrs]
    else:
        head += ", in %d functions" % len(functions)
        lines = ["%x-%x" % f for f in functions]
    return "\n".join([head] + lines) + "\n"


def write_file(path, text):
    """Write text to path through a temporary file and a rename."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def sites(args):
    """verify.py sites: the sites file of a build, from its vmlinux."""
    arch = archmod.of_build(args.dir)
    vmlinux = os.path.join(args.dir, "vmlinux")
    table = jump_table(vmlinux, symbols(vmlinux, arch), arch)
    if table["bytes"] % arch.jump_entry_size:
        raise ValueError("%s: the jump table (%d bytes) is not whole %d-byte"
                         " entries" % (vmlinux, table["bytes"],
                                       arch.jump_entry_size))
    addrs = site_addresses(table["decoded"])
    funcs = None
    if args.functions:
        funcs = containing_functions(
            text_symbols(os.path.join(args.dir, "System.map")), addrs)
    text = sites_text(args.dir, addrs, funcs)
    if args.out:
        write_file(args.out, text)
    else:
        sys.stdout.write(text)
    return 0


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
    b.add_argument("--arch", choices=sorted(archmod.ARCHES),
                   default=archmod.DEFAULT)
    for opt in ("variant", "config", "hash", "package", "package-version",
                "series-hash", "compiler", "boot-args"):
        b.add_argument("--" + opt, default="")
    b.add_argument("--build-seconds", type=int, default=0)
    b.add_argument("--built-with", nargs="*", default=[])
    b.add_argument("--definition",
                   help="a user variant's spec.json (variant.py stage)")
    b.add_argument("--fragments", nargs="+", required=True)
    c = sub.add_parser("compare")
    c.add_argument("atomic_dir")
    c.add_argument("plain_dir")
    st = sub.add_parser("sites")
    st.add_argument("dir")
    st.add_argument("--functions", action="store_true",
                    help="START-END of the functions holding sites instead")
    st.add_argument("--out", help="write here instead of stdout")
    args = ap.parse_args(argv[1:])
    if args.cmd == "sites":
        try:
            return sites(args)
        except (OSError, ValueError, subprocess.CalledProcessError) as e:
            print("verify.py sites: %s" % e, file=sys.stderr)
            return 1
    if args.cmd == "compare":
        result = compare(args.atomic_dir, args.plain_dir)
        with open(args.plain_dir + "/vs-atomic-read.json", "w") as f:
            json.dump(result, f, indent=1)
        print("plain-read vs atomic-read: %d of %d functions differ"
              % (result["functions_differing"],
                 result["functions_compared"]), file=sys.stderr)
        return 0
    result, addrs = verify(args)
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
            "built_with": sorted(args.built_with),
            "source": {"package": args.package,
                       "version": args.package_version,
                       "series_hash": args.series_hash},
            "compiler": args.compiler, "boot_args": args.boot_args,
            "verify": result}
    if args.definition:
        with open(args.definition) as f:
            meta["definition"] = json.load(f)
    write_file(os.path.join(args.dir, SITES_FILE),
               sites_text(args.dir, addrs))
    write_file(args.dir + "/build.json", json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
