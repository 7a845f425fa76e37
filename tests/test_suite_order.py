"""The suite's order (conftest.FIRST, docs/testing.md "How the suite
runs"): every integration module that holds both CPUs (cpu_lock() with
its default of two cores, a kernel build through build_kernels, or
bench/timing/bench-boot, which takes the lock alone itself) comes in
FIRST before the nested machine, the longest one-guest module. One
after it waits for the lock while the nested machine holds it:
test_workloads_boot and test_workloads_known, left out, waited 194 s
behind the nested machine with one CPU idle (bench/timing/bench-suite's
timeline at 82d0a1a)."""
import re

from conftest import FIRST, ROOT

TWO_CORES = re.compile(r"cpu_lock\(\)|build_kernels\(|bench-boot")
INTEGRATION = re.compile(r"^pytestmark = pytest\.mark\.integration", re.M)


def test_every_two_core_module_comes_before_the_nested_machine():
    late = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        text = path.read_text()
        if INTEGRATION.search(text) and TWO_CORES.search(text) and (
                path.stem not in FIRST or FIRST.index(path.stem) >
                FIRST.index("test_nested_kvm")):
            late.append(path.stem)
    assert late == [], late
