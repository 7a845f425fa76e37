"""A user's A/B across the suite (issue 55, item 4): REPORT.md's first
screen says which workloads the user's kernel changed, by how much and the
kernel function that changed most in each, and nothing of the jump-label
question or of A/A controls the run did not have.

The stand-in run: `./run_all.sh --variant mine=patches:DIR --workload
suite --no-aa` on a suite of five workloads (the others not run), where
`mine` adds a loop to do_sys_openat2: open and rename run it, so they
(and only they) lose operations per second, and do_sys_openat2 carries
the change in their per-function profiles."""
import json
import re
import sys

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from test_analysis_profile import SMALL, per_op, write_profiles  # noqa: E402

RUN = "20261207T000000Z-abc1234"
BASE, MINE = "jump-label", "mine"
SEEDS = [8090.1, 8093.2, 8087.7, 8091.4, 8089.0, 8092.6]
# workload: (mine's % change of operations per second on every seed,
# do_sys_openat2's extra kernel instructions per op in mine)
CHANGE = {"tbench": (0.0, 0), "open": (-0.81, 240), "rename": (-0.6, 60),
          "fault": (0.0, 0), "syscall": (0.0, 0)}
# the sites every kernel passes (both are jump-label kernels)
SITES = {v: {"fn_01": 2} for v in (BASE, MINE)}


def funcs(extra):
    base = dict(SMALL, do_sys_openat2=300, path_openat=900,
                **{"[kernel]": 3000})
    return {BASE: base, MINE: dict(base, do_sys_openat2=300 + extra)}


def values(pct):
    """Operations per second by label: mine's change is pct on every
    seed, or, at 0, a wobble of alternating sign (no change)."""
    wobble = [0.0002, -0.0003, 0.0001, -0.0002, 0.0003, -0.0001]
    return {BASE: SEEDS, MINE: [
        x * (1 + (pct / 100.0 + 0.00002 * i if pct else w))
        for i, (x, w) in enumerate(zip(SEEDS, wobble))]}


def make(root, workload, name):
    pct, extra = CHANGE[workload]
    f = funcs(extra)
    d = synth.make_results(
        str(root), values(pct), name=name, baseline=BASE,
        per_op=per_op(f, SITES),
        workload=None if workload == "tbench" else workload)
    write_profiles(d, f, SITES)
    # mine sits on jump-label (kernel-variants/variant.py's default on:):
    # its static keys are jump-label's
    meta_path = "%s/meta.json" % d
    with open(meta_path) as fh:
        meta = json.load(fh)
    builds = meta["builds"]
    builds[MINE]["build"]["verify"] = builds[BASE]["build"]["verify"]
    with open(meta_path, "w") as fh:
        json.dump(meta, fh, indent=1)
    return d


def analysis(name, *args):
    return run([PYTHON, str(ROOT / "analysis" / name)]
               + [str(a) for a in args])


def function_floors(monkeypatch, tmp_path):
    """The environment study's floors of do_sys_openat2 (0.1 points of
    the kernel total, 4.32 instructions per op) on every workload run
    (analysis/function-floors/, analysis/calibrate --functions)."""
    d = tmp_path / "function-floors"
    d.mkdir()
    for w in CHANGE:
        (d / ("%s.tsv" % w)).write_text(
            "# stand-in\nfunction\tlevel_pts\tdifference_pts\n"
            "do_sys_openat2\t0.1\t0.1\n")
    monkeypatch.setenv("JLBENCH_FUNCTION_FLOORS", str(d))


def first_screen(text):
    """REPORT.md down to its first ## section."""
    return text.split("\n## ")[0]


def test_a_user_ab_across_the_suite_names_what_changed(tmp_path,
                                                       monkeypatch):
    function_floors(monkeypatch, tmp_path)
    main = make(tmp_path / "results", "tbench", RUN)
    for w in CHANGE:
        if w != "tbench":
            d = make(tmp_path / "results" / RUN / "suite" / w, w,
                     "20261207T001000Z-abc1234")
            analysis("analyze", "--no-history", "-q", d)
    analysis("analyze", "--no-history", "-q", main)
    out = tmp_path / "REPORT.md"
    analysis("report", main, "--out", out)
    text = out.read_text()
    top = first_screen(text)
    # one line per changed workload, with its interval and top function
    changed = [ln for ln in top.splitlines() if ln.startswith("- `")]
    assert [re.match(r"- `([a-z-]+)`", ln).group(1) for ln in changed] == \
        ["open", "rename"]
    for ln, pct in zip(changed, ("-0.8", "-0.6")):
        assert "`%s` %s" % (MINE, pct) in ln and re.search(
            r"\[-0\.\d+, -0\.\d+\]", ln)
        assert "`do_sys_openat2` +" in ln and "beyond its own floor" in ln
    assert "+240.00 kernel instructions/op" in changed[0]
    assert "+60.00 kernel instructions/op" in changed[1]
    unchanged = next(ln for ln in top.splitlines()
                     if ln.startswith("Unchanged"))
    for w in ("tbench", "fault", "syscall"):
        assert "`%s`" % w in unchanged
    assert "Not run: 10 workloads" in top
    # nothing of the jump-label question, nor of controls not run
    for said in ("control", "checks' share", "disabled check",
                 "site executions"):
        assert said not in top, said
    across = text.split("## Across the kernel")[1].split("\n## ")[0]
    assert "Jump labels and plain reads" not in across
    assert "`mine` against `jump-label`, workload by workload" in across
    for said in ("checks' share", "disabled check", "controls",
                 "site execs", "largest gain"):
        assert said not in across, said
    assert "largest loss of `mine`: `open` (-0.8" in across
    where = text.split("## Where the difference comes from")[1].split(
        "\n## ")[0]
    assert "`mine` against `jump-label`: the functions" in where
    for said in ("Static-key sites", "sites' part", "`sites`"):
        assert said not in where, said
    assert "Smallest" not in across   # two resolved: both are largest


def test_a_user_ab_on_one_workload_names_its_top_function(tmp_path,
                                                          monkeypatch):
    function_floors(monkeypatch, tmp_path)
    d = make(tmp_path / "results", "open", RUN)
    analysis("analyze", "--no-history", "-q", d)
    out = tmp_path / "REPORT.md"
    analysis("report", d, "--out", out)
    top = first_screen(out.read_text())
    changed = [ln for ln in top.splitlines() if ln.startswith("- `")]
    assert len(changed) == 1 and changed[0].startswith("- `open`")
    assert "`do_sys_openat2` +240.00 kernel instructions/op, beyond its " \
        "own floor" in changed[0]
    assert "control" not in top and "checks' share" not in top
