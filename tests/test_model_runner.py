"""bench/run --model on the runner's side: parameters (lib/model.py), the
static-key words (bench/model/keywords.py), the plugin's command line, runs.csv
columns and REPORT.md's "Modelled hardware cost" from a synthetic results
dir with known figures."""
import sys

import pandas as pd
import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402

from analysis.sections import models  # noqa: E402
from analysis.results import load  # noqa: E402
from test_analysis import AR, JL, PER_OP  # noqa: E402
from test_model_presets import DEFAULT_META, in_order  # noqa: E402
from bench.guest import qemu  # noqa: E402
from bench.model import keywords  # noqa: E402
from bench.session import cli  # noqa: E402
from lib import model  # noqa: E402
from lib.format import schema  # noqa: E402


def test_settings_defaults_and_overrides():
    s = model.settings(["l1d=49152:12", "mispredict=17"])
    assert s["l1d"] == "49152:12" and s["mispredict"] == "17"
    assert s["l1i"] == "32768:8" and s["line"] == "64"
    m = model.meta(s)
    assert m["geometry"]["l1d"] == "49152:12"
    assert m["penalties"] == {"mispredict": 17, "btb_miss": 5,
                              "l1i_miss": 14, "l1d_miss": 14}


def test_options_are_off_and_leave_no_trace_by_default():
    m = model.meta(model.settings(()))
    assert in_order(m) == DEFAULT_META
    assert model.meta(model.settings(["l2=off", "iprefetch=off",
                                      "tage=off"])) == m


def test_options_reach_the_plugin_when_set():
    m = model.meta(model.settings(["l2=1048576:16", "iprefetch=next-line",
                                   "tage=4096:4:1024:9:4:64"]))
    assert m["geometry"] == {"l1i": "32768:8", "l1d": "32768:8",
                             "line": "64", "btb": "4096:4",
                             "l2": "1048576:16", "iprefetch": "next-line",
                             "tage": "4096:4:1024:9:4:64"}
    assert model.plugin_args(m) == (
        "model=on", "l1i=32768:8", "l1d=32768:8", "line=64", "btb=4096:4",
        "l2=1048576:16", "iprefetch=next-line", "tage=4096:4:1024:9:4:64")
    assert "bp=4096:12" in model.plugin_args(
        model.meta(model.settings(["l2=262144:8"])))
    with pytest.raises(model.ModelError, match="give one of them"):
        model.settings(["bp=1024:10", "tage=4096:4:1024:9:4:64"])


@pytest.mark.parametrize("pair", ["l1d=32768", "line=0", "bogus=1",
                                  "bp=4096:x", "mispredict", "l2=1048576",
                                  "iprefetch=on", "tage=4096:4:1024:9:4",
                                  "tage=4096:4:1024:9:0:64"])
def test_bad_settings_name_the_form(pair):
    with pytest.raises(model.ModelError, match="--model-set"):
        model.settings([pair])


def test_plugin_args_reach_the_qemu_command():
    m = model.meta(model.settings(()))
    args = model.plugin_args(m, "/r/keys/jump-label.txt")
    g = qemu.Guest("bzImage", "init.img", "console=ttyS0", "/r/x.log",
                   plugin="/p/branches.so", counts_file="/r/x.counts",
                   sites="/r/sites/jump-label.txt", plugin_args=args)
    cmd = qemu.command("icount", g, 1)
    spec = cmd[cmd.index("-plugin") + 1].split(",")
    assert spec[:3] == ["/p/branches.so", "outfile=/r/x.counts",
                        "sites=/r/sites/jump-label.txt"]
    assert spec[3:] == ["model=on", "l1i=32768:8", "l1d=32768:8", "line=64",
                        "bp=4096:12", "btb=4096:4",
                        "keys=/r/keys/jump-label.txt"]


@pytest.mark.parametrize("argv, message", [
    (["--model-set", "l1d=65536:8"], "add --model"),
    (["--model", "--no-plugin"], "icount"),
    (["--model", "--accel", "tcg"], "icount"),
    (["--model", "--model-set", "l1d=1"], "bytes:ways"),
])
def test_cli_refuses_a_model_it_cannot_run(argv, message):
    with pytest.raises(cli.UsageError, match=message):
        cli.parse(["--builds", "b.tsv", "--initramfs", "i.img"] + argv)


def test_keys_are_placed_by_symbol_and_never_guessed():
    syms = {"k_own": (0x1000, 4), "k_array": (0x2000, 8),
            "__tracepoint_x": (0x3000, 64), "same": (0x4000, 40),
            "odd": (0x5000, 20)}
    assert keywords.place(("k_own", 0, 16), syms) == (0x1000, "keys")
    assert keywords.place(("k_array", 16, 32), syms) == (0x2004, "keys")
    assert keywords.place(("__tracepoint_x", 8, 72), syms) == (
        0x3008, "tracepoint")
    assert keywords.place(("same", 24, 40), syms) == (0x4018, "same size")
    assert keywords.place(("odd", 12, 36), syms) == (None, "unplaced")
    assert keywords.place(("gone", 0, 16), syms) == (None, "not in build")


def test_keys_file_lists_one_word_a_line():
    text = keywords.file_text([0xffffffff82000010], "the keys of X")
    assert text.splitlines() == ["# static-key words (1), the keys of X",
                                 "ffffffff82000010-ffffffff82000014"]


def test_model_cycles_add_penalty_times_events():
    cols = list(model.INSNS) + [c for v in model.PENALTY_EVENTS.values()
                                for c in v]
    row = dict.fromkeys(cols, "0")
    row.update(kernel_insns="1000", user_insns="100",
               kernel_mispredicts="10", user_l1d_misses="2")
    text = dict(row, kernel_btb_misses="not-counted")
    runs = pd.DataFrame([row, text, dict.fromkeys(cols, "")])
    meta = {"model": {"penalties": {"mispredict": 15, "btb_miss": 5,
                                    "l1i_miss": 14, "l1d_miss": 14}}}
    got = load.model_cycles(runs, meta)["model_cycles"].tolist()
    assert got == [str(1100 + 150 + 28), "not-counted", ""]
    assert "model_cycles" not in load.model_cycles(runs, {}).columns


MODEL = {v: dict.fromkeys(schema.MODEL_COLUMNS, 0) for v in PER_OP}
MODEL["jump-label"].update(kernel_mispredicts=400, kernel_l1d_misses=900,
                           kernel_l1d_accesses=20000, key_accesses=2)
MODEL["atomic-read"].update(kernel_mispredicts=410, kernel_l1d_misses=930,
                            kernel_l1d_accesses=20040, key_accesses=40)


def test_report_has_the_modelled_section(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR},
                           per_op=PER_OP, model=MODEL)
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    out = tmp_path / "REPORT.md"
    plots = tmp_path / "plots"
    run([str(ROOT / "plots" / "draw"), "--out", str(plots), d])
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out),
         "--plots", str(plots)])
    text = out.read_text()
    sec = text.split("## Modelled hardware cost")[1].split("\n## ")[0]
    assert "**Modelled, not measured**" in sec
    # 53000 + 15 x 400 + 14 x 900 = 71600 cycles per op (jump-label),
    # 53100 + 15 x 410 + 14 x 930 = 72270 (atomic-read)
    assert "71600" in sec and "72270" in sec
    assert "L1D 32768:8" in sec and "`jump-label` 458" in sec
    assert "out-of-order overlap" in text.split("## Confounds")[1]
    assert (plots / "modelled.svg").stat().st_size > 0
    assert "modelled.svg" in text
    # the model's counters are in their own section, not in Branch counts
    branch = text.split("## Branch counts")[1].split("\n## ")[0]
    assert "(model)" not in branch


def test_report_without_the_model_says_how_to_get_it(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR},
                           per_op=PER_OP)
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    out = tmp_path / "REPORT.md"
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out)])
    assert models.NOT_RUN in out.read_text()


def test_validation_table_shows_the_known_answers():
    st = pd.DataFrame([
        ("jump-label", "model.source", "TCG plugin model (model=on), icount"),
        ("jump-label", "model.random_mispredicts_per_iter", "0.5062"),
        ("jump-label", "model.known_answers", "PASS"),
        ("atomic-read", "model.random_mispredicts_per_iter", "0.5072"),
        ("atomic-read", "model.known_answers", "FAIL"),
        ("atomic-read", "static_keys", "PASS")],
        columns=["variant", "name", "value"])
    text = models.validation(st)
    assert "| `random_mispredicts_per_iter` | 0.5062 | 0.5072 |" in text
    assert "| `known_answers` | PASS | FAIL |" in text
    assert "static_keys" not in text and "model.source" not in text
    assert "not checked" in models.validation(st[st.name == "static_keys"])
