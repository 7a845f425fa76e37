"""run_all.sh: its options and the order of its stages (dry runs), and the
quick answer's label in the report (smoke kernels)."""
import json
import re
import sys

import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402

from lib import source  # noqa: E402

RUN_ALL = str(ROOT / "run_all.sh")


def stages(*args):
    p = run([RUN_ALL, "--dry-run", "--config", "smoke"] + list(args))
    return [line.split("==== stage ", 1)[1] for line in p.stderr.splitlines()
            if "==== stage " in line and " done in " not in line]


def test_s390x_part_defaults_to_the_jump_label_kernel():
    s390 = [s for s in stages() if s.startswith("s390x-kernels")]
    assert len(s390) == 1 and "--variant jump-label" in s390[0]
    assert "--variant atomic-read" not in s390[0]


def test_s390x_all_and_none():
    s390 = [s for s in stages("--s390x", "all") if s.startswith("s390x-k")]
    assert len(s390) == 1 and "--variant" not in s390[0]
    assert not [s for s in stages("--s390x", "none") if "s390x" in s]
    assert not [s for s in stages("--no-s390x") if "s390x" in s]


def test_stage_order_and_the_plugin_stage():
    """The plugin is built in a stage of its own, between the image and the
    runs, unless the accelerator can load no TCG plugin."""
    names = [s.split(":")[0] for s in stages("--no-s390x")]
    assert names == ["deps", "kernels", "image", "plugin"]
    assert "bench/plugin/build --dry-run" in stages("--no-s390x")[3]
    for accel in ("kvm", "tcg"):
        assert "plugin" not in [s.split(":")[0] for s in stages(
            "--no-s390x", "--accel", accel)]
    assert "plugin" in [s.split(":")[0] for s in stages(
        "--no-s390x", "--accel", "icount")]


def test_user_variant_runs_beside_its_built_in(tmp_path):
    """--variant NAME=SPEC builds the user's kernel beside the built-in it
    sits on (the baseline), or beside --variants, whose first is then the
    baseline."""
    frag = tmp_path / "mine.config"
    frag.write_text("CONFIG_JUMP_LABEL=y\n")
    spec = "mine=config:%s,on:atomic-read" % frag
    kernels = [s for s in stages("--no-s390x", "--variant", spec)
               if s.startswith("kernels")][0]
    assert "--variant atomic-read --variant %s" % spec in kernels
    assert "--variant jump-label" not in kernels
    kernels = [s for s in stages("--no-s390x", "--variants", "plain-read",
                                 "--variant", spec)
               if s.startswith("kernels")][0]
    assert "--variant plain-read --variant %s" % spec in kernels


def test_a_suite_dry_run_names_every_workload():
    p = run([RUN_ALL, "--dry-run", "--config", "smoke", "--no-s390x",
             "--workload", "suite"])
    line = [ln for ln in p.stderr.splitlines() if "would now run" in ln][0]
    assert "tbench, then each of: pipe messaging" in line and "sock" in line


def test_the_default_linux_version_is_lib_sources():
    """run_all.sh writes no Linux version of its own: its default --source,
    the one with an s390x part by default, and its --help's are
    lib/source.py's DEFAULT."""
    default = stages()
    kernels = [s for s in default if s.startswith("kernels")][0]
    assert "--source %s " % source.DEFAULT in kernels
    assert [s for s in default if s.startswith("s390x-kernels")]
    other = [n for n in source.SOURCES if n != source.DEFAULT][0]
    assert not [s for s in stages("--source", other) if "s390x" in s]
    assert "the default: %s\n" % source.DEFAULT in \
        run([RUN_ALL, "--help"]).stdout
    with open(RUN_ALL) as f:
        text = f.read()
    for name in source.SOURCES:
        assert not re.search(r"(?<![\w.])%s(?![\w.])" % re.escape(name),
                             text), "a literal %s in run_all.sh" % name


@pytest.mark.parametrize("args, msg", [
    (["--variant", "jump-label"], "--variant takes NAME=SPEC"),
    (["--s390x", "bogus"], "--s390x takes jump-label, all or none"),
    (["--jobs"], "--jobs needs a value"),
    (["--append"], "--append needs a value"),
    (["--model-preset"], "--model-preset needs a value"),
    (["--bogus"], "unknown option '--bogus'"),
    (["--workload", "suite", "--loops", "3"],
     "--loops sets one workload's work"),
])
def test_usage_errors(args, msg):
    p = run([RUN_ALL] + args, check=False)
    assert p.returncode == 2 and msg in p.stderr, p.stderr


def test_report_of_smoke_kernels_says_it_is_a_quick_answer(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": [40.1, 40.3, 40.2],
                                           "atomic-read": [40.0, 40.1, 40.0]})
    meta_path = tmp_path / d.split("/")[-1] / "meta.json"
    meta = json.loads(meta_path.read_text())
    for b in meta["builds"].values():
        b["build"]["config"] = "smoke"
    meta_path.write_text(json.dumps(meta))
    run([PYTHON, str(ROOT / "analysis" / "analyze"), d, "--no-history"])
    p = run([PYTHON, str(ROOT / "analysis" / "report"), d])
    assert "**Quick answer from smoke kernels**" in p.stdout


def test_bench_coldstart_usage():
    tool = str(ROOT / "bench" / "timing" / "bench-coldstart")
    assert "empty cache" in run([tool, "--help"]).stdout
    p = run([tool, "--bogus"], check=False)
    assert p.returncode == 2 and "unknown option '--bogus'" in p.stderr


def test_bench_suite_usage():
    tool = str(ROOT / "bench" / "timing" / "bench-suite")
    assert "as CI runs it" in run([tool, "--help"]).stdout
    p = run([tool, "--bogus"], check=False)
    assert p.returncode == 2 and "unknown option '--bogus'" in p.stderr
