"""lib/format/schema.py is the one description of the results format: the
documents, the plugin, the fixtures and the committed results dirs agree
with it."""
import csv
import pathlib
import re
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
from bench.guest import qemu  # noqa: E402
from lib.format import counts, results, schema  # noqa: E402
import synth  # noqa: E402

FORMATS = ROOT / "lib" / "format" / "FORMATS.md"
PLUGIN = ROOT / "bench" / "plugin" / "branches.c"


def header(path):
    with open(path, newline="") as f:
        return next(csv.reader(f))


def test_formats_md_tables_are_the_schemas():
    text = FORMATS.read_text()
    for title, table in schema.formats_tables().items():
        marker = "<!-- schema: %s -->\n" % title
        assert marker in text, "lib/format/FORMATS.md lacks %r" % marker
        got = text.split(marker, 1)[1].split("\n\n", 1)[0]
        assert got == table, (
            "lib/format/FORMATS.md's %s table is not lib/format/schema.py's: "
            "paste the output of `python3 -m lib.format.schema` under %r"
            % (title, marker))


def test_every_mode_describes_itself_fully():
    for m in schema.MODES:
        assert set(m.axis) == set(schema.THROUGHPUT), m.name
        assert m.headline in schema.THROUGHPUT, m.name
        for field in ("description", "head", "what", "sees", "confound",
                      "headline_why", "plot_title"):
            assert getattr(m, field).strip(), (m.name, field)
    assert schema.RUN_MODES == ("kvm", "tcg", "icount")
    # the accelerators bench/guest/qemu.py boots are the modes runs.csv may
    # hold
    assert set(qemu.MODES) == set(schema.RUN_MODES)
    # docs/modes.md (README's link for the modes) describes each mode and
    # links docs/nested.md, which quotes the nested one's heading
    assert "](docs/modes.md)" in (ROOT / "README.md").read_text()
    modes = (ROOT / "docs" / "modes.md").read_text()
    for mode in schema.RUN_MODES:
        assert "- **%s**" % mode in modes, mode
    assert "](nested.md)" in modes
    nested = (ROOT / "docs" / "nested.md").read_text()
    assert '"%s"' % schema.MODE["kvm-nested"].head in " ".join(
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
    real = sorted((ROOT / "results").glob("*/raw/*.counts"))
    assert real, "no committed plugin report to check against"
    for path in (real[0], ROOT / "tests" / "fixtures" / "bench" /
                 "real-selftest-count-jump-label.plugin"):
        cells = counts.parse(path.read_text())
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
        cols = header(path)
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


def listed(text, start, columns):
    """The columns named (in backticks) in the FORMATS.md item that begins
    with start, in their first order."""
    item = text.split(start, 1)[1].split("\n- ", 1)[0]
    names = [t for t in re.findall(r"`([a-z_0-9]+)`", item)
             if t in columns]
    return list(dict.fromkeys(names))


def test_formats_md_lists_the_analysis_outputs_columns():
    from analysis.results import history
    from analysis.stats import analyze
    text = FORMATS.read_text()
    assert listed(text, "- `summary.csv` (in the results dir)",
                  analyze.SUMMARY_COLUMNS) == analyze.SUMMARY_COLUMNS
    assert listed(text, "- `history.csv` (in the results dir's parent",
                  history.COLUMNS) == history.COLUMNS
