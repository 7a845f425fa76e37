"""bench/run -> analysis/analyze -> plots/draw -> analysis/report on a
results dir written by the real runner (with the stand-in QEMU of
tests/fixtures/bench/, which boots nothing), so the stages agree on the
formats of lib/format/FORMATS.md."""
import gzip
import json
import os

from conftest import PYTHON, ROOT, run
from lib.format import rawfiles

STANDIN = ROOT / "tests" / "fixtures" / "bench" / "stand-in-qemu"
VARIANTS = ("jump-label", "atomic-read", "plain-read")


def bench_results(tmp_path):
    lines = []
    for v in VARIANTS:
        d = tmp_path / "builds" / v
        d.mkdir(parents=True)
        (d / "bzImage").write_bytes(b"not a kernel")
        (d / "build.json").write_text(json.dumps({
            "variant": v, "hash": "h" + v[:4], "boot_args": "",
            "verify": {"ok": True, "jump_table": {
                "entries": 802 if v == "jump-label" else 0,
                "aligned": True}}}))
        lines.append("%s\t%s\n" % (v, d))
    (tmp_path / "builds.tsv").write_text("".join(lines))
    (tmp_path / "img.cpio.gz").write_bytes(gzip.compress(b"070701"))
    (tmp_path / "script").write_text("crash\n")
    env = dict(os.environ, JLBENCH_QEMU=str(STANDIN),
               STANDIN_SCRIPT=str(tmp_path / "script"))
    run([str(ROOT / "bench" / "run"), "--builds",
         str(tmp_path / "builds.tsv"), "--initramfs",
         str(tmp_path / "img.cpio.gz"), "--results-root",
         str(tmp_path / "results"), "--out", str(tmp_path / "out"),
         "--quiet", "--accel", "icount", "--boots", "3", "--seconds", "2",
         "--seed", "7", "--no-plugin"], env=env)
    return (tmp_path / "out").read_text().strip()


def test_runner_output_goes_through_analysis_plots_and_report(tmp_path):
    d = bench_results(tmp_path)
    # --strict: every row and sample agrees with the raw files and
    # manifests bench/run wrote (analysis/results/check.py)
    p = run([PYTHON, str(ROOT / "analysis" / "analyze"), "--strict", d])
    assert "1 failed try" in p.stderr
    assert len(rawfiles.listdir(os.path.join(d, "raw"))) > 0
    with open(os.path.join(d, "runs.csv")) as f:
        tries = len(f.read().splitlines()) - 1
    assert len([n for n in rawfiles.listdir(os.path.join(d, "raw"))
                if n.endswith(".sha256")]) == tries
    with open(os.path.join(d, "stats.json")) as f:
        st = json.load(f)
    assert st["accel"] == "icount" and st["groups"]["main"] == list(VARIANTS)
    thr = next(m for m in st["metrics"] if m["metric"] == "throughput_mbps")
    main = [c for c in thr["comparisons"] if c["group"] == "main"]
    assert {c["label"] for c in main} == {"jump-label", "plain-read"}
    assert all(c["paired"] and len(c["seeds"]) == 3 for c in main)
    # the default A/A twin: its own seeds, paired with its kernel by round
    aa = [c for c in thr["comparisons"] if c["group"] == "aa"]
    assert [(c["label"], c["baseline"], len(c["rounds"])) for c in aa] == [
        ("atomic-read.aa", "atomic-read", 3)]
    assert st["headline"] == "ops_per_s"
    assert sum(i["failed"] for i in st["labels"]) == 1
    plots = tmp_path / "plots"
    run([str(ROOT / "plots" / "draw"), "--out", str(plots), d])
    for name in ("throughput", "pct_change", "traces", "drift", "history"):
        assert (plots / (name + ".svg")).stat().st_size > 1000, name
    assert not (plots / "branches.svg").exists()
    out = tmp_path / "REPORT.md"
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out),
         "--plots", str(plots)])
    text = out.read_text()
    assert "| `jump-label` | 815.6 | +1.94% |" in text
    assert "**not measured on this host**" in text
    assert "| `jump-label` | `hjump` |" in text and "| 802 |" in text
    assert "Branches and instructions per tbench operation: not drawn" \
        in text
    hist = tmp_path / "results" / "history.csv"
    before = hist.read_text()
    # a row per label (3 variants and the A/A twin) and throughput metric
    assert len(before.splitlines()) == 1 + 4 * 2
    run([PYTHON, str(ROOT / "analysis" / "analyze"), "-q", d])
    assert hist.read_text() == before
