"""The analysis outputs' format: the columns of summary.csv and history.csv
and stats.json's layout version and top-level keys.

analysis/analyze writes them (analysis/stats/analyze.py SUMMARY_COLUMNS and
analysis/results/history.py COLUMNS are these lists), lib/format/FORMATS.md
shows them (`python3 -m lib.format.formats --write` renders the tables of
formats_tables() there) and tests/test_formats.py checks that the files
analysis writes, and the committed ones, have these columns and keys and
no value outside a column's closed set.
"""
import itertools
from collections import namedtuple

from lib import arch
from lib.format import schema

# A column of summary.csv or history.csv. values: {value: meaning} when
# its values are a closed set ("" an empty cell; meaning "" when the value
# says it all), else None.
Column = namedtuple("Column", "name doc values", defaults=(None,))


# method: the test of p_t (stats.json comparisons' `test_t`, by the rule
# of the comparison: analysis/stats/analyze.py compare()).
METHOD = {
    "sign test": "icount: exact sign test of the per-seed changes (an A/A "
                 "twin: per round)",
    "Welch t": "kvm, tcg (and icount with fewer than 2 pairs): Welch's t "
               "test of independent boots",
    "": "no comparison (the baseline's rows; a label without numbers)",
}
# methods of files analysed before issue 30, which committed dirs still
# hold: icount's runs were then compared by a paired t test.
OLD_METHOD = {
    "paired t": "icount, analysed before issue 30: paired t test by seed",
}
MARKER = {
    "***": "p_t < 0.001", "**": "p_t < 0.01", "*": "p_t < 0.05",
    "~": "not significant", "?": "significant without a p_t",
    "": "no comparison",
}
GROUP = {
    "main": "a label equal to its variant, against the baseline",
    "aa": "the A/A control: a twin (`<variant>.aa`) against its variant's "
          "label, `B` against `A`",
}
# A counter's text when no run has a number: the sorted markers of its
# runs, "/"-joined.
TEXT = {"": "the label has numbers (or none and no marker)"}
TEXT.update(("/".join(c), "") for n in range(1, len(schema.NOT_MEASURED) + 1)
            for c in itertools.combinations(sorted(schema.NOT_MEASURED), n))

_LABEL = [
    Column("group", "the label's group", GROUP),
    Column("label", "runs.csv `label`"),
    Column("variant", "its kernel variant"),
]
_COMPARISON = [
    Column("baseline", "the label it is compared with, empty when none"),
    Column("pct_change", "% change against the baseline (icount: median of "
           "the per-seed changes; kvm, tcg: of the means)"),
    Column("pct_ci_lo", "its 95% interval (icount: the median's "
           "distribution-free one; kvm, tcg: Fieller's of the ratio of "
           "means)"),
    Column("pct_ci_hi", "(upper end)"),
    Column("method", "the test of `p_t`", {**METHOD, **OLD_METHOD}),
    Column("p_t", "two-sided p of `method`"),
]
_MARKER = Column("marker", "significance marker (stats.json "
                 "`methods.marker`): from `p_t`, on comparisons the rule "
                 "calls significant", MARKER)

SUMMARY = [
    *_LABEL,
    Column("accel", "runs.csv `accel`", {m: "" for m in schema.RUN_ACCELS}),
    Column("metric", "a metric of the run's workload (see Metrics), or "
           "`<counter>_per_op` for each counter column (divided by `ops`)"),
    Column("n", "ok runs with a number"),
    Column("failed", "failed tries of the label"),
    Column("mean", "mean over the ok runs"),
    Column("stdev", "their standard deviation"),
    Column("cov_pct", "coefficient of variation, %"),
    Column("min", "smallest"),
    Column("max", "largest"),
    Column("ci_lo", "t 95% CI of the mean"),
    Column("ci_hi", "(upper end)"),
    Column("text", "a counter's `not-supported` / `not-counted` when no run "
           "has a number (never written as 0)", TEXT),
    *_COMPARISON,
    Column("p_rank", "two-sided p of the rank test (paired: Wilcoxon "
           "signed-rank; unpaired: Mann-Whitney U)"),
    _MARKER,
    Column("mde_pct", "minimum detectable effect, % (t test, 80% power, "
           "alpha 0.05)"),
]
SUMMARY_COLUMNS = [c.name for c in SUMMARY]

HISTORY = [
    Column("run_id", "results dir name"),
    Column("date", "meta.json `created_utc` (else the dir name's time)"),
    Column("git_commit", "meta.json `git.commit` (else the dir name's)"),
    Column("git_dirty", "meta.json `git.dirty`, empty when unknown",
           {"true": "", "false": "", "": ""}),
    Column("kernel_version", "build.json `source.version`"),
    Column("config_hash", "build hash (build.json `hash`, else the label's "
           "kernel hashes, `,`-joined)"),
    Column("profile", "meta.json `plan.profile`"),
    Column("accel", "the accelerator (see Accelerators): runs.csv `accel`, "
           "`kvm-nested` for "
           "a kvm run whose host was emulated", {m.name: "" for m in
                                                 schema.ACCELS}),
    *_LABEL,
    Column("n", "ok runs with a number"),
    Column("failed", "failed tries of the label"),
    Column("metric", "a throughput metric", {m: "" for m in
                                             schema.THROUGHPUT}),
    Column("headline", "1 on the rows of the run's headline metric",
           {"1": "", "0": ""}),
    Column("mean", "mean, in the metric's unit"),
    Column("ci_lo", "t 95% CI of the mean"),
    Column("ci_hi", "(upper end)"),
    *_COMPARISON,
    _MARKER,
    Column("config", "the kernels' base config (build.json `config`), empty "
           "in rows from before it", {
               **{c: "" for a in arch.ARCHES.values() for c in a.configs},
               "": ""}),
]
HISTORY_COLUMNS = [c.name for c in HISTORY]

# stats.json's layout version, its "schema" key.
STATS_SCHEMA = 2
# A top-level key of stats.json. when: None when every file has it, else
# when a file has it.
Key = namedtuple("Key", "name doc when", defaults=(None,))


_NEWER = "every file but older ones"


STATS_KEYS = [
    Key("schema", "layout version of this file: %d" % STATS_SCHEMA),
    Key("run_id", "results dir name"),
    Key("accel", "runs.csv `accel` (`mode` in older files)"),
    Key("workload", "meta.json `protocol.workload`",
        "runs of a workload other than tbench"),
    Key("nested", "meta.json `host.nested` (a kvm run on an emulated "
        "host), else null"),
    Key("linux", "the kernels' Linux version (`6.1`, `6.12`) from their "
        "build.json `source`; null when they name none or mix versions",
        "files from 2026-12-05 on (older ones are all 6.1's)"),
    Key("accel_description", "what the accelerator's figures are (see "
        "Accelerators; a nested kvm run's says they are not hardware "
        "throughput)"),
    Key("headline", "the headline metric"),
    Key("headline_why", "why it is the headline"),
    Key("lengths", "every run length, s"),
    Key("seconds", "the longest, whose runs are summarised"),
    Key("convergence", "per run length, the throughput metrics' "
        "comparisons ([] with one length)"),
    Key("mbps_explained", "MB/s by tbench loadfile position "
        "(analysis/stats/explain.py); null without a loadfile or for "
        "another workload"),
    Key("baseline", "the variant the others are compared with "
        "(meta.json `baseline`; `atomic-read` where absent)"),
    Key("alpha", "significance level of the tests"),
    Key("power", "power of the minimum detectable effect"),
    Key("methods", "the methods in words (analysis/stats/analyze.py "
        "METHODS)"),
    Key("calibration", "icount runs: tbench's calibration and "
        "environment floor (analysis/calibration.json), another "
        "workload's floors (analysis/floors.json, `floors_only`), else "
        "null", _NEWER),
    Key("seed_modes", "icount: the spread and modes of each label's "
        "per-seed figures (analysis/stats/clusters.py), else null",
        _NEWER),
    Key("labels", "per label: group, variant, counts, failed reasons, "
        "missing runs, kernel hashes, run indexes, seeds, drift, steal"),
    Key("groups", "`main` and `aa`: their labels, in order"),
    Key("metrics", "per metric: `per_label` (summary.csv's figures) and "
        "`comparisons` (with their details)"),
    Key("drift_overall_pct", "second half of the rounds against the "
        "first, over every label (headline metric, %)"),
    Key("steal_warn_pct", "steal share of a run's ticks above which a "
        "label is warned about, %"),
    Key("tries", "tries of the summarised length"),
    Key("ok_runs", "their ok runs"),
    Key("reference_2011", "2011's figures: `source`, `mbps`, `pct`"),
    Key("warnings", "the warnings, as analysis/analyze prints them"),
    Key("hosts", "`host`, `qemu_version` and `runs` of the ok runs per "
        "host", "runs.csv has `host`"),
    Key("findings", "one record per finding of the raw-file check: "
        "`file`, `line`, `run`, `field`, `value`, `raw_file`, "
        "`raw_value`, `what`, `excluded`, `text`"),
    Key("excluded", "`lines` (of runs.csv) and `sample_runs` (run "
        "indexes) left out, which analysis/results/load.py leaves out "
        "wherever the dir is read later, plots included"),
    Key("check", "rows checked, tries with a manifest, notes, the outlier "
        "rule"),
    Key("published", "the perf stat table of the kernel's "
        "Documentation/staging/static-keys.rst, read from a kernel tree "
        "of the cache (analysis/models/published.py): `source` (its path "
        "under the cache) and `table` (`off`, `on`: perf's counter name "
        "-> [mean, relative error of the mean in % or null]); null when "
        "no tree had it", "pipe runs"),
]


def _values(values):
    if values is None:
        return "-"
    return "; ".join(("`%s`" % v if v else "empty")
                     + (": " + doc if doc else "")
                     for v, doc in values.items())


def _columns_table(columns):
    return schema.table(
        ["column", "meaning", "values"],
        [[schema.code(c.name), c.doc, _values(c.values)] for c in columns])


def formats_tables():
    """{title: Markdown table} of the analysis outputs' tables of
    lib/format/FORMATS.md."""
    return {
        "summary.csv columns": _columns_table(SUMMARY),
        "history.csv columns": _columns_table(HISTORY),
        "stats.json keys": schema.table(
            ["key", "meaning", "in"],
            [[schema.code(k.name), k.doc, k.when or "every file"]
             for k in STATS_KEYS]),
    }
