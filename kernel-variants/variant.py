#!/usr/bin/python3
"""A kernel variant as data: a base tree, a patch series, a Kconfig fragment.

The three built-in variants are variants/NAME.config on Debian's
linux-source tree with our series (patches/); their roles are
variants/variants.tsv (lib/variants.py). A user variant names the same
three things on the command line of kernel-variants/build (and run_all.sh):

  NAME=PART[,PART...]   PART is one of
    on:VARIANT          the built-in variant it sits on: its fragment (and
                        boot words) come first (default: jump-label)
    patches:PATH[@N]    a quilt-style dir (PATH/series) or one .patch file,
                        applied after our series; @N: its first N patches
    config:FRAG         a Kconfig fragment merged after the built-in one
    tree:GITDIR@REV     the tree of a kernel git repository at REV instead
                        of Debian's (our series is not applied to it)
  NAME=@DIR             the variant recorded in DIR (a build's variant/,
                        a results dir's provenance/variants/NAME/)

  variant.py stage SPEC --variants-dir DIR --out DIR
      check SPEC, copy what defines the variant into --out (spec.json,
      patches/series and the patches, variant.config) and print its fields
      as a bash associative array body: name on tree repo rev tree_id
      patches (1 when it has patches) config (1 when it has a fragment)
  variant.py spec DIR
      the NAME=@DIR spec of a staged (recorded) variant dir

Exit codes: 0 done; 1 the spec names something that is not there (said);
2 usage error.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from lib import variants  # noqa: E402

NAME_RE = variants.NAME
DEFAULT_ON = variants.DEFAULT_ON
SPEC_FILE = "spec.json"
FRAGMENT = "variant.config"
PATCHES = "patches"


class Bad(Exception):
    """The spec is wrong or names something that is not there."""


def read_series(path):
    """(series text, [patch file paths]) of a quilt dir or one .patch."""
    if os.path.isfile(path):
        return os.path.basename(path) + "\n", [path]
    series = os.path.join(path, "series")
    if not os.path.isfile(series):
        raise Bad("patches:%s is neither a .patch file nor a dir with a "
                  "series file" % path)
    with open(series) as f:
        names = [ln.split()[0] for ln in f.read().splitlines()
                 if ln.strip() and not ln.startswith("#")]
    paths = [os.path.join(path, n) for n in names]
    for p in paths:
        if not os.path.isfile(p):
            raise Bad("%s names %s, which is not there" % (series, p))
    return "".join(n + "\n" for n in names), paths


def git(repo, *args):
    """stdout of git in repo; Bad naming the command when it fails."""
    p = subprocess.run(["git", "-C", repo] + list(args), capture_output=True,
                       text=True, check=False)
    if p.returncode != 0:
        raise Bad("git -C %s %s failed: %s" % (
            repo, " ".join(args), (p.stderr.strip().splitlines() or [""])[-1]))
    return p.stdout.strip()


def parse(spec, builtins):
    """{name, on, patches: (path, count|None), config, tree: (repo, rev)}
    of NAME=PART,... (not @DIR); builtins: the built-in variant names."""
    name, eq, rest = spec.partition("=")
    if not eq or not rest:
        raise Bad("--variant %s: a user variant is NAME=PART[,PART...] "
                  "(on:, patches:, config:, tree:)" % spec)
    if not NAME_RE.fullmatch(name):
        raise Bad("variant name %r: use lower-case letters, digits, - and _"
                  % name)
    if name in builtins:
        raise Bad("variant name %r is a built-in variant's: pick another"
                  % name)
    out = {"name": name, "on": DEFAULT_ON, "patches": None, "config": None,
           "tree": None}
    given = set()
    for part in rest.split(","):
        kind, colon, value = part.partition(":")
        if not colon or not value or kind not in (
                "on", "patches", "config", "tree"):
            raise Bad("--variant %s: %r is not on:VARIANT, patches:PATH[@N],"
                      " config:FRAG or tree:GITDIR@REV" % (name, part))
        if kind in given:
            raise Bad("--variant %s: %s: given twice" % (name, kind))
        given.add(kind)
        if kind == "on":
            if value not in builtins:
                raise Bad("--variant %s: on:%s is not a built-in variant "
                          "(have: %s)" % (name, value, " ".join(builtins)))
            out["on"] = value
        elif kind == "patches":
            path, at, count = value.rpartition("@") if "@" in value \
                else (value, "", "")
            if at and not count.isdigit():
                raise Bad("--variant %s: patches:%s: N in @N is a count"
                          % (name, value))
            out["patches"] = (os.path.abspath(path),
                              int(count) if at else None)
        elif kind == "config":
            if not os.path.isfile(value):
                raise Bad("--variant %s: config:%s: no such file"
                          % (name, value))
            out["config"] = os.path.abspath(value)
        else:
            repo, at, rev = value.rpartition("@")
            if not at or not repo or not rev:
                raise Bad("--variant %s: tree:%s: give GITDIR@REV"
                          % (name, value))
            out["tree"] = (os.path.abspath(repo), rev)
    return out


def stage(v, out):
    """Copy what defines variant v (parse()) into the dir out and return
    spec.json's content: what kernel-variants/build needs."""
    os.makedirs(out, exist_ok=True)
    rec = {"name": v["name"], "on": v["on"], "tree": None, "patches": None,
           "config": None}
    if v["tree"]:
        repo, rev = v["tree"]
        if not os.path.isdir(repo):
            raise Bad("tree:%s@%s: no such directory" % (repo, rev))
        sha = git(repo, "rev-parse", "--verify", rev + "^{commit}")
        rec["tree"] = {"repo": repo, "rev": rev, "commit": sha,
                       "tree": git(repo, "rev-parse", sha + "^{tree}")}
    if v["patches"]:
        path, count = v["patches"]
        if not os.path.exists(path):
            raise Bad("patches:%s: no such file or directory" % path)
        text, paths = read_series(path)
        names = text.splitlines()
        if count is not None:
            if count > len(names):
                raise Bad("patches:%s@%d: the series has %d patches"
                          % (path, count, len(names)))
            names, paths = names[:count], paths[:count]
        dest = os.path.join(out, PATCHES)
        os.makedirs(dest, exist_ok=True)
        with open(os.path.join(dest, "series"), "w") as f:
            f.write("".join(n + "\n" for n in names))
        for n, p in zip(names, paths):
            shutil.copyfile(p, os.path.join(dest, n))
        rec["patches"] = {"source": path, "count": count, "names": names}
    if v["config"]:
        shutil.copyfile(v["config"], os.path.join(out, FRAGMENT))
        rec["config"] = {"source": v["config"]}
    with open(os.path.join(out, SPEC_FILE), "w") as f:
        json.dump(rec, f, indent=1)
    return rec


def restage(src, out):
    """Copy a staged (recorded) variant dir src to out; its spec.json."""
    spec = os.path.join(src, SPEC_FILE)
    if not os.path.isfile(spec):
        raise Bad("@%s: no %s there (a build's variant/ or a results dir's"
                  " provenance/variants/NAME/)" % (src, SPEC_FILE))
    if os.path.abspath(src) != os.path.abspath(out):
        shutil.copytree(src, out, dirs_exist_ok=True)
    with open(spec) as f:
        return json.load(f)


def fields(rec, out):
    """The bash associative array body kernel-variants/build reads."""
    tree = rec["tree"] or {}
    vals = {"name": rec["name"], "on": rec["on"],
            "tree": "git" if tree else "tarball",
            "repo": tree.get("repo", ""), "rev": tree.get("commit", ""),
            "tree_id": "git-" + tree["tree"] if tree else "",
            "patches": "1" if rec["patches"] else "",
            "config": "1" if rec["config"] else "", "dir": out}
    return " ".join("[%s]=%s" % (k, shlex.quote(v)) for k, v in vals.items())


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stage")
    s.add_argument("spec")
    s.add_argument("--variants-dir", required=True)
    s.add_argument("--out", required=True)
    sp = sub.add_parser("spec")
    sp.add_argument("dir")
    args = ap.parse_args(argv[1:])
    try:
        if args.cmd == "spec":
            with open(os.path.join(args.dir, SPEC_FILE)) as f:
                name = json.load(f)["name"]
            print("%s=@%s" % (name, os.path.abspath(args.dir)))
            return 0
        builtins = sorted(f[:-len(".config")] for f in os.listdir(
            args.variants_dir) if f.endswith(".config"))
        name, eq, rest = args.spec.partition("=")
        if eq and rest.startswith("@"):
            rec = restage(rest[1:], args.out)
            if rec["name"] != name:
                raise Bad("%s records variant %r, not %r" % (
                    rest[1:], rec["name"], name))
        else:
            rec = stage(parse(args.spec, builtins), args.out)
        print(fields(rec, args.out))
        return 0
    except (Bad, OSError) as e:
        print("variant.py: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
