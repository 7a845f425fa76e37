"""Where a difference comes from, per function (issue 32): the profiles of
synthetic results dirs (raw/*.profile.gz, lib/format/profile.py) with known
answers, analysis/comparison/profile.py's diff, analysis/profile-diff, the
raw-file check of a profile's sums and REPORT.md's section and figure."""
import csv
import gzip
import json
import os
import sys

import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from analysis.comparison import profile  # noqa: E402
from analysis.sections import wherefrom  # noqa: E402
from analysis.results import check  # noqa: E402
from analysis.stats import floorfiles, stats  # noqa: E402
from analysis.results.load import Results  # noqa: E402
from lib.format import profile as pf  # noqa: E402
from lib.format import rawtry  # noqa: E402

RUN = "20261201T000000Z-abc1234"
JL = [39.512, 39.634, 39.401, 39.711, 39.588, 39.655]
SMALL = {"fn_%02d" % i: i + 1 for i in range(15)}
# Kernel instructions per op of each function, by variant: whole numbers,
# so that every try's figures are exact multiples of its ops. jump-label
# runs f_plus 250 more per op on every seed, and netif_rx 80 fewer: its 40
# site executions per op, each 2 instructions cheaper (the selftest: 4
# per disabled check against atomic-read's 6).
FUNCS = {
    "atomic-read": dict(SMALL, tcp_sendmsg=1000, netif_rx=500, f_plus=100,
                        **{"[kernel]": 3000}),
    "jump-label": dict(SMALL, tcp_sendmsg=1000, netif_rx=420, f_plus=350,
                       fn_03=5, **{"[kernel]": 3000}),
    "plain-read": dict(SMALL, tcp_sendmsg=1000, netif_rx=500, f_plus=100,
                       **{"[kernel]": 2990}),
}
SITES = {"jump-label": {"netif_rx": 40, "fn_01": 2}}
USER = 4000
KERNEL_TOP = (1 << 64) - (1 << 31)


def per_op(funcs, sites):
    """synth's per_op of kernels whose functions are funcs."""
    return {v: {"kernel_insns": sum(f.values()), "kernel_branches": 9000,
                "user_insns": USER, "user_branches": 500,
                "site_execs": sum(sites.get(v, {}).values())}
            for v, f in funcs.items()}


def write_profiles(path, funcs, sites):
    """A profile per ok try, as the plugin writes it (rows in address
    order, only non-zero ones) and the runner keeps it (compressed, in the
    try's manifest)."""
    with open(os.path.join(path, "runs.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    for r in rows:
        base = os.path.join(path, "raw", "%03d-%s-try%s" % (
            int(r["index"]), r["variant"], r["try"]))
        ops, v = int(r["ops"]), r["variant"]
        lines = ["format=1", "window=1", "columns=insns,site_execs",
                 "functions=%d" % len(funcs[v])]
        lines += ["%x %s %d %d" % (KERNEL_TOP + 0x1000 * i, name, n * ops,
                                   sites.get(v, {}).get(name, 0) * ops)
                  for i, (name, n) in enumerate(sorted(funcs[v].items()))]
        lines.append("7f0000000000 [user] %d 0" % (USER * ops))
        with open(base + pf.EXT, "w") as f:
            f.write("\n".join(lines) + "\n")
        pf.compress(base)
        rawtry.write_manifest(base)


def profiled_run(root, funcs=FUNCS, sites=SITES, name=RUN, profiles=True,
                 **kw):
    """A results dir of funcs' kernels, 6 seeds, with their profiles."""
    values = {v: [x * (1 - 0.001 * i) for x in JL]
              for i, v in enumerate(funcs)}
    d = synth.make_results(str(root / "results"), values, name=name,
                           per_op=per_op(funcs, sites), **kw)
    if profiles:
        write_profiles(d, funcs, sites)
    return d


def tool(name, *args, check=True):
    path = ROOT / ("plots" if name == "draw" else "analysis") / name
    cmd = [str(path)] if name == "draw" else [PYTHON, str(path)]
    return run(cmd + [str(a) for a in args], check=check)


def test_median_interval_is_the_headline_rule():
    med, lo, hi = stats.median_interval([3.0, 1.0, 2.0, 5.0, 4.0, 6.0])
    assert (med, lo, hi) == (3.5, 1.0, 6.0)        # n=6: k=1, [min, max]
    med, lo, hi = stats.median_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert med == 3.0 and lo != lo and hi != hi    # too few for one
    cols = stats.median_interval([[1.0, -3.0]] * 6)
    assert [list(x) for x in cols] == [[1.0, -3.0]] * 3
    c = stats.compare_median([101, 102, 103, 104, 105, 106], [100] * 6)
    assert (c["pct_change"], c["pct_ci_lo"], c["pct_ci_hi"]) == \
        pytest.approx((3.5, 1.0, 6.0))
    assert stats.excludes_zero(0.5, 2.0) and \
        not stats.excludes_zero(0.5, 2.0, 0.6)
    assert not stats.excludes_zero(None, 1.0)


def test_a_known_change_tops_the_diff_and_rows_add_up(tmp_path):
    d = profiled_run(tmp_path, selftest=True)
    tool("analyze", "--strict", "--no-history", d)
    res = Results(d)
    jl, pr = profile.against_baseline(res)
    assert (jl.a.label, jl.b.label, pr.b.label) == (
        "atomic-read", "jump-label", "plain-read")
    assert jl.key == "perturb_seed" and jl.pairs == 6
    rows = jl.rows(3)
    assert [r["name"] for r in rows] == ["f_plus", "netif_rx", "fn_03",
                                         "other", "total", "[user]"]
    top, sited, _, other, total, user = rows
    assert total["diff"] == pytest.approx(171.0, abs=1e-9)
    assert (top["a"], top["b"], top["diff"], top["lo"], top["hi"]) == \
        pytest.approx((100.0, 350.0, 250.0, 250.0, 250.0))
    assert top["significant"] and top["marker"] == "*"
    assert top["share"] == pytest.approx(250.0 / 171.0)
    assert top["sites"] == 0 and top["sites_part"] == 0
    # netif_rx's difference is all its sites': 40/op x (4 - 6)
    assert (sited["sites"], sited["sites_part"], sited["rest"]) == \
        pytest.approx((40.0, -80.0, 0.0), abs=1e-9)
    # listed + other add up to the total exactly; the total is the
    # difference of kernel_insns_per_op that "Branch counts" shows
    listed = rows[:4]
    for k in ("a", "b", "diff"):
        assert sum(r[k] for r in listed) == pytest.approx(total[k],
                                                          rel=1e-15)
    st = json.load(open(os.path.join(d, "stats.json")))
    means = next(m for m in st["metrics"] if m["metric"] ==
                 "kernel_insns_per_op")["per_label"]
    assert total["diff"] == pytest.approx(
        means["jump-label"]["mean"] - means["atomic-read"]["mean"],
        rel=1e-12)
    assert (user["a"], user["diff"], user["share"]) == (USER, 0.0, None)
    # the sites explain 42 executions x -2 of the total, the rest +255
    assert (jl.sites_part, total["rest"]) == pytest.approx((-84.0, 255.0))
    assert profile.name(jl.sites_from) == "jump-label" and jl.delta == -2
    assert "Static-key sites explain -84.00 of the total's +171.00 per op " \
        "(-49.1%)" in wherefrom.sites_line(jl)
    assert "the rest, +255.00 per op (149.1%)" in wherefrom.sites_line(jl)
    # plain-read: the site counts come from the run's jump-label kernel,
    # and a check costs the same as atomic-read's
    assert profile.name(pr.sites_from) == "jump-label" and pr.delta == 0
    assert pr.rows(1)[0]["name"] == "[kernel]"
    assert pr.total["sites"] == pytest.approx(42.0) and \
        pr.total["sites_part"] == 0.0
    assert [r["kind"] for r in jl.rows(100)][-2:] == ["total", "user"]
    assert not jl.notes()


def test_sites_are_not_counted_without_a_selftest_or_site_counts(tmp_path):
    d = profiled_run(tmp_path)
    jl, _ = profile.against_baseline(Results(d))
    assert jl.total["sites"] == pytest.approx(42.0)
    assert jl.total["sites_part"] is None and jl.total["rest"] is None
    assert "not counted (no selftest count of instructions per disabled " \
        "check (selftest.csv `count.off_insns_per_iter`) for " \
        "`atomic-read` and `jump-label`)" in wherefrom.sites_line(jl)
    assert "| 40.00 | not counted | not counted |" in wherefrom.table(jl, 3)
    funcs = {v: FUNCS[v] for v in ("atomic-read", "plain-read")}
    d = profiled_run(tmp_path / "other", funcs, {}, selftest=True)
    (pr,) = profile.against_baseline(Results(d))
    assert pr.sites_from is None and pr.total["sites"] is None
    assert "no kernel here counts static-key site executions" in \
        wherefrom.sites_line(pr)


def test_a_run_without_profiles_says_so(tmp_path):
    d = profiled_run(tmp_path, profiles=False)
    res = Results(d)
    assert not profile.has_profiles(res)
    assert profile.against_baseline(res) == []
    assert wherefrom.section(res, {"accel": "icount"}, []) == \
        wherefrom.NOT_RUN
    p = tool("profile-diff", "--results", d, "atomic-read", "jump-label",
             check=False)
    assert p.returncode == 1 and p.stdout == ""
    assert "has no per-function profile (raw/*.profile.gz): it was made " \
        "before the plugin wrote profiles, or not under icount; rerun" \
        in p.stderr


def test_profile_diff_command(tmp_path):
    d = profiled_run(tmp_path, selftest=True)
    p = tool("profile-diff", "--results", d, "--top", "2", "atomic-read",
             "jump-label")
    lines = p.stdout.splitlines()
    assert lines[0] == "A: atomic-read (%s, 6 profiled tries)" % d
    assert "6 pairs by perturbation seed" in lines[2]
    assert "| function | A/op | B/op | diff/op | paired median [95% " \
        "interval] |" in p.stdout
    assert "| f_plus | 100.00 | 350.00 | +250.00 | +250.00 " \
        "[+250.00, +250.00] | 0.00 (total) | * | +146.2% |  |  |  |" in lines
    assert "| other (17 functions) |" in p.stdout
    assert "| TOTAL, kernel | 4720.00 | 4891.00 | +171.00 | +171.00 " \
        "[+171.00, +171.00] | 0.00 | * | +100.0% | 42.00 | -84.00 | " \
        "+255.00 |" in lines
    # two results dirs, DIR:LABEL (DIR: a dir's one label, as a bisect
    # step's); paired by seed, as the dirs share them
    one = {"jump-label": FUNCS["jump-label"]}
    other = {"jump-label": dict(FUNCS["jump-label"], tcp_sendmsg=1010)}
    a = profiled_run(tmp_path / "a", one, SITES)
    b = profiled_run(tmp_path / "b", other, SITES)
    p = tool("profile-diff", a + ":", b + ":jump-label")
    assert "| tcp_sendmsg | 1000.00 | 1010.00 | +10.00 | +10.00 [+10.00, " \
        "+10.00] |" in p.stdout and "6 pairs by perturbation seed" in p.stdout
    rows = profile.top_changes(a, b, n=1)
    assert [r["name"] for r in rows] == ["tcp_sendmsg", "other", "total",
                                         "[user]"]
    assert rows[0]["diff"] == pytest.approx(10.0) and rows[0]["significant"]
    assert json.dumps(rows)            # plain figures, for bisect.log


def calibration(path, floor_pts):
    """A calibration whose kernel_insns_per_op floors are floor_pts."""
    path.write_text(json.dumps({"metrics": {"kernel_insns_per_op": {
        "floor_level_pct": floor_pts, "floor_difference_pts": floor_pts}}}))
    return str(path)


def test_a_function_is_judged_by_its_own_floor(tmp_path, monkeypatch):
    """A known answer for the floors per function: an environment study
    whose size environment moves tcp_sendmsg by 3 (atomic-read) and 5
    (jump-label) instructions per op and nothing else gives tcp_sendmsg
    floors of 5 per op (level) and 3 (difference: plain-read, unmoved,
    against atomic-read's 3), every other function 0;
    with the kernel total's floor at 1% (47.2 per op), a change of 10 per
    op in fn_07 is called by its own floor, not by the total's, and one of
    1.5 in tcp_sendmsg stays within its own."""
    env = tmp_path / "env"
    moved = {v: dict(f, tcp_sendmsg=f["tcp_sendmsg"] + m) for (v, f), m in
             zip(sorted(FUNCS.items()), (3, 5, 0))}
    profiled_run(env / "base", FUNCS)
    profiled_run(env / "size", moved)
    for d in (env / "base", env / "size"):
        os.rename(d / "results" / RUN, d / RUN)
    floors = tmp_path / "floors"
    monkeypatch.setenv("JLBENCH_FUNCTION_FLOORS", str(floors))
    p = run([PYTHON, str(ROOT / "analysis" / "calibrate"), "--functions",
             "--env", str(env), "--write"])
    assert "of tbench: 20 functions, 1 with a floor above 0" in p.stdout
    table = floorfiles.function_floors("tbench")
    total = 4720.0                               # atomic-read's, per op
    assert table.points("tcp_sendmsg", "level") == pytest.approx(
        500.0 / total, rel=1e-3)
    assert table.points("tcp_sendmsg", "difference") == pytest.approx(
        300.0 / total, rel=1e-3)
    assert table.points("fn_07", "difference") == 0.0
    assert table.points("never_ran", "difference") is None
    assert floorfiles.function_floors("pipe") is None

    monkeypatch.setenv("JLBENCH_CALIBRATION",
                       calibration(tmp_path / "cal.json", 1.0))
    changed = {"atomic-read": FUNCS["atomic-read"], "jump-label": dict(
        FUNCS["atomic-read"], fn_07=18, tcp_sendmsg=1001.5,
        new_helper=20)}
    d = Diff_of(profiled_run(tmp_path / "ab", changed, {}))
    rows = {r["name"]: r for r in d.rows(5)}
    assert d.floor == pytest.approx(47.2) and d.floor_kind == "difference"
    fn, tcp, new = rows["fn_07"], rows["tcp_sendmsg"], rows["new_helper"]
    assert fn["own_floor"] and fn["floor"] == 0.0 and fn["significant"]
    assert tcp["own_floor"] and not tcp["significant"]
    assert tcp["floor"] == pytest.approx(3.0, rel=1e-3)
    # a function the study never ran takes the total's floor
    assert not new["own_floor"] and new["floor"] == pytest.approx(47.2) \
        and not new["significant"]
    assert not rows["total"]["significant"]            # +31.5 < 47.2
    text = wherefrom.text(d, 5)
    assert "difference floors: each function's own from %s, else the " \
        "kernel total's, 47.20 per op" % os.path.relpath(
            table.source, ROOT) in text
    assert "| fn_07 | 8.00 | 18.00 | +10.00 | +10.00 [+10.00, +10.00] " \
        "| 0.00 | * |" in text
    assert "| new_helper | 0.00 | 20.00 | +20.00 | +20.00 [+20.00, " \
        "+20.00] | 47.20 (total) | ~ |" in text
    # without a table, every function takes the total's
    monkeypatch.setenv("JLBENCH_FUNCTION_FLOORS", str(tmp_path / "none"))
    d = Diff_of(profiled_run(tmp_path / "ab2", changed, {}))
    assert not any(r["significant"] for r in d.rows(5))
    assert "no function floors for tbench (analysis/calibrate " \
        "--functions): every function takes the kernel total's, 47.20 " \
        "per op" in wherefrom.text(d, 5)


def Diff_of(d):
    """jump-label against atomic-read in the results dir d."""
    (jl,) = profile.against_baseline(Results(d))
    return jl


@pytest.mark.parametrize("args, code, said", [
    (["atomic-read", "mine"], 2, "has no label 'mine'; its labels: "
     "atomic-read, jump-label, plain-read"),
    (["--top", "0", "atomic-read", "jump-label"], 2, "--top"),
    (["--metric", "cycles", "atomic-read", "jump-label"], 2, "--metric"),
    (["atomic-read", "atomic-read"], 2, "the same tries"),
    (["--metric", "mispredicts", "atomic-read", "jump-label"], 1,
     "have no mispredicts column (run with --model)"),
])
def test_profile_diff_errors(tmp_path, args, code, said):
    d = profiled_run(tmp_path)
    p = tool("profile-diff", "--results", d, *args, check=False)
    assert p.returncode == code and said in p.stderr, p.stderr
    p = tool("profile-diff", "/nonexistent:x", "jump-label", check=False)
    assert p.returncode == 2 and "is not a directory" in p.stderr


def test_the_check_fails_a_profile_that_does_not_add_up(tmp_path):
    d = profiled_run(tmp_path)
    assert not check.check_raw(d).findings
    name = "003-atomic-read-try1"          # round 1's third run: line 4
    path = os.path.join(d, "raw", name + pf.RAW_EXT)
    with gzip.open(path, "rt") as f:
        text = f.read()
    with gzip.open(path, "wt") as f:
        f.write(text.replace(" tcp_sendmsg ", " tcp_sendmsg 1"))
    rawtry.write_manifest(os.path.join(d, "raw", name))
    found = check.check_raw(d).findings
    assert [(f["field"], f["line"]) for f in found] == [("profile", 4)] * 2
    assert "raw/%s.profile.gz: insns over all its rows " % name in \
        found[0]["text"] and "but raw/%s.counts gives kernel_insns + " \
        "user_insns = " % name in found[0]["text"]
    assert "over its kernel rows" in found[1]["text"]
    p = tool("analyze", "--strict", "--no-history", d, check=False)
    assert p.returncode == 1 and "insns over all its rows" in p.stderr
    with gzip.open(path, "wt") as f:
        f.write("format=1\nnot a profile line\n")
    rawtry.write_manifest(os.path.join(d, "raw", name))
    found = check.check_raw(d).findings
    assert len(found) == 1 and "line 2" in found[0]["text"]
    # an edit the manifest sees is a finding of its own
    with gzip.open(path, "wt") as f:
        f.write(text)
    assert [f["what"] for f in check.check_raw(d).findings] == ["manifest"]


def test_report_section_and_figure(tmp_path):
    d = profiled_run(tmp_path, selftest=True)
    tool("analyze", "--strict", "--no-history", d)
    plots = tmp_path / "plots"
    tool("draw", "--out", plots, d)
    svg = (plots / "profile.svg").read_text()
    assert "jump-label against atomic-read: total +171.00 per op" in svg
    assert "netif_rx" in svg and "has static-key sites" in svg
    out = tmp_path / "REPORT.md"
    tool("report", d, "--out", out, "--plots", plots)
    text = out.read_text()
    assert "- [Where the difference comes from](#where-the-difference-" \
        "comes-from)" in text
    sec = text.split("## Where the difference comes from\n")[1] \
        .split("\n## ")[0]
    assert text.index("## Branch counts") < text.index(
        "## Where the difference comes from") < text.index(
        "## Kernel configs")
    assert "### `jump-label` against `atomic-read`: the functions that " \
        "changed most\n" in sec
    assert "| `f_plus` | 100.00 | 350.00 | +250.00 | +250.00 " \
        "[+250.00, +250.00] | 0.00 (total) | * | +146.2% |  |  |  |" in sec
    assert "| `netif_rx` | 500.00 | 420.00 | -80.00 | -80.00 [-80.00, " \
        "-80.00] | 0.00 (total) | * | -46.8% | 40.00 | -80.00 | +0.00 |" in sec
    assert "Static-key sites explain -84.00 of the total's +171.00 per op" \
        in sec and "6 pairs by perturbation seed." in sec
    assert "### `plain-read` against `atomic-read`" in sec
    assert "](plots/profile.svg) ([PNG](plots/profile.png))" in sec
    # a run without profiles: one line, and no figure
    d = profiled_run(tmp_path / "none", profiles=False)
    tool("analyze", "--no-history", d)
    tool("draw", "--out", plots, d)
    assert not (plots / "profile.svg").exists()
    tool("report", d, "--out", out, "--plots", plots)
    sec = out.read_text().split("## Where the difference comes from\n")[1] \
        .split("\n## ")[0]
    assert sec.strip() == wherefrom.NOT_RUN


def test_versions_section_lists_what_changed_on_the_path(tmp_path):
    """Kernel versions: a 6.12 run beside this 6.1 one; the path table
    ranks the jump-label kernels' functions by their change from one
    version to the other, with their site executions in each (the builds
    are not in the cache, so no keys are named)."""
    d61 = profiled_run(tmp_path)
    newer = {v: dict(f, tcp_sendmsg=f["tcp_sendmsg"] + 300,
                     netif_rx=f["netif_rx"] - 20)
             for v, f in FUNCS.items()}
    sites = {"jump-label": {"netif_rx": 50, "fn_01": 2}}
    d612 = profiled_run(tmp_path, funcs=newer, sites=sites,
                        name="20261202T000000Z-def5678", linux="6.12")
    for d in (d61, d612):
        tool("analyze", d, "--no-history")
    text = tool("report", d61).stdout
    part = text.split("## Kernel versions: Linux 6.1 and 6.12")[1] \
        .split("\n## ")[0]
    assert "What changed on the path from Linux 6.1 to Linux 6.12" in part
    insns, sites = [[r.split(" | ") for r in t.splitlines()
                     if r.startswith("| `")] for t in part.split(
                         "changed most:")[1:]]
    assert "The 2 functions whose kernel instructions per operation" in part
    assert insns[0][:4] == ["| `tcp_sendmsg`", "1000", "1300", "+300.00"]
    assert insns[1][:6] == ["| `netif_rx`", "420", "400", "-20.00", "40",
                            "50"]
    assert insns[0][6] == "build not at hand |"
    # netif_rx is the one function whose site executions changed
    assert "The 1 functions whose static-key site executions" in part
    assert sites == [insns[1]]
    assert "analysis/profile-diff results/%s:jump-label " \
        "results/20261202T000000Z-def5678:jump-label" % RUN in part
