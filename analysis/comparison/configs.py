"""Kernel configs, and kernel versions, side by side: does the effect
grow with the static keys on the path?

The same experiment on kernels of another base config (kernel-variants/
build --config: full, distro, smoke), or of another Linux version
(--source: 6.1, 6.12), is another results dir. REPORT.md sets the run it
comes from beside the newest analysed run of each other config (of its
Linux version), and of each other version (of its config), under the same
results/ dir, of the same accelerator, clients and run length, so that every
figure of the tables is one of those runs' stats.json and build.json, and
links to each. Only runs of the built-in kernels against atomic-read
(runinfo.with_2011) are set side by side: the tables are about jump
labels. The figures are here; analysis/sections/configs.py writes the
sections.
"""
import os
from collections import namedtuple

from analysis.results.load import read_builds
from analysis.results.metrics import missing
from analysis.results.peers import analysed
from analysis.results.runinfo import (comparisons, linux_of, metric, proto,
                                      with_2011)
from lib import variants

JUMP = variants.JUMP


def config_of(builds):
    """The one base config of a run's builds ({variant: build.json}), or
    None when none says or they mix configs."""
    configs = {b.get("config") for b in builds.values()}
    return configs.pop() if len(configs) == 1 else None


# What the runs set side by side differ in: of(builds) is a run's value
# (None: it has none), fixed(builds) what must be the same for them to be
# set side by side; cell(value) names the value in tables and text, under
# the table's column heading column.
Axis = namedtuple("Axis", "of fixed cell column")
CONFIGS = Axis(config_of, linux_of, lambda c: "`%s`" % c, "config")
VERSIONS = Axis(linux_of, config_of, lambda v: "Linux %s" % v, "version")


def _protocol(meta, st):
    return (st.get("accel"), proto(meta, "clients"), proto(meta, "seconds"))


def peers(res, st, axis):
    """[(value, path, stats, builds)]: this run, then the newest analysed
    run of each other value of axis under its parent dir with its
    protocol (and its value of the other axis)."""
    mine = axis.of(res.builds)
    if mine is None:
        return []
    fixed = axis.fixed(res.builds)
    out = [(mine, res.path, st, res.builds)]
    want = _protocol(res.meta, st)
    seen = {mine}
    for path, meta, other in analysed(os.path.dirname(res.path),
                                      but=res.path):
        if not with_2011(other):
            continue
        builds = read_builds({i["variant"] for i in other.get("labels", [])},
                             meta)
        value = axis.of(builds)
        if value is None or value in seen or axis.fixed(builds) != fixed \
                or _protocol(meta, other) != want:
            continue
        seen.add(value)
        out.append((value, path, other, builds))
    return out


def _mean(st, name, label):
    m = metric(st, name)
    d = (m or {}).get("per_label", {}).get(label)
    return None if not d or missing(d["mean"]) else d["mean"]


def _change(st, label):
    """The headline's comparison of label with the baseline, or None."""
    m = metric(st, st["headline"])
    return comparisons(m, "main").get(label) if m else None


def gain_difference(a, b):
    """(b - a, half-width of its approximate 95% CI) of two comparisons of
    independent runs: the half-widths of their CIs combined in quadrature.
    None when either lacks a CI."""
    try:
        ha = (a["pct_ci_hi"] - a["pct_ci_lo"]) / 2.0
        hb = (b["pct_ci_hi"] - b["pct_ci_lo"]) / 2.0
        d = b["pct_change"] - a["pct_change"]
    except (KeyError, TypeError):
        return None
    if any(missing(x) for x in (ha, hb, d)):
        return None
    return d, (ha * ha + hb * hb) ** 0.5


def figures(st, builds):
    """What a run's row and its sentence of the summary say: jump-label's
    static-key site executions and kernel instructions per operation,
    sites per 1,000 instructions, the instructions atomic reads add per
    operation ("saved"), the jump table's entries and the headline's
    comparisons of jump-label and plain-read with the baseline."""
    base = st["baseline"]
    sites = _mean(st, "site_execs_per_op", JUMP)
    insns = {lab: _mean(st, "kernel_insns_per_op", lab)
             for lab in (JUMP, base)}
    saved = None if None in insns.values() else insns[base] - insns[JUMP]
    return {
        "sites": sites, "insns": insns[JUMP], "saved": saved,
        "density": sites * 1000.0 / insns[JUMP]
        if sites and insns[JUMP] else None,
        "entries": ((builds.get(JUMP) or {}).get("verify") or {}).get(
            "jump_table", {}).get("entries"),
        "gain": _change(st, JUMP), "plain_gain": _change(st, variants.PLAIN)}
