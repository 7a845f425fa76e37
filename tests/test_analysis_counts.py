"""REPORT.md's selftest table with the count.* rows of bench/model/regions.py:
labels, order, the note, and cells that are not numbers (the full report
with counted rows is in the golden file, tests/golden/REPORT-icount.md).
"""
import sys
import types

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from analysis.sections import facts  # noqa: E402
from analysis.results import load  # noqa: E402

ROWS = """variant,name,value
jump-label,count.source,"TCG plugin, icount (exact)"
jump-label,count.off_branches_per_iter,1
jump-label,count.on_branches_per_iter,not-exact
jump-label,count.note,"branches: region 6 - region 5 = 3, not a ..."
jump-label,jlbench_static_key.bench_off_ns,16.016
atomic-read,count.source,not-counted
atomic-read,count.off_branches_per_iter,not-counted
atomic-read,count.note,no TCG plugin in tcg mode
atomic-read,jlbench_static_key.bench_off_ns,24.024
plain-read,count.source,"TCG plugin, icount (exact)"
plain-read,count.off_branches_per_iter,2
plain-read,jlbench_static_key.bench_off_ns,24.024
"""


def render(tmp_path, text):
    (tmp_path / "selftest.csv").write_text(text)
    res = types.SimpleNamespace(
        selftest=load.read_selftest(str(tmp_path / "selftest.csv")))
    return facts.selftest(res)


def table_rows(text):
    return [line.split(" | ") for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("|---")]


def test_count_rows_are_labelled_and_last(tmp_path):
    text = render(tmp_path, ROWS)
    rows = table_rows(text)
    assert rows[0][0] == "| check or figure"
    assert rows[1][0] == "| jlbench_static_key.bench_off_ns"
    assert [r[0] for r in rows[2:]] == [
        "| source of the counts per iteration",
        "| conditional branches per iteration, key off",
        "| conditional branches per iteration, key on",
        "| why a count per iteration is missing"]
    # Columns: jump-label, atomic-read, plain-read.
    assert rows[3][1:] == ["1", "not-counted", "2 |"]
    assert rows[4][1:] == ["not-exact", "-", "- |"]
    assert rows[5][2] == "no TCG plugin in tcg mode"
    assert "counted by jlbench's TCG plugin" in text
    # No atomic-read figure: no difference against it is claimed.
    assert "against `atomic-read`" not in text


def test_difference_against_atomic_read(tmp_path):
    text = render(tmp_path, ROWS.replace(
        "atomic-read,count.off_branches_per_iter,not-counted",
        "atomic-read,count.off_branches_per_iter,2"))
    assert "With the key off, conditional branches per iteration against " \
        "`atomic-read`: `jump-label` -1, `plain-read` +0." in text


def test_no_count_rows_no_note(tmp_path):
    text = render(tmp_path, "variant,name,value\njump-label,boot,PASS\n")
    assert "Counts per iteration" not in text
    assert table_rows(text)[1] == ["| boot", "PASS |"]
