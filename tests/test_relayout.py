"""bench/replay/relayout: a results dir in the layout of before 2026-12-07
(raw/, .config files in provenance/kernels/, a git.diff of generated files,
the left-out paths listed, reproduce.sh the filled-in template) is rewritten
into today's, with its analysis byte-identical; a rewrite that would move a
figure is refused."""
import json
import os
import sys

from conftest import ROOT
from lib.format import rawfiles

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from bench.replay import provenance, relayout  # noqa: E402

VALUES = {"jump-label": [101.0, 102.0, 101.5],
          "atomic-read": [100.0, 100.5, 100.2],
          "plain-read": [100.3, 100.4, 100.1]}
SOURCE_DIFF = (b"diff --git a/lib/x.py b/lib/x.py\n--- a/lib/x.py\n"
               b"+++ b/lib/x.py\n@@ -1 +1 @@\n-a\n+b\n")
REPORT_DIFF = (b"diff --git a/REPORT.md b/REPORT.md\n--- a/REPORT.md\n"
               b"+++ b/REPORT.md\n@@ -1 +1 @@\n-old\n+new\n")


def old_layout(root, name, diff):
    """A synthetic results dir as bench/run wrote one before 2026-12-07."""
    d = synth.make_results(str(root), VALUES, name=name)
    prov = os.path.join(d, "provenance")
    os.makedirs(os.path.join(prov, "kernels"))
    kernels = {}
    for v in VALUES:
        with open(os.path.join(prov, "kernels", v + ".config"), "w") as f:
            f.write("CONFIG_X=y\n")       # the same in each
        kernels[v] = {"config_file": "kernels/%s.config" % v}
    with open(os.path.join(prov, "git.diff"), "wb") as f:
        f.write(diff)
    with open(os.path.join(prov, "provenance.json"), "w") as f:
        json.dump({"git": {"commit": "a" * 40, "dirty": True,
                           "diff": "git.diff",
                           "left_out": ["results/x", "results/y"]},
                   "kernels": kernels, "mode": "icount"}, f)
    with open(os.path.join(d, "reproduce.sh"), "w") as f:
        f.write("#!/bin/bash\n# the old template, filled in\nCOMMIT=a\n")
    return d


def test_an_old_dir_is_rewritten_and_its_analysis_is_unchanged(tmp_path):
    root = tmp_path / "results"
    src = old_layout(root, "20261201T000000Z-abc1234", SOURCE_DIFF)
    gen = old_layout(root, "20261202T000000Z-abc1234", REPORT_DIFF)
    before = {n: rawfiles.read_bytes(os.path.join(src, "raw", n))
              for n in rawfiles.listdir(os.path.join(src, "raw"))}
    assert relayout.main([str(root)]) == 0
    assert not os.path.exists(os.path.join(src, "raw"))
    assert {n: rawfiles.read_bytes(os.path.join(src, "raw", n))
            for n in rawfiles.listdir(os.path.join(src, "raw"))} == before
    store = root / provenance.CONFIG_STORE
    assert len(os.listdir(store)) == 1          # one content, stored once
    for d, diff in ((src, SOURCE_DIFF), (gen, None)):
        prov = os.path.join(d, "provenance")
        with open(os.path.join(prov, "provenance.json")) as f:
            doc = json.load(f)
        assert doc["git"]["left_out"]["count"] == 2
        for k in doc["kernels"].values():
            with open(os.path.join(prov, k["config_file"])) as f:
                assert f.read() == "CONFIG_X=y\n"
        assert not [n for n in os.listdir(os.path.join(prov, "kernels"))
                    if n.endswith(".config")]
        with open(os.path.join(d, "reproduce.sh")) as f:
            assert f.read() == provenance.STUB
        if diff:
            with open(os.path.join(prov, "git.diff"), "rb") as f:
                assert f.read() == diff
        else:
            # only a generated file had changed: the sources were clean
            assert not os.path.exists(os.path.join(prov, "git.diff"))
            assert doc["git"]["dirty"] is False


def test_a_rewrite_that_moves_a_figure_is_refused(tmp_path, monkeypatch,
                                                  capsys):
    root = tmp_path / "results"
    old_layout(root, "20261201T000000Z-abc1234", SOURCE_DIFF)
    real = relayout.rewrite

    def lossy(d, top):
        real(d, top)
        with open(os.path.join(d, "runs.csv")) as f:
            lines = f.read().splitlines(True)
        with open(os.path.join(d, "runs.csv"), "w") as f:
            f.writelines(lines[:-1])              # a try lost

    monkeypatch.setattr(relayout, "rewrite", lossy)
    assert relayout.main([str(root)]) == 1
    assert "differs after the rewrite" in capsys.readouterr().err
