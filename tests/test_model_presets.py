"""Core presets of the model (lib/model.py PRESETS, `--model-preset`): each
resolves to plugin arguments the plugin's own parser accepts, --model-set
changes them, bench/run refuses what it cannot run, the default --model is
the one it always was, the L2 penalty charges the L2's misses, and
docs/model.md shows the presets' table; REPORT.md and plots/modelled.svg
of a run with a preset."""
import json
import re
import sys

import pandas as pd
import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402

from analysis.results import load  # noqa: E402
from bench.session import cli  # noqa: E402
from lib import model  # noqa: E402
from lib.format import schema  # noqa: E402
from test_analysis import AR, JL, PER_OP, PR  # noqa: E402

PLUGIN = ROOT / "bench" / "plugin"
BASE = ["--builds", "b.tsv", "--initramfs", "i.img"]
# The default --model's plugin arguments and meta.json entry since it
# exists (results/20261204T002037Z-5f33c7b ran with them): pinned.
DEFAULT_ARGS = ("model=on", "l1i=32768:8", "l1d=32768:8", "line=64",
                "bp=4096:12", "btb=4096:4")
DEFAULT_META = {
    "geometry": {"l1i": "32768:8", "l1d": "32768:8", "line": "64",
                 "bp": "4096:12", "btb": "4096:4"},
    "penalties": {"mispredict": 15, "btb_miss": 5, "l1i_miss": 14,
                  "l1d_miss": 14},
    "cycles": "instructions + mispredict x kernel_mispredicts+"
              "user_mispredicts + btb_miss x kernel_btb_misses+"
              "user_btb_misses + l1i_miss x kernel_l1i_misses+"
              "user_l1i_misses + l1d_miss x kernel_l1d_misses+"
              "user_l1d_misses"}
# Builds the plugin's model from argument lists (each one comma-joined
# argv word) with its own parser and setup: "ok" or the plugin's message.
CHECK_C = r"""
#include <stdio.h>
#include <string.h>
#include "modelcfg.h"

int main(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        struct model_cfg c;
        struct model m;
        char err[512] = "", *arg;
        int bad = 0;

        model_cfg_defaults(&c);
        for (arg = strtok(argv[i], ","); arg; arg = strtok(NULL, ","))
            if (model_cfg_arg(&c, arg, err, sizeof(err)) != 1)
                bad = 1;
        if (!bad && model_setup(&m, &c, err, sizeof(err)) == 0) {
            model_free(&m);
            printf("ok\n");
        } else {
            printf("%s\n", err[0] ? err : "not a model argument");
        }
    }
    return 0;
}
"""


def resolve(preset, pairs=()):
    return model.meta(model.settings(pairs, preset), preset)


def in_order(m):
    """meta.json's model entry without the overlap rule's parameters,
    which issue 33 added beside the in-order figures."""
    return {k: v for k, v in m.items() if k != "overlap"}


def test_the_default_model_is_unchanged():
    m = model.meta(model.settings(()))
    assert in_order(m) == DEFAULT_META
    assert model.plugin_args(m) == DEFAULT_ARGS
    args = cli.parse(BASE + ["--model"])
    assert in_order(model.meta(args.model_settings, args.model_preset)) == \
        DEFAULT_META
    # the overlap rule's figures are new columns after the others
    assert m["overlap"] == {"rob": 256, "width": 4}
    assert schema.model_columns(m) == schema.MODEL_COLUMNS + \
        schema.OVERLAP_COLUMNS
    assert schema.model_columns(DEFAULT_META) == schema.MODEL_COLUMNS


@pytest.mark.parametrize("name", sorted(model.PRESETS))
def test_each_preset_sets_every_parameter_with_a_source(name):
    p = model.PRESETS[name]
    assert set(p.values) | {"bp"} == set(model.NAMES)
    assert m_overlap(name) == {"rob": int(p.values["rob"]),
                               "width": int(p.values["width"])}
    assert set(p.sources) == set(p.values)
    assert set(p.sources.values()) <= set(model.REFERENCES)
    for k, v in p.values.items():
        model._check(k, v)
    m = resolve(name)
    assert m["preset"] == name
    args = model.plugin_args(m)
    for k, v in p.values.items():
        if k in model.PENALTY_EVENTS:
            assert m["penalties"][k] == int(v), k
        elif k == "width":
            assert not [a for a in args if a.startswith("width=")]
        elif v == model.OFF:
            assert not [a for a in args if a.startswith(k + "=")], k
        else:
            assert "%s=%s" % (k, v) in args, k
    # gshare's bp= only without TAGE
    assert bool([a for a in args if a.startswith("bp=")]) == \
        (p.values["tage"] == model.OFF)
    assert "l2" in m["geometry"] and "l2_miss" in m["penalties"]
    assert "l2_miss x kernel_l2i_misses+user_l2i_misses+" in m["cycles"]
    assert schema.model_columns(m) == schema.MODEL_COLUMNS + \
        schema.L2_COLUMNS + schema.OVERLAP_COLUMNS + \
        schema.OVERLAP_L2_COLUMNS


def m_overlap(name):
    return resolve(name)["overlap"]


def plugin_program(tmp_path, name, source):
    """A program of source built against the plugin's model code."""
    exe = tmp_path / name
    (tmp_path / (name + ".c")).write_text(source)
    run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(PLUGIN),
         "-o", str(exe), str(tmp_path / (name + ".c"))]
        + [str(PLUGIN / f) for f in ("model.c", "modelcfg.c", "tage.c",
                                     "overlap.c", "sites.c")])
    return exe


def test_the_plugin_accepts_every_preset(tmp_path):
    exe = plugin_program(tmp_path, "check", CHECK_C)
    lists = [",".join(model.plugin_args(resolve(n))) for n in model.PRESETS]
    got = run([str(exe)] + lists + ["model=on,btb=7168:1"]).stdout.split(
        "\n")
    assert got[:len(lists)] == ["ok"] * len(lists), dict(zip(lists, got))
    # the checker does refuse what the plugin refuses
    assert "sets: want a power of two" in got[len(lists)]


ROB_C = r"""
#include <stdio.h>
#include "modelcfg.h"

int main(void)
{
    struct model_cfg c;

    model_cfg_defaults(&c);
    printf("%llu %d\n", (unsigned long long)c.rob, OOO_MAX_ROB);
    return 0;
}
"""


def test_the_default_rob_is_the_plugins(tmp_path):
    """The modelled core's reorder buffer has one literal in C, the
    plugin's MODEL_DEFAULT_ROB, and lib/model.py's PLUGIN_ROB copies it:
    the plugin's default (from its own defaults function) is PLUGIN_ROB,
    the default core's rob is it (so the default model passes no rob=),
    and every preset's is within the plugin's bound, OOO_MAX_ROB."""
    exe = plugin_program(tmp_path, "rob", ROB_C)
    rob, max_rob = map(int, run([str(exe)]).stdout.split())
    assert rob == int(model.PLUGIN_ROB), \
        "the plugin's default rob is %d, lib/model.py PLUGIN_ROB %s" % (
            rob, model.PLUGIN_ROB)
    defaults = model.settings(())
    assert defaults["rob"] == model.PLUGIN_ROB
    assert "rob" not in model.meta(defaults)["geometry"]
    for name, p in model.PRESETS.items():
        assert 1 <= int(p.values["rob"]) <= max_rob, name


def test_model_set_changes_a_preset_parameter():
    m = resolve("zen4", ["l1d=65536:8", "l2_miss=200"])
    assert m["geometry"]["l1d"] == "65536:8"
    assert m["geometry"]["l2"] == "1048576:8"
    assert m["penalties"]["l2_miss"] == 200
    assert m["penalties"]["mispredict"] == 13
    # from TAGE to gshare: tage=off with bp=; bp= alone is refused
    m = resolve("goldencove", ["tage=off", "bp=16384:14"])
    assert m["geometry"]["bp"] == "16384:14" and "tage" not in m["geometry"]
    with pytest.raises(model.ModelError, match="tage=off for gshare"):
        resolve("goldencove", ["bp=16384:14"])
    # without the L2 its penalty goes too
    m = resolve("nehalem", ["l2=off"])
    assert "l2" not in m["geometry"] and "l2_miss" not in m["penalties"]
    args = cli.parse(BASE + ["--model-preset", "nehalem", "--model-set",
                             "mispredict=20"])
    assert args.model and args.model_settings["mispredict"] == "20"
    assert args.model_settings["l1i"] == "32768:4"


@pytest.mark.parametrize("argv, message", [
    (["--model-preset", "skylake"],
     "--model-preset skylake: no such preset; known: goldencove, nehalem, "
     "zen4"),
    (["--model-preset", "zen4", "--no-plugin"],
     "--model-preset runs in the TCG plugin, under icount"),
    (["--model-preset", "zen4", "--accel", "kvm"], "use --accel icount"),
    (["--model-preset", "zen4", "--accel", "tcg"], "use --accel icount"),
    (["--model-set", "l2_miss=20"], "add --model or --model-preset"),
    (["--model-preset", "zen4", "--model-set", "l2_miss=x"],
     "l2_miss=x: want a positive integer"),
])
def test_cli_refuses_a_preset_it_cannot_run(argv, message):
    with pytest.raises(cli.UsageError) as e:
        cli.parse(BASE + argv)
    assert message in str(e.value)


def test_resume_takes_the_preset_from_the_results_dir(tmp_path):
    with pytest.raises(cli.UsageError, match="drop --model-preset"):
        cli.parse(BASE + ["--resume", str(tmp_path), "--model-preset",
                          "zen4"])


def test_l2_misses_cost_l2_miss_on_top_of_their_l1_miss():
    cols = list(model.INSNS) + [c for v in model.PENALTY_EVENTS.values()
                                for c in v]
    row = dict.fromkeys(cols, "0")
    row.update(kernel_insns="1000", kernel_l1d_misses="10",
               kernel_l2d_misses="4", user_l1i_misses="2",
               user_l2i_misses="1")
    runs = pd.DataFrame([row])
    with_l2 = {"model": resolve("zen4")}
    # 1000 + 14 x 10 + 14 x 2 + 36 x (4 + 1)
    assert load.model_cycles(runs, with_l2)["model_cycles"].tolist() == \
        [str(1000 + 140 + 28 + 180)]
    # without an L2 its columns are not charged (nor needed)
    default = {"model": DEFAULT_META}
    assert load.model_cycles(runs.drop(columns=schema.L2_COLUMNS), default)[
        "model_cycles"].tolist() == [str(1000 + 140 + 28)]


def test_overlap_prices_fed_misses_in_full_and_hides_groups():
    cols = list(model.INSNS) + [c for v in model.PENALTY_EVENTS.values()
                                for c in v] + schema.OVERLAP_COLUMNS + \
        schema.OVERLAP_L2_COLUMNS
    row = dict.fromkeys(cols, "0")
    row.update(kernel_insns="1000", kernel_mispredicts="10",
               user_l1i_misses="2", user_l2i_misses="1",
               kernel_l1d_misses="20", kernel_l2d_misses="6",
               kernel_l1d_fed="4", kernel_l2d_fed="1",
               kernel_l1d_groups="7", kernel_l2d_groups="3")
    runs = load.model_cycles(pd.DataFrame([row]),
                             {"model": resolve("nehalem")})
    # in order: 1000 + 17 x 10 + 10 x 2 + 10 x 20 + 30 x (1 + 6)
    assert runs["model_cycles"].tolist() == ["1600"]
    # with overlap (ROB 128, width 4: a window hides 32 cycles): the
    # front end in full (170 + 20 + 30 x 1), the fed misses in full
    # (10 x 4 + 30 x 1), the groups beyond the window: an L2 hit's 10
    # cycles hidden, a miss to L3's 40 exposes 8 (x 3)
    assert runs["model_cycles_ooo"].tolist() == [
        str(1000 + 170 + 20 + 30 + 40 + 30 + 0 * 7 + 8 * 3)]
    # the default model: no L2, a window of 64 cycles hides every group
    default = resolve(None)
    runs = load.model_cycles(pd.DataFrame([row]).drop(
        columns=schema.L2_COLUMNS + schema.OVERLAP_L2_COLUMNS),
        {"model": default})
    assert runs["model_cycles_ooo"].tolist() == [
        str(1000 + 15 * 10 + 14 * 2 + 14 * 4)]
    # a run from before the overlap rule has no such column
    runs = load.model_cycles(pd.DataFrame([row]), {"model": DEFAULT_META})
    assert "model_cycles_ooo" not in runs.columns


def test_docs_show_the_presets_table():
    assert model.preset_table() in (ROOT / "docs" / "model.md").read_text()


MODEL = {v: dict.fromkeys(schema.MODEL_COLUMNS + schema.L2_COLUMNS
                          + schema.OVERLAP_COLUMNS
                          + schema.OVERLAP_L2_COLUMNS, 0)
         for v in PER_OP}
MODEL["jump-label"].update(kernel_mispredicts=400, kernel_l1d_misses=900,
                           kernel_l2d_misses=100, kernel_l1d_accesses=20000,
                           kernel_l1d_fed=40, kernel_l2d_fed=5,
                           kernel_l1d_groups=300, kernel_l2d_groups=50)
MODEL["atomic-read"].update(kernel_mispredicts=410, kernel_l1d_misses=930,
                            kernel_l2d_misses=110, kernel_l1d_accesses=20040,
                            kernel_l1d_fed=60, kernel_l2d_fed=8,
                            kernel_l1d_groups=310, kernel_l2d_groups=55)


def modelled_section(tmp_path, d):
    """plots/draw and analysis/report of the analysed dir d: (its report's
    "Modelled hardware cost" section, the plots dir, REPORT.md's path)."""
    plots = tmp_path / "plots"
    run([str(ROOT / "plots" / "draw"), "--out", str(plots), d])
    out = tmp_path / "REPORT.md"
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out),
         "--plots", str(plots)])
    sec = out.read_text().split("## Modelled hardware cost")[1] \
        .split("\n## ")[0]
    return sec, plots, out


def test_report_and_plot_of_a_run_with_a_preset(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR},
                           per_op=PER_OP, model=MODEL, model_preset="zen4")
    header = (tmp_path / d.split("/")[-1] / "runs.csv").read_text() \
        .splitlines()[0].split(",")
    assert header[-12:] == schema.L2_COLUMNS + schema.OVERLAP_COLUMNS + \
        schema.OVERLAP_L2_COLUMNS
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    sec, plots, out = modelled_section(tmp_path, d)
    assert "preset `zen4`" in sec and "L2 1048576:8" in sec
    assert "TAGE-like 8192:8:2048:12:4:640" in sec and "gshare" not in sec
    assert "next-line L1I prefetch" in sec and "l2_miss 36" in sec
    # 53000 + 13 x 400 + 14 x 900 + 36 x 100 = 74400 cycles per op
    # (jump-label), 53100 + 13 x 410 + 14 x 930 + 36 x 110 = 75410
    assert "74400" in sec and "75410" in sec
    # with overlap (ROB 320, width 6: a window hides 53 cycles, so zen4's
    # groups of independent misses, 14 and 14 + 36 cycles, cost nothing):
    # 53000 + 13 x 400 + 14 x 40 + 36 x 5 = 58940 (jump-label),
    # 53100 + 13 x 410 + 14 x 60 + 36 x 8 = 59558
    st = json.loads((tmp_path / d.split("/")[-1] / "stats.json").read_text())
    ooo = next(m for m in st["metrics"]
               if m["metric"] == "model_cycles_ooo_per_op")["per_label"]
    assert round(ooo["jump-label"]["mean"]) == 58940
    assert round(ooo["atomic-read"]["mean"]) == 59558
    # the band: 1 - 58940 / 59558 = +1.04%, 1 - 74400 / 75410 = +1.34%
    band = [ln for ln in sec.splitlines() if ln.startswith("| `zen4` |")]
    assert len(band) == 1 and "`jump-label`" in band[0], sec
    assert "+1.04%" in band[0] and "+1.34%" in band[0], band[0]
    assert "| L1I and L1D misses that missed the L2 too | 100 | 110 |" in sec
    # its selftest boots ran the default model (bench/model/knownanswers.py)
    with open(d + "/selftest.csv", "w") as f:
        f.write("variant,name,value\njump-label,model.params,l1i=32768:8\n"
                "jump-label,model.known_answers,PASS\n")
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out),
         "--plots", str(plots)])
    assert "The selftest boots run the default model" in out.read_text()
    svg = (plots / "modelled.svg").read_text()
    for name in ("instructions", "mispredictions x 13 cycles",
                 "L2 misses x 36 cycles", "jump-label", "atomic-read"):
        assert name in svg, name
    # the band's figure: its three columns in the key, below the points
    svg = (plots / "modelband.svg").read_text()
    key = [text_at(svg, t) for t in ("instruction path (the headline)",
                                     "with overlap",
                                     "in order (every penalty in full)")]
    assert all(y > text_at(svg, "jump-label")[1] for _, y in key)
    assert "+1.04%" in svg and "+1.34%" in svg


def test_the_band_sets_each_model_run_side_by_side(tmp_path):
    """A run models one core: the band table and figure of the newest run
    also show the other models' runs of the same kernels and protocol
    under the same results dir (and not a run of other kernels)."""
    runs = {}
    for name, preset in (("20261201T000000Z-aaa0001", "nehalem"),
                         ("20261202T000000Z-aaa0002", None),
                         ("20261203T000000Z-aaa0003", "zen4")):
        cols = schema.model_columns(resolve(preset))
        figures = {v: {c: x for c, x in f.items() if c in cols}
                   for v, f in MODEL.items()}
        runs[name] = synth.make_results(
            str(tmp_path), {"jump-label": JL, "atomic-read": AR},
            per_op=PER_OP, model=figures, model_preset=preset, name=name)
        run([PYTHON, str(ROOT / "analysis" / "analyze"), runs[name],
             "--no-history"])
    # another run of zen4, but of other kernels: not set beside
    other = synth.make_results(
        str(tmp_path), {"jump-label": JL, "atomic-read": AR},
        per_op=PER_OP, model=MODEL, model_preset="goldencove",
        name="20261204T000000Z-bbb0004", config="distro")
    meta = json.loads((tmp_path / "20261204T000000Z-bbb0004" /
                       "meta.json").read_text())
    for b in meta["builds"].values():
        b["build"]["hash"] = "0" * 16
    (tmp_path / "20261204T000000Z-bbb0004" / "meta.json").write_text(
        json.dumps(meta))
    run([PYTHON, str(ROOT / "analysis" / "analyze"), other, "--no-history"])
    d = runs["20261203T000000Z-aaa0003"]
    sec, plots, out = modelled_section(tmp_path, d)
    table = [ln for ln in sec.splitlines()
             if ln.split(" | ")[1:2] == ["`jump-label`"]
             and ln.startswith("| `")]
    assert [ln.split(" | ")[0] for ln in table] == [
        "| `zen4`", "| `default` (run 20261202T000000Z-aaa0002)",
        "| `nehalem` (run 20261201T000000Z-aaa0001)"], table
    assert "goldencove" not in sec
    svg = (plots / "modelband.svg").read_text()
    for name in ("jump-label, zen4", "jump-label, default",
                 "jump-label, nehalem"):
        assert name in svg, name


def test_a_run_without_the_model_shows_the_band_of_its_kernels(tmp_path):
    """The default run models nothing (the model costs several times its
    wall time): its report and figure show the band of the model runs of
    its kernels (a subset of them, with any run length), each row with
    its own run's instruction path, and name their runs."""
    for name, preset, seconds in (("20261201T000000Z-aaa0001", "nehalem",
                                   10),
                                  ("20261202T000000Z-aaa0002", "zen4", 20)):
        cols = schema.model_columns(resolve(preset))
        figures = {v: {c: x for c, x in f.items() if c in cols}
                   for v, f in MODEL.items()}
        d = synth.make_results(
            str(tmp_path), {"jump-label": JL, "atomic-read": AR},
            per_op=PER_OP, model=figures, model_preset=preset, name=name,
            seconds=seconds)
        run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    per_op = dict(PER_OP, **{"plain-read": PER_OP["atomic-read"]})
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR,
                                           "plain-read": PR},
                           per_op=per_op, name="20261203T000000Z-aaa0003")
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    sec, plots, out = modelled_section(tmp_path, d)
    assert sec.startswith("\n\nNot in this run"), sec
    table = [ln.split(" | ")[0] for ln in sec.splitlines()
             if ln.split(" | ")[1:2] == ["`jump-label`"]]
    # the presets in lib/model.py's order, the oldest core first
    assert table == [
        "| `nehalem` (run 20261201T000000Z-aaa0001, 10 s runs)",
        "| `zen4` (run 20261202T000000Z-aaa0002)"], sec
    # nehalem's window (ROB 128, width 4) and zen4's, each named
    assert "`nehalem` 128 and 4 (32 cycles)" in sec
    assert "`zen4` 320 and 6 (53 cycles)" in sec
    svg = (plots / "modelband.svg").read_text()
    assert "jump-label, zen4" in svg and "jump-label, nehalem" in svg


def text_at(svg, text):
    """(x, y) of the first SVG text element that is text."""
    m = re.search(r'translate\(([0-9.]+),([0-9.]+)\)[^>]*>\s*<text>%s<'
                  % re.escape(text), svg)
    assert m, text
    return float(m.group(1)), float(m.group(2))


@pytest.mark.parametrize("n", [2, 6])
def test_modelled_plot_keeps_its_key_below_and_names_apart(tmp_path, n):
    """plots/modelled.svg: the key under the bars (not beside them, where
    it took half the width), the kernels' names apart (slanted when there
    are many)."""
    names = ["jump-label", "atomic-read", "plain-read", "mine-patched",
             "mine-config", "other-tree"][:n]
    per_op = {v: dict(PER_OP["jump-label"]) for v in names}
    figures = {v: dict(MODEL["jump-label"], kernel_l1d_misses=900 + i)
               for i, v in enumerate(names)}
    d = synth.make_results(str(tmp_path), {v: JL for v in names},
                           per_op=per_op, model=figures,
                           model_preset="goldencove", baseline=names[1])
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    run([str(ROOT / "plots" / "draw"), "--out", str(tmp_path / "p"), d])
    svg = (tmp_path / "p" / "modelled.svg").read_text()
    xs = sorted(text_at(svg, v)[0] for v in names)
    key = [text_at(svg, t) for t in ("instructions", "L2 misses x 45 cycles")]
    assert all(y > text_at(svg, v)[1] for _, y in key for v in names)
    assert min(b - a for a, b in zip(xs, xs[1:])) > 100
    assert ("rotate(30)" in svg) == (n > 4)
