"""Integration: the plugin's modelled branch predictor and caches against
known answers, on real smoke kernels (issue 16's validation).

bench/selftest boots the atomic-read and the jump-label smoke kernels in
selftest mode under icount with the plugin's model on (model=on, its
default parameters); the static-key module (kernel-variants/module/bench.c)
runs its loops in regions, and bench/model/knownanswers.py turns them into
modelled events per iteration. The bounds below are the spec's, restated
here rather than taken from bench/model/knownanswers.py, so that a change there
cannot move them. In atomic-read the key-off and key-on checks are a real
Jcc that always goes the same way (in jump-label a NOP and a JMP).

Everything runs twice: the plugin's reports of the two boots of each
kernel must be byte-identical (icount repeats bit for bit, the model
included). Builds come from kernel-variants/build --config smoke (cached)
or JLBENCH_SMOKE_BUILDS. Boots hold /tmp/jlbench-cpu.lock.
"""
import csv
import subprocess

import pytest

from conftest import ROOT, cpu_lock

pytestmark = pytest.mark.integration

VARIANTS = ("atomic-read", "jump-label")
SELFTEST = str(ROOT / "bench" / "selftest")
# model.<name>_per_iter: (low, high, high inclusive), the spec's bounds.
KNOWN = {
    "off_mispredicts": (0.0, 0.01, False),
    "on_mispredicts": (0.0, 0.01, False),
    "random_mispredicts": (0.4, 0.6, True),
    "stride_big_l1d_misses": (0.95, 1.05, True),
    "stride_fit_l1d_misses": (0.0, 0.01, False),
}
DEFAULTS = "l1i=32768:8:64 l1d=32768:8:64 bp=gshare:4096:12 btb=4096:4"


def selftest(tsv, image, results):
    with cpu_lock():
        return subprocess.run(
            [SELFTEST, "--builds", tsv, "--initramfs", image,
             "--results", str(results), "--accel", "icount",
             "--variants", ",".join(VARIANTS)],
            cwd=ROOT, capture_output=True, text=True, timeout=3600)


def read_table(results):
    out = {}
    with open(results / "selftest.csv") as f:
        for r in csv.DictReader(f):
            out.setdefault(r["variant"], {})[r["name"]] = r["value"]
    return out


def run_once(tsv, image, tmp_path_factory, name):
    results = tmp_path_factory.mktemp("model-" + name)
    p = selftest(tsv, image, results)
    assert p.returncode == 0, p.stderr[-4000:]
    return results


@pytest.fixture(scope="module")
def first(smoke_builds_tsv, smoke_image, tmp_path_factory):
    """The results dir of a bench/selftest call booting both kernels."""
    return run_once(smoke_builds_tsv, smoke_image, tmp_path_factory, "1")


@pytest.fixture(scope="module")
def second(smoke_builds_tsv, smoke_image, tmp_path_factory, first):
    """The same again, after the first."""
    return run_once(smoke_builds_tsv, smoke_image, tmp_path_factory, "2")


def within(value, bound):
    lo, hi, hi_inclusive = bound
    return lo <= value and (value <= hi if hi_inclusive else value < hi)


@pytest.mark.parametrize("variant", VARIANTS)
def test_known_answers(first, variant):
    t = read_table(first)[variant]
    assert t["boot"] == "PASS" and t["failed"] == "0", t
    assert t["model.source"].startswith("TCG plugin model"), t
    assert t["model.params"] == DEFAULTS, t["model.params"]
    got = {}
    for name, bound in KNOWN.items():
        cell = t["model.%s_per_iter" % name]
        assert cell != "not-counted", (name, t.get("model.note"))
        got[name] = float(cell)
    bad = {n: v for n, v in got.items() if not within(v, KNOWN[n])}
    assert not bad, (variant, bad, got)
    assert t["model.known_answers"] == "PASS", t.get("model.note")
    # The stride loops make exactly one data access per iteration: each
    # iteration's miss or hit is its own line's.
    for loop in ("big", "fit"):
        assert t["model.stride_%s_l1d_accesses_per_iter" % loop] == \
            "1.0000", t
    # atomic-read's key-off check is a real Jcc (a second conditional
    # branch per iteration besides the loop's), jump-label's a NOP.
    branches = 2 if variant == "atomic-read" else 1
    assert t["count.off_branches_per_iter"] == str(branches), t


@pytest.mark.parametrize("variant", VARIANTS)
def test_reports_repeat_exactly(first, second, variant):
    """Two boots of the same kernel: byte-identical plugin reports."""
    a, b = (d / "raw" / ("selftest-%s.plugin" % variant)
            for d in (first, second))
    text = a.read_bytes()
    assert b"model=on\n" in text
    assert b"regions=12\n" in text
    assert text == b.read_bytes()
