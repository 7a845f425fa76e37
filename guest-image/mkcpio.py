#!/usr/bin/python3
"""mkcpio.py: reproducible newc cpio archives for the jlbench initramfs.

Usage:
  mkcpio.py hash SPEC [EXTRA_FILE...]   print the content hash of SPEC
  mkcpio.py write SPEC OUT              write the (uncompressed) archive
  mkcpio.py banner VMLINUX SYSTEM_MAP   print the kernel's /proc/version text

SPEC has one entry a line, fields separated by tabs (gen_init_cpio's
vocabulary):
  dir    PATH MODE
  file   PATH MODE SOURCE
  nod    PATH MODE c|b MAJOR MINOR
  slink  PATH MODE TARGET
PATH is the absolute path inside the archive, MODE octal permissions.

The archive is reproducible: entries sorted by path, inode numbers in that
order, owner 0:0, every mtime SOURCE_DATE_EPOCH (default 0). Every parent
directory must be listed. The hash covers each entry's path, type, mode and
content (never the host path of a SOURCE), the SOURCE_DATE_EPOCH, this
script and any EXTRA_FILE (the build script), so it changes exactly when the
archive would. Exit codes: 0 ok, 1 bad input, 2 usage.
"""
import hashlib
import os
import re
import stat
import struct
import sys

TYPES = {"dir": (3, stat.S_IFDIR), "file": (4, stat.S_IFREG),
         "nod": (6, None), "slink": (4, stat.S_IFLNK)}


class SpecError(Exception):
    """A malformed SPEC line or a missing SOURCE."""


def parse_spec(path):
    """Read SPEC into a list of entry dicts sorted by archive path."""
    entries = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            kind = fields[0]
            if kind not in TYPES or len(fields) != TYPES[kind][0]:
                raise SpecError("%s:%d: bad entry %r" % (path, n, line))
            name, mode = fields[1], fields[2]
            if not name.startswith("/") or name != os.path.normpath(name) \
                    or name == "/":
                raise SpecError("%s:%d: bad path %r" % (path, n, name))
            if not re.fullmatch(r"[0-7]{3,4}", mode):
                raise SpecError("%s:%d: bad mode %r" % (path, n, mode))
            if name in entries:
                raise SpecError("%s:%d: %s listed twice" % (path, n, name))
            e = {"kind": kind, "path": name, "mode": int(mode, 8)}
            if kind == "file":
                e["source"] = fields[3]
                if not os.path.isfile(fields[3]):
                    raise SpecError("%s:%d: no such file %s"
                                    % (path, n, fields[3]))
            elif kind == "slink":
                e["target"] = fields[3]
            elif kind == "nod":
                if fields[3] not in ("c", "b") or \
                        not fields[4].isdigit() or not fields[5].isdigit():
                    raise SpecError("%s:%d: bad device %r" % (path, n, line))
                e["dev"] = (fields[3], int(fields[4]), int(fields[5]))
            entries[name] = e
    for name in entries:
        parent = os.path.dirname(name)
        if parent != "/" and entries.get(parent, {}).get("kind") != "dir":
            raise SpecError("%s: parent directory of %s is not listed"
                            % (path, name))
    return [entries[k] for k in sorted(entries)]


def epoch():
    """SOURCE_DATE_EPOCH as an int (0 when unset)."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "0")
    if not value.isdigit():
        raise SpecError("SOURCE_DATE_EPOCH=%r is not an integer" % value)
    return int(value)


def content(e):
    """The bytes an entry stores as its data."""
    if e["kind"] == "file":
        with open(e["source"], "rb") as f:
            return f.read()
    if e["kind"] == "slink":
        return e["target"].encode()
    return b""


def spec_hash(entries, extra):
    """Hex digest over everything that determines the archive's bytes."""
    h = hashlib.sha256()
    h.update(b"jlbench-cpio-1\0%d\0" % epoch())
    for path in [os.path.abspath(__file__)] + extra:
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    for e in entries:
        dev = "%s:%d:%d" % e["dev"] if e["kind"] == "nod" else ""
        h.update(("%s\0%s\0%o\0%s\0" % (e["kind"], e["path"], e["mode"],
                                        dev)).encode())
        h.update(hashlib.sha256(content(e)).digest())
    return h.hexdigest()


def header(ino, mode, nlink, mtime, size, rdev, name):
    """One newc header plus the padded name."""
    fields = [ino, mode, 0, 0, nlink, mtime, size, 0, 0, rdev[0], rdev[1],
              len(name) + 1, 0]
    head = b"070701" + b"".join(b"%08X" % v for v in fields)
    data = head + name + b"\0"
    return data + b"\0" * (-len(data) % 4)


def write(entries, out):
    """Write the newc archive to the file `out`."""
    mtime = epoch()
    with open(out, "wb") as f:
        for ino, e in enumerate(entries, 1):
            rdev = (0, 0)
            if e["kind"] == "nod":
                kind, major, minor = e["dev"]
                ftype = stat.S_IFCHR if kind == "c" else stat.S_IFBLK
                rdev = (major, minor)
            else:
                ftype = TYPES[e["kind"]][1]
            data = content(e)
            nlink = 2 if e["kind"] == "dir" else 1
            f.write(header(ino, ftype | e["mode"], nlink, mtime, len(data),
                           rdev, e["path"][1:].encode()))
            f.write(data + b"\0" * (-len(data) % 4))
        f.write(header(0, 0, 1, 0, 0, (0, 0), b"TRAILER!!!"))


def symbol_address(system_map, name):
    """The address of symbol `name` in a System.map."""
    with open(system_map, encoding="ascii", errors="replace") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 3 and fields[2] == name:
                return int(fields[0], 16)
    raise SpecError("%s: no symbol %s" % (system_map, name))


def read_cstring(elf, vaddr):
    """The NUL-terminated string at virtual address vaddr of an ELF64 file
    of either byte order (x86_64 is little-endian, s390x big-endian)."""
    if elf[:5] != b"\x7fELF\x02" or elf[5] not in (1, 2):
        raise SpecError("not a 64-bit ELF file")
    order = "<" if elf[5] == 1 else ">"
    shoff, = struct.unpack_from(order + "Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from(order + "HH", elf, 0x3a)
    for i in range(shnum):
        sh_type, _, addr, offset, size = struct.unpack_from(
            order + "IQQQQ", elf, shoff + i * shentsize + 4)
        if sh_type == 1 and addr <= vaddr < addr + size:  # PROGBITS
            start = offset + vaddr - addr
            return elf[start:elf.index(b"\0", start)]
    raise SpecError("address %#x is in no section" % vaddr)


def banner(vmlinux, system_map):
    """linux_banner of a vmlinux: the text its /proc/version prints."""
    with open(vmlinux, "rb") as f:
        elf = f.read()
    text = read_cstring(elf, symbol_address(system_map, "linux_banner"))
    if not text.startswith(b"Linux version ") or not text.endswith(b"\n"):
        raise SpecError("%s: linux_banner is %r" % (vmlinux, text[:80]))
    return text.decode()


def main(argv):
    if len(argv) >= 3 and argv[1] == "hash":
        print(spec_hash(parse_spec(argv[2]), argv[3:]))
    elif len(argv) == 4 and argv[1] == "write":
        write(parse_spec(argv[2]), argv[3])
    elif len(argv) == 4 and argv[1] == "banner":
        sys.stdout.write(banner(argv[2], argv[3]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (SpecError, OSError) as exc:
        sys.stderr.write("mkcpio.py: error: %s\n" % exc)
        sys.exit(1)
