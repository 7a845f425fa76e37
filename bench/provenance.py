"""What defines a run, kept in its results dir, and the replay of one try.

record() runs once, when bench/run creates a results dir, and writes there

  provenance/provenance.json   what follows, and the git state
  provenance/kernels/<v>.config, <v>.build.json
                  of each kernel the run boots or whose modules its
                  initramfs carries
  provenance/patches/          the patch series (series + patches) the
                               kernels were built from
  provenance/git.diff          the checkout's uncommitted changes, untracked
                               files included (but results/), when dirty
  reproduce.sh                 bench/reproduce-template.sh, filled in

Nothing in it names a path of the machine that ran it. reproduce.sh checks
out the recorded commit, rebuilds those kernels and the initramfs, and calls
this module's commands (from that checkout) to check them and rerun a try:

  plan RESDIR [--run N]              which try, kernels, config, arch
  check-kernels RESDIR BUILDS        build hashes and bzImage bytes
  rerun RESDIR --run N --builds BUILDS --image IMAGE --out DIR
                                     the try again, compared bit for bit
  scrub DIR...                       meta.json with portable paths
"""
import argparse
import difflib
import gzip
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import zlib

from bench import counts, execute, hostinfo, identity, inputs, rawtry

DIR = "provenance"
SCRIPT = "reproduce.sh"
TEMPLATE = os.path.join(hostinfo.ROOT, "bench", "reproduce-template.sh")
BEGIN = "# BEGIN RUN DEFINITION"
END = "# END RUN DEFINITION"
MODULES = "lib/modules/jlbench/"
# Untracked files bigger than this stay out of git.diff (and are named).
UNTRACKED_MAX = 1 << 20
# rerun's exit status when the try ran but its mode gives no same bits.
NOT_COMPARABLE = 3


class Problem(Exception):
    """The results dir or the rebuilt inputs cannot give the try again."""


# ---------------------------------------------------------------- record

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


def git_diff(root):
    """(the checkout's changes against HEAD as a `git apply`able binary
    diff, untracked files included, untracked paths left out). Untracked
    files under results/ (the results dirs themselves) and those bigger
    than UNTRACKED_MAX are left out."""
    rc, diff = _git(root, "diff", "HEAD", "--binary")
    if rc != 0:
        raise Problem("git diff HEAD failed in %s" % root)
    rc, out = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    left_out = []
    for name in sorted(x for x in out.decode().split("\0") if x):
        path = os.path.join(root, name)
        if name.startswith("results/") or not os.path.isfile(path) or \
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
             "package_version": src.get("version"),
             "compiler": b.info.get("compiler"), "boots": in_run,
             "bzimage_sha256": None, "config_file": None,
             "build_json": None}
    try:
        entry["bzimage_sha256"] = rawtry.sha256(b.kernel)
    except OSError as e:
        notes.append("%s: bzImage unreadable: %s" % (b.variant, e))
    for name, key in ((".config", "config_file"),
                      ("build.json", "build_json")):
        rel = "kernels/%s.%s" % (b.variant, name.lstrip("."))
        if _copy(os.path.join(b.dir, name), os.path.join(prov, rel), notes,
                 "%s's %s" % (b.variant, name)):
            entry[key] = rel
    return entry


def _patches(prov, kernels, env, notes):
    """Copy the patch series the kernels were built from into
    prov/patches/; its entry, or None (with a note) when the series at
    hand is not theirs."""
    pdir = env.get("JLBENCH_PATCHES") or os.path.join(
        hostinfo.ROOT, "kernel-variants", "patches")
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
           "dirty": state["dirty"], "diff": None, "left_out": []}
    if state["dirty"]:
        try:
            diff, out["left_out"] = git_diff(root)
        except (Problem, OSError, subprocess.TimeoutExpired) as e:
            notes.append("uncommitted changes not recorded: %s" % e)
            return out
        if diff:
            with open(os.path.join(prov, "git.diff"), "wb") as f:
                f.write(diff)
            out["diff"] = "git.diff"
        else:
            # only untracked results dirs: the tree is the commit's
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
    the run meta describes; builds, images: bench/inputs.py's Build and
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
        "mode": meta["accel"]["mode"],
        "notes": notes,
    }
    with open(os.path.join(prov, "provenance.json"), "w") as f:
        json.dump(hostinfo.portable(doc), f, indent=2, sort_keys=True)
        f.write("\n")
    write_script(resdir, doc)
    portable_sites(resdir)
    return doc


def script_text(doc, template=TEMPLATE):
    """reproduce.sh for provenance doc: the template with its run
    definition block filled in."""
    with open(template) as f:
        text = f.read()
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise Problem("%s lacks its %r ... %r block" % (template, BEGIN, END))
    git = doc["git"]
    lines = [BEGIN + " (written by bench/run)",
             "# kernels (variant, config, arch, build hash):"]
    for v, k in sorted(doc["kernels"].items()):
        lines.append("#   %s %s %s %s" % (v, k["config"], k["arch"],
                                          k["hash"]))
    for img in doc["images"]:
        lines.append("# initramfs %s, modules of: %s" % (
            img["hash"], " ".join(img["variants"] or ["?"])))
    lines += ["COMMIT=%s" % shlex.quote(git["commit"] or ""),
              "DIRTY=%d" % (1 if git["dirty"] else 0),
              "MODE=%s" % shlex.quote(doc["mode"])]
    return head + "\n".join(lines) + "\n" + END + tail


def write_script(resdir, doc):
    path = os.path.join(resdir, SCRIPT)
    with open(path, "w") as f:
        f.write(script_text(doc))
    os.chmod(path, 0o755)
    return path


# ---------------------------------------------------------------- replay

def _json(path):
    with open(path) as f:
        return json.load(f)


def load(resdir):
    """(meta.json, provenance.json) of a results dir."""
    p = os.path.join(resdir, DIR, "provenance.json")
    if not os.path.isfile(p):
        raise Problem("%s has no %s/provenance.json: it was made before "
                      "bench/run recorded what defines a run" % (resdir, DIR))
    return _json(os.path.join(resdir, "meta.json")), _json(p)


def choose(resdir, run=None):
    """The runs.csv row of the ok try of run `run` (default: the ok try of
    the lowest run index)."""
    ok = [r for r in identity.csv_rows(os.path.join(resdir, "runs.csv"))
          if r["status"] == "ok"
          and (run is None or int(r["index"]) == run)]
    if not ok:
        raise Problem("%s has no ok try%s" % (
            resdir, " of run %d" % run if run is not None else ""))
    return min(ok, key=lambda r: (int(r["index"]), int(r["try"])))


def plan(resdir, run=None):
    """{key: value} reproduce.sh needs for one try: run, try, variant,
    config, arch, kernels (to build), image_kernels (of the initramfs;
    "?" when unknown)."""
    meta, prov = load(resdir)
    row = choose(resdir, run)
    v = row["variant"]
    image_hash = meta["images"][v]["hash"]
    img = next((i for i in prov["images"] if i["hash"] == image_hash), None)
    image_kernels = None if img is None else img["variants"]
    kernels = sorted({v} | set(image_kernels or ()))
    missing = [k for k in kernels if k not in prov["kernels"]]
    if missing:
        raise Problem("%s does not record the kernel of %s" % (
            resdir, ", ".join(missing)))
    configs = {(prov["kernels"][k]["config"], prov["kernels"][k]["arch"])
               for k in kernels}
    if len(configs) != 1:
        raise Problem("kernels %s mix configs or arches: %s" % (
            ", ".join(kernels), sorted(configs)))
    config, arch = configs.pop()
    if not config:
        raise Problem("build.json of %s names no config (full or smoke)"
                      % v)
    return {"run": row["index"], "try": row["try"], "variant": v,
            "config": config, "arch": arch, "kernels": " ".join(kernels),
            "image_kernels": "?" if image_kernels is None
            else " ".join(image_kernels)}


def _config_diff(resdir, want, build_dir, limit=20):
    try:
        with open(os.path.join(resdir, DIR, want["config_file"])) as f:
            a = f.read().splitlines()
        with open(os.path.join(build_dir, ".config")) as f:
            b = f.read().splitlines()
    except (OSError, TypeError):
        return []
    d = [ln for ln in difflib.unified_diff(a, b, "recorded", "rebuilt",
                                           lineterm="", n=0)]
    return d[:limit] + (["... (%d more lines)" % (len(d) - limit)]
                        if len(d) > limit else [])


def check_kernels(resdir, builds_tsv, kernels=None):
    """Lines about each rebuilt kernel (kernels: the variants to check;
    default: the recorded ones in builds_tsv) and the list of failures: a
    build hash or bzImage that is not the recorded one."""
    _, prov = load(resdir)
    builds = inputs.read_builds(builds_tsv)
    lines, fails = [], []
    for v in kernels or sorted(set(builds) & set(prov["kernels"])):
        want = prov["kernels"].get(v)
        b = builds.get(v)
        if want is None or b is None:
            fails.append("%s: %s" % (v, "not recorded" if want is None
                                     else "not rebuilt"))
            continue
        if b.hash != want["hash"]:
            fails.append("%s: build hash %s, recorded %s" % (
                v, b.hash, want["hash"]))
            src = b.info.get("source") or {}
            for key, got in (("package_version", src.get("version")),
                             ("series_hash", src.get("series_hash")),
                             ("compiler", b.info.get("compiler"))):
                if got != want.get(key):
                    fails.append("  %s: %r here, %r recorded" % (
                        key, got, want.get(key)))
            fails += ["  " + ln for ln in _config_diff(resdir, want, b.dir)]
            continue
        got = rawtry.sha256(b.kernel)
        if want.get("bzimage_sha256") and got != want["bzimage_sha256"]:
            fails.append("%s: build %s has the recorded inputs, but its "
                         "bzImage differs (sha256 %s, recorded %s): the "
                         "kernel build is not reproducible here" % (
                             v, b.hash, got[:16], want["bzimage_sha256"][:16]))
            continue
        lines.append("%s: build %s, bzImage sha256 %s: as recorded" % (
            v, b.hash, got[:16]))
    return lines, fails


def rewrite(argv, kernel, initrd, console_log, plugin=None,
            counts_file=None, sites=None, qemu_bin=None):
    """A recorded QEMU argv with the paths of this machine: the console
    file, kernel, initrd and plugin (its outfile and sites files); every
    other argument as recorded. ValueError when the recorded line lacks
    one of them or the plugin's use does not match."""
    out = list(argv)
    if qemu_bin:
        out[0] = qemu_bin
    seen = set()
    i = 1
    while i < len(out) - 1:
        opt, val = out[i], out[i + 1]
        if opt == "-serial" and val.startswith("file:"):
            out[i + 1] = "file:" + console_log
        elif opt == "-kernel":
            out[i + 1] = kernel
        elif opt == "-initrd":
            out[i + 1] = initrd
        elif opt == "-plugin":
            if not plugin:
                raise ValueError("the recorded try loaded a plugin (%s); "
                                 "none given" % val)
            parts = [plugin]
            for p in val.split(",")[1:]:
                key = p.partition("=")[0]
                if key == "outfile":
                    p = "outfile=" + counts_file
                elif key == "sites":
                    if not sites:
                        raise ValueError("the recorded try gave the plugin "
                                         "static-key sites; this kernel "
                                         "has none")
                    p = "sites=" + sites
                    seen.add("sites")
                parts.append(p)
            if sites and "sites" not in seen:
                raise ValueError("this kernel has static-key sites; the "
                                 "recorded try gave the plugin none")
            out[i + 1] = ",".join(parts)
        else:
            i += 1
            continue
        seen.add(opt)
        i += 2
    lack = [o for o in ("-serial", "-kernel", "-initrd") if o not in seen]
    if plugin and "-plugin" not in seen:
        lack.append("-plugin")
    if lack:
        raise ValueError("the recorded command line has no %s"
                         % ", ".join(lack))
    return out


def _sites(path):
    """The sites of a sites file (its comment lines name a path)."""
    with open(path) as f:
        return [ln for ln in f.read().splitlines() if not ln.startswith("#")]


def _qemu_bin(recorded, env):
    """$JLBENCH_QEMU, else the recorded binary when it runs here, else
    Debian's."""
    if env.get("JLBENCH_QEMU"):
        return env["JLBENCH_QEMU"]
    if "/" not in recorded or os.access(recorded, os.X_OK):
        return recorded
    return "qemu-system-x86_64"


def rerun(resdir, run, builds_tsv, image, out_dir, say=print, env=None,
          root=hostinfo.ROOT):
    """Rerun the ok try of run `run` with rebuilt kernels and image and
    compare it with the recorded one. Returns 0 (every figure the same
    bits), 1 (a difference, said) or NOT_COMPARABLE (kvm, tcg: rerun,
    figures shown)."""
    env = os.environ if env is None else env
    meta, prov = load(resdir)
    row = choose(resdir, run)
    v, mode = row["variant"], meta["accel"]["mode"]
    fails = []
    b = inputs.read_builds(builds_tsv).get(v)
    if b is None:
        raise Problem("%s has no build of %s" % (builds_tsv, v))
    got = inputs.file_hash(image)
    want = meta["images"][v]["hash"]
    if got != want:
        fails.append("initramfs: hash %s, recorded %s" % (got, want))
    else:
        say("initramfs %s: as recorded" % got)
    os.makedirs(out_dir, exist_ok=True)
    rec_base = identity.try_base(resdir, row)
    base = os.path.join(out_dir, os.path.basename(rec_base))
    plugin = sites = None
    if meta["plugin"].get("path"):
        plugin, note = counts.find(root)
        if plugin is None:
            raise Problem("the try ran with the branch-count plugin: %s"
                          % note)
        if os.path.basename(plugin) != prov.get("plugin"):
            say("warning: plugin %s, recorded %s (other sources, header or "
                "compiler)" % (os.path.basename(plugin), prov.get("plugin")))
        sites, _ = counts.sites_file(root, b.dir, os.path.join(
            out_dir, "sites-%s.txt" % v))
        recorded_sites = os.path.join(resdir, "sites", v + ".txt")
        if sites and os.path.isfile(recorded_sites):
            if _sites(sites) != _sites(recorded_sites):
                fails.append("static-key sites of %s differ from "
                             "sites/%s.txt" % (v, v))
    with open(rec_base + ".qemu-cmd") as f:
        recorded = shlex.split(f.read())
    cmd = rewrite(recorded, b.kernel, image, base + ".log", plugin,
                  base + ".counts" if plugin else None, sites,
                  _qemu_bin(recorded[0], env))
    with open(base + ".qemu-cmd", "w") as f:
        f.write(shlex.join(cmd) + "\n")
    version = hostinfo.qemu_version(cmd[0])
    if row.get("qemu_version") and version != row["qemu_version"]:
        say("warning: %s, the try ran on %s" % (version,
                                                row["qemu_version"]))
    say("rerunning run %s try %s (%s, %s): %s" % (
        row["index"], row["try"], v, mode, shlex.join(cmd)))
    o = execute.run(cmd, base + ".log", float(meta["runner"]["timeout_s"]),
                    base + ".stderr")
    perf = meta["protocol"].get("perf_events") or []
    new = identity.try_figures(base, perf, bool(plugin), o.ended)
    old = identity.recorded_try(resdir, row)
    say("rerun: %s in %.1f s, %s" % (new["row"]["status"], o.wall_seconds,
                                     o.ended))
    if mode != "icount":
        for c in ("status", "throughput_mbps", "ops", "max_latency_ms"):
            say("  %s: %s (recorded %s)" % (c, new["row"].get(c),
                                            old["row"].get(c)))
        say("NOT COMPARED: under %s a rerun cannot give the same bits "
            "(only icount is deterministic); figures above" % mode)
        return NOT_COMPARABLE
    diffs = fails + identity.compare(old, new, "run %s" % row["index"],
                                     columns=list(new["row"]))
    for name, line in identity.console_difference(rec_base, base):
        say("note: consoles differ from line %d on (%s)" % (line, name))
    if diffs:
        for d in diffs:
            say("FAIL: " + d)
        say("FAIL")
        return 1
    say("throughput %s MB/s, %s ops, %d samples, %d plugin counts: the "
        "same bits as recorded" % (
            new["row"]["throughput_mbps"], new["row"]["ops"],
            len(new["samples"]), len(new["counts"])))
    say("PASS")
    return 0


def scrub(resdir):
    """Rewrite resdir/meta.json and the comments of sites/*.txt with
    portable paths; True if anything changed."""
    path = os.path.join(resdir, "meta.json")
    meta = _json(path)
    fixed = hostinfo.portable(meta)
    if fixed != meta:
        from bench import results
        results.write_json(path, fixed)
    return bool(portable_sites(resdir)) or fixed != meta


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m bench.provenance",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("plan")
    s.add_argument("resdir")
    s.add_argument("--run", type=int)
    s = sub.add_parser("check-kernels")
    s.add_argument("resdir")
    s.add_argument("builds")
    s.add_argument("--kernels", default="")
    s = sub.add_parser("rerun")
    s.add_argument("resdir")
    s.add_argument("--run", type=int)
    s.add_argument("--builds", required=True)
    s.add_argument("--image", required=True)
    s.add_argument("--out", required=True)
    s = sub.add_parser("scrub")
    s.add_argument("dirs", nargs="+")
    a = p.parse_args(argv)
    try:
        if a.cmd == "plan":
            for k, v in plan(a.resdir, a.run).items():
                print("%s=%s" % (k, v))
            return 0
        if a.cmd == "check-kernels":
            lines, fails = check_kernels(a.resdir, a.builds,
                                         a.kernels.split() or None)
            for ln in lines:
                print(ln)
            for ln in fails:
                print("FAIL: " + ln)
            return 1 if fails else 0
        if a.cmd == "rerun":
            return rerun(a.resdir, a.run, a.builds, a.image, a.out)
        for d in a.dirs:
            print("%s: %s" % (d, "rewritten" if scrub(d) else "unchanged"))
        return 0
    except (Problem, inputs.InputError, counts.PluginError, ValueError,
            OSError, KeyError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
