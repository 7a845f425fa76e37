"""kernel-variants/variant.py, a user variant as data: parse() of
NAME=PART,..., stage() and restage() into a dir (spec.json, patches/,
variant.config) and the command kernel-variants/build calls (its fields
read back by bash as build does), with tmp quilt dirs and a tmp git repo;
and lib/variants.py, the built-in variants' record and roles, which the
rest of the harness takes their names from."""
import importlib.util
import json
import os
import pathlib
import re
import subprocess

import pytest

from conftest import PYTHON, ROOT, run

SCRIPT = ROOT / "kernel-variants" / "variant.py"
VARIANTS = ROOT / "kernel-variants" / "variants"
BUILTINS = ["atomic-read", "jump-label", "plain-read"]


def load():
    spec = importlib.util.spec_from_file_location("variant", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


variant = load()
Bad = variant.Bad


def parse(spec):
    return variant.parse(spec, BUILTINS)


def quilt(tmp_path, n=3, name="series"):
    """A quilt dir of n patches p1.patch..; its path."""
    d = tmp_path / name
    d.mkdir()
    for i in range(1, n + 1):
        (d / ("p%d.patch" % i)).write_text("patch %d\n" % i)
    (d / "series").write_text("# ours\n\n" + "".join(
        "p%d.patch -p1\n" % i for i in range(1, n + 1)))
    return d


def fragment(tmp_path):
    f = tmp_path / "extra.config"
    f.write_text("CONFIG_FOO=y\n")
    return f


@pytest.fixture
def repo(tmp_path):
    """A git repo of two commits; (path, [commit ids], [tree ids])."""
    r = tmp_path / "linux"
    r.mkdir()

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(r), "-c", "user.name=t", "-c", "user.email=t@t",
             "-c", "commit.gpgsign=false"] + list(args),
            check=True, capture_output=True, text=True).stdout.strip()
    git("init", "-q")
    commits, trees = [], []
    for i in (1, 2):
        (r / "Makefile").write_text("VERSION = %d\n" % i)
        git("add", "Makefile")
        git("commit", "-q", "-m", "v%d" % i)
        commits.append(git("rev-parse", "HEAD"))
        trees.append(git("rev-parse", "HEAD^{tree}"))
    return r, commits, trees


def cli(*args, check=True):
    return run([PYTHON, str(SCRIPT)] + [str(a) for a in args], check=check)


def bash_fields(body):
    """{key: value} of a stage command's output, read as build reads it."""
    p = subprocess.run(
        ["bash", "-c", 'declare -A rec="($1)"; for k in "${!rec[@]}"; do '
         'printf "%s=%s\\n" "$k" "${rec[$k]}"; done', "_", body],
        check=True, capture_output=True, text=True)
    return dict(ln.split("=", 1) for ln in p.stdout.splitlines())


# -- parse() ----------------------------------------------------------------

def test_parse_defaults(tmp_path):
    v = parse("mine=patches:%s" % tmp_path)
    assert v == {"name": "mine", "on": "jump-label",
                 "patches": (str(tmp_path), None), "config": None,
                 "tree": None}


def test_parse_every_part(tmp_path, monkeypatch):
    frag = fragment(tmp_path)
    monkeypatch.chdir(tmp_path)
    v = parse("my_v-2=on:atomic-read,patches:rel/dir@2,config:extra.config,"
              "tree:../linux@v6.1-rc1")
    assert v == {"name": "my_v-2", "on": "atomic-read",
                 "patches": (str(tmp_path / "rel" / "dir"), 2),
                 "config": str(frag),
                 "tree": (str(tmp_path.parent / "linux"), "v6.1-rc1")}
    assert parse("x=on:plain-read")["on"] == "plain-read"
    # @ in the path: the last one gives the count
    assert parse("x=patches:/a@b/c@10")["patches"] == ("/a@b/c", 10)
    assert parse("x=tree:/r@x@HEAD~1")["tree"] == ("/r@x", "HEAD~1")


@pytest.mark.parametrize("spec,says", [
    ("mine", "NAME=PART"),
    ("mine=", "NAME=PART"),
    ("Mine=on:jump-label", "variant name 'Mine'"),
    ("-x=on:jump-label", "variant name '-x'"),
    ("a.b=on:jump-label", "variant name 'a.b'"),
    ("mine\n=on:jump-label", "variant name 'mine\\n'"),
    ("=on:jump-label", "variant name ''"),
    ("jump-label=on:atomic-read", "is a built-in variant's"),
    ("mine=foo:bar", "'foo:bar' is not on:VARIANT"),
    ("mine=patches", "'patches' is not"),
    ("mine=patches:", "'patches:' is not"),
    ("mine=on:jump-label,", "'' is not"),
    ("mine=on:nosuch", "on:nosuch is not a built-in variant"),
    ("mine=patches:/a,patches:/b", "patches: given twice"),
    ("mine=tree:/a@1,tree:/b@2", "tree: given twice"),
    ("mine=on:atomic-read,on:plain-read", "on: given twice"),
    ("mine=patches:/a@x", "N in @N is a count"),
    ("mine=patches:/a@-1", "N in @N is a count"),
    ("mine=patches:/a@", "N in @N is a count"),
    ("mine=config:/no/such.config", "config:/no/such.config: no such file"),
    ("mine=tree:/repo", "give GITDIR@REV"),
    ("mine=tree:@HEAD", "give GITDIR@REV"),
    ("mine=tree:/repo@", "give GITDIR@REV"),
])
def test_parse_errors(spec, says):
    with pytest.raises(Bad) as e:
        parse(spec)
    assert says in str(e.value)


def test_the_variant_name_has_one_definition():
    """lib/variants.py's NAME is the one pattern of a variant's name:
    variant.py and analysis take it, and no other file of the harness
    writes it again (plots/draw leaves --history-pair to plots/prepare,
    which checks it with analysis's)."""
    from analysis.results import reference
    from lib import variants
    assert variant.NAME_RE is variants.NAME
    assert reference.VARIANT_NAME is variants.NAME
    assert variants.NAME.fullmatch("mine_2-b")
    assert not variants.NAME.fullmatch("-x")
    copies = run(["git", "grep", "--untracked", "-lF", variants.NAME.pattern,
                  "--", "lib", "kernel-variants", "guest-image", "bench",
                  "analysis", "plots", "run_all.sh"], cwd=ROOT).stdout
    assert copies.split() == ["lib/variants.py"], copies


def test_parse_config_given_twice(tmp_path):
    frag = fragment(tmp_path)
    with pytest.raises(Bad, match="config: given twice"):
        parse("mine=config:%s,config:%s" % (frag, frag))


# -- stage() and restage() --------------------------------------------------

def test_stage_first_n_patches(tmp_path):
    d = quilt(tmp_path)
    out = tmp_path / "out"
    rec = variant.stage(parse("mine=patches:%s@2" % d), str(out))
    assert rec == {"name": "mine", "on": "jump-label", "tree": None,
                   "patches": {"source": str(d), "count": 2,
                               "names": ["p1.patch", "p2.patch"]},
                   "config": None}
    assert (out / "patches" / "series").read_text() == \
        "p1.patch\np2.patch\n"
    assert sorted(os.listdir(out / "patches")) == \
        ["p1.patch", "p2.patch", "series"]
    assert (out / "patches" / "p2.patch").read_text() == "patch 2\n"
    assert json.loads((out / "spec.json").read_text()) == rec
    assert not (out / "variant.config").exists()


def test_stage_the_whole_series(tmp_path):
    d = quilt(tmp_path)
    out = tmp_path / "out"
    rec = variant.stage(parse("mine=patches:%s" % d), str(out))
    assert rec["patches"] == {"source": str(d), "count": None,
                              "names": ["p1.patch", "p2.patch", "p3.patch"]}
    assert (out / "patches" / "series").read_text() == \
        "p1.patch\np2.patch\np3.patch\n"


def test_stage_a_single_patch_file(tmp_path):
    p = tmp_path / "fix.patch"
    p.write_text("a fix\n")
    out = tmp_path / "out"
    rec = variant.stage(parse("mine=patches:%s,on:plain-read" % p), str(out))
    assert rec["on"] == "plain-read"
    assert rec["patches"] == {"source": str(p), "count": None,
                              "names": ["fix.patch"]}
    assert (out / "patches" / "series").read_text() == "fix.patch\n"
    assert (out / "patches" / "fix.patch").read_text() == "a fix\n"


def test_stage_fragment(tmp_path):
    frag = fragment(tmp_path)
    out = tmp_path / "out"
    rec = variant.stage(parse("mine=config:%s" % frag), str(out))
    assert rec == {"name": "mine", "on": "jump-label", "tree": None,
                   "patches": None, "config": {"source": str(frag)}}
    assert (out / "variant.config").read_text() == "CONFIG_FOO=y\n"
    assert not (out / "patches").exists()
    assert json.loads((out / "spec.json").read_text()) == rec


def test_stage_git_tree(tmp_path, repo):
    r, commits, trees = repo
    out = tmp_path / "out"
    rec = variant.stage(parse("mine=tree:%s@HEAD~1" % r), str(out))
    assert rec["tree"] == {"repo": str(r), "rev": "HEAD~1",
                           "commit": commits[0], "tree": trees[0]}
    assert json.loads((out / "spec.json").read_text())["tree"] == rec["tree"]
    rec = variant.stage(parse("mine=tree:%s@%s" % (r, commits[1][:10])),
                        str(out))
    assert (rec["tree"]["commit"], rec["tree"]["tree"]) == \
        (commits[1], trees[1])


def test_stage_errors(tmp_path, repo):
    r, _, _ = repo
    d = quilt(tmp_path)
    out = str(tmp_path / "out")
    with pytest.raises(Bad, match="the series has 3 patches"):
        variant.stage(parse("mine=patches:%s@4" % d), out)
    with pytest.raises(Bad, match="no such file or directory"):
        variant.stage(parse("mine=patches:%s/nosuch" % tmp_path), out)
    with pytest.raises(Bad, match="neither a .patch file nor a dir"):
        variant.stage(parse("mine=patches:%s" % r), out)
    (d / "p2.patch").unlink()
    with pytest.raises(Bad, match="p2.patch, which is not there"):
        variant.stage(parse("mine=patches:%s" % d), out)
    with pytest.raises(Bad, match="no such directory"):
        variant.stage(parse("mine=tree:%s/nosuch@HEAD" % tmp_path), out)
    with pytest.raises(Bad) as e:
        variant.stage(parse("mine=tree:%s@nosuch" % r), out)
    # git's last line of stderr, as text
    assert str(e.value).endswith("failed: fatal: Needed a single revision")


def test_restage(tmp_path):
    d = quilt(tmp_path)
    frag = fragment(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    rec = variant.stage(parse("mine=patches:%s@1,config:%s" % (d, frag)),
                        str(a))
    assert variant.restage(str(a), str(b)) == rec
    assert sorted(os.listdir(b)) == ["patches", "spec.json",
                                     "variant.config"]
    assert (b / "patches" / "series").read_text() == "p1.patch\n"
    assert variant.restage(str(a), str(a)) == rec
    with pytest.raises(Bad, match="no spec.json there"):
        variant.restage(str(tmp_path), str(b))


# -- the command --------------------------------------------------------------

def test_cli_stage_patches_and_fragment(tmp_path):
    d = quilt(tmp_path)
    frag = fragment(tmp_path)
    out = tmp_path / "staged dir"
    p = cli("stage", "mine=patches:%s@2,config:%s,on:atomic-read"
            % (d, frag), "--variants-dir", VARIANTS, "--out", out)
    body = p.stdout.strip()
    assert body.startswith("[name]=mine [on]=atomic-read [tree]=tarball ")
    assert bash_fields(body) == {
        "name": "mine", "on": "atomic-read", "tree": "tarball", "repo": "",
        "rev": "", "tree_id": "", "patches": "1", "config": "1",
        "dir": str(out)}
    assert (out / "patches" / "series").read_text() == \
        "p1.patch\np2.patch\n"
    assert (out / "variant.config").is_file()


def test_cli_stage_git_tree(tmp_path, repo):
    r, commits, trees = repo
    out = tmp_path / "out"
    p = cli("stage", "mine=tree:%s@HEAD" % r, "--variants-dir", VARIANTS,
            "--out", out)
    assert bash_fields(p.stdout.strip()) == {
        "name": "mine", "on": "jump-label", "tree": "git", "repo": str(r),
        "rev": commits[1], "tree_id": "git-" + trees[1], "patches": "",
        "config": "", "dir": str(out)}


def test_cli_stage_a_recorded_dir(tmp_path):
    d = quilt(tmp_path)
    rec_dir, out = tmp_path / "rec", tmp_path / "out"
    cli("stage", "mine=patches:%s@3" % d, "--variants-dir", VARIANTS,
        "--out", rec_dir)
    p = cli("stage", "mine=@%s" % rec_dir, "--variants-dir", VARIANTS,
            "--out", out)
    fields = bash_fields(p.stdout.strip())
    assert (fields["name"], fields["patches"], fields["dir"]) == \
        ("mine", "1", str(out))
    assert (out / "patches" / "p3.patch").is_file()
    p = cli("stage", "other=@%s" % rec_dir, "--variants-dir", VARIANTS,
            "--out", tmp_path / "out2", check=False)
    assert p.returncode == 1
    assert "records variant 'mine', not 'other'" in p.stderr


@pytest.mark.parametrize("spec,says", [
    ("mine=patches:/nonexistent/dir", "patches:/nonexistent/dir: no such "
     "file or directory"),
    ("mine=config:/nonexistent.config", "config:/nonexistent.config: no "
     "such file"),
    ("mine=@/nonexistent", "@/nonexistent: no spec.json there"),
    ("jump-label=on:plain-read", "is a built-in variant's"),
])
def test_cli_stage_missing(tmp_path, spec, says):
    p = cli("stage", spec, "--variants-dir", VARIANTS, "--out",
            tmp_path / "out", check=False)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.startswith("variant.py: ") and says in p.stderr


def test_cli_spec(tmp_path):
    d = quilt(tmp_path)
    out = tmp_path / "out"
    cli("stage", "mine=patches:%s" % d, "--variants-dir", VARIANTS,
        "--out", out)
    assert cli("spec", out).stdout == "mine=@%s\n" % out
    p = cli("spec", tmp_path / "nosuch", check=False)
    assert p.returncode == 1 and p.stderr.startswith("variant.py: ")


def test_cli_usage():
    assert cli(check=False).returncode == 2
    assert cli("stage", "mine=on:jump-label", check=False).returncode == 2


# -- the built-in variants' record (lib/variants.py) ------------------------

RECORD_HEAD = "name\troles\tmbps_2011\twords_2011\twhat\n"
# Harness Python that may quote a built-in variant's name: (path, why).
# None today: docstrings, comments and help text name the built-ins inside
# longer strings, which the check does not see.
QUOTED_NAME_OK = {}


def test_the_record_has_a_row_per_fragment_and_a_fragment_per_row():
    from lib import variants
    frags = sorted(p.name[:-len(".config")] for p in VARIANTS.glob("*.config"))
    assert sorted(variants.BUILTIN) == frags
    assert len(set(variants.BUILTIN)) == len(variants.BUILTIN)
    assert pathlib.Path(variants.RECORD).parent == VARIANTS


def test_the_roles_are_consistent():
    """Every role held by exactly one built-in, JUMP_LABEL on and off two
    kernels, 2011's peers with their words and the baselines among them."""
    from lib import variants
    assert variants.problems(variants.ROWS) == []
    for role in variants.ROLES:
        assert len([r for r in variants.ROWS if role in r.roles]) == 1, role
    assert variants.PUBLISHED_ON != variants.PUBLISHED_OFF
    peers = {v: (mbps, words) for v, mbps, words in variants.KERNELS_2011}
    assert variants.BASELINE in peers and variants.BASELINE_2011 in peers
    assert all(isinstance(m, float) and w for m, w in peers.values())
    assert [v for v in variants.BUILTIN if v in peers] == list(peers)


@pytest.mark.parametrize("rows, says", [
    (["jump-label\tjump,baseline\t1\tj\tx", "atomic-read\tbaseline\t2\ta\tx"],
     "role baseline: held by jump-label and atomic-read"),
    (["jump-label\tjump\t1\tj\tx"], "role published-off: held by none"),
    (["a\tpublished-on,published-off\t-\t-\tx"],
     "a: both published-on and published-off"),
    (["a\tbaseline\t-\t-\tx"], "a: a baseline (baseline) without 2011's"),
    (["a\t-\t1.5\t-\tx"], "a: 2011's MB/s and words go together"),
    (["a\t-\t-\t-\tx", "a\t-\t-\t-\ty"], "a: a row twice"),
])
def test_the_record_s_problems_are_found(tmp_path, rows, says):
    from lib import variants
    f = tmp_path / "variants.tsv"
    f.write_text("# c\n" + RECORD_HEAD + "".join(r + "\n" for r in rows))
    assert says in "\n".join(variants.problems(variants.read(str(f))))


@pytest.mark.parametrize("text, says", [
    ("a\tb\n", "must be the header"),
    (RECORD_HEAD + "a\t-\t-\t-\n", "4 tab-separated cells, not 5"),
    (RECORD_HEAD + "A\t-\t-\t-\tx\n", "'A' is not a variant name"),
    (RECORD_HEAD + "a\tboss\t-\t-\tx\n", "unknown role boss"),
    (RECORD_HEAD + "a\t-\tfast\tw\tx\n", "mbps_2011 'fast' is not a number"),
])
def test_the_record_s_bad_lines(tmp_path, text, says):
    from lib import variants
    f = tmp_path / "variants.tsv"
    f.write_text(text)
    with pytest.raises(ValueError, match=says):
        variants.read(str(f))


def is_python(name):
    if name.endswith(".py"):
        return True
    with open(ROOT / name, "rb") as f:
        head = f.readline()
    return head.startswith(b"#!") and b"python" in head


def test_the_harness_takes_the_built_ins_from_lib_variants():
    """The constants that name built-ins are lib/variants.py's, and no
    other Python of the harness quotes a built-in's name."""
    from analysis.comparison import configs, pathkeys
    from analysis.models import published
    from analysis.results import reference
    from lib import variants
    from lib.format import schema
    assert schema.BASELINE == variants.BASELINE
    assert reference.BASELINE_2011 == variants.BASELINE_2011
    assert reference.KERNELS_2011 == variants.KERNELS_2011
    assert reference.ORDER == variants.BUILTIN
    assert configs.JUMP == pathkeys.JUMP == variants.JUMP
    assert (published.ON, published.OFF) == (variants.PUBLISHED_ON,
                                             variants.PUBLISHED_OFF)
    assert variant.DEFAULT_ON == variants.DEFAULT_ON
    names = "|".join(re.escape(v) for v in variants.BUILTIN)
    hits = run(["git", "grep", "--untracked", "-nE",
                "[\"'](%s)[\"']" % names, "--", "lib", "kernel-variants",
                "guest-image", "bench", "analysis", "plots"],
               cwd=ROOT, check=False).stdout.splitlines()
    quoted = re.compile(r"""(["'])(%s)\1""" % names)
    wrong = [h for h in hits
             if is_python(h.split(":", 1)[0]) and quoted.search(h)
             and h.split(":", 1)[0] not in QUOTED_NAME_OK
             and h.split(":", 1)[0] != "lib/variants.py"]
    assert not wrong, "a built-in variant's name as a constant (take it " \
        "from lib/variants.py):\n" + "\n".join(wrong)


def test_run_all_takes_the_built_ins_from_lib_variants():
    """run_all.sh's code names no built-in but in its --s390x keyword
    (jump-label, which builds lib/variants.py's jump); its --help prints
    the record's names and roles."""
    from lib import variants
    names = "|".join(re.escape(v) for v in variants.BUILTIN)
    keyword = re.compile(r"s390x=jump-label|--s390x (takes )?jump-label|"
                         r"^\s*jump-label( \||\))")
    wrong = []
    with open(ROOT / "run_all.sh") as f:
        for i, line in enumerate(f, 1):
            code = "" if line.lstrip().startswith("#") else \
                keyword.sub("", re.sub(r"\s#.*", "", line))
            if re.search(r"(?<![\w.-])(%s)(?![\w-])" % names, code):
                wrong.append("%d: %s" % (i, line.rstrip()))
    assert not wrong, "\n".join(wrong)
    out = run([str(ROOT / "run_all.sh"), "--help"]).stdout
    assert "Built-in variants (--variants): %s; the baseline: %s; a user " \
        "variant's default on: %s\n" % (" ".join(variants.BUILTIN),
                                        variants.BASELINE,
                                        variants.DEFAULT_ON) in out


def test_variants_cli():
    from lib import variants
    script = [PYTHON, str(ROOT / "lib" / "variants.py")]
    assert run(script + ["names"]).stdout.split() == list(variants.BUILTIN)
    for role in variants.ROLES:
        got = run(script + ["role", role]).stdout
        assert got == variants.holder(variants.ROWS, role) + "\n"
    assert run(script + ["role", "boss"], check=False).returncode == 2
    assert run(script, check=False).returncode == 2


def test_the_record_is_in_no_build_hash():
    """kernel-variants/build hashes the fragments byte for byte (its
    index of builds): the record beside them is not one of its inputs,
    so editing it rebuilds no kernel."""
    hashing = ["kernel-variants/build", "kernel-variants/kconfig.py",
               "kernel-variants/kernels.mk", "guest-image/build",
               "bench/replay/provenance.py"]
    hits = run(["git", "grep", "-n", "variants.tsv", "--"] + hashing,
               cwd=ROOT, check=False).stdout
    assert hits == "", hits
    with open(ROOT / "kernel-variants" / "build") as f:
        build = f.read()
    assert '"$KV/variants/${on:-$1}.config"' in build
    assert 'for f in "$1"/*.config; do' in build
