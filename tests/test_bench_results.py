"""lib/format/results.py, lib/format/counts.py and bench/tries/inputs.py."""
import csv
import gzip
import json
import pathlib
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.tries import inputs, plan  # noqa: E402
from lib.format import console, counts, results, schema  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "bench"
RUN = plan.Run(3, 1, 3, "jump-label", "jump-label", 77, 20)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_create_append_and_reopen(tmp_path):
    d = results.ResultsDir.create(str(tmp_path / "r"), ["branch-misses"])
    assert "perf_branch_misses" in d.columns
    assert d.columns[-len(schema.PLUGIN_COLUMNS):] == schema.PLUGIN_COLUMNS
    d.append_samples(RUN, [40.0], [47.5, 48.0])
    d.append_run({"index": 3, "try": 1, "status": "ok", "reason": "",
                  "throughput_mbps": "48.0", "variant": "jump-label"})
    d.append_run({"index": 4, "try": 1, "status": "failed",
                  "reason": 'guest error: "x", y', "variant": "plain-read"})
    rows = read_csv(d.runs_csv)
    assert [r["status"] for r in rows] == ["ok", "failed"]
    assert rows[1]["reason"] == 'guest error: "x", y'
    assert rows[1]["throughput_mbps"] == ""
    samples = read_csv(d.samples_csv)
    assert [(s["second"], s["throughput_mbps"], s["warmup"])
            for s in samples] == [("1", "40.0", "1"), ("2", "47.5", "0"),
                                  ("3", "48.0", "0")]
    assert samples[0]["label"] == "jump-label"
    with pytest.raises(KeyError):
        d.append_run({"no_such_column": 1})
    for f in ("plan.csv", "meta.json"):
        (tmp_path / "r" / f).write_text("{}")
    again, notes = results.ResultsDir.open(str(tmp_path / "r"))
    assert notes == [] and again.columns == d.columns
    assert len(again.rows()) == 2
    assert d.raw_base(RUN, 2).endswith("raw/003-jump-label-try2")


def test_reopen_cuts_a_torn_row_and_orphan_samples(tmp_path):
    path = tmp_path / "r"
    d = results.ResultsDir.create(str(path), [])
    d.append_samples(RUN, [], [1.0, 2.0])
    d.append_run({"index": 3, "try": 1, "status": "ok"})
    other = RUN._replace(index=4)
    d.append_samples(other, [], [5.0])       # its row never written
    with open(d.runs_csv, "a") as f:
        f.write("5,2,1,plain-read,plain-read,icount,9,1,h,i,o")  # torn
    (path / "plan.csv").write_text("")
    results.write_json(str(path / "meta.json"), {"a": 1})
    again, notes = results.ResultsDir.open(str(path))
    assert len(notes) == 2
    assert [r["index"] for r in again.rows()] == ["3"]
    assert [s["index"] for s in read_csv(again.samples_csv)] == ["3", "3"]
    assert again.meta() == {"a": 1}


def test_an_older_dir_resumes_under_its_own_header(tmp_path):
    """A dir from before `accel` (its runs.csv column was `mode`): resumed,
    a try's row of today's names goes under the dir's own header, and
    every reader (rows(), analysis' read_runs) sees today's names."""
    from analysis.results import load
    path = tmp_path / "r"
    d = results.ResultsDir.create(str(path), [])
    runs = pathlib.Path(d.runs_csv)
    runs.write_text(runs.read_text().replace(",accel,", ",mode,", 1))
    (path / "plan.csv").write_text("")
    results.write_json(str(path / "meta.json"), {})
    again, _ = results.ResultsDir.open(str(path))
    assert "mode" in again.header and "accel" in again.columns
    again.append_run({"index": 1, "round": 1, "position": 1, "try": 1,
                      "variant": "jump-label", "label": "jump-label",
                      "accel": "icount", "status": "ok", "ops": "10",
                      "throughput_mbps": "1.5"})
    assert read_csv(d.runs_csv)[0]["mode"] == "icount"
    assert again.rows()[0]["accel"] == "icount"
    assert list(load.read_runs(d.runs_csv)["accel"]) == ["icount"]


def test_open_rejects_a_non_results_dir(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a bench results dir"):
        results.ResultsDir.open(str(tmp_path))


def test_figures_from_a_block():
    rep = console.parse((FIX / "synthetic-ok.log").read_text())
    cells = results.figures(rep.block, ["branches", "task-clock", "cycles"])
    assert cells["throughput_mbps"] == "48.1234"
    assert cells["boot_seconds"] == "2.15"
    assert cells["steal_ticks"] == 0 and cells["system_ticks"] == 800
    assert cells["total_ticks"] == 993
    assert cells["perf_branches"] == "not-supported"
    assert cells["perf_task_clock"] == "4012.5"
    assert cells["perf_cycles"] is None          # not in the block: empty
    del rep.block["stat.iowait_ticks"]
    assert results.figures(rep.block, [])["total_ticks"] is None


def test_dir_name():
    assert results.dir_name((2026, 12, 3, 5, 6, 7, 0, 0, 0), "abc1234") \
        == "20261203T050607Z-abc1234"


COUNTS = """count_mode=tb
window=1
windows=1
kernel_insns=3500000123
user_insns=12345
kernel_branches=400000
user_branches=2000
site_execs=not-counted
sites=0
"""


def test_counts_parse(tmp_path):
    cells = counts.parse(COUNTS)
    assert cells == {"plugin_window": 1, "kernel_insns": 3500000123,
                     "user_insns": 12345, "kernel_branches": 400000,
                     "user_branches": 2000, "site_execs": "not-counted"}
    assert set(cells) <= set(schema.PLUGIN_COLUMNS)
    with pytest.raises(ValueError, match="not key=value"):
        counts.parse("kernel_insns 5\n")
    with pytest.raises(ValueError, match="not an integer"):
        counts.parse("kernel_insns=5x\nuser_insns=1\n")
    with pytest.raises(ValueError, match="lack"):
        counts.parse("window=1\n")
    p = tmp_path / "x.counts"
    assert counts.read(str(p)) == ({}, "plugin wrote no counts file")
    p.write_text("garbage\n")
    assert counts.read(str(p))[1].startswith("plugin counts unreadable")
    p.write_text(COUNTS)
    assert counts.read(str(p)) == (cells, "")


def test_counts_need_exactly_one_window():
    text = COUNTS + "markers_start=2\nmarkers_end=2\n"
    cells = counts.parse(text)
    assert cells["plugin_window"] == 0
    assert {cells[c.column] for c in schema.PLUGIN_COUNTERS
            if c.column in cells} == {"not-counted"}
    ok = counts.parse(COUNTS + "markers_start=1\nmarkers_end=1\n")
    assert ok["kernel_insns"] == 3500000123 and ok["plugin_window"] == 1


def test_counts_find_without_a_plugin(tmp_path):
    path, note = counts.find(str(tmp_path))
    assert path is None and "no branch-count plugin" in note


def test_sites_file(tmp_path):
    """The build dir's jump-sites.txt is copied; an empty table is None."""
    jl, ar = tmp_path / "jl", tmp_path / "ar"
    jl.mkdir()
    ar.mkdir()
    (jl / "jump-sites.txt").write_text(
        "# jump table sites of X: 3\n" +
        "".join("ffffffff8100%04x\n" % i for i in (1, 2, 3)))
    (ar / "jump-sites.txt").write_text("# jump table sites of Y: 0\n")
    out = str(tmp_path / "jl.txt")
    assert counts.sites_file(str(jl), out) == (out, 3)
    assert open(out).read() == (jl / "jump-sites.txt").read_text()
    assert counts.sites_file(str(ar), out) == (None, 0)
    with pytest.raises(counts.PluginError, match="run kernel-variants/build"):
        counts.sites_file(str(tmp_path), out)


def test_counts_find_locates_the_built_plugin(tmp_path):
    """find() asks bench/plugin/build --locate and builds nothing; a plugin
    that is not built is an error naming bench/plugin/build."""
    calls = []
    so = tmp_path / "branches-x.so"
    so.write_text("")

    def located(cmd, **kw):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "%s\n" % so, "")

    def not_built(cmd, **kw):
        return subprocess.CompletedProcess(
            cmd, 1, "", "plugin: error: the branch-count plugin is not built"
            " for these sources: run bench/plugin/build\n")

    assert counts.find(str(ROOT), run=located)[0] == str(so)
    assert calls == [[str(ROOT / "bench" / "plugin" / "build"), "--locate"]]
    with pytest.raises(counts.PluginError, match="run bench/plugin/build"):
        counts.find(str(ROOT), run=not_built)


def make_builds(tmp_path, variants=("jump-label", "atomic-read")):
    lines = []
    for v in variants:
        d = tmp_path / v
        d.mkdir()
        (d / "bzImage").write_bytes(b"kernel " + v.encode())
        (d / "build.json").write_text(json.dumps(
            {"variant": v, "hash": "h-" + v, "boot_args": "a=1"}))
        lines.append("%s\t%s\n" % (v, d))
    f = tmp_path / "builds.tsv"
    f.write_text("".join(lines))
    return f


def test_read_builds(tmp_path):
    b = inputs.read_builds(str(make_builds(tmp_path)))
    assert list(b) == ["jump-label", "atomic-read"]
    assert b["jump-label"].hash == "h-jump-label"
    assert b["jump-label"].boot_args == "a=1"
    assert b["jump-label"].kernel.endswith("jump-label/bzImage")


@pytest.mark.parametrize("text, msg", [
    ("", "lists nothing"),
    ("jump-label /x\n", "expected variant<TAB>path"),
    ("a\t/nonexistent\n", "build.json"),
])
def test_read_builds_errors(tmp_path, text, msg):
    f = tmp_path / "b.tsv"
    f.write_text(text)
    with pytest.raises(inputs.InputError, match=msg):
        inputs.read_builds(str(f))


def test_read_builds_without_a_hash_uses_the_kernel_bytes(tmp_path):
    f = make_builds(tmp_path, ("jump-label",))
    (tmp_path / "jump-label" / "build.json").write_text('{"hash": ""}')
    b = inputs.read_builds(str(f))["jump-label"]
    assert b.hash == "bz-" + inputs.file_hash(b.kernel)
    assert "no hash" in b.hash_note


def test_read_builds_missing_kernel_and_duplicates(tmp_path):
    f = make_builds(tmp_path)
    (tmp_path / "jump-label" / "bzImage").unlink()
    with pytest.raises(inputs.InputError, match="no bzImage"):
        inputs.read_builds(str(f))
    (tmp_path / "jump-label" / "bzImage").write_text("k")
    f.write_text(f.read_text() + f.read_text())
    with pytest.raises(inputs.InputError, match="twice"):
        inputs.read_builds(str(f))


def test_read_images_single_and_per_variant(tmp_path):
    img = tmp_path / "a.cpio.gz"
    img.write_bytes(gzip.compress(b"070701"))
    one = inputs.read_images(str(img), ["x", "y"])
    assert one["x"].path == str(img) and one["x"].hash == one["y"].hash
    assert len(one["x"].hash) == 16
    img2 = tmp_path / "b.cpio.gz"
    img2.write_bytes(gzip.compress(b"070701 other"))
    tsv = tmp_path / "images.tsv"
    tsv.write_text("x\t%s\ny\t%s\n" % (img, img2))
    two = inputs.read_images(str(tsv), ["x", "y"])
    assert two["y"].path == str(img2) and two["x"].hash != two["y"].hash
    with pytest.raises(inputs.InputError, match="no image for z"):
        inputs.read_images(str(tsv), ["x", "z"])
    with pytest.raises(inputs.InputError, match="guest-image/build"):
        inputs.read_images(str(tmp_path / "none"), ["x"])
