"""Exact counts per loop iteration of the static-key module's loops.

kernel-variants/module's jlbench_static_key runs each of its three loops
(empty; guarded by a disabled key; by an enabled key) once with
`count_iters` iterations and once with twice as many, each run between the
region markers of its own id (REGIONS below), with interrupts off. The
branch-count plugin (bench/plugin/README.md, "Regions") reports per region
the instructions and conditional branches executed between its markers.
A loop's count per iteration is (R(2n) - R(n)) / n: the call, the loop's
entry and exit and the markers are the same in both runs and cancel. (The
module's other loops, regions 7..12, have known answers under the plugin's
modelled hardware: bench/model/knownanswers.py, which shares parse().)

The figure is written only when it is exact: both regions closed exactly
once with no unbalanced marker, the difference a non-negative multiple of
n, and the run of n no smaller than n iterations' worth. Otherwise the cell
says `not-counted` (a region missing, not closed once, no plugin) or
`not-exact` (the arithmetic does not come out whole), and a `count.note`
row says why: never a number that was not measured.
"""
import re

# loop -> region id of its run of n iterations (id + 1: 2n iterations);
# fixed in kernel-variants/module/bench.c.
REGIONS = (("empty", 1), ("off", 3), ("on", 5))
FIGURES = ("branches", "insns")
SOURCE = "TCG plugin, icount (exact)"
MODULE = "jlbench_static_key"
NOT_COUNTED = "not-counted"
NOT_EXACT = "not-exact"

_KEY = re.compile(r"region\.(\d+)\.([a-z][a-z0-9_]*)")


def names():
    """The selftest.csv names of the per-iteration figures, in order."""
    return ["count.%s_%s_per_iter" % (loop, fig)
            for fig in FIGURES for loop, _ in REGIONS]


def parse(text):
    """{region id: {field: int}} from a plugin report's region.<id>.*
    lines. Raises ValueError on a malformed region line."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        key, sep, value = line.strip().partition("=")
        m = _KEY.fullmatch(key)
        if not m:
            continue
        value = value.strip()
        if value == NOT_COUNTED:
            v = value
        else:
            try:
                v = int(value)
            except ValueError:
                raise ValueError("line %d: %s is not an integer: %r"
                                 % (n, key, value)) from None
        out.setdefault(int(m.group(1)), {})[m.group(2)] = v
    return out


def region_problem(regions, rid, fields):
    """Why region rid's fields cannot be used (None when they can): it
    must have been closed exactly once, with no unbalanced marker, and
    have each field as an integer."""
    r = regions.get(rid)
    if r is None:
        return "region %d: no markers executed" % rid
    for f in ("closed", "unbalanced") + tuple(fields):
        if f not in r:
            return "region %d: the report has no %s" % (rid, f)
        if not isinstance(r[f], int):
            return "region %d: %s is %s" % (rid, f, r[f])
    if r["closed"] != 1 or r["unbalanced"] != 0:
        return "region %d: closed %d times with %d unbalanced markers " \
            "(expected 1 and 0)" % (rid, r["closed"], r["unbalanced"])
    return None


def count_iters(block):
    """(n, None), or (None, problem): the module's count_iters from the
    agent's result block."""
    n = block.get("selftest.%s.count_iters" % MODULE)
    if n is None or not n.isdigit() or int(n) == 0:
        return None, "the module printed no count_iters"
    return int(n), None


def per_iter(regions, rid, n, fig):
    """(value, problem) of one loop's figure from regions rid and rid + 1:
    an int and None, or not-counted / not-exact and the reason."""
    for r in (rid, rid + 1):
        problem = region_problem(regions, r, FIGURES)
        if problem:
            return NOT_COUNTED, problem
    one, two = regions[rid][fig], regions[rid + 1][fig]
    d = two - one
    if d < 0 or d % n:
        return NOT_EXACT, "%s: region %d - region %d = %d, not a " \
            "non-negative multiple of count_iters %d" % (
                fig, rid + 1, rid, d, n)
    if one < d:
        return NOT_EXACT, "%s: region %d (%d) is less than n iterations " \
            "(%d)" % (fig, rid, one, d)
    return d // n, None


def rows(variant, block, report_text, why_not=None):
    """selftest.csv rows (variant, name, value) of the count runs.

    block: the agent's result block (for count_iters); report_text: the
    plugin report, or None with why_not saying why there is none."""
    problems = []
    regions = None
    n, no_n = count_iters(block)
    if report_text is None:
        problems.append(why_not or "no plugin report")
    elif no_n:
        problems.append(no_n)
    else:
        try:
            regions = parse(report_text)
        except ValueError as e:
            problems.append("plugin report: %s" % e)
    values = {}
    for fig in FIGURES:
        for loop, rid in REGIONS:
            name = "count.%s_%s_per_iter" % (loop, fig)
            if regions is None:
                values[name] = NOT_COUNTED
                continue
            value, problem = per_iter(regions, rid, n, fig)
            values[name] = str(value)
            if problem and problem not in problems:
                problems.append(problem)
    counted = any(v not in (NOT_COUNTED, NOT_EXACT) for v in values.values())
    out = [(variant, "count.source", SOURCE if counted else NOT_COUNTED)]
    out += [(variant, name, values[name]) for name in names()]
    if problems:
        out.append((variant, "count.note", "; ".join(problems)))
    return out
