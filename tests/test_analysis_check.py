"""analysis/analyze checks every runs.csv row and sample against its raw
files (analysis/results/check.py): copies of a committed results dir, damaged
on purpose, must each give a named finding, a report without the damaged
figure, and exit 1 with --strict; the undamaged dirs give none."""
import csv
import json
import os
import re
import shutil
import sys

import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
from lib.format import rawfiles, rawtry  # noqa: E402

FIXTURE = ROOT / "results" / "20261203T092958Z-fb1efce"
COMMITTED = sorted(p for p in (ROOT / "results").iterdir()
                   if (p / "runs.csv").is_file())
ROW = 4                      # runs.csv row of run 4 (jump-label), line 5
BASE = "raw/004-jump-label-try1"


def copy(tmp_path, src=FIXTURE, unpack=True):
    """A copy of results dir src to damage, its raw files in raw/ (the
    committed dirs keep them in raw.tar.xz) unless unpack is False."""
    d = tmp_path / src.name
    shutil.copytree(src, d, ignore=shutil.ignore_patterns(
        "stats.json", "summary.csv"))
    if unpack:
        rawfiles.unpack(str(d))
    return d


def analyze(d, *extra):
    return run([PYTHON, str(ROOT / "analysis" / "analyze"), "--no-history",
                str(d)] + list(extra), check=False)


def report(d, tmp_path):
    out = tmp_path / "REPORT.md"
    run([PYTHON, str(ROOT / "analysis" / "report"), str(d), "--out",
         str(out), "--plots", str(tmp_path / "plots")])
    return out.read_text()


def edit_row(d, **cells):
    """Set cells of runs.csv row ROW (1-based, after the header)."""
    path = d / "runs.csv"
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    for k, v in cells.items():
        rows[ROW][rows[0].index(k)] = v
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def row_value(d, column):
    with open(d / "runs.csv", newline="") as f:
        return list(csv.DictReader(f))[ROW - 1][column]


def edit_block(d, key, value):
    """Set key=value in the result block of the try's log."""
    log = d / (BASE + ".log")
    text = re.sub(r"(?m)^%s=.*$" % re.escape(key), "%s=%s" % (key, value),
                  log.read_text())
    log.write_text(text)


def set_both(d, column, value):
    """Give runs.csv row ROW and its log's block the same value; analyze."""
    edit_block(d, column, value)
    edit_row(d, **{column: value})
    p = analyze(d)
    return p, stats(d)


def truncate(path, fraction):
    os.truncate(path, int(path.stat().st_size * fraction))


def stats(d):
    with open(d / "stats.json") as f:
        return json.load(f)


def label(st, name="jump-label"):
    return next(i for i in st["labels"] if i["label"] == name)


def figures_part(text):
    """REPORT.md without its Warnings section (where findings are named)."""
    head, _, tail = text.partition("## Warnings")
    return head + tail.partition("\n## ")[2]


def damage_sample(d):
    path = d / "samples.csv"
    lines = path.read_text().splitlines(True)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("4,")) + 3
    cells = lines[i].split(",")
    cells[4] = "99.4321"
    lines[i] = ",".join(cells)
    path.write_text("".join(lines))


# name: (damage, text the finding must hold, damaged figure, run left out)
DAMAGE = {
    "throughput": (lambda d: edit_row(d, throughput_mbps="9999999"),
                   "runs.csv line 5 (run 4 jump-label try 1): "
                   "throughput_mbps is '9999999', but %s.log gives '41.5618'"
                   % BASE, "9999999", True),
    "ops-garbage": (lambda d: edit_row(d, ops="garbage"),
                    "ops is 'garbage' (not a number), but %s.log gives "
                    "'164095'" % BASE, "garbage", True),
    "log-truncated": (lambda d: truncate(d / (BASE + ".log"), 0.9),
                      "status is 'ok', but %s.log gives 'failed' (no result "
                      "block" % BASE, None, True),
    "log-deleted": (lambda d: os.unlink(d / (BASE + ".log")),
                    "its raw log %s.log is missing" % BASE, None, True),
    "no-raw-files": (lambda d: [os.unlink(p) for p in rawtry.present(
        str(d / BASE))], "no raw files (%s.log, .qemu-cmd)" % BASE, None,
        True),
    "sample": (damage_sample, "samples.csv line 71 (run 4, second 4): "
               "throughput_mbps '99.4321', warmup '0', but %s.log gives "
               "'18.9'" % BASE, "99.4321", False),
    "counter": (lambda d: edit_row(d, kernel_branches="597000000"),
                "kernel_branches is '597000000', but %s.counts gives "
                "'560324752'" % BASE, "597000000", True),
    "negative": (lambda d: edit_row(d, max_latency_ms="-52.795"),
                 "max_latency_ms is '-52.795' (negative), but %s.log gives "
                 "'52.795'" % BASE, "-52.795", True),
    "status-flipped": (lambda d: edit_row(d, status="failed"),
                       "status is 'failed', but %s.log gives 'ok'" % BASE,
                       None, True),
}


@pytest.mark.parametrize("src", COMMITTED, ids=lambda p: p.name)
def test_committed_results_dirs_have_no_finding(tmp_path, src):
    d = copy(tmp_path, src, unpack=False)
    p = analyze(d, "--strict")
    assert p.returncode == 0, p.stderr
    st = stats(d)
    assert st["findings"] == [] and st["excluded"] == {
        "lines": [], "sample_runs": []}
    rows = len((src / "runs.csv").read_text().splitlines()) - 1
    manifests = len([n for n in rawfiles.listdir(str(src / "raw"))
                     if n.endswith(".sha256")])
    assert st["check"]["rows"] == rows
    # dirs from before the manifests are checked by re-parsing alone
    assert st["check"]["manifests"] == manifests in (0, rows)
    assert ("note: no raw/*.sha256 manifests" in p.stderr) == (
        manifests == 0)
    assert "runs.csv line" not in "\n".join(st["warnings"])


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_damage_is_named_left_out_and_strict_fails(tmp_path, name):
    damage, want, figure, run_out = DAMAGE[name]
    d = copy(tmp_path)
    n_before = label(json.loads((FIXTURE / "stats.json").read_text()))["n"]
    damage(d)
    p = analyze(d, "--strict")
    assert p.returncode == 1 and want in p.stderr, p.stderr
    assert not (d / "stats.json").exists()
    p = analyze(d)
    assert p.returncode == 0, p.stderr
    st = stats(d)
    texts = [f["text"] for f in st["findings"]]
    assert any(want in t for t in texts), texts
    assert all(t in st["warnings"] for t in texts)
    f = next(f for f in st["findings"] if want in f["text"])
    assert f["excluded"] and f["run"] == 4
    assert label(st)["n"] == n_before - run_out
    assert (4 in st["excluded"]["sample_runs"]) and \
        (st["excluded"]["lines"] == ([5] if run_out else []))
    text = report(d, tmp_path)
    assert want in text.partition("## Warnings")[2]
    if figure:
        assert figure not in figures_part(text)
        assert figure not in json.dumps(st["metrics"])
    assert not re.search(r"\b(None|nan|NaN)\b", text)


def test_value_that_is_no_number_in_the_log_too_is_flagged(tmp_path):
    d = copy(tmp_path)
    p, st = set_both(d, "ops", "-164095")
    want = ("runs.csv line 5 (run 4 jump-label try 1): ops is '-164095': "
            "negative (its raw files say so too); row left out of the "
            "statistics")
    assert want in st["warnings"], p.stderr
    assert st["excluded"]["lines"] == [5]
    p, st = set_both(d, "ops", "lots")
    assert "ops is 'lots': not a number (its raw files say so too)" in \
        "\n".join(st["warnings"])


def test_outlier_that_agrees_with_its_log_is_flagged_and_left_out(tmp_path):
    d = copy(tmp_path)
    p, st = set_both(d, "throughput_mbps", "83.1236")
    w = [x for x in st["warnings"] if "is an outlier" in x]
    assert len(w) == 1, p.stderr
    assert w[0].startswith("runs.csv line 5 (run 4 jump-label try 1): "
                           "throughput_mbps 83.1236 is an outlier")
    assert "from the median" in w[0] and "left out" in w[0]
    assert label(st)["n"] == 4 and st["excluded"]["lines"] == [5]
    assert "83.12" not in figures_part(report(d, tmp_path))
    assert analyze(d, "--strict").returncode == 1


def with_manifests(tmp_path):
    d = copy(tmp_path)
    for log in (d / "raw").glob("0*-try*.log"):
        rawtry.write_manifest(str(log)[:-len(".log")])
    return d


def test_manifests_catch_what_reparsing_cannot(tmp_path):
    d = with_manifests(tmp_path)
    p = analyze(d, "--strict")
    assert p.returncode == 0, p.stderr
    assert stats(d)["check"]["manifests"] == 15
    assert "note: no raw/*.sha256" not in p.stderr
    with open(d / (BASE + ".log"), "a") as f:
        f.write("\n")
    truncate(d / "raw/005-atomic-read-try1.qemu-cmd", 0.5)
    (d / "raw/007-plain-read-try1.sha256").unlink()
    p = analyze(d, "--strict")
    assert p.returncode == 1
    for want in (
            "runs.csv line 5 (run 4 jump-label try 1): raw/004-jump-label-"
            "try1.log changed since the try ended (manifest %s.sha256: "
            "sha256 " % BASE,
            "runs.csv line 6 (run 5 atomic-read try 1): raw/005-atomic-read-"
            "try1.qemu-cmd changed since the try ended",
            "runs.csv line 8 (run 7 plain-read try 1): no manifest "
            "raw/007-plain-read-try1.sha256, though other tries have one"):
        assert want in p.stderr
    analyze(d)
    assert stats(d)["excluded"]["lines"] == [5, 6, 8]


def test_runner_rows_agree_with_what_rawtry_derives():
    log = ROOT / "tests" / "fixtures" / "bench" / "real-icount-ok.log"
    got = rawtry.derive(str(log)[:-len(".log")], ["task-clock"], False,
                        "QEMU exited with status 0")
    assert got.status == "ok" and got.cells["status"] == "ok"
    assert float(got.cells["throughput_mbps"]) > 0 and got.measured
    assert set(rawtry.columns(["task-clock"])) >= set(got.cells)


def test_a_rare_count_moving_by_a_few_events_is_no_outlier():
    """Context switches, 80 or so in a run of 4 million operations, move
    by a few from seed to seed: the outlier rule's scale has the counting
    noise as its floor, so no run is left out for 84 against 80. A
    kernel instruction count as far off is still an outlier."""
    import pandas as pd
    from analysis.results import check

    rows = []
    for i, (cs, insns) in enumerate([(80, 800e6), (80, 800e6), (80, 801e6),
                                     (84, 800e6), (80, 900e6)], 1):
        rows.append({"index": i, "variant": "syscall", "label": "syscall",
                     "try": 1, "status": "ok", "ops": 4e6,
                     "throughput_mbps": float("nan"), "kernel_insns": insns,
                     "perf_context_switches": cs})

    class Res:
        runs = pd.DataFrame(rows)
        samples = None
    chk = check.Check("dir")
    chk.lines = {(r["index"], 1): r["index"] + 1 for r in rows}
    res = Res()
    check.outliers(chk, res)
    assert [f["field"] for f in chk.findings] == ["kernel_insns_per_op"]
    assert list(res.runs["index"]) == [1, 2, 3, 4]
