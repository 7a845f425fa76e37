"""REPORT.md rendering against golden files (tests/golden/).

On a mismatch the test writes the rendered text next to the golden file as
<name>.got (ignored by git) and fails; to accept a deliberate change, set
JLBENCH_UPDATE_GOLDEN=1 and rerun, then review the diff of tests/golden/.
"""
import csv
import difflib
import json
import os
import shutil
import sys

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from analysis.sections import configs  # noqa: E402
from analysis.documents import report  # noqa: E402
from lib import store  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"
PER_OP = synth.GOLDEN_PER_OP


def tool(name, *args, check=True):
    path = ROOT / ("plots" if name == "draw" else "analysis") / name
    cmd = [str(path)] if name == "draw" else [PYTHON, str(path)]
    return run(cmd + [str(a) for a in args], check=check)


def check_golden(name, text):
    golden = GOLDEN / name
    got = GOLDEN / (name + ".got")
    if os.environ.get("JLBENCH_UPDATE_GOLDEN") == "1":
        golden.write_text(text)
    want = golden.read_text() if golden.exists() else ""
    if text != want:
        got.write_text(text)
        diff = "".join(list(difflib.unified_diff(
            want.splitlines(True), text.splitlines(True), str(golden),
            str(got)))[:80])
        raise AssertionError("REPORT differs from %s (wrote %s):\n%s"
                             % (golden, got, diff))
    if got.exists():
        got.unlink()


def inside_details(text, start):
    """Whether the first line that begins with start is in a <details>
    block."""
    depth = 0
    for line in text.splitlines():
        if line.startswith(start):
            return depth > 0
        depth += line.startswith("<details>") - line.startswith("</details>")
    raise AssertionError("no line begins with %r" % start)


def check_layout(text, figure):
    """The first screen holds the mode, the answer (with its CI and noise
    floor when the run has an A/A), the 2011-vs-here table with each
    comparison's verdict and the main figure (or the line saying it is not
    drawn); then the contents, a link per ## section in order; long tables
    collapsed. The mode is stated once: no heading repeats it."""
    lines = text.splitlines()
    first = "\n".join(lines[:40])
    for want in ("*Accelerator ", "**Answer.**", ", 2011 vs here\n",
                 " | verdict |", figure):
        assert want in first, want
    assert "### Verdict" not in text
    assert not [line for line in lines
                if line.startswith("#") and "(mode " in line]
    assert text.index(figure) < text.index("\n## Contents\n") < \
        text.index("\n## ", text.index("\n## Contents\n") + 1)
    toc = text.split("## Contents\n\n")[1].split("\n\n")[0].splitlines()
    heads = [line[3:] for line in lines
             if line.startswith("## ") and line != "## Contents"]
    assert [t.split("](")[0] for t in toc] == ["- [" + h for h in heads]
    assert "- [MB/s explained: where in the loadfile the window falls]" \
        "(#mbs-explained-where-in-the-loadfile-the-window-falls)" in toc
    assert "- [Drift, steal time and failed runs]" \
        "(#drift-steal-time-and-failed-runs)" in toc
    # Markdown inside <details> renders only after a blank line
    for i, line in enumerate(lines):
        if line.startswith("<details>"):
            assert line.endswith("</summary>") and lines[i + 1] == "", i
    assert text.count("<details>") == text.count("</details>")
    for collapsed in ("| label | n | failed tries | mean ",
                      "| meta.json key | value |"):
        assert inside_details(text, collapsed), collapsed
    if "\n| check or figure |" in text:
        assert inside_details(text, "| check or figure |")
    for shown in ("| kernel | 2011 MB/s |", "| comparison | % change ",
                  "| counter per op |", "Noise floor", "**Answer.**"):
        if shown in text:
            assert not inside_details(text, shown), shown
    assert "three kernels" not in text


def test_title_names_the_kernels_of_the_run():
    st = {"groups": {"main": ["jump-label", "atomic-read", "static-call"],
                     "aa": ["atomic-read.aa"]}, "labels": []}
    assert report.title(st) == \
        "# jlbench: jump labels vs atomic reads vs `static-call`, tbench"
    st = {"groups": {"main": [], "aa": ["A", "B"]},
          "labels": [{"label": "A", "variant": "atomic-read"},
                     {"label": "B", "variant": "atomic-read"}]}
    assert report.title(st) == "# jlbench: A/A control of atomic reads, tbench"


def icount_run(root):
    return synth.make_results(
        str(root / "results"),
        {"jump-label": [39.512, 39.634, 39.401, 39.711, 39.588, 39.655],
         "atomic-read": [39.301, 39.387, 39.226, 39.455, 39.342, 39.418],
         "plain-read": [39.322, 39.431, 39.240, 39.470, 39.351, 39.446],
         "A": [39.310, 39.377, 39.236, 39.449, 39.352, 39.409],
         "B": [39.298, 39.391, 39.221, 39.461, 39.339, 39.425]},
        variant_of={"A": "atomic-read", "B": "atomic-read"},
        failed={("plain-read", 4)}, per_op=PER_OP,
        perf={"branches": "not-supported", "instructions": "not-supported"},
        selftest=True, s390x=True)


def test_report_icount_matches_golden(tmp_path):
    d = icount_run(tmp_path)
    tool("analyze", d)
    tool("draw", "--out", tmp_path / "plots", d)
    out = tmp_path / "REPORT.md"
    tool("report", d, "--out", out, "--plots", tmp_path / "plots")
    text = out.read_text()
    check_golden("REPORT-icount.md", text)
    check_layout(text, "![% change vs atomic-read with 95% CI, and 2011's "
                 "values](plots/pct_change.svg)")
    assert "Noise floor (A/A control" in "\n".join(text.split("\n")[:40])
    assert inside_details(text, "| kernel | build hash |")
    # icount: the verdict and the first table are in operations per second
    assert "complete 0.61% [0.45, 0.65] ±0.02 env more tbench operations " \
        "per second" in text.split("\n")[4]
    assert "| here ops/s, mean [95% CI] |" in text
    assert "| +0.61% [+0.45, +0.65] ±0.02 env | 0.031 * |" in text
    assert "**Resolution.** With 6 seeds per kernel" in text
    assert "A/A control **passed**" in text
    assert "Noise floor (A/A control" in text
    assert "(plots/pct_change.svg)" in text
    # the s390x section: one line from the real selftest-s390x.csv of the
    # fixture (what each check is: docs/s390x.md)
    s390 = text.split("## s390x: the jump label code of seed 004")[1] \
        .split("\n## ")[0]
    assert "s390x selftest boots of `jump-label`, `atomic-read`, " \
        "`plain-read` under TCG (icount): " in s390
    assert "checks, every one PASS (from selftest-s390x.csv" in s390
    assert len(s390.strip().splitlines()) == 1
    assert "FAIL" not in s390
    assert "[`20261201T000000Z-abc1234`](results/20261201T000000Z-abc1234)" \
        in text


def test_report_tcg_without_counters_matches_golden(tmp_path):
    d = synth.make_results(
        str(tmp_path / "results"),
        {"jump-label": [24.1, 27.9, 22.5], "atomic-read": [25.3, 21.7, 28.8],
         "plain-read": [26.0, 23.1, 24.4]},
        accel="tcg", perf={"branches": "not-supported"},
        name="20261203T120000Z-0a1b2c3", builds=False)
    tool("analyze", d)
    out = tmp_path / "REPORT.md"
    tool("report", d, "--out", out, "--plots", tmp_path / "plots")
    text = out.read_text()
    check_golden("REPORT-tcg.md", text)
    check_layout(text, "Plots in `plots` were not drawn")
    # tcg: MB/s stays the headline, as in 2011, operations beside it
    assert "| here MB/s, mean [95% CI] |" in text
    assert "ops/s vs atomic [95% CI]" in text
    assert "in tbench throughput (MB/s)" in text.split("\n")[4]
    assert "**not measured on this host**" in text
    assert "*Accelerator tcg: emulated wall-clock, noisy, not hardware; " \
        in text
    assert "were not drawn" in text
    assert "No s390x selftest in this results dir" in text


def test_report_sets_the_distro_run_beside_the_full_one(tmp_path):
    """Kernel configs: each config's newest run of the same protocol, with
    its site executions, the check's cost per site and the gain."""
    full = icount_run(tmp_path)
    more_sites = {v: dict(c, kernel_insns=c["kernel_insns"] + (
        168.0 if v != "jump-label" else 0.0), site_execs=c["site_execs"] * 2)
        for v, c in PER_OP.items()}
    values = {"jump-label": [39.70, 39.82, 39.59, 39.90, 39.77, 39.84],
              "atomic-read": [39.30, 39.38, 39.22, 39.45, 39.34, 39.41],
              "plain-read": [39.32, 39.43, 39.24, 39.47, 39.35, 39.44]}
    distro = synth.make_results(
        str(tmp_path / "results"), values, per_op=more_sites,
        name="20261202T000000Z-def5678", config="distro")
    # another protocol (10 s runs) is never set beside them
    synth.make_results(str(tmp_path / "results"), values, seconds=10,
                       per_op=more_sites, name="20261203T000000Z-0000000",
                       config="smoke")
    for d in (full, distro, tmp_path / "results" / "20261203T000000Z-0000000"):
        tool("analyze", d, "--no-history")
    text = tool("report", full).stdout
    part = text.split("## Kernel configs: more static keys on the path")[1] \
        .split("\n## ")[0]
    rows = [r for r in part.splitlines() if r.startswith("| `")]
    assert len(rows) == 2 and "smoke" not in part
    cells = [r.split(" | ") for r in rows]
    assert cells[0][0] == "| `full`" and cells[1][0] == "| `distro`"
    assert "20261202T000000Z-def5678" in cells[1][1]
    # sites per op, kernel instructions per op and sites per 1,000 of them
    # (jump-label's); atomic-read - jump-label kernel instructions; per site
    assert cells[0][3:8] == ["41.5", "61235", "0.678", "127.5", "3.07"]
    assert cells[1][3:8] == ["83", "61234", "1.36", "295.5", "3.56"]
    assert "`distro` executes 2x the static-key sites per operation of " \
        "`full` (83 against 41.5)" in part
    assert "the gain is larger there" in part
    distro_text = tool("report", distro).stdout
    assert "**Distro kernels** (`--config distro`)" in distro_text
    assert "| `distro` |" in distro_text.split("## Kernel configs")[1]


def test_report_sets_the_other_linux_version_beside_this_one(tmp_path):
    """Kernel versions: the 6.12 run of the same config and protocol is set
    beside the 6.1 one (a 6.12 run of another config is not, nor is the
    6.1 distro run a version peer), with both gains and their difference;
    the 6.12 run's own report names its version."""
    full = icount_run(tmp_path)
    more_sites = {v: dict(c, site_execs=c["site_execs"] * 1.5)
                  for v, c in PER_OP.items()}
    values = {"jump-label": [39.70, 39.82, 39.59, 39.90, 39.77, 39.84],
              "atomic-read": [39.30, 39.38, 39.22, 39.45, 39.34, 39.41],
              "plain-read": [39.32, 39.43, 39.24, 39.47, 39.35, 39.44]}
    new = synth.make_results(
        str(tmp_path / "results"), values, per_op=more_sites,
        name="20261202T000000Z-def5678", linux="6.12")
    others = [synth.make_results(
        str(tmp_path / "results"), values, per_op=more_sites, name=name,
        config="distro", linux=linux) for name, linux in (
            ("20261203T000000Z-0000000", "6.12"),
            ("20261204T000000Z-1111111", "6.1"))]
    for d in [full, new] + others:
        tool("analyze", d, "--no-history")
    text = tool("report", full).stdout
    part = text.split("## Kernel versions: Linux 6.1 and 6.12")[1] \
        .split("\n## ")[0]
    rows = [r.split(" | ") for r in part.splitlines()
            if r.startswith("| Linux")]
    assert [r[0] for r in rows] == ["| Linux 6.1", "| Linux 6.12"]
    assert "20261202T000000Z-def5678" in rows[1][1]
    assert "Linux 6.12 executes 1.5x the static-key sites per operation " \
        "of Linux 6.1" in part
    assert "Plain reads gain" in part and "a difference of" in part
    # the configs section of the 6.1 run does not take the 6.12 distro run
    configs = text.split("## Kernel configs")[1].split("\n## ")[0]
    assert "20261204T000000Z-1111111" in configs
    assert "20261203T000000Z-0000000" not in configs
    new_text = tool("report", new).stdout
    assert "**Answer.** On Linux 6.12," in new_text
    assert "comparison on Linux 6.12 with statistics" in new_text


def test_configs_summary_says_when_the_gains_are_not_resolved():
    """Two runs' gains whose difference is within the combined CIs are not
    called different, whichever is larger."""
    def fig(config, sites, insns, pct, lo, hi):
        return {"name": "`%s`" % config, "sites": sites, "insns": insns,
                "density": sites * 1000.0 / insns,
                "gain": {"pct_change": pct, "pct_ci_lo": lo,
                         "pct_ci_hi": hi}}
    full = fig("full", 263.8, 30352, 1.43, 1.41, 1.45)
    (line,) = configs.summary([full, fig("distro", 402.3, 41474, 1.47,
                                         1.33, 1.62)])
    assert "a difference of +0.04 points [-0.11, +0.19]" in line
    assert "not resolved" in line
    (line,) = configs.summary([full, fig("distro", 402.3, 41474, 1.20,
                                         1.15, 1.25)])
    assert "the gain is smaller there" in line


def test_report_needs_an_analysed_dir(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": [1.0, 1.1],
                                           "atomic-read": [1.0, 1.2]})
    p = tool("report", d, check=False)
    assert p.returncode == 1 and "run analysis/analyze first" in p.stderr


def test_report_does_not_link_plots_of_another_run(tmp_path):
    d = icount_run(tmp_path)
    tool("analyze", d, "--no-history")
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / "drawn-from.txt").write_text("20200101T000000Z-0000000\n")
    shutil.copy(GOLDEN / "REPORT-icount.md", plots / "pct_change.svg")
    p = tool("report", d, "--plots", plots)
    assert "are from run 20200101T000000Z-0000000" in p.stdout
    assert "pct_change.svg" not in p.stdout


def test_compare_prints_benchstat_like_table(tmp_path):
    old = synth.make_results(str(tmp_path), {
        "jump-label": [40.0, 40.1, 39.9, 40.05, 39.95, 40.02],
        "atomic-read": [40.0, 40.1, 39.9, 40.05, 39.95, 40.02]})
    new = synth.make_results(str(tmp_path), {
        "jump-label": [41.0, 41.1, 40.9, 41.05, 40.95, 41.02],
        "atomic-read": [40.0, 40.1, 39.9, 40.05, 39.95, 40.02]},
        name="20261202T000000Z-def5678", per_op=PER_OP)
    p = tool("compare", old, new)
    rows = {line.split("|")[2].strip(): line for line in p.stdout.splitlines()
            if line.startswith("| throughput_mbps")}
    assert set(rows) == {"jump-label", "atomic-read"}
    jl = [c.strip() for c in rows["jump-label"].split("|")]
    assert jl[3] == "40.003 ±0.19%" and jl[4] == "41.003 ±0.18%"
    # the median rule, paired by seed: six of six up, sign test p = 2/64
    assert jl[5].startswith("+2.50% [") and jl[6] == "0.031 sign test"
    assert jl[8] == "*"
    ar = [c.strip() for c in rows["atomic-read"].split("|")]
    assert ar[5].startswith("+0.00% [") and ar[8] == "~"
    assert "6+6 by seed" in rows["atomic-read"]
    # counters only where both runs have them
    assert "kernel_branches/op" not in p.stdout
    bad = tool("compare", old, tmp_path / "missing", check=False)
    assert bad.returncode == 2
    # the same two runs, found in the results store as the newest two
    db = str(tmp_path / "store.db")
    empty = tool("compare", "--label", "jump-label", "--db", db,
                 check=False)
    assert empty.returncode == 1 and "jlbench db rebuild" in empty.stderr
    for d in (new, old):
        tool("analyze", "--no-history", "-q", d)
        assert store.record(d, url=db) == {"added": 1}
    by_label = tool("compare", "--label", "jump-label", "--db", db)
    assert by_label.stdout == p.stdout
    assert tool("compare", old, "--label", "jump-label",
                check=False).returncode == 2


def _set_column(results_dir, column, value, label=None):
    """Rewrite one runs.csv column (of one label's rows, or all)."""
    path = os.path.join(results_dir, "runs.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if label is None or r["label"] == label:
            r[column] = value
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_compare_names_what_changed_and_marks_same_kernel_env(
        tmp_path, monkeypatch):
    """The same kernels under another image: differences are the
    environment's (`env`), never starred without a measured floor; another
    kernel's are starred."""
    monkeypatch.setenv("JLBENCH_CALIBRATION", str(tmp_path / "none.json"))
    vals = [40.0, 40.1, 39.9, 40.05, 39.95, 40.02]
    old = synth.make_results(str(tmp_path), {"jump-label": vals,
                                             "atomic-read": vals})
    new = synth.make_results(str(tmp_path), {
        "jump-label": [v + 1 for v in vals], "atomic-read": vals},
        name="20261202T000000Z-def5678")
    _set_column(new, "image_hash", "feedfacefeedface")
    p = tool("compare", old, new)
    assert "- image: " in p.stdout and "-> feedfacefeedface" in p.stdout
    assert "same kernel in both: atomic-read, jump-label" in p.stdout
    jl = [line for line in p.stdout.splitlines()
          if line.startswith("| throughput_mbps | jump-label")][0]
    assert jl.rstrip().endswith("| env |"), jl
    assert "env: the same kernel in both dirs" in p.stdout
    _set_column(new, "kernel_hash", "0123456789abcdef", label="jump-label")
    p = tool("compare", old, new)
    assert "other kernel: jump-label " in p.stdout
    jl = [line for line in p.stdout.splitlines()
          if line.startswith("| throughput_mbps | jump-label")][0]
    assert jl.rstrip().endswith("| * |"), jl
    p = tool("compare", old, old)
    assert "what differs: nothing but the runs' own seeds" in p.stdout


def test_compare_across_environments_uses_the_measured_floor(
        tmp_path, monkeypatch):
    """With a calibration, a same-kernel difference beyond the level floor
    is significant and says so; one within it stays `env`."""
    vals = [40.0, 40.1, 39.9, 40.05, 39.95, 40.02]
    old = synth.make_results(str(tmp_path), {"jump-label": vals,
                                             "atomic-read": vals})
    new = synth.make_results(str(tmp_path), {
        "jump-label": [v * 1.01 for v in vals],
        "atomic-read": [v * 1.001 for v in vals]},
        name="20261202T000000Z-def5678")
    _set_column(new, "image_hash", "feedfacefeedface")
    cal = tmp_path / "calibration.json"
    cal.write_text(json.dumps({"metrics": {"throughput_mbps": {
        "floor_level_pct": 0.5, "floor_difference_pts": 0.2}}}))
    monkeypatch.setenv("JLBENCH_CALIBRATION", str(cal))
    p = tool("compare", old, new)
    rows = {line.split("|")[2].strip(): line for line in p.stdout.splitlines()
            if line.startswith("| throughput_mbps")}
    assert rows["jump-label"].rstrip().endswith("| * |"), rows
    assert "±0.50 env" in rows["jump-label"]
    assert rows["atomic-read"].rstrip().endswith("| env |"), rows
    assert "its interval reaches within the environment floor" in p.stdout


def test_method_doc_has_every_method_the_analysis_records():
    """REPORT.md's Method section is one line pointing at docs/method.md:
    the doc must hold every method text analysis writes into stats.json."""
    from analysis.stats.analyze import METHODS
    doc = (ROOT / "docs" / "method.md").read_text()
    for key, text in METHODS.items():
        assert "- %s: %s\n" % (key.replace("_", " "), text) in doc, key
