"""lib/format/FORMATS.md's generated tables: python3 -m lib.format.formats

The tables of FORMATS.md are lib/format/schema.py's and
lib/format/outputs.py's formats_tables(). Each stands under a marker line
`<!-- schema: TITLE -->` and runs to the next empty line; the prose around
them is written by hand. With --write this rewrites every table under its
marker; with --check it exits 1, printing the difference, when FORMATS.md
is not what --write would make it (tests/test_formats.py checks the same);
without either it prints every marker and its table.

Exit codes: 0 done (--check: up to date); 1 FORMATS.md differs (--check)
or lacks a marker or has an unknown one; 2 usage error.
"""
import argparse
import difflib
import os
import re
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
from lib.format import outputs, schema  # noqa: E402

FORMATS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "FORMATS.md")
MARKER = re.compile(r"<!-- schema: (.+) -->")


def tables():
    """{title: Markdown table} of every generated table, in their order."""
    return {**schema.formats_tables(), **outputs.formats_tables()}


def marker(title):
    return "<!-- schema: %s -->" % title


def render(text, blocks=None):
    """text (FORMATS.md's) with the lines under each marker, up to the next
    empty line, replaced by its table. ValueError when a marker names no
    table, two name the same one, or a table has no marker."""
    blocks = tables() if blocks is None else blocks
    lines = text.split("\n")
    out, seen, i = [], [], 0
    while i < len(lines):
        out.append(lines[i])
        m = MARKER.fullmatch(lines[i])
        i += 1
        if not m:
            continue
        title = m.group(1)
        if title not in blocks:
            raise ValueError("%r names no generated table (have: %s)"
                             % (lines[i - 1], ", ".join(blocks)))
        if title in seen:
            raise ValueError("%r appears twice" % lines[i - 1])
        seen.append(title)
        while i < len(lines) and lines[i].strip():
            i += 1
        out += blocks[title].split("\n")
    missing = [marker(t) for t in blocks if t not in seen]
    if missing:
        raise ValueError("no line %s: put each where its table belongs"
                         % ", ".join(missing))
    return "\n".join(out)


def parser(doc, name, path, prog=None):
    """The command line of a generated document's command (this module's
    and lib/store/docs.py's): its text from doc (the module's docstring),
    --write, --check and --file (default: path, shown as name)."""
    ap = argparse.ArgumentParser(
        prog=prog, description=doc.split("\n\n")[1],
        epilog=doc.split("\n\n")[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--write", action="store_true",
                     help="rewrite %s's tables" % os.path.basename(name))
    how.add_argument("--check", action="store_true",
                     help="exit 1 when %s's tables are not these"
                     % os.path.basename(name))
    ap.add_argument("--file", default=path,
                    help="the file (default: %s)" % name)
    return ap


def main(argv=None):
    args = parser(__doc__, "lib/format/FORMATS.md", FORMATS).parse_args(argv)
    return sync(args, tables(), "formats", "lib.format.formats")


def sync(args, blocks, who, module):
    """The --write / --check / print step of a generated document (this
    module's and lib/store/docs.py's): args.file's tables under their
    markers against blocks; the exit code. who names the program in its
    messages, module the command that rewrites the file."""
    if not (args.write or args.check):
        for title, table in blocks.items():
            print("%s\n%s\n" % (marker(title), table))
        return 0
    with open(args.file) as f:
        text = f.read()
    try:
        new = render(text, blocks)
    except ValueError as e:
        print("%s: %s: %s" % (who, args.file, e), file=sys.stderr)
        return 1
    if args.check:
        if new == text:
            return 0
        sys.stderr.writelines(difflib.unified_diff(
            text.splitlines(True), new.splitlines(True), args.file,
            "generated"))
        print("%s: %s is out of date: python3 -m %s --write"
              % (who, args.file, module), file=sys.stderr)
        return 1
    if new != text:
        tmp = args.file + ".tmp"
        with open(tmp, "w") as f:
            f.write(new)
        os.replace(tmp, args.file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
