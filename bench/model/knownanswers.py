"""The modelled hardware's known answers: events per iteration of the
static-key module's loops under the plugin's model, and their bounds.

With model=on the branch-count plugin (bench/plugin/README.md, "Model")
also runs a gshare branch predictor with a BTB and L1 instruction and data
caches over the guest's execution, and reports their events per region
(`region.<id>.mispredicts`, `.l1d_misses`, ...). The module's count runs
(kernel-variants/module/bench.c) run each loop with n = count_iters
iterations in one region and 2n in the next, each after three warm-up
runs of n (bench.c, warm_up()), so (R(2n) - R(n)) / n is the loop's
steady-state figure per iteration.
Unlike the exact counts of bench/model/regions.py it is a float: a branch on a
random bit is not mispredicted a whole number of times per iteration.

Some loops have a known answer (ANSWERS): a branch that always goes the
same way is mispredicted about never once warmed up (the key-off and
key-on loops; in the fallback kernels their check is a real Jcc), a
branch on a pseudo-random bit about half the time, loads striding a line
at a time over twice the L1D miss about once each, over a buffer that
fits about never. The random loop runs RANDOM_BRANCHES such branches per
iteration, each on its own bit, and its own loop branch: about 16
mispredictions per iteration, 14.4..17.6 (0.45..0.55 per random branch).
No predictor state makes a random branch go right more or less than half
the time, so the figure holds on every code layout; the loop branch, the
one that aliasing in gshare's counters can spoil, adds at most 1 (with
one random branch per iteration it added about 0.5 on one build's layout,
a figure of 0.998 instead of about 0.5: bench.c, jlb_bench_random).

bench/selftest loads the plugin with PLUGIN_ARGS and writes rows() into
selftest.csv: one figure per loop, the model's parameters, and
`model.known_answers` PASS when every answer is within its bound, FAIL
when one is not (`model.note` names it). A figure the report does not
hold (no model keys: an older plugin, no plugin; a region not closed
once) is `not-counted`, and so is the verdict when no answer failed but
one could not be checked: never a number that was not measured.
"""
from collections import namedtuple

from bench.model import regions
from lib import model

# The plugin arguments of a selftest boot: the model with the defaults of
# lib/model.py (the bounds of ANSWERS assume its 32 KiB L1D and 64-byte
# lines), without key words (the module's key has a run-time address).
PLUGIN_ARGS = model.plugin_args(model.meta(model.settings(())))
NOT_COUNTED = regions.NOT_COUNTED
SOURCE = "TCG plugin model (model=on), icount"


class Bound(namedtuple("Bound", "lo hi hi_open")):
    """lo <= value <= hi (value < hi when hi_open)."""

    def holds(self, value):
        return self.lo <= value and (value < self.hi if self.hi_open
                                     else value <= self.hi)

    def __str__(self):
        if self.hi_open:
            return "%g <= x < %g" % (self.lo, self.hi)
        return "%g..%g" % (self.lo, self.hi)


ABOUT_NEVER = Bound(0.0, 0.01, True)
# Branches on random bits per iteration of the random loop: bench.c's
# JLB_RANDOM_BRANCHES. Each is mispredicted about half the time, so the
# loop about RANDOM_BRANCHES / 2 times per iteration, and its own branch
# at most once more (at most 0.031 per random branch).
RANDOM_BRANCHES = 32
ABOUT_HALF_EACH = Bound(0.45 * RANDOM_BRANCHES, 0.55 * RANDOM_BRANCHES,
                        False)

# name (selftest.csv: model.<name>_per_iter), the region of the loop's run
# of n iterations, the plugin's region field, the known answer (None: a
# figure shown with the others, not checked). Regions: bench.c's table.
Figure = namedtuple("Figure", "name region field answer")
FIGURES = (
    Figure("off_mispredicts", 3, "mispredicts", ABOUT_NEVER),
    Figure("on_mispredicts", 5, "mispredicts", ABOUT_NEVER),
    Figure("random_mispredicts", 7, "mispredicts", ABOUT_HALF_EACH),
    Figure("stride_big_l1d_misses", 9, "l1d_misses",
           Bound(0.95, 1.05, False)),
    Figure("stride_fit_l1d_misses", 11, "l1d_misses", ABOUT_NEVER),
    Figure("stride_big_l1d_accesses", 9, "l1d_accesses", None),
    Figure("stride_fit_l1d_accesses", 11, "l1d_accesses", None),
)
ANSWERS = tuple(f for f in FIGURES if f.answer)
# The report's model keys that say which model ran, as model.params shows.
PARAMS = (("l1i", "model_l1i"), ("l1d", "model_l1d"), ("bp", "model_bp"),
          ("btb", "model_btb"))


def names():
    """The selftest.csv names of the rows, in order (model.note only when
    something is not counted or failed)."""
    return (["model.source", "model.params"] +
            ["model.%s_per_iter" % f.name for f in FIGURES] +
            ["model.known_answers"])


def header(text):
    """{key: value} of the report's top-level model* lines."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and (key == "model" or key.startswith("model_")):
            out[key] = value.strip()
    return out


def per_iter(parsed, fig, n):
    """(float, None) or (None, why not) of one figure."""
    for rid in (fig.region, fig.region + 1):
        problem = regions.region_problem(parsed, rid, (fig.field,))
        if problem:
            return None, problem
    one = parsed[fig.region][fig.field]
    two = parsed[fig.region + 1][fig.field]
    return (two - one) / n, None


def figures(block, report_text, why_not=None):
    """({figure name: float or None}, params or None, problems)."""
    values = {f.name: None for f in FIGURES}
    n, no_n = regions.count_iters(block)
    if report_text is None:
        return values, None, [why_not or "no plugin report"]
    model = header(report_text)
    if model.get("model") != "on":
        return values, None, ["the plugin report has no model figures "
                              "(model=on)"]
    params = " ".join("%s=%s" % (name, model.get(key, "?"))
                      for name, key in PARAMS)
    if no_n:
        return values, params, [no_n]
    try:
        parsed = regions.parse(report_text)
    except ValueError as e:
        return values, params, ["plugin report: %s" % e]
    problems = []
    for f in FIGURES:
        values[f.name], problem = per_iter(parsed, f, n)
        if problem and problem not in problems:
            problems.append(problem)
    return values, params, problems


def verdict(values):
    """(PASS / FAIL / not-counted, [what failed or was not counted])."""
    failed, missing = [], []
    for f in ANSWERS:
        v = values[f.name]
        if v is None:
            missing.append("model.%s_per_iter" % f.name)
        elif not f.answer.holds(v):
            failed.append("model.%s_per_iter %s is outside %s"
                          % (f.name, fmt(v), f.answer))
    if failed:
        return "FAIL", failed
    if missing:
        return NOT_COUNTED, ["%s not counted" % ", ".join(missing)]
    return "PASS", []


def fmt(value):
    """A figure's cell: 4 decimals, or not-counted."""
    return NOT_COUNTED if value is None else "%.4f" % value


def rows(variant, block, report_text, why_not=None):
    """selftest.csv rows (variant, name, value) of the model's figures.

    block: the agent's result block (for count_iters); report_text: the
    plugin report, or None with why_not saying why there is none."""
    values, params, problems = figures(block, report_text, why_not)
    answer, why = verdict(values)
    counted = any(v is not None for v in values.values())
    out = [(variant, "model.source", SOURCE if counted else NOT_COUNTED),
           (variant, "model.params", params or NOT_COUNTED)]
    out += [(variant, "model.%s_per_iter" % f.name, fmt(values[f.name]))
            for f in FIGURES]
    out.append((variant, "model.known_answers", answer))
    note = why + [p for p in problems if p not in why]
    if note:
        out.append((variant, "model.note", "; ".join(note)))
    return out
