"""A fourth variant goes through analysis, the report and the plots' data
with no change to their code: every per-variant part lists it."""
import csv
import re
import sys

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402

FOURTH = "static-call"
PER_OP = dict(synth.GOLDEN_PER_OP, **{
    FOURTH: {"kernel_insns": 61290.0, "kernel_branches": 10150.0,
             "user_insns": 4100.0, "user_branches": 612.0, "site_execs": 0},
})


def four_variants(tmp_path):
    return synth.make_results(
        str(tmp_path / "results"),
        {"jump-label": [39.512, 39.634, 39.401, 39.711, 39.588],
         "atomic-read": [39.301, 39.387, 39.226, 39.455, 39.342],
         "plain-read": [39.322, 39.431, 39.240, 39.470, 39.351],
         FOURTH: [39.402, 39.511, 39.330, 39.561, 39.447]},
        per_op=PER_OP, selftest=True)


def sections(text):
    """{heading: body} of every ## and ### heading of a report."""
    out, head = {}, "top"
    for line in text.splitlines():
        if line.startswith("#"):
            head = line.lstrip("#").strip()
            out[head] = ""
        else:
            out[head] = out.get(head, "") + line + "\n"
    return out


def test_a_fourth_variant_is_in_every_per_variant_section(tmp_path):
    d = four_variants(tmp_path)
    run([PYTHON, str(ROOT / "analysis" / "analyze"), "--strict", d])
    out = tmp_path / "REPORT.md"
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out),
         "--plots", str(tmp_path / "plots")])
    text = out.read_text()
    sec = sections(text)

    def body(prefix):
        hits = [b for h, b in sec.items() if h.startswith(prefix)]
        assert hits, prefix
        return hits

    assert text.splitlines()[0] == "# jlbench: jump labels vs atomic " \
        "reads vs plain reads vs `%s`, tbench" % FOURTH
    answer = text.split("\n\n")[2]
    assert "`%s` +" % FOURTH in answer
    for b in body("tbench operations per second, tbench 20 clients, 2011"):
        row = next(line for line in b.splitlines()
                   if line.startswith("| `%s` | - | - |" % FOURTH))
        # its verdict: no 2011 figure to reproduce, only significance
        assert row.endswith("| significant |") or \
            row.endswith("| not significant |"), row
    for what in ("ops/s (headline) per variant", "MB/s per variant",
                 "Kernels", "Drift, steal time"):
        for b in body(what):
            assert "| `%s` |" % FOURTH in b, what
    for what in ("ops/s (headline) against", "MB/s against"):
        for b in body(what):
            assert "| `%s` vs `atomic-read` |" % FOURTH in b, what
    counts = body("Per tbench operation")[0]
    assert "| `%s` |" % FOURTH in counts.splitlines()[1]
    assert ("`%s` ran %s more kernel instructions per operation than "
            "`jump-label`" % (FOURTH, "55.5")) in counts
    selftest = body("Static-key selftest")[0]
    assert "| `%s` |" % FOURTH in selftest.split("| check or figure")[1] \
        .splitlines()[0]
    with open(tmp_path / "results" / "history.csv") as f:
        hist = [r for r in csv.DictReader(f) if r["label"] == FOURTH]
    assert {r["metric"] for r in hist} == {"ops_per_s", "throughput_mbps"}

    data = tmp_path / "data"
    data.mkdir()
    run([PYTHON, str(ROOT / "plots" / "prepare"), d, str(data)])
    names = re.findall(r'lname\d+ = "([^"]+)"',
                       (data / "common.vars").read_text())
    assert names == ["jump-label", "atomic-read", "plain-read", FOURTH]
    assert "%s vs atomic-read" % FOURTH in (data / "pct.dat").read_text()
    assert (data / "trace_4.dat").read_text().strip()
    assert (data / "drift_4.dat").read_text().strip()
    for panel in data.glob("branches_*.dat"):
        assert '"%s"' % FOURTH in panel.read_text(), panel.name
    # seeds: one point per seed of every label, a pair panel per kernel
    assert len((data / "seeds_left.dat").read_text().splitlines()) == 4 * 5
    assert '"%s" 3' % FOURTH in (data / "seeds_xtics.vars").read_text()
