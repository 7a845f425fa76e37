"""bench/replay/provenance.py, bench/replay/replay.py and the reproduce.sh
they serve, with the stand-in QEMU (tests/fixtures/bench/) and hand-made
builds: what a results dir records, portable paths, the command-line
rewrite, the rerun's comparison (PASS, and FAIL naming each figure that
differs). The real rebuild and rerun from a clean clone: test_reproduce.py.
"""
import csv
import gzip
import importlib.util
import json
import os
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from bench.replay import provenance, replay  # noqa: E402
from lib import hostinfo  # noqa: E402
from lib.format import identity, rawfiles  # noqa: E402

STANDIN = ROOT / "tests" / "fixtures" / "bench" / "stand-in-qemu"
RUN = str(ROOT / "bench" / "run")


def mkcpio():
    spec = importlib.util.spec_from_file_location(
        "mkcpio", ROOT / "guest-image" / "mkcpio.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cpio(names):
    """A newc archive of empty files named names, as guest-image writes."""
    m = mkcpio()
    data = b""
    for ino, n in enumerate(names, 1):
        data += m.header(ino, 0o100644, 1, 0, 0, (0, 0), n.encode())
    return data + m.header(0, 0, 1, 0, 0, (0, 0), b"TRAILER!!!")


@pytest.fixture
def setup(tmp_path):
    """Two fake builds in a fake cache, an image carrying both kernels'
    modules, a stand-in QEMU; returns (tmp, env, bench/run argv)."""
    cache = tmp_path / "cache"
    lines = []
    for v in ("jump-label", "atomic-read"):
        d = cache / "kernels" / ("smoke-%s-h%s" % (v, v[:4]))
        d.mkdir(parents=True)
        (d / "bzImage").write_bytes(b"kernel " + v.encode())
        (d / ".config").write_text("CONFIG_X=y\nCONFIG_V_%s=y\n" % v[0])
        (d / "build.json").write_text(json.dumps({
            "hash": "h" + v[:4], "boot_args": "", "config": "smoke",
            "arch": "x86_64", "compiler": "gcc 12", "variant": v,
            "source": {"version": "6.1.192-3",
                       "series_hash": provenance.series(
                           ROOT / "kernel-variants" / "patches")[0]}}))
        lines.append("%s\t%s\n" % (v, d))
    (tmp_path / "builds.tsv").write_text("".join(lines))
    (cache / "initramfs").mkdir()
    img = cache / "initramfs" / "img.cpio.gz"
    img.write_bytes(gzip.compress(cpio([
        "init", "lib/modules/jlbench/jump-label/a.ko",
        "lib/modules/jlbench/atomic-read/a.ko"])))
    (tmp_path / "script").write_text("ok\n" * 10)
    env = dict(os.environ, JLBENCH_QEMU=str(STANDIN), JLBENCH_CACHE=str(cache),
               STANDIN_SCRIPT=str(tmp_path / "script"))
    argv = [RUN, "--builds", str(tmp_path / "builds.tsv"),
            "--initramfs", str(img), "--results-root",
            str(tmp_path / "results"), "--out", str(tmp_path / "out"),
            "--quiet", "--no-aa", "--accel", "icount", "--boots", "2",
            "--seconds", "1", "--no-plugin", "--seed", "4",
            "--variants", "jump-label"]
    return tmp_path, env, argv


def made(setup):
    tmp, env, argv = setup
    run(argv, env=env)
    return tmp, env, (tmp / "out").read_text().strip()


def rerun(d, tmp, env, *extra):
    return run([sys.executable, "-m", "bench.replay.replay", "rerun", d,
                "--builds", str(tmp / "builds.tsv"), "--image",
                str(tmp / "cache" / "initramfs" / "img.cpio.gz"),
                "--out", str(tmp / "rerun")] + list(extra), env=env,
               check=False)


def test_a_results_dir_records_what_defines_its_run(setup):
    tmp, env, d = made(setup)
    prov = json.load(open(os.path.join(d, "provenance", "provenance.json")))
    # the image carries atomic-read's modules too: its kernel is recorded
    assert sorted(prov["kernels"]) == ["atomic-read", "jump-label"]
    assert prov["kernels"]["jump-label"]["boots"] is True
    assert prov["kernels"]["atomic-read"]["boots"] is False
    assert prov["images"][0]["variants"] == ["atomic-read", "jump-label"]
    k = prov["kernels"]["jump-label"]
    assert k["hash"] == "hjump" and k["config"] == "smoke"
    with open(os.path.join(d, "provenance", k["config_file"])) as f:
        assert f.read() == "CONFIG_X=y\nCONFIG_V_j=y\n"
    # no config store above this results root: kept in the dir
    assert k["config_file"] == "kernels/jump-label.config"
    assert json.load(open(os.path.join(d, "provenance", k["build_json"])))[
        "hash"] == "hjump"
    p = prov["patches"]
    assert p["series_hash"] == k["series_hash"] and p["patches"]
    for n in ["series"] + p["patches"]:
        assert (ROOT / "kernel-variants" / "patches" / n).read_bytes() == \
            open(os.path.join(d, "provenance", "patches", n), "rb").read()
    git = prov["git"]
    assert len(git["commit"]) == 40
    assert (git["diff"] == "git.diff") == bool(git["dirty"])
    assert git["left_out"]["count"] >= 0 and len(
        git["left_out"]["sha256"]) == 64
    assert prov["notes"] == [] and prov["accel"] == "icount"
    # no path of this machine: the cache is $JLBENCH_CACHE
    for name in ("meta.json", "provenance/provenance.json", "reproduce.sh"):
        text = open(os.path.join(d, name)).read()
        assert str(tmp / "cache") not in text and str(ROOT) not in text, name
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["builds"]["jump-label"]["dir"] == \
        "$JLBENCH_CACHE/kernels/smoke-jump-label-hjump"
    assert hostinfo.local_path(meta["builds"]["jump-label"]["dir"], env) == \
        str(tmp / "cache" / "kernels" / "smoke-jump-label-hjump")
    script = open(os.path.join(d, "reproduce.sh")).read()
    assert script == provenance.STUB
    assert os.access(os.path.join(d, "reproduce.sh"), os.X_OK)
    run(["shellcheck", os.path.join(d, "reproduce.sh")])
    # outside a checkout, the stub names the command to run
    p = subprocess.run([os.path.join(d, "reproduce.sh")], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 1 and "give --clone CHECKOUT" in p.stderr
    p = subprocess.run([os.path.join(d, "reproduce.sh"), "--dry-run",
                        "--clone", str(ROOT), "--work", str(tmp / "w0")],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0 and "dry-run: git clone" in p.stdout, p.stderr


def test_rerun_of_an_icount_try_passes_with_the_same_bits(setup):
    tmp, env, d = made(setup)
    p = rerun(d, tmp, env, "--run", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == "PASS"
    new = shlex.split(
        (tmp / "rerun" / "002-jump-label-try1.qemu-cmd").read_text())
    old = shlex.split(rawfiles.read_bytes(
        os.path.join(d, "raw", "002-jump-label-try1.qemu-cmd")).decode())
    assert new[new.index("-serial") + 1] == \
        "file:%s/rerun/002-jump-label-try1.log" % tmp
    assert [x for x in new if "/rerun/" not in x] == \
        [x for x in old if "/raw/" not in x]


def test_a_run_with_append_reruns_with_its_words(setup):
    """The rerun boots with the recorded QEMU command line: bench/run's
    --append words (meta.json protocol.append) come along."""
    tmp, env, argv = setup
    tmp, env, d = made((tmp, env, argv + ["--append", "foo=1 bar"]))
    p = rerun(d, tmp, env, "--run", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    new = shlex.split(
        (tmp / "rerun" / "001-jump-label-try1.qemu-cmd").read_text())
    assert new[new.index("-append") + 1].endswith(" foo=1 bar")
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["protocol"]["append"] == "foo=1 bar"


def edit_csv(path, index, **cells):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    col = {c: i for i, c in enumerate(rows[0])}
    for r in rows[1:]:
        if r[0] == index:
            for k, v in cells.items():
                r[col[k]] = v
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def test_rerun_names_every_figure_that_differs(setup):
    tmp, env, d = made(setup)
    edit_csv(os.path.join(d, "runs.csv"), "1", ops="7")
    edit_csv(os.path.join(d, "samples.csv"), "1", throughput_mbps="1.5")
    p = rerun(d, tmp, env)
    assert p.returncode == 1
    out = p.stdout
    assert "FAIL: run 1: row ops: '7' vs" in out
    assert "FAIL: run 1: samples differ from sample 1 on" in out
    assert out.strip().splitlines()[-1] == "FAIL"


def test_rerun_fails_on_another_image(setup):
    tmp, env, d = made(setup)
    img = tmp / "cache" / "initramfs" / "img.cpio.gz"
    img.write_bytes(gzip.compress(cpio(["init"])))
    p = rerun(d, tmp, env)
    assert p.returncode == 1 and "FAIL: initramfs: hash" in p.stdout


def test_a_tcg_rerun_is_shown_not_compared(setup):
    tmp, env, argv = setup
    argv = [a if a != "icount" else "tcg" for a in argv]
    run(argv, env=env)
    d = (tmp / "out").read_text().strip()
    p = rerun(d, tmp, env)
    assert p.returncode == replay.NOT_COMPARABLE
    assert "NOT COMPARED: under tcg" in p.stdout


def test_plan_and_check_kernels(setup):
    tmp, env, d = made(setup)
    got = replay.plan(d)
    assert got == {"run": "1", "try": "1", "variant": "jump-label",
                   "config": "smoke", "arch": "x86_64", "source": "6.1",
                   "kernels": "atomic-read jump-label",
                   "specs": "atomic-read jump-label",
                   "image_kernels": "atomic-read jump-label",
                   "plugin": 0}
    with pytest.raises(replay.Problem, match="no ok try of run 9"):
        replay.plan(d, 9)
    lines, fails = replay.check_kernels(d, str(tmp / "builds.tsv"))
    assert fails == [] and len(lines) == 2
    # same inputs, other bytes
    jl = tmp / "cache" / "kernels" / "smoke-jump-label-hjump"
    (jl / "bzImage").write_bytes(b"other bytes")
    _, fails = replay.check_kernels(d, str(tmp / "builds.tsv"))
    assert "bzImage differs" in fails[0] and "not reproducible" in fails[0]
    # other inputs: the hash, the versions and the .config lines that differ
    info = json.load(open(jl / "build.json"))
    info.update(hash="hother", compiler="gcc 13")
    (jl / "build.json").write_text(json.dumps(info))
    (jl / ".config").write_text("CONFIG_X=m\nCONFIG_V_j=y\n")
    _, fails = replay.check_kernels(d, str(tmp / "builds.tsv"),
                                    ["jump-label"])
    text = "\n".join(fails)
    assert "build hash hother, recorded hjump" in text
    assert "compiler: 'gcc 13' here, 'gcc 12' recorded" in text
    assert "-CONFIG_X=y" in text and "+CONFIG_X=m" in text


def test_rewrite_puts_in_this_machines_paths():
    rec = ["/opt/q", "-accel", "tcg", "-serial", "file:/old/r.log",
           "-kernel", "/old/bzImage", "-initrd", "/old/i.gz", "-append",
           "a b", "-plugin", "/old/p.so,outfile=/old/r.counts,sites=/old/s"]
    got = replay.rewrite(rec, "/k", "/i", "/n.log", "/p.so", "/n.counts",
                         "/s", qemu_bin="qemu")
    assert got == ["qemu", "-accel", "tcg", "-serial", "file:/n.log",
                   "-kernel", "/k", "-initrd", "/i", "-append", "a b",
                   "-plugin", "/p.so,outfile=/n.counts,sites=/s"]
    with pytest.raises(ValueError, match="static-key sites"):
        replay.rewrite(rec, "/k", "/i", "/n.log", "/p.so", "/c", None)
    with pytest.raises(ValueError, match="loaded a plugin"):
        replay.rewrite(rec, "/k", "/i", "/n.log")
    with pytest.raises(ValueError, match="no -initrd"):
        replay.rewrite(rec[:7], "/k", "/i", "/n.log")


def test_rewrite_gives_the_model_this_machines_keys_file():
    rec = ["/opt/q", "-serial", "file:/old/r.log", "-kernel", "/old/bz",
           "-initrd", "/old/i", "-plugin",
           "/old/p.so,outfile=/old/c,model=on,l1d=32768:8,keys=/old/k.txt"]
    got = replay.rewrite(rec, "/k", "/i", "/n.log", "/p.so", "/n.counts",
                         keys="/r/keys/v.txt")
    assert got[-1] == "/p.so,outfile=/n.counts,model=on,l1d=32768:8," \
        "keys=/r/keys/v.txt"
    with pytest.raises(ValueError, match="keys= file"):
        replay.rewrite(rec, "/k", "/i", "/n.log", "/p.so", "/n.counts")


def test_rewrite_gives_the_profile_this_machines_files():
    rec = ["/opt/q", "-serial", "file:/old/r.log", "-kernel", "/old/bz",
           "-initrd", "/old/i", "-plugin",
           "/old/p.so,outfile=/old/c,symbols=/c/s.txt,profile=/old/r.profile"]
    got = replay.rewrite(rec, "/k", "/i", "/n.log", "/p.so", "/n.counts",
                         profile=("/n.profile", "/n/s.txt"))
    assert got[-1] == "/p.so,outfile=/n.counts,symbols=/n/s.txt," \
        "profile=/n.profile"
    with pytest.raises(ValueError, match="wrote a profile"):
        replay.rewrite(rec, "/k", "/i", "/n.log", "/p.so", "/n.counts")


def test_image_variants_reads_the_cpio(tmp_path):
    p = tmp_path / "i.cpio"
    p.write_bytes(cpio(["init", "lib/modules/jlbench/b/x.ko",
                        "lib/modules/jlbench/a/proc_version",
                        "lib/modules/jlbench/a"]))
    assert provenance.image_variants(str(p)) == ["a", "b"]
    p.write_bytes(cpio(["init"]))
    assert provenance.image_variants(str(p)) == []
    p.write_bytes(b"070701garbage")
    assert provenance.image_variants(str(p)) is None
    p.write_bytes(gzip.compress(b"not a cpio"))
    assert provenance.image_variants(str(p)) is None


def test_portable_paths_and_back():
    env = {"HOME": "/home/u", "JLBENCH_CACHE": "/home/u/.cache/jlbench"}
    where = hostinfo.places(env, root="/src/jlbench")
    got = hostinfo.portable({
        "a": "/home/u/.cache/jlbench/kernels/k",
        "b": ["file:/src/jlbench/results/x", "/home/u/other",
              "/x/home/u/y", "/home/uv", "p /home/u/.cache/jlbench,o=1"]},
        where)
    assert got == {"a": "$JLBENCH_CACHE/kernels/k",
                   "b": ["file:$JLBENCH_ROOT/results/x", "~/other",
                         "/x/home/u/y", "/home/uv", "p $JLBENCH_CACHE,o=1"]}
    assert hostinfo.local_path(got["a"], env) == \
        "/home/u/.cache/jlbench/kernels/k"
    assert hostinfo.local_path("~/other", env) == "/home/u/other"
    assert hostinfo.local_path("/abs/old", env) == "/abs/old"


def test_a_config_is_kept_once_per_content_in_the_store_above(tmp_path):
    store = tmp_path / "results" / provenance.CONFIG_STORE
    store.mkdir(parents=True)
    (tmp_path / "a.config").write_text("CONFIG_X=y\n")
    rels = []
    for name in ("r1", "suite/pipe/r2"):
        prov = tmp_path / "results" / name / "provenance"
        (prov / "kernels").mkdir(parents=True)
        rels.append(provenance.store_config(str(tmp_path / "a.config"),
                                            str(prov), "v"))
        assert os.path.dirname(os.path.normpath(prov / rels[-1])) == \
            str(store)
    assert rels == ["../../kernel-configs/" + os.listdir(store)[0],
                    "../../../../kernel-configs/" + os.listdir(store)[0]]
    assert len(os.listdir(store)) == 1
    # no store above: in the dir itself, and no store is made
    prov = tmp_path / "elsewhere" / "r3" / "provenance"
    (prov / "kernels").mkdir(parents=True)
    assert provenance.store_config(str(tmp_path / "a.config"), str(prov),
                                   "v") == "kernels/v.config"
    assert not (tmp_path / "elsewhere" / provenance.CONFIG_STORE).exists()


def test_git_diff_holds_the_sources_only(tmp_path):
    g = ["git", "-C", str(tmp_path)]
    run(g + ["init", "-q"])
    (tmp_path / "a").write_text("one\n")
    (tmp_path / "REPORT.md").write_text("old report\n")
    (tmp_path / "plots" / "img").mkdir(parents=True)
    (tmp_path / "plots" / "img" / "f.png").write_bytes(b"\x89PNG1")
    run(g + ["add", "a", "REPORT.md", "plots"])
    run(g + ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm",
             "a"])
    (tmp_path / "a").write_text("two\n")
    (tmp_path / "new").write_bytes(b"\0bin")
    (tmp_path / "results" / "d").mkdir(parents=True)
    (tmp_path / "results" / "d" / "x").write_text("x")
    # generated files a run always finds changed: not in the diff
    (tmp_path / "REPORT.md").write_text("new report\n")
    (tmp_path / "plots" / "img" / "f.png").write_bytes(b"\x89PNG2")
    (tmp_path / "plots" / "img" / "g.svg").write_text("<svg/>")
    (tmp_path / "plots" / "old.png").write_bytes(b"\x89PNG")  # older place
    (tmp_path / "plots" / "draw.gp").write_text("plot x\n")    # a source
    diff, left_out = provenance.git_diff(str(tmp_path))
    assert left_out == ["plots/img/g.svg", "plots/old.png", "results/d/x"]
    assert b"REPORT.md" not in diff and b"plots/img" not in diff
    assert b"plots/draw.gp" in diff
    record = provenance.left_out_record(left_out)
    assert record["count"] == 3 and record == provenance.left_out_record(
        list(reversed(left_out)))
    clone = tmp_path.parent / "clone"
    run(["git", "clone", "-q", str(tmp_path), str(clone)])
    (tmp_path.parent / "p.diff").write_bytes(diff)
    run(["git", "-C", str(clone), "apply", "--binary",
         str(tmp_path.parent / "p.diff")])
    assert (clone / "a").read_text() == "two\n"
    assert (clone / "new").read_bytes() == b"\0bin"


def test_reproduce_needs_a_results_dir(tmp_path):
    cmd = [str(ROOT / "jlbench"), "reproduce"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert p.returncode == 2 and "give the results dir" in p.stderr
    p = subprocess.run(cmd + [str(tmp_path), "--run", "x"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 2
    p = subprocess.run(cmd + [str(tmp_path)], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 1 and "provenance.json is missing" in p.stderr


def test_reproduce_dry_run_names_each_step(setup):
    tmp, env, d = made(setup)
    p = run([str(ROOT / "jlbench"), "reproduce", d, "--dry-run", "--clone",
             str(ROOT), "--work", str(tmp / "w")], env=env)
    out = p.stdout
    assert "dry-run: git clone --quiet --no-checkout" in out
    assert "JLBENCH_PATCHES=%s/provenance/patches" % d in out
    assert "--config smoke --arch x86_64 --out %s/w/builds.tsv " \
        "--variant atomic-read --variant jump-label" % tmp in out
    assert "guest-image/build --out %s/w/image.path" % tmp in out
    assert "replay rerun %s --run 1" % d in out


def test_committed_results_dirs_name_no_home_dir():
    for d in sorted((ROOT / "results").iterdir()):
        meta = d / "meta.json"
        if not meta.is_file():
            continue
        text = meta.read_text()
        assert "/root/" not in text and "/home/" not in text, meta
        for s in (d / "sites").glob("*.txt"):
            assert "/root/" not in s.read_text(), s
        if (d / "reproduce.sh").exists():
            assert (d / "provenance" / "provenance.json").is_file()


def test_recorded_try_and_compare(setup):
    tmp, env, d = made(setup)
    row = replay.choose(d)
    a = identity.recorded_try(d, row)
    assert a["samples"] and a["row"]["status"] == "ok"
    assert identity.compare(a, a, "x") == []
    b = dict(a, samples=a["samples"][:-1])
    assert identity.compare(a, b, "x") == [
        "x: samples differ from sample %d on (%d vs %d samples)"
        % (len(a["samples"]), len(a["samples"]), len(a["samples"]) - 1)]


def test_scrub_makes_meta_and_sites_portable(tmp_path, monkeypatch):
    monkeypatch.setenv("JLBENCH_CACHE", str(tmp_path / "c"))
    d = tmp_path / "r"
    (d / "sites").mkdir(parents=True)
    (d / "meta.json").write_text(json.dumps(
        {"plugin": {"path": str(tmp_path / "c" / "p.so")}}))
    (d / "sites" / "jump-label.txt").write_text(
        "# jump table sites of %s: 1\nffffffff81000c31\n" % (
            tmp_path / "c" / "kernels" / "k"))
    assert provenance.scrub(str(d)) is True
    assert json.load(open(d / "meta.json")) == {
        "plugin": {"path": "$JLBENCH_CACHE/p.so"}}
    assert (d / "sites" / "jump-label.txt").read_text() == \
        "# jump table sites of $JLBENCH_CACHE/kernels/k: 1\nffffffff81000c31\n"
    assert provenance.scrub(str(d)) is False


def test_untracked_results_dirs_leave_the_tree_clean(tmp_path):
    """Earlier runs' results dirs (untracked, under results/) do not make
    the next run's tree dirty; any other change does."""
    def git(*args):
        run(["git", "-C", str(tmp_path), "-c", "user.name=t",
             "-c", "user.email=t@t"] + list(args))
    git("init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("add", "-A")
    git("commit", "-q", "-m", "one")
    (tmp_path / "results" / "20261205T000000Z-abc1234").mkdir(parents=True)
    (tmp_path / "results" / "20261205T000000Z-abc1234" / "runs.csv") \
        .write_text("index\n")
    state = hostinfo.git_state(str(tmp_path))
    assert state["dirty"] is False
    assert state["changed"] == ["results/"]
    (tmp_path / "code.py").write_text("x = 2\n")
    assert hostinfo.git_state(str(tmp_path))["dirty"] is True
