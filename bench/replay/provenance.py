"""What defines a run, kept in its results dir.

record() runs once, when bench/run creates a results dir, and writes there

  provenance/provenance.json   what follows, and the git state
  provenance/kernels/<v>.build.json
                  of each kernel the run boots or whose modules its
                  initramfs carries; its .config is kept once per
                  content in results/kernel-configs/ (config_store():
                  <sha256>.config, which provenance.json names relative
                  to provenance/), or as kernels/<v>.config where no
                  store is above the dir
  provenance/patches/          the patch series (series + patches) the
                               kernels were built from
  provenance/variants/<v>/     what defines user variant v (its patches,
                               fragment and spec.json: a git tree's
                               repository path and commit)
  provenance/git.diff          the checkout's uncommitted changes to its
                               sources, untracked files included, when
                               dirty (no generated file: GENERATED)
  reproduce.sh                 a stub: `jlbench reproduce` of this dir

Nothing in it names a path of the machine that ran it. `jlbench reproduce
DIR` (bench/replay/reproduce) checks out the recorded commit, rebuilds
those kernels and the initramfs, and calls bench/replay/replay.py (from
that checkout) to check them and rerun a try.
`python3 -m bench.replay.provenance scrub DIR...` rewrites the meta.json and
sites/*.txt of older dirs with portable paths.
"""
import fnmatch
import gzip
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zlib

from lib import hostinfo, source
from lib.format import rawtry, schema

DIR = "provenance"
SCRIPT = "reproduce.sh"
MODULES = "lib/modules/jlbench/"
# Untracked files bigger than this stay out of git.diff (and are counted).
UNTRACKED_MAX = 1 << 20
# The config store: kernels' .config files by content, shared by the
# results dirs below it (config_store()).
CONFIG_STORE = "kernel-configs"
CONFIG_LEVELS = 4
# What the harness generates, as git glob pathspecs: a run finds them
# changed, and they are no source of it (results dirs, REPORT.md and its
# figures: in plots/img/, and in plots/ itself before 2026-12-06; the
# database is in the cache). git.diff leaves them out.
GENERATED = ("results/**", "plots/img/**", "plots/*.svg", "plots/*.png",
             "plots/drawn-from.txt", "REPORT.md")


class Problem(Exception):
    """The results dir or the rebuilt inputs cannot give the try again."""


def _cpio_names(data):
    """The member names of a newc cpio archive, None when it is not one."""
    names, off = [], 0
    try:
        while off + 110 <= len(data):
            if data[off:off + 6] not in (b"070701", b"070702"):
                return None
            field = [int(data[off + 6 + 8 * i:off + 14 + 8 * i], 16)
                     for i in range(13)]
            size, namesize = field[6], field[11]
            name = data[off + 110:off + 110 + namesize - 1].decode(
                errors="replace")
            off += 110 + namesize
            off += -off % 4
            if name == "TRAILER!!!":
                return names
            names.append(name.lstrip("/"))
            off += size
            off += -off % 4
    except ValueError:
        return None
    return None


def image_variants(path):
    """The variants whose modules the initramfs at path carries (sorted),
    None when it cannot be read (not a gzip'd or plain newc cpio)."""
    try:
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        with (gzip.open if gz else open)(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError, zlib.error):
        return None
    names = _cpio_names(data)
    if names is None:
        return None
    return sorted({n[len(MODULES):].split("/")[0] for n in names
                   if n.startswith(MODULES) and "/" in n[len(MODULES):]})


def _kconfig():
    path = os.path.join(hostinfo.ROOT, "kernel-variants", "kconfig.py")
    spec = importlib.util.spec_from_file_location("jlbench_kconfig", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def series(patches_dir):
    """(series hash as kernel-variants/build computes it, patch names)."""
    with open(os.path.join(patches_dir, "series"), "rb") as f:
        text = f.read()
    names = [ln for ln in text.decode().splitlines()
             if ln and not ln.startswith("#")]
    parts = [text]
    for n in names:
        with open(os.path.join(patches_dir, n), "rb") as f:
            parts.append(f.read())
    return _kconfig().content_hash(parts), names


def _git(root, *args):
    p = subprocess.run(["git"] + list(args), cwd=root, capture_output=True,
                       timeout=60, check=False)
    return p.returncode, p.stdout


def generated(name):
    """name (a path in the checkout) is one the harness generates."""
    return any(fnmatch.fnmatchcase(name, g.replace("**", "*"))
               for g in GENERATED)


def git_diff(root):
    """(the checkout's changes to its sources against HEAD as a `git
    apply`able binary diff, untracked files included; the untracked paths
    left out). Generated files (GENERATED) are left out, changed or
    untracked, and so are untracked files bigger than UNTRACKED_MAX."""
    rc, diff = _git(root, "diff", "HEAD", "--binary", "--", ".",
                    *(":(exclude,glob)" + g for g in GENERATED))
    if rc != 0:
        raise Problem("git diff HEAD failed in %s" % root)
    rc, out = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    left_out = []
    for name in sorted(x for x in out.decode().split("\0") if x):
        path = os.path.join(root, name)
        if generated(name) or not os.path.isfile(path) or \
                os.path.getsize(path) > UNTRACKED_MAX:
            left_out.append(name)
            continue
        rc, new = _git(root, "diff", "--no-index", "--binary", "/dev/null",
                       name)
        if rc not in (0, 1):
            left_out.append(name)
            continue
        diff += new
    return diff, left_out


def left_out_record(names):
    """provenance.json's record of the untracked paths git.diff left out:
    how many, and the sha256 of their sorted list (one name a line), which
    tells two checkouts apart without listing thousands of results
    files."""
    text = "".join(n + "\n" for n in sorted(names))
    return {"count": len(names),
            "sha256": hashlib.sha256(text.encode()).hexdigest()}


def _copy(src, dest, notes, what):
    try:
        shutil.copyfile(src, dest)
        return True
    except OSError as e:
        notes.append("%s not recorded: %s" % (what, e.strerror or e))
        return False


def _kernel(b, in_run, prov, notes):
    """provenance.json's entry of Build b; copies its .config and
    build.json into prov/kernels/."""
    src = b.info.get("source") or {}
    entry = {"hash": b.hash, "variant": b.variant,
             "config": b.info.get("config"), "arch": b.arch,
             "series_hash": src.get("series_hash"),
             "package": src.get("package"),
             "package_version": src.get("version"),
             "compiler": b.info.get("compiler"), "boots": in_run,
             "bzimage_sha256": None, "config_file": None,
             "build_json": None}
    try:
        entry["bzimage_sha256"] = rawtry.sha256(b.kernel)
    except OSError as e:
        notes.append("%s: bzImage unreadable: %s" % (b.variant, e))
    try:
        entry["config_file"] = store_config(os.path.join(b.dir, ".config"),
                                            prov, b.variant)
    except OSError as e:
        notes.append("%s's .config not recorded: %s" % (
            b.variant, e.strerror or e))
    rel = "kernels/%s.build.json" % b.variant
    if _copy(os.path.join(b.dir, "build.json"), os.path.join(prov, rel),
             notes, "%s's build.json" % b.variant):
        entry["build_json"] = rel
    if b.info.get("definition"):
        entry["definition"] = _definition(b, prov, notes)
    return entry


def config_store(resdir):
    """The dir that keeps the .config files of resdir's kernels, one file
    per content: the highest of resdir's parents (up to CONFIG_LEVELS up)
    that holds a CONFIG_STORE/ (results/kernel-configs/, for every run,
    suite workload and study below it), or None."""
    found, up = None, os.path.dirname(os.path.abspath(resdir))
    for _ in range(CONFIG_LEVELS):
        if os.path.isdir(os.path.join(up, CONFIG_STORE)):
            found = os.path.join(up, CONFIG_STORE)
        up = os.path.dirname(up)
    return found


def store_config(path, prov, variant):
    """Record the .config at path for the results dir whose provenance
    dir is prov: in its config store as <sha256>.config (once per
    content), else (no store above it: a dir of its own, a bisection's
    step) as prov/kernels/<variant>.config. Its path relative to prov."""
    with open(path, "rb") as f:
        data = f.read()
    store = config_store(os.path.dirname(prov))
    if store is None:
        dest = os.path.join(prov, "kernels", variant + ".config")
    else:
        dest = os.path.join(store,
                            hashlib.sha256(data).hexdigest() + ".config")
    if not os.path.isfile(dest):
        with open(dest + ".tmp", "wb") as f:
            f.write(data)
        os.replace(dest + ".tmp", dest)
    return os.path.relpath(dest, prov)


def _definition(b, prov, notes):
    """Copy what defines user variant b (its build dir's variant/: the
    patches, fragment and spec.json; kernel-variants/variant.py) into
    prov/variants/<variant>/; the copy's path in prov, None if it failed
    (with a note)."""
    rel = os.path.join("variants", b.variant)
    try:
        shutil.copytree(os.path.join(b.dir, "variant"),
                        os.path.join(prov, rel), dirs_exist_ok=True)
    except OSError as e:
        notes.append("%s's definition not recorded: %s" % (b.variant, e))
        return None
    return rel


def source_of(kernels):
    """The lib/source.py record of provenance kernels (built from one
    version; the default for records from before "package" and for git
    trees, whose series is not ours)."""
    for k in kernels.values():
        try:
            return source.of_package(k.get("package"))
        except ValueError:
            continue
    return source.get(source.DEFAULT)


def _patches(prov, kernels, env, notes):
    """Copy the patch series the kernels were built from (that of their
    kernel version, lib/source.py) into prov/patches/; its entry, or None
    (with a note) when the series at hand is not theirs."""
    pdir = env.get("JLBENCH_PATCHES") or source_of(kernels).patches_dir
    try:
        digest, names = series(pdir)
    except OSError as e:
        notes.append("patch series not recorded: %s" % e)
        return None
    built = sorted({k["series_hash"] for k in kernels.values()
                    if k["series_hash"]})
    if built and built != [digest]:
        notes.append("patch series not recorded: %s has series hash %s, "
                     "the kernels were built from %s" % (
                         hostinfo.portable(pdir), digest, ", ".join(built)))
        return None
    dest = os.path.join(prov, "patches")
    os.makedirs(dest, exist_ok=True)
    for n in ["series"] + names:
        if not _copy(os.path.join(pdir, n), os.path.join(dest, n), notes,
                     "patch %s" % n):
            return None
    return {"dir": "patches", "series_hash": digest, "patches": names}


def _git_state(root, prov, notes):
    state = hostinfo.git_state(root)
    out = {"commit": state["commit"], "short": state["short"],
           "dirty": state["dirty"], "diff": None,
           "left_out": left_out_record([])}
    if state["dirty"]:
        try:
            diff, left_out = git_diff(root)
            out["left_out"] = left_out_record(left_out)
        except (Problem, OSError, subprocess.TimeoutExpired) as e:
            notes.append("uncommitted changes not recorded: %s" % e)
            return out
        if diff:
            with open(os.path.join(prov, "git.diff"), "wb") as f:
                f.write(diff)
            out["diff"] = "git.diff"
        else:
            # only generated files changed: the sources are the commit's
            out["dirty"] = False
    return out


def portable_sites(resdir):
    """Rewrite the comment lines of resdir/sites/*.txt (jump-sites names
    the build dir there) with portable paths; the sites stay as they are.
    Returns the files rewritten."""
    d = os.path.join(resdir, "sites")
    done = []
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        path = os.path.join(d, name)
        with open(path) as f:
            lines = f.read().split("\n")
        fixed = [hostinfo.portable(ln) if ln.startswith("#") else ln
                 for ln in lines]
        if fixed != lines:
            with open(path + ".tmp", "w") as f:
                f.write("\n".join(fixed))
            os.replace(path + ".tmp", path)
            done.append(path)
    return done


def record(resdir, meta, builds, images, root=hostinfo.ROOT, env=None):
    """Write provenance/ and reproduce.sh into the results dir resdir for
    the run meta describes; builds, images: bench/tries/inputs.py's Build and
    Image of the run. Returns provenance.json's content; a piece that
    cannot be recorded is named in its "notes", never fatal."""
    env = os.environ if env is None else env
    prov = os.path.join(resdir, DIR)
    os.makedirs(os.path.join(prov, "kernels"), exist_ok=True)
    notes = []
    run_variants = meta["plan"]["variants"]
    imgs = {}
    for v in run_variants:
        img = images[v]
        if img.hash not in imgs:
            imgs[img.hash] = {"hash": img.hash,
                              "variants": image_variants(img.path),
                              "for": []}
        imgs[img.hash]["for"].append(v)
    needed = set(run_variants)
    for e in imgs.values():
        if e["variants"] is None:
            notes.append("initramfs %s is not a readable cpio: which "
                         "kernels' modules it carries is unknown" % e["hash"])
        needed.update(e["variants"] or ())
    kernels = {}
    for v in sorted(needed):
        if v not in builds:
            notes.append("the initramfs carries modules of %s, which "
                         "--builds does not list: its kernel is not "
                         "recorded" % v)
            continue
        kernels[v] = _kernel(builds[v], v in run_variants, prov, notes)
    plugin = (meta.get("plugin") or {}).get("path")
    doc = {
        "format": 1,
        "git": _git_state(root, prov, notes),
        "kernels": kernels,
        "patches": _patches(prov, kernels, env, notes),
        "images": sorted(imgs.values(), key=lambda e: e["for"][0]),
        "plugin": os.path.basename(plugin) if plugin else None,
        "accel": schema.run_accel(meta),
        "notes": notes,
    }
    with open(os.path.join(prov, "provenance.json"), "w") as f:
        json.dump(hostinfo.portable(doc), f, indent=2, sort_keys=True)
        f.write("\n")
    write_script(resdir)
    portable_sites(resdir)
    return doc


# reproduce.sh: the harness's command on this dir (bench/replay/reproduce
# holds the steps, provenance.json the run's definition).
STUB = """\
#!/bin/sh
# Rebuild this run's kernels and rerun one of its tries (--help: options).
# The harness: the checkout holding this dir, else --clone's.
d=$(cd "$(dirname "$0")" && pwd)
r=$(git -C "$d" rev-parse --show-toplevel 2>/dev/null) || r=
p=
for a in "$@"; do [ "$p" = --clone ] && r=${r:-$a}; p=$a; done
[ -x "$r/jlbench" ] || {
  echo "$d is not in a jlbench checkout: give --clone CHECKOUT" >&2
  exit 1
}
exec "$r/jlbench" reproduce "$d" "$@"
"""


def write_script(resdir):
    path = os.path.join(resdir, SCRIPT)
    with open(path, "w") as f:
        f.write(STUB)
    os.chmod(path, 0o755)
    return path


def _json(path):
    with open(path) as f:
        return json.load(f)


def scrub(resdir):
    """Rewrite resdir/meta.json and the comments of sites/*.txt with
    portable paths; True if anything changed."""
    path = os.path.join(resdir, "meta.json")
    meta = _json(path)
    fixed = hostinfo.portable(meta)
    if fixed != meta:
        with open(path + ".tmp", "w") as f:
            json.dump(fixed, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(path + ".tmp", path)
    return bool(portable_sites(resdir)) or fixed != meta


def main(argv):
    if not argv or argv[0] != "scrub" or len(argv) < 2:
        print("usage: python3 -m bench.replay.provenance scrub RESULTS_DIR...",
              file=sys.stderr)
        return 2
    for d in argv[1:]:
        try:
            print("%s: %s" % (d, "rewritten" if scrub(d) else "unchanged"))
        except (OSError, ValueError) as e:
            print("error: %s: %s" % (d, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
