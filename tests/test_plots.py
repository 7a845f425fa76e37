"""plots/draw renders real figures with gnuplot from synthetic results;
plots/prepare writes the data they draw; each plots/figures/NAME.gp reads
only the files and variables its NAME.py declares."""
import ast
import csv
import importlib
import json
import re
import statistics
import sys
import types

import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from analysis.sections import figures  # noqa: E402
from analysis.documents import report  # noqa: E402
import plots.figures  # noqa: E402
from plots import common  # noqa: E402

DRAW = str(ROOT / "plots" / "draw")
ALL = ["throughput", "seeds", "pct_change", "traces", "drift", "branches",
       "history"]
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
              "seeds": "Per-seed tbench operations per second",
              "pct_change": "Change of tbench operations per second vs",
              "traces": "Per-second throughput of every run",
              "drift": "Run order vs throughput",
              "branches": "kernel conditional branches / op",
              "history": "across analysed runs"}
    for name in ALL:
        svg = (out / (name + ".svg")).read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert titles[name] in svg, name
        assert "accelerator icount" in svg or name == "history"
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
                 accel="tcg", perf={"branches": "not-supported"})
    p = run([DRAW, "--out", str(out), d])
    assert "branches: no data in this run, not drawn" in p.stderr
    assert not (out / "branches.svg").exists()
    assert not (out / "branches.png").exists()
    assert "accelerator tcg" in (out / "throughput.svg").read_text()


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
    """A NAME.py and a NAME.gp in plots/figures/ per figure of
    analysis/sections/figures.py and no other; plots/draw takes the names
    from plots/prepare --list, the report its titles."""
    here = ROOT / "plots" / "figures"
    gp = sorted(p.stem for p in here.glob("*.gp") if p.stem != "common")
    py = sorted(p.stem for p in here.glob("*.py")
                if p.stem not in ("__init__", "common"))
    assert sorted(figures.NAMES) == gp == py
    assert sorted(p.name for p in here.iterdir()
                  if p.name != "__pycache__") == sorted(
        [n + ".py" for n in py] + [n + ".gp" for n in gp]
        + ["__init__.py", "common.gp"])
    assert plots.figures.NAMES == figures.NAMES
    assert [m.__name__ for m in plots.figures.FIGURES] == [
        "plots.figures." + n for n in figures.NAMES]
    assert figures.MAIN in figures.NAMES
    listed = run([PYTHON, str(ROOT / "plots" / "prepare"), "--list"])
    assert listed.stdout.split() == figures.NAMES
    (tmp_path / "drawn-from.txt").write_text("20261201T000000Z-abc1234\n")
    (tmp_path / "drift.svg").write_text("<svg/>")
    lines = report.plots(str(tmp_path), str(tmp_path),
                         "20261201T000000Z-abc1234")
    assert lines == [
        "- [%s](drift.svg) ([PNG](drift.png))" % title if name == "drift"
        else "- %s: not drawn (no data in this run)." % title
        for name, title in figures.FIGURES]


def reseed(d, seeds):
    """Rewrite runs.csv's perturb_seed: seeds[label](round) for a label."""
    path = d + "/runs.csv"
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if r["label"] in seeds:
            r["perturb_seed"] = str(seeds[r["label"]](int(r["round"])))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def prepared(tmp_path, d):
    """The data dir plots/prepare writes for d, and its figure list."""
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    run([PYTHON, str(ROOT / "plots" / "prepare"), d, str(data)])
    return data, (data / "list").read_text().split()


def points(path):
    """[(x, y, colour)] of a data file's lines."""
    return [(float(a), float(b), int(c)) for a, b, c in
            (line.split() for line in path.read_text().splitlines())]


def test_seeds_data_are_per_seed_and_paired_as_the_report_pairs(tmp_path):
    """seeds: each label's values as % from its median, one point per
    seed; main kernels paired with atomic-read by seed, the A/A twin with
    its kernel by round. jump-label's seeds run backwards over the rounds
    and the twin's are its own, so pairing by round would give other
    changes."""
    ar = [40.0, 40.2, 40.4, 40.6, 40.8, 41.0]
    jl = [41.2, 41.0, 40.6, 40.9, 40.5, 40.3]
    twin = [40.1, 40.3, 40.2, 40.5, 40.9, 41.1]
    d = synth.make_results(
        str(tmp_path / "results"),
        {"jump-label": jl, "atomic-read": ar, "plain-read": [39.9] * 6,
         "atomic-read.aa": twin},
        variant_of={"atomic-read.aa": "atomic-read"})
    reseed(d, {"jump-label": lambda r: 1007 - r,
               "atomic-read.aa": lambda r: 3000 + r})
    run([PYTHON, str(ROOT / "analysis" / "analyze"), "--no-history", d])
    data, listed = prepared(tmp_path, d)
    assert listed.index("throughput") + 1 == listed.index("seeds")
    names = re.findall(r'lname(\d+) = "([^"]+)"',
                       (data / "common.vars").read_text())
    x_of = {name: int(i) for i, name in names}
    colour = dict(re.findall(r'lcolor(\d+) = (\d+)',
                             (data / "common.vars").read_text()))

    left = points(data / "seeds_left.dat")
    assert len(left) == 4 * 6
    for name, values in (("jump-label", jl), ("atomic-read", ar),
                         ("plain-read", [39.9] * 6),
                         ("atomic-read.aa", twin)):
        i = x_of[name]
        mine = [p for p in left if abs(p[0] - i) < 0.5]
        assert len(mine) == 6, name
        assert {c for _, _, c in mine} == {int(colour[str(i)])}
        # spread over the label's slot by rank: x and value rise together
        xs = [x for x, _, _ in mine]
        assert xs == sorted(xs) and xs[0] == pytest.approx(i - 0.3) \
            and xs[-1] == pytest.approx(i + 0.3)
        med = statistics.median(values)
        assert [y for _, y, _ in mine] == pytest.approx(
            sorted(100 * (v / med - 1) for v in values), abs=1e-9)
    assert all(y == 0 for x, y, _ in left if abs(x - x_of["plain-read"])
               < 0.5)

    tics = (data / "seeds_xtics.vars").read_text()
    assert tics.strip() == 'set xtics ("jump-label" 1, "plain-read" 2, ' \
        '"atomic-read.aa (A/A)" 3)'
    right = points(data / "seeds_right.dat")
    assert len(right) == 3 * 6
    by_seed = {r: 100 * (jl[6 - r] / ar[r - 1] - 1) for r in range(1, 7)}
    want = {1: sorted(by_seed.values()),
            2: sorted(100 * (39.9 / a - 1) for a in ar),
            3: sorted(100 * (t / a - 1) for t, a in zip(twin, ar))}
    # seed 1001: jump-label's round 6 against atomic-read's round 1
    assert by_seed[1] == pytest.approx(100 * (40.3 / 40.0 - 1))
    st = json.loads(open(d + "/stats.json").read())
    comps = {c["label"]: c for c in st["metrics"][0]["comparisons"]}
    assert st["metrics"][0]["metric"] == "ops_per_s"
    medians = [[float(v) for v in line.split()] for line in
               (data / "seeds_median.dat").read_text().splitlines()]
    for j, lab in enumerate(["jump-label", "plain-read", "atomic-read.aa"],
                            1):
        mine = [y for x, y, _ in right if abs(x - j) < 0.5]
        assert mine == pytest.approx(want[j], abs=1e-9), lab
        assert {c for x, _, c in right if abs(x - j) < 0.5} == \
            {int(colour[str(x_of[lab])])}
        c = comps[lab]
        assert medians[j - 1][:2] == pytest.approx(
            [j, statistics.median(want[j])])
        # the report's median and interval are the figure's
        assert medians[j - 1][1:] == pytest.approx(
            [c["pct_change"], c["pct_ci_lo"], c["pct_ci_hi"]])
    assert 'npairs = 3' in (data / "seeds.vars").read_text()
    assert 'interval_title = "95% interval of the median"' in \
        (data / "seeds.vars").read_text()


@pytest.mark.parametrize("accel, rounds", [("tcg", 3), ("icount", 1)])
def test_seeds_need_icount_and_two_seeds_per_label(tmp_path, accel, rounds):
    d = synth.make_results(str(tmp_path / "results"),
                           {"jump-label": [40.0, 40.4, 40.2][:rounds],
                            "atomic-read": [39.9, 40.1, 40.3][:rounds]},
                           accel=accel)
    run([PYTHON, str(ROOT / "analysis" / "analyze"), "--no-history", d])
    data, listed = prepared(tmp_path, d)
    assert "throughput" in listed and "seeds" not in listed


# gnuplot's own words in plots/figures/*.gp: commands, options, functions.
# Any other name a script reads is a variable: declared by its module's
# VARS or common's, or set in the script itself.
GNUPLOT_WORDS = {
    "Left", "NaN", "at", "background", "behind", "below", "bmargin",
    "border", "bottom", "boxes", "boxwidth", "boxxyerror", "by", "center",
    "data", "do", "dt", "dynamic", "else", "encoding", "eq", "exists", "fc",
    "fill", "first", "font", "for", "from", "fs", "graph", "grid",
    "histogram", "histograms", "horizontal", "if", "key", "label", "labels",
    "layout", "lc", "left", "lines", "linespoints", "linetype", "lmargin",
    "load", "logscale", "lt", "lw", "maxrows", "multiplot", "ne",
    "noautotitle",
    "noborder", "noenhanced", "nohead", "nomirror", "notitle", "noytics",
    "object", "offset", "offsets", "out", "output", "outside", "plot",
    "pngcairo", "points", "ps", "pt", "rect", "reverse", "rgb", "right",
    "rmargin", "rotate", "rowstacked", "samplen", "scale", "set", "size",
    "solid", "spacing", "sprintf", "style", "svg", "terminal", "tics", "valid",
    "title", "tmargin", "to", "top", "unset", "using", "utf8", "value",
    "variable", "vectors", "width", "with", "word", "x", "xerrorbars",
    "xlabel", "xrange", "xtic", "xtics", "xzeroaxis", "yerrorbars",
    "yerrorlines", "ylabel", "yrange", "ytic", "ytics", "yzeroaxis"}


def gnuplot_parts(text):
    """(code, kept) of a gnuplot script without its comments: in code
    every string literal is "", in kept as it is."""
    code, kept, i = [], [], 0
    while i < len(text):
        c = text[i]
        if c == "#":
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if c == '"' and text[j] == "\\" else 1
            kept.append(text[i:j + 1])
            code.append('""')
            i = j + 1
        else:
            code.append(c)
            kept.append(c)
            i += 1
    return "".join(code), "".join(kept)


def script_reads(path):
    """(data files, variables, set here) of a gnuplot script: the files it
    reads from datadir ("branches_%d.dat"), the names its code reads
    (value(sprintf("ptitle%d", p)) reads "ptitle%d") and the names it
    sets itself (loop variables too)."""
    code, kept = gnuplot_parts(path.read_text())
    files = set(re.findall(
        r'datadir\s*\.\s*(?:sprintf\s*\(\s*)?"/([^"]+)"', kept))
    names = set(re.findall(r"(?<![\w$])([A-Za-z_]\w*)", code))
    names |= set(re.findall(
        r'value\s*\(\s*(?:sprintf\s*\(\s*)?"([^"]+)"', kept))
    local = set(re.findall(r"\b([A-Za-z_]\w*)\s*=(?!=)", code))
    return files, names, local


def test_script_reader_sees_files_variables_and_locals(tmp_path):
    """The checker itself, on a script with every form the figures use."""
    gp = tmp_path / "x.gp"
    gp.write_text('# a comment naming "/nope.dat" and stray_in_comment\n'
                  'load datadir."/x.vars"\n'
                  'set title "vs ".hbase." # not a comment"\n'
                  'do for [p=1:nx] {\n'
                  '\tf = datadir.sprintf("/x_%d.dat", p)\n'
                  '\tset title value(sprintf("ptitle%d", p))\n'
                  '\tplot f using 1:($2 * 2.5e3) title bname1\n}\n')
    files, names, local = script_reads(gp)
    assert files == {"x.vars", "x_%d.dat"}
    assert {"hbase", "nx", "bname1", "ptitle%d", "datadir"} <= names
    assert not {"stray_in_comment", "comment", "e3"} & names
    assert local == {"p", "f"}


def declared(patterns):
    return [common.pattern(v) for v in patterns]


@pytest.mark.parametrize("name", ["common"] + figures.NAMES)
def test_each_script_reads_only_what_its_module_declares(name):
    """plots/figures/NAME.gp reads from the data dir only the files of
    NAME.py's FILES and plots/common.py's, and only the variables of their VARS
    (and plots/draw's: datadir, outfile, fmt), besides its own and
    gnuplot's words; it reads every file and variable NAME.py declares."""
    module = common if name == "common" else importlib.import_module(
        "plots.figures." + name)
    files, names, local = script_reads(
        ROOT / "plots" / "figures" / (name + ".gp"))
    mine = set(module.FILES) | set(common.FILES)
    assert files <= mine, "%s.gp reads %s: not in the FILES of %s.py or " \
        "common.py" % (name, sorted(files - mine), name)
    allowed = declared(set(module.VARS) | set(common.VARS)
                       | set(common.DRAW_VARS))
    allowed_names = set(module.VARS) | set(common.VARS)
    unknown = sorted(n for n in names - local - GNUPLOT_WORDS
                     - allowed_names
                     if not any(p.fullmatch(n) for p in allowed))
    assert not unknown, "%s.gp reads %s: declare them in VARS of %s.py " \
        "(or common.py), or add gnuplot's own words to GNUPLOT_WORDS" % (
            name, unknown, name)
    if name != "common":
        assert set(module.FILES) <= files, "%s.py writes %s, never read" % (
            name, sorted(set(module.FILES) - files))
        unread = [v for v in module.VARS if v not in names and not any(
            common.pattern(v).fullmatch(n) for n in names)]
        assert not unread, "%s.py declares %s, never read by %s.gp" % (
            name, unread, name)
    assert not (set(module.VARS) | set(common.DRAW_VARS)) & GNUPLOT_WORDS


def test_common_files_and_variables_are_read_somewhere():
    files, names = set(), set()
    for name in ["common"] + figures.NAMES:
        f, n, _ = script_reads(ROOT / "plots" / "figures" / (name + ".gp"))
        files |= f
        names |= n
    assert set(common.FILES) <= files
    assert [v for v in common.VARS + common.DRAW_VARS if v not in names
            and not any(common.pattern(v).fullmatch(n) for n in names)] == []


def test_out_holds_a_module_to_its_declarations(tmp_path):
    """common.Out writes a module's declared files and variables only,
    and all of its (unnumbered) variables when it has data."""
    def module(data, files=("f_%d.dat", "f.vars"), names=("n", "t%d")):
        m = types.ModuleType("plots.figures.f")
        m.FILES, m.VARS, m.data = files, names, data
        return m

    def good(_, out):
        out.write("f_2.dat", ["1 2"])
        out.write("f.vars", ["n = 1", 't1 = "a"', "set xtics (1)"])
        return True

    assert common.Out(str(tmp_path), module(good)).data(None)
    assert (tmp_path / "f.vars").read_text() == \
        'n = 1\nt1 = "a"\nset xtics (1)\n'
    for bad, what in [
            (lambda _, out: out.write("g.dat", []), "writes g.dat"),
            (lambda _, out: out.write("f_0.dat", []), "writes f_0.dat"),
            (lambda _, out: out.write("f.vars", ["m = 1"]), "sets m"),
            (lambda _, out: out.write("f.vars", ['t1 = "a"']) or True,
             "leaves out n")]:
        with pytest.raises(common.Undeclared, match=what):
            common.Out(str(tmp_path), module(bad)).data(None)
    # without data, nothing is missing
    assert not common.Out(str(tmp_path), module(
        lambda _, out: out.write("f.vars", []))).data(None)


def test_analysis_does_not_import_plots():
    """plots/ imports analysis/, never the reverse (plots/README.md)."""
    wrong = []
    for path in sorted((ROOT / "analysis").rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        first = path.read_bytes().split(b"\n", 1)[0]
        if path.suffix != ".py" and not (first.startswith(b"#!")
                                         and b"python" in first):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            mods = [a.name for a in node.names] \
                if isinstance(node, ast.Import) else [node.module or ""] \
                if isinstance(node, ast.ImportFrom) else []
            wrong += [str(path) for m in mods if m.split(".")[0] == "plots"]
    assert wrong == []
