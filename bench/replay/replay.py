"""The replay of one try of a results dir, for `jlbench reproduce`.

`jlbench reproduce DIR` (bench/replay/reproduce; DIR/reproduce.sh calls it)
runs these from a checkout of the recorded commit:

  plan RESDIR [--run N]              which try, kernels, config, arch
  check-kernels RESDIR BUILDS [--kernels "V..."]
                                     build hashes and bzImage bytes
  rerun RESDIR [--run N] --builds BUILDS --image IMAGE --out DIR
                                     the try again with its recorded QEMU
                                     command line, compared bit for bit

rerun exits 0 when every figure is the same bits, 1 on a difference (each
named) or an error, NOT_COMPARABLE (3) under kvm or tcg, whose reruns are
shown, not compared.
"""
import argparse
import difflib
import json
import os
import shlex
import sys

from bench.guest import execute
from bench.replay.provenance import DIR, Problem, source_of
from bench.tries import inputs
from lib import hostinfo
from lib.format import counts, identity, rawfiles, rawtry, schema
from lib.format import profile as profilefmt

# rerun's exit status when the try ran but its accelerator gives no same bits.
NOT_COMPARABLE = 3


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
    config, arch, kernels (to build), specs (their kernel-variants/build
    --variant values: a user variant's is NAME=@ its recorded
    definition), image_kernels (of the initramfs;
    "?" when unknown), plugin (1 when the try ran with the branch-count
    plugin, which is then built too)."""
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
    specs = []
    for k in kernels:
        d = prov["kernels"][k].get("definition")
        specs.append("%s=@%s" % (k, os.path.abspath(
            os.path.join(resdir, DIR, d))) if d else k)
    return {"run": row["index"], "try": row["try"], "variant": v,
            "config": config, "arch": arch,
            "source": source_of(
                {k: prov["kernels"][k] for k in kernels}).name,
            "kernels": " ".join(kernels),
            "specs": " ".join(specs),
            "image_kernels": "?" if image_kernels is None
            else " ".join(image_kernels),
            "plugin": 1 if meta["plugin"].get("path") else 0}


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
            counts_file=None, sites=None, qemu_bin=None, keys=None,
            profile=None):
    """A recorded QEMU argv with the paths of this machine: the console
    file, kernel, initrd and plugin (its outfile, sites and keys files,
    and profile: (its profile= file, its symbols= file));
    every other argument as recorded. ValueError when the recorded line
    lacks one of them or the plugin's use does not match."""
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
                elif key == "keys":
                    if not keys:
                        raise ValueError("the recorded try gave the model "
                                         "a keys= file; none given")
                    p = "keys=" + keys
                elif key in ("profile", "symbols"):
                    if not profile:
                        raise ValueError("the recorded try wrote a profile;"
                                         " no profile file given")
                    p = "%s=%s" % (key, profile[key == "symbols"])
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


def _same_file(a, b):
    """Both exist with the same bytes."""
    return (rawfiles.isfile(a) and rawfiles.isfile(b)
            and rawtry.sha256(a) == rawtry.sha256(b))


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
    v, accel = row["variant"], schema.run_accel(meta)
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
        sites, _ = counts.sites_file(b.dir, os.path.join(
            out_dir, "sites-%s.txt" % v))
        recorded_sites = os.path.join(resdir, "sites", v + ".txt")
        if sites and os.path.isfile(recorded_sites):
            if _sites(sites) != _sites(recorded_sites):
                fails.append("static-key sites of %s differ from "
                             "sites/%s.txt" % (v, v))
    with rawfiles.open(rec_base + ".qemu-cmd") as f:
        recorded = shlex.split(f.read())
    keys = os.path.join(resdir, "keys", v + ".txt")
    profile = None
    if any(",profile=" in a for a in recorded):   # the -plugin word
        symbols = os.path.join(out_dir, "symbols-%s.txt" % v)
        profilefmt.symbols_file(os.path.join(b.dir, "vmlinux"), symbols)
        profile = (base + profilefmt.EXT, symbols)
    cmd = rewrite(recorded, b.kernel, image, base + ".log", plugin,
                  base + ".counts" if plugin else None, sites,
                  _qemu_bin(recorded[0], env),
                  keys if os.path.isfile(keys) else None, profile)
    with open(base + ".qemu-cmd", "w") as f:
        f.write(shlex.join(cmd) + "\n")
    version = hostinfo.qemu_version(cmd[0])
    if row.get("qemu_version") and version != row["qemu_version"]:
        say("warning: %s, the try ran on %s" % (version,
                                                row["qemu_version"]))
    say("rerunning run %s try %s (%s, %s): %s" % (
        row["index"], row["try"], v, accel, shlex.join(cmd)))
    o = execute.run(cmd, base + ".log", float(meta["runner"]["timeout_s"]),
                    base + ".stderr")
    perf = meta["protocol"].get("perf_events") or []
    new = identity.try_figures(base, perf, bool(plugin), o.ended,
                               schema.workload(meta))
    old = identity.recorded_try(resdir, row)
    say("rerun: %s in %.1f s, %s" % (new["row"]["status"], o.wall_seconds,
                                     o.ended))
    if accel != "icount":
        for c in ("status", "throughput_mbps", "ops", "max_latency_ms"):
            say("  %s: %s (recorded %s)" % (c, new["row"].get(c),
                                            old["row"].get(c)))
        say("NOT COMPARED: under %s a rerun cannot give the same bits "
            "(only icount is deterministic); figures above" % accel)
        return NOT_COMPARABLE
    diffs = fails + identity.compare(old, new, "run %s" % row["index"],
                                     columns=list(new["row"]))
    if profile:
        profilefmt.compress(base)
        if not _same_file(base + profilefmt.RAW_EXT,
                          rec_base + profilefmt.RAW_EXT):
            diffs.append("the per-function profile differs from %s"
                         % os.path.basename(rec_base + profilefmt.RAW_EXT))
    for name, line in identity.console_difference(rec_base, base):
        say("note: consoles differ from line %d on (%s)" % (line, name))
    if diffs:
        for d in diffs:
            say("FAIL: " + d)
        say("FAIL")
        return 1
    say("throughput %s MB/s, %s ops, %d samples, %d plugin window counts%s: "
        "the same bits as recorded" % (
            new["row"]["throughput_mbps"], new["row"]["ops"],
            len(new["samples"]), len(new["counts"]),
            " and the per-function profile" if profile else ""))
    tails = [c for c in new["whole_run"]
             if new["whole_run"][c] != old["whole_run"].get(c)]
    if tails:
        say("note: whole-run plugin totals differ (%s): they include the "
            "guest's power-off tail, which the host's timing sets"
            % ", ".join(tails))
    say("PASS")
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m bench.replay.replay",
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
        return rerun(a.resdir, a.run, a.builds, a.image, a.out)
    except (Problem, inputs.InputError, counts.PluginError, ValueError,
            OSError, KeyError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
