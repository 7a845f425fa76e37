"""plots/draw renders real figures with gnuplot from synthetic results."""
import sys

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from analysis import figures, render  # noqa: E402

DRAW = str(ROOT / "plots" / "draw")
ALL = ["throughput", "pct_change", "traces", "drift", "branches", "history"]
PER_OP = {"jump-label": {"kernel_insns": 50000, "kernel_branches": 9000,
                         "user_insns": 3000, "user_branches": 500,
                         "site_execs": 40},
          "atomic-read": {"kernel_insns": 50100, "kernel_branches": 9040,
                          "user_insns": 3000, "user_branches": 500,
                          "site_execs": 0}}


def analyzed(tmp_path, **kw):
    d = synth.make_results(str(tmp_path / "results"), **kw)
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d])
    return d


def test_every_figure_renders_as_svg_and_png(tmp_path):
    d = analyzed(tmp_path, values={"jump-label": [40.2, 40.4, 40.1, 40.5],
                                   "atomic-read": [40.0, 40.1, 39.9, 40.2]},
                 per_op=PER_OP)
    out = tmp_path / "plots"
    run([DRAW, "--out", str(out), d])
    titles = {"throughput": "Headline metric of every run",
              "pct_change": "Change of tbench operations per second vs",
              "traces": "Per-second throughput of every run",
              "drift": "Run order vs throughput",
              "branches": "kernel conditional branches / op",
              "history": "across analysed runs"}
    for name in ALL:
        svg = (out / (name + ".svg")).read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert titles[name] in svg, name
        assert "mode icount" in svg or name == "history"
        assert svg.count("<path") > 3, name
        png = (out / (name + ".png")).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000, name
    # icount's headline is ops/s: 2011's MB/s are not on that scale
    assert "2011: 815.6 MB/s" not in (out / "throughput.svg").read_text()
    assert "operations per guest second" in (out / "throughput.svg") \
        .read_text()
    assert "+1.94%" in (out / "pct_change.svg").read_text()
    assert (out / "drawn-from.txt").read_text().strip() == \
        "20261201T000000Z-abc1234"


def test_figures_without_data_are_removed(tmp_path):
    out = tmp_path / "plots"
    out.mkdir()
    (out / "branches.svg").write_text("stale figure of an older run")
    (out / "branches.png").write_text("stale")
    d = analyzed(tmp_path, values={"jump-label": [24.0, 27.0, 22.0],
                                   "atomic-read": [25.0, 21.0, 28.0]},
                 mode="tcg", perf={"branches": "not-supported"})
    p = run([DRAW, "--out", str(out), d])
    assert "branches: no data in this run, not drawn" in p.stderr
    assert not (out / "branches.svg").exists()
    assert not (out / "branches.png").exists()
    assert "mode tcg" in (out / "throughput.svg").read_text()


def test_draw_validates_its_options(tmp_path):
    assert run([DRAW, "--help"]).stdout.startswith("plots/draw:")
    assert run([DRAW], check=False).returncode == 2
    assert run([DRAW, "--bogus", "x"], check=False).returncode == 2
    assert run([DRAW, str(tmp_path / "nope")], check=False).returncode == 2
    d = synth.make_results(str(tmp_path), {"jump-label": [1.0, 1.1],
                                           "atomic-read": [1.0, 1.2]})
    p = run([DRAW, "--out", str(tmp_path / "p"), d], check=False)
    assert p.returncode == 1 and "analysis/analyze" in p.stderr


def test_plots_figures_is_the_one_list(tmp_path):
    """A NAME.gp per figure of analysis/figures.py and no other; plots/draw
    takes the names from plots/prepare --list, the report its titles."""
    gp = sorted(p.stem for p in (ROOT / "plots").glob("*.gp")
                if p.stem != "common")
    assert sorted(figures.NAMES) == gp
    assert figures.MAIN in figures.NAMES
    listed = run([PYTHON, str(ROOT / "plots" / "prepare"), "--list"])
    assert listed.stdout.split() == figures.NAMES
    (tmp_path / "drawn-from.txt").write_text("20261201T000000Z-abc1234\n")
    (tmp_path / "drift.svg").write_text("<svg/>")
    lines = render.plots(str(tmp_path), str(tmp_path),
                         "20261201T000000Z-abc1234")
    assert lines == [
        "- [%s](drift.svg) ([PNG](drift.png))" % title if name == "drift"
        else "- %s: not drawn (no data in this run)." % title
        for name, title in figures.FIGURES]
