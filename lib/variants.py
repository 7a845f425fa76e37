#!/usr/bin/python3
"""What a kernel variant may be called, and the built-in variants' roles.

NAME matches a whole name (NAME.fullmatch): lower-case letters, digits, -
and _, the first a letter or a digit (jump-label, atomic-read, mine_2).
kernel-variants/variant.py takes a user variant's name by it and
analysis/results/reference.py (VARIANT_NAME) a results dir's baseline and
plots/prepare's --history-pair; tests/test_variant_spec.py fails on a
copy of it elsewhere.

The built-in variants are kernel-variants/variants/NAME.config, and their
record is kernel-variants/variants/variants.tsv beside them (RECORD): one
row per fragment, in the order reports list them (BUILTIN), with its
roles (ROLES says what each means; each is held by exactly one built-in)
and 2011's figures for it (KERNELS_2011). Everything else takes the
names from here (BASELINE, JUMP, ...), and tests/test_variant_spec.py
fails on a quoted built-in name elsewhere in the harness's Python. The
record is not a fragment: no build hash covers it.

  variants.py names        the built-in variants, one a line, report order
  variants.py role ROLE    the built-in variant that has ROLE

Exit codes: 0 ok; 2 usage error (an unknown ROLE included).
"""
import os
import re
import sys
from collections import namedtuple

NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAGMENTS = os.path.join(ROOT, "kernel-variants", "variants")
RECORD = os.path.join(FRAGMENTS, "variants.tsv")
COLUMNS = ("name", "roles", "mbps_2011", "words_2011", "what")
# role: what the built-in that has it is for.
ROLES = {
    "baseline": "the kernel every other one is compared with when a run "
                "names none (bench/run --baseline; lib/format/schema.py)",
    "baseline-2011": "the kernel 2011's % changes are against "
                     "(analysis/results/reference.py)",
    "jump": "the kernel with jump labels: its jump table's static-key "
            "sites are the ones counted (sites file, configs table, path "
            "keys), the KVM probe boots it, run_all.sh --s390x builds it",
    "plain": "our series' plain-read fallback: the configs table's second "
             "comparison with the baseline",
    "published-on": "JUMP_LABEL on in the kernel's published perf stat "
                    "table (analysis/models/published.py)",
    "published-off": "JUMP_LABEL off in that table",
    "default-on": "the built-in a user variant sits on when its spec has "
                  "no on: (kernel-variants/variant.py, bench/bisect --on)",
}
Builtin = namedtuple("Builtin", COLUMNS)


def read(path=RECORD):
    """The record's rows as Builtins (roles a tuple, mbps_2011 a float or
    None, words_2011 a str or None); ValueError when a line is not one."""
    rows = []
    with open(path) as f:
        lines = [(i, ln.rstrip("\n")) for i, ln in enumerate(f, 1)
                 if ln.strip() and not ln.startswith("#")]
    if not lines or tuple(lines[0][1].split("\t")) != COLUMNS:
        raise ValueError("%s: the first line that is no comment must be "
                         "the header %s" % (path, "<TAB>".join(COLUMNS)))
    for i, line in lines[1:]:
        cells = line.split("\t")
        where = "%s:%d" % (path, i)
        if len(cells) != len(COLUMNS):
            raise ValueError("%s: %d tab-separated cells, not %d"
                             % (where, len(cells), len(COLUMNS)))
        name, roles, mbps, words, what = [
            None if c == "-" else c for c in cells]
        if not name or not NAME.fullmatch(name):
            raise ValueError("%s: %r is not a variant name" % (where, name))
        roles = tuple(roles.split(",")) if roles else ()
        unknown = [r for r in roles if r not in ROLES]
        if unknown:
            raise ValueError("%s: unknown role %s (have: %s)" % (
                where, ", ".join(unknown), " ".join(ROLES)))
        try:
            mbps = None if mbps is None else float(mbps)
        except ValueError:
            raise ValueError("%s: mbps_2011 %r is not a number"
                             % (where, mbps)) from None
        rows.append(Builtin(name, roles, mbps, words, what))
    return rows


def problems(rows):
    """What is wrong with the record's rows as a whole: a name twice, a
    role held by no built-in or by several, JUMP_LABEL on and off one
    kernel, 2011's MB/s without its words or the other way round, a
    baseline without 2011's figures."""
    out = []
    names = [r.name for r in rows]
    out += ["%s: a row twice" % n for n in sorted(set(names))
            if names.count(n) > 1]
    for role in ROLES:
        have = [r.name for r in rows if role in r.roles]
        if len(have) != 1:
            out.append("role %s: held by %s, not by exactly one built-in"
                       % (role, " and ".join(have) or "none"))
    out += ["%s: both published-on and published-off" % r.name for r in rows
            if {"published-on", "published-off"} <= set(r.roles)]
    out += ["%s: 2011's MB/s and words go together" % r.name for r in rows
            if (r.mbps_2011 is None) != (r.words_2011 is None)]
    out += ["%s: a baseline (%s) without 2011's figures" % (
        r.name, ", ".join(b for b in r.roles if b.startswith("baseline")))
        for r in rows if r.mbps_2011 is None
        and {"baseline", "baseline-2011"} & set(r.roles)]
    return out


def holder(rows, role):
    """The name of the one row that has role."""
    return next(r.name for r in rows if role in r.roles)


ROWS = read()
_BAD = problems(ROWS)
if _BAD:
    raise ValueError("%s: %s" % (RECORD, "; ".join(_BAD)))
# The built-in variants, in the order reports list them.
BUILTIN = tuple(r.name for r in ROWS)
BASELINE = holder(ROWS, "baseline")
BASELINE_2011 = holder(ROWS, "baseline-2011")
JUMP = holder(ROWS, "jump")
PLAIN = holder(ROWS, "plain")
PUBLISHED_ON = holder(ROWS, "published-on")
PUBLISHED_OFF = holder(ROWS, "published-off")
DEFAULT_ON = holder(ROWS, "default-on")
# 2011's kernels: (variant, average MB/s, what the report calls it).
KERNELS_2011 = [(r.name, r.mbps_2011, r.words_2011) for r in ROWS
                if r.mbps_2011 is not None]


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if args == ["names"]:
        print("\n".join(BUILTIN))
    elif len(args) == 2 and args[0] == "role" and args[1] in ROLES:
        print(holder(ROWS, args[1]))
    else:
        sys.stderr.write("variants.py: usage error (roles: %s; see "
                         "variants.py --help)\n" % " ".join(ROLES))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
