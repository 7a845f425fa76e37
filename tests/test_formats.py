"""lib/format/schema.py is the one description of the results format (and
lib/format/outputs.py of the analysis outputs'): the documents, the
plugin, the fixtures, what analysis writes and the committed results dirs
agree with it."""
import csv
import json
import pathlib
import re
import sys

import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
from bench.guest import qemu  # noqa: E402
from analysis.results import compat  # noqa: E402
from lib.format import counts, formats, outputs, rawfiles  # noqa: E402
from lib.format import results  # noqa: E402
from lib.format import schema  # noqa: E402
import synth  # noqa: E402

FORMATS = ROOT / "lib" / "format" / "FORMATS.md"
PLUGIN = ROOT / "bench" / "plugin" / "branches.c"


def header(path, older=False):
    """A CSV file's header; older: by today's names (schema.RENAMED, as
    every reader of an older dir sees it)."""
    with open(path, newline="") as f:
        cols = next(csv.reader(f))
    return schema.current(cols) if older else cols


def test_formats_md_tables_are_the_schemas():
    """Every generated table of FORMATS.md (runs.csv's, the analysis
    outputs', ...) is what `python3 -m lib.format.formats --write` would
    write there."""
    text = FORMATS.read_text()
    assert formats.render(text) == text, (
        "lib/format/FORMATS.md's tables are not lib/format/schema.py's and "
        "outputs.py's: run `python3 -m lib.format.formats --write`")


def test_the_generator_rewrites_its_tables_and_nothing_else(tmp_path):
    text = FORMATS.read_text()
    row = "| `method` | the test of `p_t` |"
    assert row in text
    stale = text.replace(row, "| `method` | `Welch t` or `paired t` |")
    assert formats.render(stale) == text
    prose = text.replace("Analysis writes three files",
                         "Analysis writes 3 files")
    assert prose != text and formats.render(prose) == prose
    with pytest.raises(ValueError, match="names no generated table"):
        formats.render(text + "\n<!-- schema: nothing -->\n")
    with pytest.raises(ValueError, match="summary.csv columns"):
        formats.render(text.replace(
            formats.marker("summary.csv columns"), ""))
    # the command: --check fails on a stale copy, --write mends it
    copy = tmp_path / "FORMATS.md"
    copy.write_text(stale)
    cmd = [PYTHON, "-m", "lib.format.formats", "--file", str(copy)]
    p = run(cmd + ["--check"], check=False)
    assert p.returncode == 1 and "--write" in p.stderr
    run(cmd + ["--write"])
    assert copy.read_text() == text
    assert run(cmd + ["--check"], check=False).returncode == 0


def test_every_accelerator_describes_itself_fully():
    for m in schema.ACCELS:
        assert set(m.axis) == set(schema.THROUGHPUT), m.name
        assert m.headline in schema.THROUGHPUT, m.name
        for field in ("description", "head", "what", "sees", "confound",
                      "headline_why", "plot_title"):
            assert getattr(m, field).strip(), (m.name, field)
    assert schema.RUN_ACCELS == ("kvm", "tcg", "icount")
    # the accelerators bench/guest/qemu.py boots are those runs.csv may hold
    assert set(qemu.ACCELS) == set(schema.RUN_ACCELS)
    # docs/accelerators.md (README's link for them) describes each and
    # links docs/nested.md, which quotes the nested one's heading
    assert "](docs/accelerators.md)" in (ROOT / "README.md").read_text()
    doc = (ROOT / "docs" / "accelerators.md").read_text()
    for accel in schema.RUN_ACCELS:
        assert "- **%s**" % accel in doc, accel
    assert "](nested.md)" in doc
    nested = (ROOT / "docs" / "nested.md").read_text()
    assert '"%s"' % schema.ACCEL["kvm-nested"].head in " ".join(
        nested.split())


def test_the_plugin_prints_the_schemas_counters():
    """bench/plugin/branches.c writes one put_window() line per window
    figure; they are PLUGIN_COUNTERS, in order, and counts.py reads a
    real report into the schema's columns (a report from before a counter
    existed lacks it)."""
    src = PLUGIN.read_text()
    printed = re.findall(r'put_window\(f, "([a-z_]+)"', src)
    assert printed == [c.key for c in schema.PLUGIN_COUNTERS]
    for key in schema.PLUGIN_FLAGS:
        assert 'put_u64(f, "%s"' % key in src
    raw = ROOT / "results" / "20261206T223428Z-7bf1103" / "raw"
    real = [n for n in rawfiles.listdir(str(raw)) if n.endswith(".counts")]
    assert real, "no committed plugin report to check against"
    fixture = ROOT / "tests" / "fixtures" / "bench" / \
        "real-selftest-count-jump-label.plugin"
    for text in (rawfiles.read_bytes(str(raw / real[0])).decode(),
                 fixture.read_text()):
        cells = counts.parse(text)
        assert set(cells) <= set(schema.PLUGIN_COLUMNS)
        assert {c.column for c in schema.PLUGIN_COUNTERS if c.required} \
            <= set(cells)


def test_runs_csv_headers_are_the_schemas(tmp_path):
    """bench/run's, the fixture's and the committed dirs' headers: the
    columns in schema order, the later columns and counters only where a
    dir has them (it may be older than they are)."""
    d = results.ResultsDir.create(str(tmp_path / "new"), ["branch-misses"])
    assert d.columns == schema.run_columns(["branch-misses"])
    assert header(d.samples_csv) == schema.SAMPLE_COLUMNS
    dirs = sorted((ROOT / "results").glob("*/runs.csv"))
    assert dirs, "no committed results dir to check"
    fixture = synth.make_results(str(tmp_path), {"jump-label": [1.0],
                                                 "atomic-read": [1.1]},
                                 perf={"branches": "not-supported"},
                                 per_op={"jump-label": {"kernel_insns": 5}})
    dirs.append(pathlib.Path(fixture) / "runs.csv")
    for path in dirs:
        cols = header(path, older=True)
        want = [c.name for c in schema.RUN_COLUMNS
                if not c.later or c.name in cols]
        want += [c for c in cols if c.startswith("perf_")]
        want += [c for c in schema.PLUGIN_COLUMNS if c in cols]
        if any(c in cols for c in schema.MODEL_COLUMNS):
            want += schema.MODEL_COLUMNS    # bench/run --model
            want += [c for c in schema.L2_COLUMNS if c in cols]  # its l2=
            # the overlap rule's, in model runs since it
            want += [c for c in schema.OVERLAP_COLUMNS
                     + schema.OVERLAP_L2_COLUMNS if c in cols]
        # a workload's own (--workload pipe)
        want += [c.name for c in schema.WORKLOAD_COLUMNS if c.name in cols]
        assert cols == want, path
        assert {c.column for c in schema.PLUGIN_COUNTERS if c.required} \
            <= set(cols), path
        assert header(path.parent / "samples.csv") == schema.SAMPLE_COLUMNS


def rows_of(path, older=False):
    with open(path, newline="") as f:
        return [schema.current_row(r) if older else r
                for r in csv.DictReader(f)]


def outside(rows, columns):
    """{column: its values outside its closed set} of a file's rows."""
    bad = {}
    for c in columns:
        if c.values is not None:
            extra = {r[c.name] for r in rows} - set(c.values)
            if extra:
                bad[c.name] = sorted(extra)
    return bad


def is_summary_metric(name):
    """A metric (schema METRICS) or a counter per op."""
    if name in [m.name for m in schema.METRICS]:
        return True
    try:
        return bool(name.endswith("_per_op")
                    and schema.counter(name[:-len("_per_op")]))
    except KeyError:
        return False


def check_table(path, columns, table, older=False):
    """A written summary.csv or history.csv against the schema: its header,
    rows, and no value outside a closed set."""
    rows = rows_of(path, older)
    assert header(path, older) == columns, path
    assert rows, path
    assert outside(rows, table) == {}, path
    return rows


def check_summary(path, older=False):
    rows = check_table(path, outputs.SUMMARY_COLUMNS, outputs.SUMMARY, older)
    assert all(is_summary_metric(r["metric"]) for r in rows), path
    return rows


def check_history(path, older=False):
    return check_table(path, outputs.HISTORY_COLUMNS, outputs.HISTORY, older)


def check_stats(path, older=False):
    with open(path) as f:
        st = json.load(f)
    if older:
        st = compat.stats(st)
    assert st["schema"] == outputs.STATS_SCHEMA, path
    keys = [k.name for k in outputs.STATS_KEYS]
    assert sorted(set(st) - set(keys)) == [], path
    always = [k.name for k in outputs.STATS_KEYS if k.when is None]
    assert sorted(set(always) - set(st)) == [], path
    return st


def test_a_value_outside_a_closed_set_is_caught():
    ok = {c.name: next(iter(c.values)) if c.values else ""
          for c in outputs.SUMMARY}
    assert outside([ok], outputs.SUMMARY) == {}
    bad = dict(ok, method="Welch t or paired t", group="both")
    assert outside([ok, bad], outputs.SUMMARY) == {
        "group": ["both"], "method": ["Welch t or paired t"]}
    assert is_summary_metric("ops_per_s")
    assert is_summary_metric("kernel_insns_per_op")
    assert is_summary_metric("perf_cycles_per_op")
    assert not is_summary_metric("kernel_insns")
    assert not is_summary_metric("nothing_per_op")


def test_analysis_writes_the_schemas_outputs(tmp_path):
    """analysis/analyze's summary.csv and history.csv have the schema's
    columns and only its values, its stats.json the schema's version and
    keys: on an icount run with an A/A twin, a failed try and counters
    (one not supported), and a tcg run."""
    values = [40.21, 40.42, 40.13, 40.52, 40.33, 40.27]
    base = [40.02, 40.11, 39.93, 40.24, 40.05, 40.10]
    twin = [40.05, 40.16, 39.97, 40.27, 40.06, 40.13]
    icount = synth.make_results(
        str(tmp_path), {"jump-label": values, "atomic-read": base,
                        "atomic-read.aa": twin},
        variant_of={"atomic-read.aa": "atomic-read"},
        failed=[("jump-label", 2)], perf={"branches": "not-supported"},
        per_op={"jump-label": {"kernel_insns": 50000, "user_insns": 3000},
                "atomic-read": {"kernel_insns": 50100,
                                "user_insns": 3000}})
    tcg = synth.make_results(str(tmp_path), {"jump-label": values,
                                             "atomic-read": base},
                             accel="tcg", name="20261202T000000Z-def5678")
    hist = tmp_path / "history.csv"
    summary = []
    for d in (icount, tcg):
        run([PYTHON, str(ROOT / "analysis" / "analyze"), "-q", "--history",
             str(hist), d])
        summary += check_summary(pathlib.Path(d) / "summary.csv")
        check_stats(pathlib.Path(d) / "stats.json")
    history = check_history(hist)
    assert {r["run_id"] for r in history} == {
        pathlib.Path(d).name for d in (icount, tcg)}
    # analysis fills every column (a schema column it does not write
    # would be an empty one)
    for rows, columns in ((summary, outputs.SUMMARY_COLUMNS),
                          (history, outputs.HISTORY_COLUMNS)):
        assert [c for c in columns if not any(r[c] for r in rows)] == []
    methods = {r["method"] for r in summary + history}
    # every method of today's rules is written (the old ones no longer)
    assert methods == set(outputs.METHOD)


def test_the_committed_outputs_are_the_schemas():
    """The committed results dirs' summary.csv and stats.json and
    results/history.csv (real outputs, of older analyses too)."""
    dirs = sorted(p.parent for p in (ROOT / "results").glob("*/stats.json"))
    assert dirs, "no committed results dir to check"
    for d in dirs:
        check_summary(d / "summary.csv", older=True)
        check_stats(d / "stats.json", older=True)
    check_history(ROOT / "results" / "history.csv", older=True)


def test_the_methods_are_the_schemas():
    """The tests analysis/stats/stats.py names are the schema's methods,
    and stats.json's methods (analyze.METHODS) name today's."""
    from analysis.stats import analyze, stats
    a = [40.2, 40.4, 40.1, 40.5, 40.3, 40.2]
    b = [40.0, 40.1, 39.9, 40.2, 40.0, 40.1]
    named = {f(a, b)["test_t"] for f in (stats.compare_unpaired,
                                         stats.compare_paired,
                                         stats.compare_median)}
    assert named <= set(outputs.METHOD) | set(outputs.OLD_METHOD)
    for method in outputs.METHOD:
        if method:
            assert method in analyze.METHODS["tests"], method
    for method in outputs.OLD_METHOD:
        assert method not in analyze.METHODS["tests"], method
