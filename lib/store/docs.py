"""docs/store.md's tables, generated from lib/store/schema.py:
python3 -m lib.store.docs

Each table of the store is a Markdown table of docs/store.md: a line with
its name and what a row is, a line per column (its type and meaning), a
line with its keys. With --write this rewrites each under its marker line
`<!-- schema: store TABLE -->` (up to the next empty line: the rule of
lib/format/formats.py, whose render() it uses; the prose around them is
written by hand); with --check it exits 1, printing the difference, when
docs/store.md is not what --write would make it (tests/test_store.py
checks the same); --ddl BACKEND prints the DDL of sqlite or postgresql.

Exit codes: 0 done (--check: up to date); 1 docs/store.md differs
(--check) or lacks a marker, or has one naming no table; 2 usage error.
"""
import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
from lib import ROOT  # noqa: E402
from lib.format import formats  # noqa: E402
from lib.store import schema  # noqa: E402

DOC = os.path.join(ROOT, "docs", "store.md")


def doc_tables():
    """{marker title: Markdown table} of every table: its name and line,
    then a line per column."""
    out = {}
    for t in schema.TABLES:
        rows = [["`%s` (%s)" % (c.name, c.type), c.doc] for c in t.columns]
        key = t.key or ("id",)
        rows.append(["key", ", ".join("`%s`" % k for k in key) + "".join(
            "; unique " + ", ".join("`%s`" % k for k in u)
            for u in t.unique)])
        out["store " + t.name] = "\n".join(
            ["| `%s` | %s |" % (t.name, t.doc), "|---|---|"]
            + ["| %s | %s |" % tuple(r) for r in rows])
    return out


def render(text):
    """docs/store.md's text with every table rewritten from schema.TABLES
    (lib/format/formats.py's rule: a marker line, then the table up to the
    next empty line)."""
    return formats.render(text, doc_tables())


def main(argv=None):
    ap = formats.parser(__doc__, "docs/store.md", DOC,
                        prog="python3 -m lib.store.docs")
    ap.add_argument("--ddl", choices=schema.DIALECTS,
                    help="print the DDL of a backend instead")
    args = ap.parse_args(argv)
    if args.ddl:
        print(";\n".join(schema.ddl(args.ddl)) + ";")
        return 0
    return formats.sync(args, doc_tables(), "store", "lib.store.docs")


if __name__ == "__main__":
    sys.exit(main())
