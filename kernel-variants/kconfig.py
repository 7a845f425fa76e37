#!/usr/bin/python3
"""Kconfig fragment helpers for kernel-variants/build.

  kconfig.py check DOTCONFIG FRAGMENT...   exit 1 and list every symbol a
                                           fragment requests that .config lacks
  kconfig.py hash FILE... [--text S]...    content hash of files and strings

merge_config.sh only warns when a requested value does not survive the
merge; this makes that an error.
"""
import hashlib
import re
import sys

SET_RE = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
UNSET_RE = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


def parse(text):
    """Return {symbol: value} for a .config or fragment; unset is 'n'."""
    values = {}
    for line in text.splitlines():
        line = line.strip()
        m = SET_RE.match(line)
        if m:
            values[m.group(1)] = m.group(2)
            continue
        m = UNSET_RE.match(line)
        if m:
            values[m.group(1)] = "n"
    return values


def missing(requested, final):
    """List (symbol, wanted, got) for requested values not in final."""
    out = []
    for sym, want in requested.items():
        got = final.get(sym, "n")
        if got != want:
            out.append((sym, want, got))
    return out


def content_hash(parts, length=16):
    """Hash a sequence of bytes/str parts, each length-prefixed."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, str):
            p = p.encode()
        h.update(b"%d:" % len(p))
        h.update(p)
    return h.hexdigest()[:length]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "check" and len(argv) >= 4:
        with open(argv[2]) as f:
            final = parse(f.read())
        bad = []
        for frag in argv[3:]:
            with open(frag) as f:
                bad += [(frag,) + m for m in missing(parse(f.read()), final)]
        for frag, sym, want, got in bad:
            print("%s: %s=%s requested, .config has %s"
                  % (frag, sym, want, got))
        return 1 if bad else 0
    if argv[1] == "hash":
        parts, args = [], argv[2:]
        while args:
            if args[0] == "--text" and len(args) > 1:
                parts.append(args[1])
                args = args[2:]
                continue
            with open(args[0], "rb") as f:
                parts.append(f.read())
            args = args[1:]
        print(content_hash(parts))
        return 0
    print("usage error: see kconfig.py --help", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
