"""The plot of a scan (bench/bisection/scanplot.py, plots/scan): from
stand-in scans (tests/test_scan_unit.py's way: steps are figures, no
kernels), scan.tsv's rows and values against medians and changes
computed here from the stand-in's figures, the findings marked in the
TSV, in plots/scan's data and in the SVG, untestable commits left out,
and no plot (with the reason) for a scan with one measured commit or
without gnuplot."""
import importlib.machinery
import importlib.util
import shutil
import statistics
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from bench.bisection import bisection, scan, scanplot  # noqa: E402
from test_scan_unit import OPTS, SEEDS, Interrupted, Range  # noqa: E402

PLOT = str(ROOT / "plots" / "scan")
COLUMNS = ["i", "commit", "revision", "seeds", "metric", "workload",
           "median", "pct_change", "pct_ci_lo", "pct_ci_hi", "step",
           "finding", "finding_pct_vs_parent"]
gnuplot = pytest.mark.skipif(not shutil.which("gnuplot"),
                             reason="no gnuplot (apt-get install gnuplot-nox)")


def value(changes, i, seed):
    """Commit i's kernel instructions per op on seed: each commit of
    changes ({i: factor}) multiplies it from there on, and every (commit,
    seed) has its own noise, up to 0.4%."""
    x = 30000.0
    for at, factor in changes.items():
        x *= factor if i >= at else 1.0
    return x * (1 + 1e-3 * ((seed * (i + 3)) % 5))


class FakeScan(scan.Scan):
    """A scan whose steps are value()'s figures; the commits of untestable
    do not build."""
    budget = None

    def __init__(self, out, n, changes, untestable=(), **opts):
        self.changes, self.untestable = changes, set(untestable)
        self.measured = []
        super().__init__(str(out), Range(n), dict(OPTS, **opts))

    def measure(self, i):
        if self.budget is not None and len(self.measured) >= self.budget:
            raise Interrupted(i)
        self.measured.append(i)
        name, _, rev = self.cands[i]
        entry = {"event": "step", "i": i, "variant": name, "revision": rev}
        if i in self.untestable:
            entry.update(decision="skip", why="build failed (exit 2)")
        else:
            entry["values"] = {s: value(self.changes, i, s) for s in SEEDS}
        return entry


def table(path):
    """scan.tsv: (comment, header, rows as dicts)."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# scan.tsv: ")
    header = lines[1].split("\t")
    return lines[0], header, [dict(zip(header, ln.split("\t")))
                              for ln in lines[2:]]


def pct(new, base):
    """(median, lowest, highest) of the per-seed % changes of new against
    base (seed: value each): with 6 seeds the median rule's interval is
    the lowest and highest change."""
    d = [100.0 * (new[s] / base[s] - 1) for s in SEEDS]
    return statistics.median(d), min(d), max(d)


def plot_module():
    """plots/scan as a module (it has no .py)."""
    loader = importlib.machinery.SourceFileLoader("plotscan", PLOT)
    mod = importlib.util.module_from_spec(
        importlib.util.spec_from_loader("plotscan", loader))
    loader.exec_module(mod)
    return mod


CHANGES = {7: 1.05, 13: 0.96}


@pytest.fixture(scope="module")
def two_findings(tmp_path_factory):
    """A scan of 21 commits with two changes and a sampled commit (10)
    that does not build, drawn; (out, the stand-in, draw's answer)."""
    out = tmp_path_factory.mktemp("scan")
    s = FakeScan(out, 21, CHANGES, untestable=[10], points=5)
    end = s.scan()
    assert [f["i"] for f in end["findings"]] == [7, 13]
    return out, s, scanplot.draw(str(out))


def test_tsv_has_a_row_per_measured_commit_with_its_values(two_findings):
    out, s, _ = two_findings
    comment, header, rows = table(out / "scan.tsv")
    assert header == COLUMNS
    # the untestable commit was tried, and has no row
    assert 10 in s.measured
    measured = sorted(set(s.measured) - {10})
    assert [int(r["i"]) for r in rows] == measured and len(measured) > 5
    figures = {i: {x: value(CHANGES, i, x) for x in SEEDS}
               for i in measured}
    for r in rows:
        i = int(r["i"])
        assert r["commit"] == "c%02d" % i
        assert r["revision"] == "c%02d subject %d" % (i, i)
        assert (r["seeds"], r["metric"], r["workload"]) == (
            "6", "kernel_insns_per_op", "tbench")
        assert float(r["median"]) == pytest.approx(
            statistics.median(figures[i].values()), rel=1e-9)
        got = [float(r[c]) for c in ("pct_change", "pct_ci_lo",
                                     "pct_ci_hi")]
        assert got == pytest.approx(pct(figures[i], figures[0]), abs=2e-6)
        assert r["step"] == ("sampled" if i in (0, 5, 15, 20)
                             else "bisection"), i
        assert r["finding"] == ("first" if i in CHANGES else "no"), i
        if i in CHANGES:
            assert float(r["finding_pct_vs_parent"]) == pytest.approx(
                pct(figures[i], figures[i - 1])[0], abs=2e-6)
        else:
            assert r["finding_pct_vs_parent"] == ""
    # the good end against itself; the changes, roughly
    assert rows[0]["pct_change"] == "0.000000"
    by_i = {int(r["i"]): r for r in rows}
    assert 4.4 < float(by_i[7]["finding_pct_vs_parent"]) < 5.4
    assert -4.4 < float(by_i[13]["finding_pct_vs_parent"]) < -3.4


def test_plot_data_leave_out_untestable_and_mark_the_findings(
        two_findings, tmp_path):
    out, _, _ = two_findings
    plot = plot_module()
    rows = plot.read(str(out / "scan.tsv"))
    plot.prepare(rows, str(tmp_path))
    _, _, tsv = table(out / "scan.tsv")

    def xs(name):
        return [int(ln.split()[0]) for ln in
                (tmp_path / name).read_text().splitlines()]
    assert xs("line.dat") == [int(r["i"]) for r in tsv]
    assert 10 not in xs("line.dat")
    assert xs("sampled.dat") == [0, 5, 15, 20]
    assert sorted(xs("sampled.dat") + xs("bisection.dat")) == \
        xs("line.dat")
    by_i = {int(r["i"]): r for r in tsv}
    vs_parent = {i: float(by_i[i]["finding_pct_vs_parent"])
                 for i in (7, 13)}
    # a tic's label is a format: % is %%
    labels = ["c%02d %+.2f%%%%" % (i, vs_parent[i]) for i in (7, 13)]
    assert plot.variables(rows)[-9:] == [
        "nfind = 2",
        "fkind1 = 1", "fstart1 = 7", "fx1 = 7", "flabel1 = '%s'" % labels[0],
        "fkind2 = 1", "fstart2 = 13", "fx2 = 13",
        "flabel2 = '%s'" % labels[1]]
    assert labels[1].startswith("c13 -3.")


@gnuplot
def test_the_svg_shows_the_findings(two_findings):
    out, _, png = two_findings
    assert png == str(out / "scan.png")
    _, _, rows = table(out / "scan.tsv")
    by_i = {int(r["i"]): r for r in rows}
    svg = (out / "scan.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "kernel_insns_per_op on tbench along the range" in svg
    for i in (7, 13):
        assert "c%02d %+.2f%%" % (i, float(by_i[i]["finding_pct_vs_parent"])) \
            in svg
    assert "sampled commits" in svg and "bisection steps" in svg
    data = (out / "scan.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


@gnuplot
def test_an_untestable_stretch_is_marked_from_its_older_end(tmp_path):
    """Commit 12 does not build: the change at 13 is in 11..13, a range
    finding; the workload (not tbench) is in the title."""
    s = FakeScan(tmp_path, 21, CHANGES, untestable=[12], points=5,
                 workload="pipe", loops=100)
    end = s.scan()
    assert [f.get("i", f.get("range")) for f in end["findings"]] == \
        [7, [11, 13]]
    assert scanplot.draw(str(tmp_path)) == str(tmp_path / "scan.png")
    _, _, rows = table(tmp_path / "scan.tsv")
    assert [(r["i"], r["finding"]) for r in rows
            if r["finding"] != "no"] == [("7", "first"), ("13", "range")]
    assert {r["workload"] for r in rows} == {"pipe"}
    assert "12" not in [r["i"] for r in rows]
    assert rows[[r["i"] for r in rows].index("13")][
        "finding_pct_vs_parent"] == ""
    svg = (tmp_path / "scan.svg").read_text()
    assert "c11..c13 untestable" in svg
    assert "kernel_insns_per_op on pipe along the range" in svg


def test_one_measured_commit_is_not_drawn(tmp_path, capsys):
    s = FakeScan(tmp_path, 21, CHANGES, points=5)
    s.budget = 1
    with pytest.raises(Interrupted):
        s.scan()
    (tmp_path / "scan.svg").write_text("a figure of an older scan")
    assert scanplot.draw(str(tmp_path)) is None
    said = capsys.readouterr().err.strip().splitlines()
    assert said[-1].endswith("no plot of the range: 1 measured commit(s), "
                             "nothing to draw along the range")
    _, _, rows = table(tmp_path / "scan.tsv")
    assert [r["i"] for r in rows] == ["0"]
    assert not (tmp_path / "scan.svg").exists()
    assert not (tmp_path / "scan.png").exists()
    # plots/scan itself refuses it
    p = run([PLOT, str(tmp_path / "scan.tsv"), "--out",
             str(tmp_path / "x")], check=False)
    assert p.returncode == 1 and "1 measured commit(s)" in p.stderr


def test_without_gnuplot_the_tsv_is_written_and_no_plot(
        tmp_path, capsys, monkeypatch):
    FakeScan(tmp_path, 9, {4: 1.05}, points=3).scan()
    monkeypatch.setattr(scanplot.shutil, "which", lambda cmd: None)
    assert scanplot.draw(str(tmp_path)) is None
    assert "gnuplot is not installed" in capsys.readouterr().err
    assert len(table(tmp_path / "scan.tsv")[2]) >= 3


def test_a_failing_plots_scan_is_an_error(tmp_path, monkeypatch):
    FakeScan(tmp_path, 9, {4: 1.05}, points=3).scan()
    monkeypatch.setattr(scanplot, "PLOT", "/bin/false")
    with pytest.raises(bisection.Stop, match="plots/scan failed on .*"
                       "scan.tsv \\(exit 1\\)"):
        scanplot.draw(str(tmp_path))


def test_a_scan_dir_without_log_is_an_error(tmp_path):
    with pytest.raises(bisection.Stop, match="has no scan.log"):
        scanplot.draw(str(tmp_path))


def test_plots_scan_validates_its_input(tmp_path):
    assert run([PLOT, "--help"]).stdout.startswith("usage: plots/scan")
    assert run([PLOT], check=False).returncode == 2
    assert run([PLOT, str(tmp_path / "none.tsv"), "--out",
                str(tmp_path / "x")], check=False).returncode == 2
    bad = tmp_path / "bad.tsv"
    bad.write_text("i\tcommit\n0\tc00\n1\tc01\n")
    p = run([PLOT, str(bad), "--out", str(tmp_path / "x")], check=False)
    assert p.returncode == 1 and "has no column metric" in p.stderr
    assert not (tmp_path / "x.svg").exists()
