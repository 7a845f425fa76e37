"""Reading a kernel's vmlinux: its symbols, its bytes at an address and
its jump table (kernel-variants/verify.py checks builds with them,
bench/model/keywords.py finds the static-key words). Each takes the arch record
(lib/arch.py) whose binutils read the file and whose jump table format
applies.
"""
import bisect
import subprocess

from lib import arch as archmod

X86 = archmod.get("x86_64")


def tool(*cmd, arch=X86):
    """stdout of a binutils command of arch (objdump, nm, readelf)."""
    return subprocess.run((arch.tool(cmd[0]),) + cmd[1:], check=True,
                          capture_output=True, text=True).stdout


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


class Holders:
    """The symbols of symbols() that have a size, to find the one that
    holds an address (a static key inside its struct, say)."""

    def __init__(self, syms):
        self.sized = sorted((a, s, n) for n, (a, s) in syms.items() if s > 0)
        self.starts = [a for a, _, _ in self.sized]

    def at(self, addr):
        """(name, offset, size) of the sized symbol holding addr, or
        None."""
        i = bisect.bisect_right(self.starts, addr) - 1
        if i < 0 or addr >= self.sized[i][0] + self.sized[i][1]:
            return None
        start, size, name = self.sized[i]
        return name, addr - start, size


def code_symbols(vmlinux, arch=X86):
    """[(address, name)] of the code symbols (nm types t, T, w, W) in
    address order, and the address of _etext (None if it has none)."""
    out, etext = [], None
    for line in tool("nm", "-n", "--defined-only", vmlinux,
                     arch=arch).splitlines():
        f = line.split()
        if len(f) != 3:
            continue
        if f[2] == "_etext":
            etext = int(f[0], 16)
        if f[1] in "tTwW":
            out.append((int(f[0], 16), f[2]))
    return out, etext


def file_offset(vmlinux, addr, arch=X86):
    """File offset of a virtual address, from the ELF section headers."""
    for line in tool("readelf", "-SW", vmlinux, arch=arch).splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[0].startswith("[") and f[2] == "PROGBITS":
            base, off, size = (int(x, 16) for x in f[3:6])
            if base <= addr < base + size:
                return off + addr - base
    raise ValueError("address %#x is in no PROGBITS section" % addr)


def read_at(vmlinux, addr, n, arch=X86):
    """n bytes of vmlinux at virtual address addr."""
    with open(vmlinux, "rb") as f:
        f.seek(file_offset(vmlinux, addr, arch))
        return f.read(n)


def jump_table(vmlinux, syms, arch=X86):
    """Size, alignment and (decoded) entries of vmlinux's jump table."""
    size = arch.jump_entry_size
    start = syms.get("__start___jump_table", (0, 0))[0]
    stop = syms.get("__stop___jump_table", (0, 0))[0]
    entries = (stop - start) // size if stop else 0
    info = {"entries": entries, "start": hex(start),
            "bytes": stop - start,
            "aligned": start % arch.jump_align == 0
            and (stop - start) % size == 0,
            "decoded": []}
    if entries:
        info["decoded"] = arch.jump_entries(
            read_at(vmlinux, start, stop - start, arch), start)
    return info
