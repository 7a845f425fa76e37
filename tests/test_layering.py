"""Imports run one way (bench/README.md and analysis/README.md draw the
layers): every Python file's imports of jlbench code are checked against
LAYERS, and no package of bench/, analysis/ or plots/ grows past
MAX_MODULES modules."""
import ast
import subprocess

from conftest import ROOT

# layer: the layers its files may import (besides their own package). A
# file's layer is its package (bench.tries), else its folder (plots).
LIB = {"lib"}
FORMAT = LIB | {"lib.format"}
# the results store (lib/store/), which bench/ and analysis/ record in
STORE = FORMAT | {"lib.store"}
GUEST = FORMAT | {"bench.guest"}
MODEL = FORMAT | {"bench.model"}
TRIES = GUEST | {"bench.tries"}
REPLAY = TRIES | {"bench.replay"}
SESSION = REPLAY | MODEL | STORE | {"bench.session"}
BENCH = SESSION | {"bench"}
RESULTS = FORMAT | {"analysis.results"}
STATS = RESULTS | {"analysis.stats"}
COMPARISON = STATS | {"analysis.comparison"}
MODELS = STATS | {"analysis.models"}
SECTIONS = COMPARISON | MODELS | {"analysis.sections"}
# whole documents: REPORT.md of a run, of a suite
DOCUMENTS = SECTIONS | {"analysis.documents"}
# the commands (analysis/analyze, report, ...) and all of analysis/
ANALYSIS = DOCUMENTS | STORE | {"analysis"}
LAYERS = {
    "lib": LIB,
    "lib.format": FORMAT,
    "lib.store": STORE,
    "bench.guest": GUEST,
    "bench.model": MODEL,
    "bench.tries": TRIES,
    "bench.replay": REPLAY,
    "bench.session": SESSION,
    # the entry commands (bench/run, ...) and the harness's benchmarks
    "bench": BENCH,
    "bench.timing": BENCH,
    # bench/bisect: builds and runs kernels, judges them by analysis/
    "bench.bisection": BENCH | ANALYSIS | {"bench.bisection"},
    # the robot: scans as bench/scan does, reports findings of the store
    # as analysis/ writes figures
    "bench.robot": BENCH | ANALYSIS | {"bench.bisection", "bench.robot"},
    "analysis.results": RESULTS,
    "analysis.stats": STATS,
    "analysis.comparison": COMPARISON,
    "analysis.models": MODELS,
    "analysis.sections": SECTIONS,
    "analysis.documents": DOCUMENTS,
    "analysis": ANALYSIS,
    "plots": ANALYSIS | {"plots"},
    # the dashboard: pages over the store, figures by analysis/'s rules
    "web": ANALYSIS | {"web"},
    "guest-image": LIB,
    "kernel-variants": LIB,
}
FIRST_PARTY = ("lib", "bench", "analysis", "plots", "web")
MAX_MODULES = 12


def python_files():
    out = subprocess.run(["git", "ls-files", "--cached", "--others",
                          "--exclude-standard"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    for name in out:
        path = ROOT / name
        top = name.split("/")[0]
        if top not in ("lib", "bench", "analysis", "plots", "guest-image",
                       "kernel-variants", "web") or not path.is_file():
            continue
        with open(path, "rb") as f:
            head = f.readline()
        if name.endswith(".py") or (head.startswith(b"#!")
                                    and b"python" in head):
            yield name, path


def layer_of(name):
    """The layer of a repository path (bench/tries/plan.py: bench.tries)."""
    parts = name.split("/")[:-1]
    while parts:
        layer = ".".join(parts)
        if layer in LAYERS:
            return layer
        parts.pop()
    raise AssertionError("%s is in no layer: add its folder to LAYERS"
                         % name)


def imported(path):
    """The first-party packages a file imports (bench.tries, lib, ...)."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.level == 0:
            names = [node.module + "." + a.name for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for n in names:
            parts = n.split(".")
            if parts[0] not in FIRST_PARTY:
                continue
            # the longest prefix that is a layer: lib.format.schema ->
            # lib.format, lib.ROOT -> lib, bench.guest.boot -> bench.guest
            for k in range(len(parts), 0, -1):
                if ".".join(parts[:k]) in LAYERS:
                    yield ".".join(parts[:k])
                    break


def test_imports_run_one_way():
    wrong = []
    for name, path in python_files():
        layer = layer_of(name)
        for target in set(imported(path)):
            if target != layer and target not in LAYERS[layer]:
                wrong.append("%s (%s) imports %s" % (name, layer, target))
    assert not wrong, "imports against the layering (bench/README.md):\n" \
        + "\n".join(sorted(wrong))


def test_layer_of_and_imported(tmp_path):
    """The checker itself: a lower layer importing a higher one is seen."""
    assert layer_of("bench/tries/plan.py") == "bench.tries"
    assert layer_of("lib/format/schema.py") == "lib.format"
    assert layer_of("bench/timing/bench-boot") == "bench.timing"
    # the store: above the format, below bench/ and analysis/
    assert layer_of("lib/store/db") == "lib.store"
    assert "lib.store" not in LAYERS["lib.format"] | LAYERS["lib"]
    assert "lib.store" in LAYERS["bench"] & LAYERS["analysis"]
    assert not LAYERS["lib.store"] & {"bench", "analysis"}
    p = tmp_path / "x.py"
    p.write_text("import os\nfrom lib.format import schema\n"
                 "def f():\n    from bench.session import cli\n"
                 "from lib import ROOT\n")
    assert sorted(set(imported(p))) == ["bench.session", "lib",
                                        "lib.format"]
    assert "bench.session" not in LAYERS["bench.tries"]
    assert "bench.guest" not in LAYERS["analysis"]
    # analysis/: numbers below the report, one way
    assert layer_of("analysis/stats/analyze.py") == "analysis.stats"
    assert layer_of("analysis/analyze") == "analysis"
    assert layer_of("plots/figures/seeds.py") == "plots"
    q = tmp_path / "y.py"
    q.write_text("from analysis.sections import fmt as F\n"
                 "from analysis.results.load import per_run\n"
                 "from plots.figures import common\n")
    assert sorted(set(imported(q))) == ["analysis.results",
                                        "analysis.sections", "plots"]
    for lower in ("analysis.results", "analysis.stats",
                  "analysis.comparison", "analysis.models"):
        assert "analysis.sections" not in LAYERS[lower]
        assert "plots" not in LAYERS[lower]
    assert "analysis.models" not in LAYERS["analysis.comparison"]
    assert "analysis.documents" not in LAYERS["analysis.sections"]
    assert "plots" not in LAYERS["analysis"]


def test_packages_are_small():
    big = []
    for top in ("bench", "analysis", "plots"):
        for d in sorted((ROOT / top).iterdir()):
            if d.is_dir() and (d / "__init__.py").exists():
                n = len([m for m in d.glob("*.py")
                         if m.name != "__init__.py"])
                if n > MAX_MODULES:
                    big.append("%s/%s: %d modules" % (top, d.name, n))
    assert not big, big
