"""The suite's order (conftest.FIRST, docs/testing.md "How the suite
runs"): every integration module that holds both CPUs (cpu_lock() with
its default of two cores, or a kernel build through build_kernels) comes
before test_nested_kvm, the one-guest module that runs longest. A module
left out of FIRST runs after it, and its worker waits for the nested
machine with one CPU idle: test_workloads_boot and test_workloads_known
waited 194 s so (bench/timing/bench-suite at 82d0a1a)."""
import re

from conftest import FIRST, ROOT

TWO_CORES = re.compile(r"cpu_lock\(\)|build_kernels\(")
INTEGRATION = re.compile(r"^pytestmark = pytest\.mark\.integration", re.M)


def test_every_two_core_module_comes_before_the_nested_machine():
    late = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        text = path.read_text()
        if not INTEGRATION.search(text) or not TWO_CORES.search(text):
            continue
        name = path.stem
        if name not in FIRST or \
                FIRST.index(name) > FIRST.index("test_nested_kvm"):
            late.append(name)
    assert late == [], late
