"""Integration: the port to Linux 6.12 (lib/source.py, kernel-variants/
patches-6.12): every variant's fragments survive the merge on 6.12's
tree, a 6.12 smoke kernel builds and verifies, and the static-key module
builds for it and passes its selftest in a boot (icount, with the
plugin's counts). Builds hold both CPUs when they have a kernel to make
(conftest.build_kernels), the config merges and the boot one."""
import json
import os
import sys

import pytest

from conftest import (ROOT, SMOKE_VARIANTS, build_kernels, cpu_lock,
                      read_builds, run)
from test_module_boot import CHECKS, MOD, read_table, selftest

sys.path.insert(0, str(ROOT))
from analysis.comparison import pathkeys  # noqa: E402

pytestmark = pytest.mark.integration

BUILD = str(ROOT / "kernel-variants" / "build")
SOURCE = "6.12"


@pytest.fixture(scope="module")
def builds_612(tmp_path_factory):
    """builds.tsv of the 6.12 smoke jump-label kernel (cached once built)."""
    path = str(tmp_path_factory.mktemp("builds612") / "builds.tsv")
    build_kernels(["--source", SOURCE, "--config", "smoke", "--variant",
                   "jump-label", "--out", path])
    return path


def test_every_variants_fragments_survive_on_612():
    with cpu_lock(cores=1):     # three config merges, one at a time
        p = run([BUILD, "--source", SOURCE, "--config", "smoke",
                 "--configs-only"])
    for v in SMOKE_VARIANTS:
        assert "%s: every symbol of its fragments survived" % v in p.stderr
    assert "linux-source-6.12 6.12." in p.stderr


def test_612_smoke_kernel_is_verified(builds_612):
    (d,) = read_builds(builds_612).values()
    with open(os.path.join(d, "build.json")) as f:
        b = json.load(f)
    assert b["source"]["package"] == "linux-source-6.12"
    assert b["source"]["version"].startswith("6.12.")
    v = b["verify"]
    assert v["ok"] and all(v["checks"].values()), v
    assert v["jump_table"]["entries"] > 500
    assert {s["kind"] for s in v["sites"]} == {"nop"}
    # the keys REPORT.md's path table names, from the same jump table
    keys = pathkeys.site_keys(d)
    assert "__tracepoint_tcp_probe" in keys["tcp_rcv_established"]
    assert sum(len(k) for k in keys.values()) <= \
        v["jump_table"]["entries"]


def test_612_module_selftest_passes(builds_612, plugin_so, tmp_path):
    out = tmp_path / "image.path"
    with cpu_lock():
        run([str(ROOT / "guest-image" / "build"), "--builds", builds_612,
             "--out", str(out)])
    results = tmp_path / "selftest"
    p = selftest(builds_612, out.read_text().strip(), results)
    assert p.returncode == 0, p.stderr[-3000:]
    t = read_table(results)["jump-label"]
    assert t["boot"] == "PASS" and t["kernel_warnings"] == "0", t
    assert t[MOD] == "PASS" and t["test_static_keys"] == "PASS", t
    for check in CHECKS:
        assert t["%s.%s" % (MOD, check)] == "PASS", (check, t)
    assert t[MOD + ".site_bytes"] == "PASS" and t[MOD + ".jump_label"] == "1"
    assert int(t[MOD + ".sites"]) >= 1
