"""REPORT.md sections about the run itself: kernels, selftest, drift,
host and protocol, confounds, method. Values come from the results dir."""
from analysis.sections import fmt as F
from analysis.results import reference
from analysis.results.load import counted
from analysis.results.runinfo import accel, linux, proto
from lib.format import schema
from lib.variants import JUMP


def intro(st, res, rel):
    meta = res.meta
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    seconds = proto(meta, "seconds")
    clients = proto(meta, "clients")
    runs = "%d ok runs of %d tries" % (st["ok_runs"], st["tries"])
    how = "each run is a fresh boot in QEMU running tbench%s%s on the " \
        "guest's loopback, here under %s." % (
            " with %s clients" % clients if clients != "" else "",
            " for %s s" % seconds if seconds != "" else "", accel(st).what)
    main = st["groups"]["main"]
    if reference.compares_2011(st["baseline"], main):
        first = (
            "In 2011 Jason Baron ran `tbench 20` five times, with reboots, "
            "on kernels with jump labels, with static keys as atomic reads, "
            "and with plain reads, and found jump labels %s faster than "
            "atomic reads. This report repeats that comparison on Linux %s "
            "with statistics: %s" % (
                F.pct(reference.pct_2011(JUMP)).lstrip("+"),
                linux(st), how))
    elif main:
        first = (
            "This report compares %s with the baseline `%s` (bench/run "
            "`--baseline`), with statistics: %s" % (
                " and ".join("`%s`" % lab for lab in main
                             if lab != st["baseline"]) or "no other kernel",
                st["baseline"], how))
    else:
        first = "This run is an A/A control only (one kernel under two " \
            "labels): %s" % how
    return "\n".join([
        first,
        "",
        "Run [`%s`](%s): %s, git commit `%s`%s, from %s to %s." % (
            st["run_id"], rel, runs, git.get("commit", "unknown"),
            " (dirty tree)" if git.get("dirty") else "",
            meta.get("created_utc") or "?", meta.get("end_utc") or "?")])


CONFIG_NOTE = {
    "smoke": "**Quick answer from smoke kernels** (`--config smoke`): small "
             "test kernels that build in minutes, not the benchmark's "
             "`full` config; fewer subsystems, fewer static keys on the "
             "path. Use it for a first look; `./run_all.sh` with the "
             "default `full` config gives the report's answer.",
    "distro": "**Distro kernels** (`--config distro`): Debian's own amd64 "
              "configuration, built in only "
              "(`kernel-variants/config/distro.config` says what else "
              "changed), not the benchmark's `full` config. \"Kernel "
              "configs\" below sets this run beside the `full` one.",
}


def config_note(res):
    """A paragraph when the kernels are not the benchmark's full config
    (REPORT.md shows it under the answer), else None."""
    configs = sorted({b.get("config") for b in res.builds.values()} - {None})
    if len(configs) > 1:
        return "The kernels mix configs (%s): their comparison is not " \
            "meaningful." % ", ".join(configs)
    if configs and configs[0] in CONFIG_NOTE:
        return CONFIG_NOTE[configs[0]]
    return None


# Counters per op whose difference between a kernel without static-key
# sites and one with them is set against the latter's site executions.
SITE_COUNTERS = ("kernel_insns", "kernel_branches")


def site_explanation(st):
    """Per main label that executed static-key sites (the plugin counts
    them in jump-label kernels only): its site executions per op, and how
    many more kernel instructions and branches per op each main label
    without sites ran, per site execution."""
    get = {}
    for m in st["metrics"]:
        get[m["metric"]] = {k: d["mean"] for k, d in m["per_label"].items()}
    execs = get.get("site_execs_per_op", {})
    main = st["groups"]["main"]
    with_sites = [lab for lab in main
                  if not F.missing(execs.get(lab)) and execs.get(lab)]
    out = []
    for lab in with_sites:
        sites = execs[lab]
        out += ["", "`%s` executed %s static-key sites per operation."
                % (lab, F.val(sites))]
        for col in SITE_COUNTERS:
            vals = get.get(col + "_per_op", {})
            what = "kernel " + schema.counter(col).unit
            for other in [o for o in main if o not in with_sites]:
                a, j = vals.get(other), vals.get(lab)
                if F.missing(a) or F.missing(j):
                    continue
                d = a - j
                out.append("`%s` ran %s more %s per operation than `%s`:"
                           " %s per site execution." % (
                               other, F.val(d), what, lab,
                               F.val(d / sites, 3)))
    return out


def _sites(ver):
    """The disassembled static-key sites of a build's verification."""
    sites = ver.get("sites")
    if not isinstance(sites, list):
        sites = [ver["site"]] if isinstance(ver.get("site"), dict) else []
    out = []
    for s in sites:
        insn = "; ".join(" ".join(i.split())
                         for i in s.get("instructions") or [])
        out.append("`%s`: %s%s" % (s.get("function", "?"), s.get("kind", "?"),
                                   " (`%s`)" % insn if insn else ""))
    return "<br>".join(out) or "?"


def builds(res):
    if not res.builds:
        return "No build.json in this results dir (meta.json builds)."
    rows, failed = [], []
    for v in reference.label_order(res.builds):
        b = res.builds[v]
        ver = b.get("verify") or {}
        jt = ver.get("jump_table") or {}
        src = b.get("source") or {}
        bad = [k for k, ok in (ver.get("checks") or {}).items() if not ok]
        if bad:
            failed.append("`%s`: %s" % (v, ", ".join(bad)))
        rows.append([
            "`%s`" % v, "`%s`" % (b.get("hash") or "?"),
            b.get("config") or "?", src.get("version") or "?",
            b.get("compiler") or "?",
            {True: "yes", False: "**NO**"}.get(ver.get("ok"), "?"),
            jt.get("entries", "?"),
            {True: "yes", False: "**no**"}.get(jt.get("aligned"), "?"),
            _sites(ver)])
    out = F.details(
        "Build hash, config, source, compiler, verification and "
        "disassembled static-key sites of each kernel",
        F.table(["kernel", "build hash", "config", "linux-source",
                 "compiler", "verified", "jump table entries",
                 "aligned", "disassembled static-key sites"], rows,
                "lllllrrrl"))
    if failed:
        out += "\n\nFailed verification checks: %s." % "; ".join(failed)
    lacking = sorted(set(res.runs["variant"]) - set(res.builds))
    if lacking:
        out += "\n\nNo build.json for: %s." % ", ".join(lacking)
    return out + ("\n\nFrom each build.json (in meta.json): jump table "
                  "entries are (`__stop___jump_table` - "
                  "`__start___jump_table`) / 16 in vmlinux; a site is a "
                  "disassembled hot static-key check (a NOP with jump "
                  "labels, a load and a Jcc without).")


# selftest.csv rows of bench/model/regions.py: the module's loops counted by
# the TCG plugin. Shown with these labels, in this order, after the other rows.
COUNT_LABELS = {
    "count.source": "source of the counts per iteration",
    "count.empty_branches_per_iter":
        "conditional branches per iteration, empty loop",
    "count.off_branches_per_iter":
        "conditional branches per iteration, key off",
    "count.on_branches_per_iter":
        "conditional branches per iteration, key on",
    "count.empty_insns_per_iter": "instructions per iteration, empty loop",
    "count.off_insns_per_iter": "instructions per iteration, key off",
    "count.on_insns_per_iter": "instructions per iteration, key on",
    "count.note": "why a count per iteration is missing",
}


def count_note(df, baseline=reference.BASELINE):
    """What the count.* rows are, and the disabled key's cost against
    the baseline as counted; None when the table has no count rows."""
    if not df["name"].isin(list(COUNT_LABELS)).any():
        return None
    out = ("Counts per iteration (the rows from \"source of the counts per "
           "iteration\" on): conditional "
           "branches and instructions that one iteration of each of the "
           "module's loops executes, counted by jlbench's TCG plugin "
           "between the module's region markers in the icount boot "
           "(bench/plugin/README.md, \"Regions\"): each loop runs n and 2n "
           "iterations with interrupts off, and (R(2n) - R(n)) / n is "
           "exact, the call and the loop's entry cancelling. "
           "`not-counted`: no plugin (kvm, tcg) or no clean region; "
           "`not-exact`: the difference was not a whole multiple of n.")
    base = counted(df, baseline, "count.off_branches_per_iter")
    diffs = []
    for v in reference.label_order(df["variant"]):
        mine = counted(df, v, "count.off_branches_per_iter")
        if v != baseline and base is not None and mine is not None:
            diffs.append("`%s` %+d" % (v, mine - base))
    if diffs:
        out += (" With the key off, conditional branches per iteration "
                "against `%s`: %s." % (baseline, ", ".join(diffs)))
    return out


def selftest(res, baseline=reference.BASELINE):
    df = res.selftest
    if df is None or df.empty:
        return ("No selftest results in this results dir (selftest.csv is "
                "written by selftest boots).")
    note = count_note(df, baseline)
    return _selftest_table(df) + ("\n\n" + note if note else "")


def arch_selftest(res, arch):
    """One line on another architecture's selftest boots: which kernels
    booted under which accelerator, how many checks, which failed (what
    the checks are: docs/s390x.md). None when the dir has none."""
    df = res.arch_selftest.get(arch)
    if df is None or df.empty:
        return None
    accels = sorted(set(df[df["name"] == "accel"]["value"]))
    variants = reference.label_order(df["variant"])
    failed = ["%s of `%s`" % (n, v) for n, v in
              df[df["value"] == "FAIL"][["name", "variant"]].values]
    checks = df[df["value"].isin(["PASS", "FAIL"])]
    return ("%s selftest boots of %s under %s: %d checks, %s (from "
            "selftest-%s.csv, the site bytes and figures included; what "
            "each check is: docs/s390x.md)." % (
                arch, ", ".join("`%s`" % v for v in variants),
                " and ".join("TCG (%s)" % m for m in accels) or "TCG",
                len(checks), "FAIL: " + ", ".join(failed) if failed
                else "every one PASS", arch))


def _selftest_table(df):
    """Checks and figures by variant, in the order first seen, collapsed
    under a line that names every FAIL."""
    variants = reference.label_order(df["variant"])
    names = list(dict.fromkeys(df["name"]))
    names = [n for n in names if n not in COUNT_LABELS] + \
        [n for n in COUNT_LABELS if n in names]
    rows, failed = [], []
    for n in names:
        row = [COUNT_LABELS.get(n, n)]
        for v in variants:
            hit = df[(df["name"] == n) & (df["variant"] == v)]["value"]
            cell = ", ".join(hit) if len(hit) else "-"
            row.append("**FAIL**" if cell == "FAIL" else cell)
            if cell == "FAIL":
                failed.append("%s of %s" % (n, v))
        rows.append(row)
    return F.details(
        "%d checks and figures of each kernel's selftest boot%s" % (
            len(rows), "; FAIL: " + ", ".join(failed) if failed else ""),
        F.table(["check or figure"] + ["`%s`" % v for v in variants], rows))


def drift(st):
    rows = []
    for i in st["labels"]:
        rows.append(["`%s`" % i["label"], F.pct(i["drift_pct"]),
                     F.val(i["steal_max_pct"], 3), i["failed"],
                     "; ".join(i["failed_reasons"]) or "-",
                     ", ".join(map(str, i["missing_runs"])) or "-"])
    out = [F.table(["label", "drift (2nd vs 1st half)", "max steal %",
                    "failed tries", "reasons", "planned runs with no ok try"],
                   rows, "lrrrll"), "",
           "Runs are interleaved in rounds, every variant once per round. "
           "Drift over all runs (each normalised by its label's mean): %s."
           % F.pct(st["drift_overall_pct"])]
    if st["accel"] == "icount":
        out.append("Under icount guest time does not depend on the host, "
                   "so a difference between halves reflects those rounds' "
                   "perturbation seeds, not host drift.")
    return "\n".join(out)


def warnings(st):
    if not st["warnings"]:
        return "None."
    return "\n".join("- " + w for w in st["warnings"])


def _flat(prefix, x, out):
    """(dotted key, text) pairs of a JSON value; lists of objects are
    numbered (sessions.0.start_utc)."""
    if isinstance(x, dict):
        for k, v in x.items():
            _flat("%s.%s" % (prefix, k) if prefix else str(k), v, out)
    elif isinstance(x, list) and any(isinstance(v, dict) for v in x):
        for i, v in enumerate(x):
            _flat("%s.%d" % (prefix, i), v, out)
    elif isinstance(x, list):
        out.append((prefix, " ".join(str(v) for v in x)))
    else:
        out.append((prefix, "" if x is None else str(x)))


def meta(res):
    if not res.meta:
        return "No meta.json in this results dir."
    pairs = []
    _flat("", {k: v for k, v in res.meta.items() if k != "builds"}, pairs)
    return F.details(
        "meta.json, every key but builds (%d values)" % len(pairs),
        F.table(["meta.json key", "value"],
                [["`%s`" % k, v] for k, v in pairs], "ll"))


def confounds(st):
    """This run's accelerator's confound; the fixed ones are
    docs/method.md's."""
    old = reference.compares_2011(st["baseline"], st["groups"]["main"])
    return "- %s\n- Every run's: code layout and the sample unit%s " \
        "(docs/method.md)." % (accel(st).confound, (
            "; for 2011's comparison also `CONFIG_JUMP_LABEL=n`'s other "
            "paths and 2011's own unknowns" if old else ""))


def method(st):
    """A line naming the methods this run's stats.json records; what each
    says is docs/method.md."""
    return "%s: docs/method.md says how each is computed (this run's " \
        "stats.json `methods` records the same texts)." % ", ".join(
            k.replace("_", " ") for k in sorted(st["methods"]))


def hosts(st):
    """The report's lines on hosts (none for dirs without the columns)."""
    rows = st.get("hosts") or []
    if not rows:
        return ""
    return "Runs per host and QEMU version (ok runs):\n\n" + F.table(
        ["host", "QEMU", "runs"],
        [[r["host"], r["qemu_version"], r["runs"]] for r in rows],
        "llr") + "\n\n"
