#!/usr/bin/python3
"""Kconfig fragment helpers for kernel-variants/build.

  kconfig.py check DOTCONFIG FRAGMENT...   exit 1 and list every symbol the
                                           fragments request that .config lacks
  kconfig.py distro CONFIG FRAGMENT...     CONFIG (a distribution's .config)
                                           with every =m turned off unless a
                                           FRAGMENT asks for it, and the
                                           FRAGMENTs' values put in
  kconfig.py hash FILE... [--text S]...    content hash of files and strings

merge_config.sh only warns when a requested value does not survive the
merge; this makes that an error. As in merge_config.sh, a symbol that
several fragments set is requested with the value of the last of them.
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


def requested(fragments):
    """{symbol: (value, fragment)}: what the (path, text) fragments ask
    for, merged in order, so that a later fragment's value wins."""
    out = {}
    for path, text in fragments:
        for sym, value in parse(text).items():
            out[sym] = (value, path)
    return out


def unmet(fragments, final):
    """[(fragment, symbol, wanted, got)]: the values the (path, text)
    fragments request (requested()) that final lacks."""
    want = requested(fragments)
    return [(want[sym][1], sym, value, got) for sym, value, got in
            missing({s: v for s, (v, _) in want.items()}, final)]


def built_in_only(config, fragments):
    """The text of a full .config with each =m turned off unless requested
    (a kernel with only what is built in) and every requested value of the
    (path, text) fragments in place of the config's own."""
    want = {sym: v for sym, (v, _) in requested(fragments).items()}
    lines = []
    for line in config.splitlines():
        m = SET_RE.match(line) or UNSET_RE.match(line)
        sym = m.group(1) if m else None
        if sym in want:
            line = setting(sym, want.pop(sym))
        elif m and line.endswith("=m"):
            line = setting(sym, "n")
        lines.append(line)
    lines += [setting(sym, v) for sym, v in want.items()]
    return "\n".join(lines) + "\n"


def setting(sym, value):
    """The .config line that gives sym value ('n': not set)."""
    return "# %s is not set" % sym if value == "n" else "%s=%s" % (sym, value)


def content_hash(parts, length=16):
    """Hash a sequence of bytes/str parts, each length-prefixed."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, str):
            p = p.encode()
        h.update(b"%d:" % len(p))
        h.update(p)
    return h.hexdigest()[:length]


def read_all(paths):
    """[(path, text)] of the files at paths."""
    out = []
    for path in paths:
        with open(path) as f:
            out.append((path, f.read()))
    return out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "check" and len(argv) >= 4:
        with open(argv[2]) as f:
            final = parse(f.read())
        bad = unmet(read_all(argv[3:]), final)
        for frag, sym, want, got in bad:
            print("%s: %s=%s requested, .config has %s"
                  % (frag, sym, want, got))
        return 1 if bad else 0
    if argv[1] == "distro" and len(argv) >= 3:
        with open(argv[2]) as f:
            config = f.read()
        sys.stdout.write(built_in_only(config, read_all(argv[3:])))
        return 0
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
