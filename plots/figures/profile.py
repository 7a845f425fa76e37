"""profile: per comparison against the baseline, its functions that
changed most (analysis/sections/wherefrom.py TOP), ranked: kernel
instructions per op, B - A, with the interval; red when the function has
static-key sites. No data when the run has no profiles."""
from analysis.comparison import profile
from analysis.sections import wherefrom
from analysis.results.load import FormatError, log

from plots.common import num, q

FILES = ("profile_%d.dat", "profile_%d.labels", "profile.vars")
VARS = ("nprof", "ntop", "ptitle%d")

# Bar colours: a function with static-key sites, or not.
SITE_RGB, OTHER_RGB = 0xc03030, 0x4c72b0


def value_label(i, r):
    """The gnuplot label of bar i's value (row r of a profile Diff): at
    the end of its interval (or of the bar, without one) away from 0."""
    up = r["diff"] >= 0
    end = r["hi"] if up else r["lo"]
    x = r["diff"] if end != end else end
    where = "left offset char 1,0" if up else "right offset char -1,0"
    return "set label %s at first %s, first %d %s font \",9\"" % (
        q("%+.1f" % r["diff"]), num(x), i, where)


def data(run, out):
    try:
        diffs = profile.against_baseline(run.res)
    except FormatError as e:
        log("plots", "profile: %s" % e)
        return False
    for p, d in enumerate(diffs, 1):
        rows = [r for r in d.rows(wherefrom.TOP) if r["kind"] == "function"]
        out.write("profile_%d.dat" % p, ["%d %s %s %s %d %s" % (
            i, num(r["diff"]), num(r["lo"]), num(r["hi"]),
            SITE_RGB if r["sites"] else OTHER_RGB, q(r["name"]))
            for i, r in enumerate(rows, 1)] or ["NaN NaN NaN NaN 0 \"\""])
        out.write("profile_%d.labels" % p, [
            value_label(i, r) for i, r in enumerate(rows, 1)])
    out.write("profile.vars", ["nprof = %d" % len(diffs), "ntop = %d"
                               % wherefrom.TOP]
              + ["ptitle%d = %s" % (p, q("%s against %s: total %s per op" % (
                  d.b.label, d.a.label, wherefrom.fig(d.total["diff"], True))))
                 for p, d in enumerate(diffs, 1)])
    return bool(diffs)
