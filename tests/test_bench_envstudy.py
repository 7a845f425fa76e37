"""bench/envstudy --dry-run: one bench/run per environment, the same
kernels, seeds and protocol, and only the environment's own change."""
from conftest import ROOT, run

TOOL = str(ROOT / "bench" / "envstudy")


def test_dry_run_plans_one_run_per_environment(tmp_path):
    builds = tmp_path / "builds.tsv"
    builds.write_text("atomic-read\t/nowhere\n")
    image = tmp_path / "img.cpio"
    image.write_bytes(b"x")
    p = run([TOOL, "--builds", builds, "--initramfs", image, "--out",
             tmp_path / "study", "--boots", "3", "--dry-run"])
    runs = [line for line in p.stdout.splitlines() if "bench/run " in line]
    assert len(runs) == 6
    for line in runs:
        assert "--boots 3 --seed 30 --no-aa" in line
        assert "--accel icount" in line
    by_env = {line.split("--results-root ")[1].split()[0].rsplit("/", 1)[1]:
              line for line in runs}
    assert set(by_env) == {"base", "size", "order", "agent", "cmdline",
                           "environ"}
    assert "--append" not in by_env["base"] and str(image) in by_env["base"]
    assert "--append jlbench.envpad=1024" in by_env["environ"]
    assert "--append jlbenchpad.x=" + "x" * 243 in by_env["cmdline"]
    for env, kind in (("size", "size:262144"), ("order", "order"),
                      ("agent", "agent:-falign-functions=64")):
        assert "-%s.cpio " % env in by_env[env]
        assert "vary %s %s " % (image, kind) in p.stderr
    assert not (tmp_path / "study" / "base").exists() or \
        not any((tmp_path / "study" / "base").iterdir())
    assert all("--workload tbench" in line for line in runs)
    p = run([TOOL, "--builds", builds, "--initramfs", image, "--out",
             tmp_path / "study2", "--only", "base", "--workload", "fault",
             "--dry-run"])
    assert "--workload fault" in p.stdout


def test_usage_errors_name_the_fix(tmp_path):
    p = run([TOOL, "--out", tmp_path], check=False)
    assert p.returncode == 2 and "--builds, --initramfs and --out" in p.stderr
    builds = tmp_path / "b.tsv"
    builds.write_text("")
    image = tmp_path / "i"
    image.write_text("")
    p = run([TOOL, "--builds", builds, "--initramfs", image, "--out",
             tmp_path, "--only", "base,colour"], check=False)
    assert p.returncode == 2 and "unknown environment colour" in p.stderr
