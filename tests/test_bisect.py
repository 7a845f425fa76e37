"""The A/B of a user's patch through run_all.sh, and its reproduce.sh, on
the smoke kernels (conftest's `ab`, whose runs test_profile reads too).
bench/bisect's search over a git range is test_scan's (a scan bisects
each change it finds), over a series test_workloads_known's; the search
over longer ranges, its replay and its errors are test_bisect_unit's.
"""
import subprocess

import pytest

from conftest import ROOT, cpu_lock, read_builds

pytestmark = pytest.mark.integration


def test_ab_of_a_user_patch_through_run_all_and_its_reproduce(
        ab, tmp_path):
    """./run_all.sh --variant loop=patches:FILE (conftest's ab): the report
    names loop and its baseline, and reproduce.sh rebuilds loop from the
    recorded patch and reruns a try bit for bit."""
    text = ab.report.read_text()
    assert "`loop`" in text and "`jump-label`" in text
    assert (ab.report.parent / "plots" / "img" / "throughput.svg").is_file()
    assert "2011" not in text
    assert ab.meta["baseline"] == "jump-label"
    assert sorted(ab.meta["plan"]["variants"]) == ["jump-label", "loop"]
    recorded = ab.results / "provenance" / "variants" / "loop"
    assert (recorded / "patches" / ab.patch.name).read_bytes() == \
        ab.patch.read_bytes()
    with cpu_lock(cores=1):     # cached kernels, one guest
        p = subprocess.run([str(ab.results / "reproduce.sh"), "--clone",
                            str(ROOT), "--work", str(tmp_path / "work")],
                           capture_output=True, text=True, check=False)
    assert p.returncode == 0 and p.stdout.strip().endswith("PASS"), \
        p.stderr[-3000:]
    assert "loop=@%s" % recorded in p.stderr
    builds = read_builds(tmp_path / "work" / "builds.tsv")
    assert "loop" in builds
