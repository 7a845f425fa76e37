"""Rewrite results dirs made before 2026-12-07 into today's layout, and prove
that no figure moved.

    python3 -m bench.replay.relayout [--check-only] RESULTS_ROOT [NAME...]

For each dir under RESULTS_ROOT (or the NAMEs given), and every run dir in
it (suite workloads, studies, steps), in place:
  - provenance/git.diff keeps the sources only (provenance.GENERATED's
    files go; with nothing left the file goes and the tree is recorded
    clean), and provenance.json's left_out list becomes its count and hash;
  - provenance/kernels/<v>.config moves into RESULTS_ROOT/kernel-configs/
    as <sha256>.config, and provenance.json names it there;
  - reproduce.sh becomes the stub for `jlbench reproduce`;
  - raw/ is packed into raw.tar.xz (lib/format/rawfiles.py).
Before and after, every run dir of a copy is analysed (analysis/analyze
--no-history) and reported (analysis/report): summary.csv, stats.json,
the report and both commands' output must be byte-identical (paths
aside), else the command stops with exit 1, naming the dir and the file
(`git checkout -- DIR && git clean -fd DIR` restores a committed one).
--check-only analyses without rewriting (what the check compares).
Exit codes: 0 rewritten and identical; 1 a difference or a failure; 2
usage error.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
from bench.replay import provenance  # noqa: E402
from lib import hostinfo  # noqa: E402
from lib.format import rawfiles  # noqa: E402

OUTPUTS = ("summary.csv", "stats.json", "REPORT.gen.md", "analyze.out",
           "report.out")
DIFF_HEADER = re.compile(rb"^diff --git a/(\S+) b/", re.M)


def run_dirs(top):
    """The run dirs at or below top (a meta.json and a runs.csv), deepest
    first (a suite's workloads before the suite)."""
    found = []
    for d, subdirs, files in os.walk(top):
        subdirs[:] = sorted(s for s in subdirs if s not in ("raw",))
        if "meta.json" in files and "runs.csv" in files:
            found.append(d)
    return sorted(found, key=lambda d: (-d.count(os.sep), d))


def sources_only(diff):
    """A git diff without the sections of generated files."""
    starts = [m.start() for m in DIFF_HEADER.finditer(diff)] + [len(diff)]
    keep = [diff[:starts[0]]]
    for a, b in zip(starts, starts[1:]):
        name = DIFF_HEADER.match(diff, a).group(1).decode(errors="replace")
        if not provenance.generated(name):
            keep.append(diff[a:b])
    return b"".join(keep)


def _write_json(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def rewrite(d, root):
    """Rewrite run dir d in place (see the module's text)."""
    prov = os.path.join(d, provenance.DIR)
    pj = os.path.join(prov, "provenance.json")
    if os.path.isfile(pj):
        with open(pj) as f:
            doc = json.load(f)
        git = doc.get("git") or {}
        diff_path = os.path.join(prov, "git.diff")
        if os.path.isfile(diff_path):
            with open(diff_path, "rb") as f:
                diff = sources_only(f.read())
            if diff.strip():
                with open(diff_path, "wb") as f:
                    f.write(diff)
            else:
                os.remove(diff_path)
                git.update(diff=None, dirty=False)
        if isinstance(git.get("left_out"), list):
            git["left_out"] = provenance.left_out_record(git["left_out"])
        os.makedirs(os.path.join(root, provenance.CONFIG_STORE),
                    exist_ok=True)
        for v, k in (doc.get("kernels") or {}).items():
            rel = k.get("config_file")
            if not rel:
                continue
            k["config_file"] = provenance.store_config(
                os.path.join(prov, rel), prov, v)
            if k["config_file"] != rel:
                os.remove(os.path.join(prov, rel))
        _write_json(pj, doc)
    script = os.path.join(d, provenance.SCRIPT)
    if os.path.isfile(script):
        provenance.write_script(d)
    rawfiles.pack(d)


def analyse(d, out):
    """analyze and report of run dir d, into out/ (normalised)."""
    os.makedirs(out, exist_ok=True)
    for name, cmd in (
            ("analyze.out", [os.path.join(hostinfo.ROOT, "analysis",
                                          "analyze"),
                             "--no-history", "-q", d]),
            ("report.out", [os.path.join(hostinfo.ROOT, "analysis",
                                         "report"), d, "--out",
                            os.path.join(d, "REPORT.gen.md")])):
        p = subprocess.run(cmd, capture_output=True, text=True,
                           cwd=hostinfo.ROOT, check=False)
        text = re.sub(r"(?m)^20[0-9-]+ [0-9:]+ ", "", p.stdout + p.stderr)
        with open(os.path.join(out, name), "w") as f:
            f.write(text + "exit %d\n" % p.returncode)
    for name in ("summary.csv", "stats.json", "REPORT.gen.md"):
        src = os.path.join(d, name)
        if os.path.isfile(src):
            shutil.copyfile(src, os.path.join(out, name))
        if name == "REPORT.gen.md" and os.path.isfile(src):
            os.remove(src)


def snapshot(top, work, tag):
    """Copy top into work/tag/ and analyse each of its run dirs there:
    {run dir relative to top: {output name: normalised bytes}}."""
    copy = os.path.join(work, tag, os.path.basename(top))
    shutil.copytree(top, copy, symlinks=True)
    got = {}
    for d in run_dirs(copy):
        rel = os.path.relpath(d, copy)
        out = os.path.join(work, tag + "-out", rel)
        analyse(d, out)
        got[rel] = {}
        for name in OUTPUTS:
            p = os.path.join(out, name)
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    got[rel][name] = f.read().replace(
                        os.path.join(work, tag).encode(), b"WORK")
    shutil.rmtree(copy)
    return got


def main(argv):
    ap = argparse.ArgumentParser(
        prog="python3 -m bench.replay.relayout",
        description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    names = args.names or sorted(
        n for n in os.listdir(root)
        if os.path.isdir(os.path.join(root, n))
        and n != provenance.CONFIG_STORE)
    for name in names:
        top = os.path.join(root, name)
        dirs = run_dirs(top)
        if not dirs:
            continue
        with tempfile.TemporaryDirectory() as work:
            before = snapshot(top, work, "before")
            if not args.check_only:
                for d in dirs:
                    rewrite(d, root)
            after = snapshot(top, work, "after")
        for rel in sorted(before):
            if not before[rel].get("analyze.out", b"").endswith(b"exit 0\n"):
                print("error: %s: analysis/analyze fails before the "
                      "rewrite: %s" % (os.path.join(name, rel), before[rel][
                          "analyze.out"].decode()[-400:]), file=sys.stderr)
                return 1
            for out in OUTPUTS:
                if before[rel].get(out) != after.get(rel, {}).get(out):
                    print("error: %s: %s differs after the rewrite" % (
                        os.path.join(name, rel), out), file=sys.stderr)
                    return 1
        print("%s: %d run dirs rewritten, analysis identical" % (
            name, len(dirs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
