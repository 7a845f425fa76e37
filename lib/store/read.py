"""What the store keeps of a results dir, read whole before anything is
written (read_run): a record of rows for the store's tables, or Damaged
naming what is wrong with it. Raw files are opened through lib/format's
readers only (lib/format/profile.py, rawfiles.py: raw/ or raw.tar.xz).
A bisection's or scan's log is lib/store/searches.py's.

Which dirs there are under a root: walk().
"""
import csv
import hashlib
import json
import math
import os

from lib import variants, workloads
from lib.format import profile as pf
from lib.format import rawfiles
from lib.format import schema as fs

RUN_FILES = ("runs.csv", "meta.json", "stats.json", "summary.csv")
SEARCH_LOGS = ("bisect.log", "scan.log")
# runs.csv columns that are the figure table's own columns, not cells
KEY_COLUMNS = ("index", "label", "variant", "perturb_seed", "try", "status")
# dirs that hold no results dir: inside one, and the results root's
# .config files by content
NOT_RESULTS = ("raw", "provenance", "sites", "slurm", "kernel-configs")


class Damaged(Exception):
    """A dir that cannot be ingested whole; the message says why."""


def walk(root):
    """[(kind, path)] of every dir under root (root itself too), sorted by
    path: ("run", a dir with runs.csv or meta.json), ("search", a dir
    with bisect.log or scan.log)."""
    out = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in NOT_RESULTS
                         and not d.startswith("."))
        if any(f in files for f in SEARCH_LOGS):
            out.append(("search", top))
        elif "runs.csv" in files or "meta.json" in files:
            out.append(("run", top))
            dirs[:] = [d for d in dirs if d == "suite"]
    return sorted(out, key=lambda x: x[1])


def rel_path(path, root):
    """path relative to root, or its absolute path when outside it."""
    path, root = os.path.realpath(path), os.path.realpath(root)
    rel = os.path.relpath(path, root)
    return path if rel == ".." or rel.startswith("../") else rel


def content_hash(path, names):
    """sha256 of the named files of a dir that exist (name and bytes)."""
    h = hashlib.sha256()
    for name in names:
        p = os.path.join(path, name)
        if os.path.isfile(p):
            h.update(name.encode() + b"\0")
            with open(p, "rb") as f:
                h.update(f.read())
            h.update(b"\0")
    return h.hexdigest()


def number(text):
    """A cell as a finite float, or None."""
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def integer(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def _json(path, what=None):
    """A JSON file's object; Damaged when it cannot be read."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Damaged("%s: %s" % (what or os.path.basename(path), e))


def _csv(path):
    """(header, [(line number, row dict)]) of a CSV file; Damaged when it
    is empty or a line has another number of fields than its header."""
    name = os.path.basename(path)
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header:
                raise Damaged("%s: empty" % name)
            rows = []
            for fields in reader:
                if not fields:
                    continue
                if len(fields) != len(header):
                    raise Damaged("%s line %d: %d fields, the header has %d"
                                  % (name, reader.line_num, len(fields),
                                     len(header)))
                rows.append((reader.line_num, dict(zip(header, fields))))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise Damaged("%s: %s" % (name, e))
    return header, rows


def kind_of(rel):
    """The run table's kind of a dir's path relative to the root."""
    parts = rel.split("/")
    if "suite" in parts[:-1]:
        return "suite"
    if any(p.startswith("step-") for p in parts[:-1]):
        return "step"
    if parts[0].startswith("env-"):
        return "env"
    if parts[0].startswith("example-"):
        return "example"
    return "run"


def parent_of(rel):
    """The path of the dir holding a results dir ('' for a top one): a
    suite's run, a study, a bisection's or scan's dir."""
    parts = rel.split("/")
    if "suite" in parts[:-1]:
        return "/".join(parts[:parts.index("suite")])
    for k, p in enumerate(parts[:-1]):
        if p.startswith("step-"):
            return "/".join(parts[:k])
    return "/".join(parts[:-1]) if len(parts) > 1 else ""


def _harness(meta, rows):
    git = meta.get("git") or {}
    host = meta.get("host") or {}
    dirty = git.get("dirty")
    hosts = sorted({r.get("host", "") for r in rows} - {""})
    qemu = next((r["qemu_version"] for r in rows if r.get("qemu_version")),
                "") or (host.get("qemu") or "").split("\n")[0]
    return {"git_commit": git.get("commit") or git.get("short") or "",
            "git_dirty": "" if dirty is None else str(bool(dirty)).lower(),
            "host": host.get("hostname") or ",".join(hosts),
            "qemu_version": qemu}


def _config_hash(path, kernel, variant):
    """sha256 (16 hex) of a kernel's .config: the file provenance.json's
    entry kernel names (config_file, relative to provenance/: the results
    root's kernel-configs/), else provenance/kernels/VARIANT.config of an
    older dir; '' without either."""
    prov = os.path.join(path, "provenance")
    for name in ((kernel or {}).get("config_file"),
                 os.path.join("kernels", variant + ".config")):
        if name and os.path.isfile(os.path.join(prov, name)):
            with open(os.path.join(prov, name), "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()[:16]
    return ""


def _kernels(path, meta, rows):
    """[(variant, kernel row)] of the kernels a run booted: each
    variant's provenance/kernels/VARIANT.build.json (and its .config),
    else meta.json's copy of its build.json, else runs.csv's
    kernel_hash."""
    out = {}
    builds = meta.get("builds") or {}
    booted = sorted({r["variant"] for r in rows} | set(builds))
    prov = os.path.join(path, "provenance", "provenance.json")
    info = _json(prov, "provenance/provenance.json") \
        if os.path.isfile(prov) else {}
    kernels = (info.get("kernels") if isinstance(info, dict) else None) or {}
    for v in booted:
        base = os.path.join(path, "provenance", "kernels", v)
        if os.path.isfile(base + ".build.json"):
            b = _json(base + ".build.json", "provenance/kernels/%s.build"
                      ".json" % v)
        else:
            b = (builds.get(v) or {}).get("build") or {}
        config_hash = _config_hash(path, kernels.get(v), v)
        hashes = sorted({r.get("kernel_hash", "") for r in rows
                         if r["variant"] == v} - {""})
        build_hash = b.get("hash") or (builds.get(v) or {}).get("hash") \
            or ",".join(hashes)
        if not build_hash:
            continue
        src = b.get("source") or {}
        tree = ((b.get("definition") or {}).get("tree") or {})
        out[v] = {"build_hash": build_hash, "variant": v,
                  "arch": b.get("arch") or ("x86_64" if b else ""),
                  "version": src.get("version", ""),
                  "package": src.get("package", ""),
                  "tree": tree.get("commit", "") or "",
                  "patches_hash": src.get("series_hash", "") or "",
                  "config": b.get("config", "") or "",
                  "config_hash": config_hash,
                  "compiler": b.get("compiler", "") or ""}
    return sorted(out.items())


def _figures(rows, excluded):
    """The figure table's rows of runs.csv's lines."""
    out = []
    for line, r in rows:
        head = (line, integer(r.get("index")), r.get("label", ""),
                r.get("variant", ""), integer(r.get("perturb_seed")),
                integer(r.get("try")), r.get("status", ""),
                1 if line in excluded else 0)
        for col, cell in r.items():
            if col in KEY_COLUMNS or cell == "":
                continue
            x = number(cell)
            out.append(head + (col, x, "" if x is not None else cell))
    return out


def _profiles(path, meta, rows, excluded):
    """The profile table's rows: per label, function and profile column,
    the mean per try and per op over the label's ok tries of the longest
    length that have a profile (none: []), in raw/ or packed in
    raw.tar.xz (lib/format/rawfiles.py)."""
    seconds = (meta.get("protocol") or {}).get("seconds")

    def length(r):
        return number(r.get("seconds")) or number(seconds) or 0.0
    ok = [(line, r) for line, r in rows if r.get("status") == "ok"
          and line not in excluded]
    longest = max((length(r) for _, r in ok), default=0.0)
    sums = {}      # (label, columns) -> {function: [sums..., ...]}
    tries = {}     # label -> [tries, tries with ops]
    raw = os.path.join(path, "raw")
    for line, r in ok:
        if length(r) != longest:
            continue
        base = os.path.join(raw, "%03d-%s-try%s" % (
            integer(r["index"]) or 0, r["variant"], r["try"]))
        if not rawfiles.isfile(base + pf.RAW_EXT):
            continue
        try:
            prof = pf.read(base + pf.RAW_EXT)
        except pf.ProfileError as e:
            raise Damaged(str(e).replace(path + "/", ""))
        label = r["label"]
        ops = number(r.get("ops"))
        count = tries.setdefault(label, [0, 0])
        count[0] += 1
        count[1] += 1 if ops else 0
        _add(sums.setdefault((label, tuple(prof.columns)), {}), prof,
             1.0 / ops if ops else 0.0, line)
    out = []
    for (label, cols), acc in sums.items():
        k, with_ops = tries[label]
        m = len(cols)
        for fn, a in acc.items():
            for j, col in enumerate(cols):
                if a[2 * m + j]:
                    out.append((label, fn, col, a[j] / k, a[m + j] / with_ops
                                if with_ops else None, a[2 * m + j], k))
    return sorted(out)


def _add(acc, prof, per_op, serial):
    """Add one try's Profile into acc {function: [m sums, m sums per op,
    m counts of tries it ran in, m serials of the try counted last]} (m
    columns; a name's rows added up, as Profile.by_name() does; serial:
    the try's own number)."""
    m = len(prof.columns)
    for _, fn, values in prof.rows:
        a = acc.get(fn)
        if a is None:
            a = acc[fn] = [0] * (4 * m)
        for j, v in enumerate(values):
            if v:
                a[j] += v
                a[m + j] += v * per_op
                if a[3 * m + j] != serial:
                    a[3 * m + j] = serial
                    a[2 * m + j] += 1


def _details(stats):
    """{(metric, label): stats.json's details of its comparison}."""
    out = {}
    metrics = stats.get("metrics") if isinstance(stats, dict) else None
    for m in metrics if isinstance(metrics, list) else []:
        for c in m.get("comparisons") or []:
            out[(m.get("metric"), c.get("label"))] = c
    return out


def _flag(x):
    return None if x is None else int(bool(x))


def _comparisons(path, stats):
    """The comparison table's rows: summary.csv's, with stats.json's
    details of each comparison."""
    name = os.path.join(path, "summary.csv")
    if not os.path.isfile(name):
        return []
    _, rows = _csv(name)
    details = _details(stats)
    out = []
    for _, r in rows:
        d = details.get((r.get("metric"), r.get("label"))) or {}
        out.append({
            "label_group": r.get("group", ""), "label": r.get("label", ""),
            "variant": r.get("variant", ""),
            "accel": r.get("accel") or r.get("mode", ""),
            "metric": r.get("metric", ""), "n": integer(r.get("n")),
            "failed": integer(r.get("failed")),
            **{k: number(r.get(k)) for k in (
                "mean", "stdev", "cov_pct", "min", "max", "ci_lo", "ci_hi",
                "pct_change", "pct_ci_lo", "pct_ci_hi", "p_t", "p_rank",
                "mde_pct")},
            "text": r.get("text", ""), "baseline": r.get("baseline", ""),
            "method": r.get("method", ""), "marker": r.get("marker", ""),
            "significant": _flag(d.get("significant")),
            "floor_pts": number(d.get("floor_pts")),
            "noise_pct": number(d.get("noise_pct")),
            "paired": _flag(d.get("paired"))})
    return out


def read_run(path, rel):
    """The record of the results dir at path (rel: its path in the
    store); Damaged when it has no meta.json or runs.csv, or one of its
    files cannot be read whole."""
    for name in ("meta.json", "runs.csv"):
        if not os.path.isfile(os.path.join(path, name)):
            raise Damaged("no %s" % name)
    meta = _json(os.path.join(path, "meta.json"))
    if not isinstance(meta, dict):
        raise Damaged("meta.json: not an object")
    stats = None
    if os.path.isfile(os.path.join(path, "stats.json")):
        stats = _json(os.path.join(path, "stats.json"))
    _, lines = _csv(os.path.join(path, "runs.csv"))
    lines = [(n, fs.current_row(r)) for n, r in lines]
    rows = [r for _, r in lines]
    excluded = set(((stats or {}).get("excluded") or {}).get("lines") or [])
    plan = meta.get("plan") or {}
    protocol = meta.get("protocol") or {}
    seeds = sorted({s for s in (integer(r.get("perturb_seed"))
                                for r in rows) if s})
    accel = fs.run_accel(meta) or next(
        (r["accel"] for r in rows if r.get("accel")), "")
    run = {
        "path": rel, "run_id": os.path.basename(rel), "kind": kind_of(rel),
        "parent": parent_of(rel),
        "created_utc": meta.get("created_utc") or "",
        "end_utc": meta.get("end_utc") or "", "accel": accel,
        "workload": protocol.get("workload") or workloads.DEFAULT,
        "profile": plan.get("profile") or "",
        "boots": integer(plan.get("boots")),
        "plan_seed": integer(plan.get("seed")),
        "seeds": " ".join(str(s) for s in seeds),
        "baseline": meta.get("baseline") or variants.BASELINE,
        "headline": (stats or {}).get("headline") or "",
        "protocol": json.dumps(protocol, sort_keys=True),
        "analysed": int(stats is not None),
        "content_hash": content_hash(path, RUN_FILES),
        "plugin": os.path.basename((meta.get("plugin") or {}).get("path")
                                   or ""),
        "model": json.dumps(meta["model"], sort_keys=True)
        if meta.get("model") else ""}
    return {"run": run, "harness": _harness(meta, rows),
            "kernels": _kernels(path, meta, rows),
            "figures": _figures(lines, excluded),
            "profiles": _profiles(path, meta, lines, excluded),
            "comparisons": _comparisons(path, stats)}
