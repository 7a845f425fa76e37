"""The suite's order (conftest.FIRST, docs/testing.md "How the suite
runs"): every integration module that holds both CPUs (cpu_lock() with
its default of two cores, or a kernel build through build_kernels) is
placed in FIRST. A module left out runs after all of them, where its
worker waits for the lock while the other's one-guest modules hold it:
test_workloads_boot and test_workloads_known, left out, waited 194 s
behind the nested machine with one CPU idle (bench/timing/bench-suite's
timeline at 82d0a1a)."""
import re

from conftest import FIRST, ROOT

TWO_CORES = re.compile(r"cpu_lock\(\)|build_kernels\(")
INTEGRATION = re.compile(r"^pytestmark = pytest\.mark\.integration", re.M)


def test_every_two_core_module_is_placed():
    left_out = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        text = path.read_text()
        if INTEGRATION.search(text) and TWO_CORES.search(text) and \
                path.stem not in FIRST:
            left_out.append(path.stem)
    assert left_out == [], left_out
