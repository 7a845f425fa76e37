"""REPORT.md's "Kernel configs" and "Kernel versions" sections: this run
beside the newest analysed run of each other config and Linux version
(their figures: analysis/comparison/configs.py), and what changed on the
path between versions (analysis/comparison/pathkeys.py)."""
import os

from analysis.comparison import pathkeys
from analysis.comparison.configs import (CONFIGS, JUMP, VERSIONS, figures,
                                         gain_difference, peers)
from analysis.sections import fmt as F
from analysis.sections.fmt import unit
from analysis.results.load import Results
from analysis.results.runinfo import linux_of, with_2011
from lib import source


def row(value, path, st, builds, out_dir, axis):
    """The table row of one run and the figures the summary needs."""
    f = figures(st, builds)
    sites, insns, saved, density, entries, jl, pr = (
        f["sites"], f["insns"], f["saved"], f["density"], f["entries"],
        f["gain"], f["plain_gain"])
    cells = [
        axis.cell(value),
        "[%s](%s)" % (os.path.basename(path),
                      os.path.relpath(path, out_dir)),
        "?" if entries is None else str(entries),
        F.val(sites) if sites else "n/a",
        F.val(insns) if insns else "n/a",
        F.val(density, 3) if density else "n/a",
        F.val(saved) if saved is not None else "n/a",
        F.val(saved / sites, 3) if saved is not None and sites else "n/a",
        "%s %s" % (F.pct_ci(jl), jl["marker"]) if jl else "n/a",
        "%s %s" % (F.pct_ci(pr), pr["marker"]) if pr else "n/a"]
    return cells, dict(f, name=axis.cell(value))


def _difference(here, there):
    """"a difference of D points [lo, hi] (...), verdict" of two runs'
    comparisons, or None when either lacks a CI."""
    diff = gain_difference(here, there)
    if diff is None:
        return None
    d, half = diff
    if abs(d) <= half:
        verdict = ("not resolved: these runs cannot tell a larger gain "
                   "from the same one")
    else:
        verdict = "the gain is %s there" % ("larger" if d > 0 else "smaller")
    return ("a difference of %+.2f points [%+.2f, %+.2f] (approximate 95%% "
            "CI, from the two runs' CIs), %s" % (d, d - half, d + half,
                                                 verdict))


def summary(figs):
    """One paragraph per other run: its site executions and path length
    against the first (this run's), and whether jump labels (and plain
    reads) gain more there."""
    first, out = figs[0], []
    for f in figs[1:]:
        if None in (first["sites"], f["sites"], first["insns"], f["insns"],
                    first["gain"], f["gain"]):
            continue
        jump = _difference(first["gain"], f["gain"])
        if jump is None:
            continue
        text = (
            "%s executes %sx the static-key sites per operation of %s "
            "(%s against %s), on a kernel path %sx as long (%s against %s "
            "kernel instructions per operation), so %s sites per 1,000 "
            "kernel instructions against %s. Jump labels gain %s there, "
            "%s here: %s." % (
                f["name"], F.val(f["sites"] / first["sites"], 3),
                first["name"], F.val(f["sites"]), F.val(first["sites"]),
                F.val(f["insns"] / first["insns"], 3), F.val(f["insns"]),
                F.val(first["insns"]), F.val(f["density"], 3),
                F.val(first["density"], 3), F.pct_ci(f["gain"]),
                F.pct_ci(first["gain"]), jump))
        plain = _difference(first.get("plain_gain"), f.get("plain_gain")) \
            if first.get("plain_gain") and f.get("plain_gain") else None
        if plain:
            text += " Plain reads gain %s there, %s here: %s." % (
                F.pct_ci(f["plain_gain"]), F.pct_ci(first["plain_gain"]),
                plain)
        out.append(text)
    return out


def _section(res, st, out_dir, axis, what, how, intro):
    """The Markdown of one side-by-side section along axis: what names
    its values ("kernel configs"), how says how to get the other runs,
    intro is the paragraph above the table."""
    if not with_2011(st):
        return ("Not shown: this section sets jump labels against atomic "
                "reads across %s, and this run compares other kernels "
                "(against `%s`)." % (what, st["baseline"]))
    runs = peers(res, st, axis)
    if len(runs) < 2:
        return ("No analysed run of other %s with this run's accelerator, "
                "clients and run length under %s (%s)." % (
                    what, os.path.relpath(os.path.dirname(res.path),
                                          out_dir), how))
    rows, figs = [], []
    for r in runs:
        cells, f = row(*r, out_dir=out_dir, axis=axis)
        rows.append(cells)
        figs.append(f)
    base = st["baseline"]
    out = [
        intro + " Instructions and sites are `%s`'s (the TCG plugin counts "
        "sites in jump-label kernels). A jump-label kernel executes a NOP "
        "at each static-key site; the others load the key and branch on "
        "it, so the kernel instructions `%s` runs beyond `%s` per "
        "operation, divided by the sites executed, are the check's cost "
        "per site. Under icount the gain follows the share of the path "
        "that checks take: more keys on the path raise it only if they "
        "outgrow the rest of the path." % (JUMP, base, JUMP),
        "",
        F.table([axis.column, "run",
                 "jump table entries (`%s`)" % JUMP,
                 "static-key site executions / op",
                 "kernel instructions / op",
                 "sites per 1,000 kernel instructions",
                 "`%s` - `%s` kernel instructions / op" % (base, JUMP),
                 "per site execution",
                 "`%s` vs `%s`, %s [95%% CI]" % (
                     JUMP, base, unit(st["headline"])),
                 "`plain-read` vs `%s`" % base], rows, "llrrrrrrrr")]
    said = summary(figs)
    if said:
        out += [""] + said
    out += ["", "Each run's comparisons are within it (its kernels on the "
            "same perturbation seeds); runs of different %s are not "
            "paired, and their absolute figures differ because their "
            "kernels do: compare the %% changes and the cost per site."
            % what]
    return "\n".join(out)


def section(res, st, out_dir):
    """Kernel configs side by side (this run's Linux version)."""
    return _section(
        res, st, out_dir, CONFIGS, "kernel configs",
        "`./run_all.sh --config distro` runs the same experiment on "
        "Debian's own configuration",
        "The same protocol on kernels of each base config "
        "(`kernel-variants/build --config`), each its own run: this one "
        "first.")


def versions_title():
    """The section's heading: every version lib/source.py knows."""
    return "Kernel versions: Linux %s" % " and ".join(source.SOURCES)


def _short(path):
    """results/RUN of a results dir's path (how a command names it)."""
    return os.path.join(os.path.basename(os.path.dirname(path)),
                        os.path.basename(path))


def path_changes(res, st):
    """The paragraphs and tables of what changed on the path between this
    run's version and each other one's, the older version first
    (analysis/comparison/pathkeys.py); [] when no run of another version has
    profiles."""
    out = []
    order = list(source.SOURCES)
    mine = linux_of(res.builds)
    for value, path, _st, _b in peers(res, st, VERSIONS)[1:]:
        sides = [(mine, res), (value, Results(path))]
        if value in order and mine in order and \
                order.index(value) < order.index(mine):
            sides.reverse()
        (va, ra), (vb, rb) = sides
        a, b = VERSIONS.cell(va), VERSIONS.cell(vb)
        got = pathkeys.changes(ra, rb, (a, b))
        if not got:
            continue
        by_insns, by_sites, d = got
        out += ["", "What changed on the path from %s to %s, function by "
                "function (means of the runs' per-function profiles of "
                "`%s`; the kernel's total: %s against %s kernel "
                "instructions per operation, %s), with the keys their "
                "sites test, read from the two `%s` builds' jump tables "
                "(a key of one build only says which). A function of one "
                "version only is one the other inlines, renames or does "
                "not have. `analysis/profile-diff %s:%s %s:%s` lists "
                "more." % (
                    a, b, JUMP, F.val(d.total["a"]), F.val(d.total["b"]),
                    "%+.2f" % d.total["diff"], JUMP, _short(ra.path), JUMP,
                    _short(rb.path), JUMP)]
        for what, rows in (("kernel instructions", by_insns),
                           ("static-key site executions", by_sites)):
            if rows:
                out += ["", "The %d functions whose %s per operation "
                        "changed most:" % (len(rows), what), "",
                        _path_table(a, b, rows)]
    return out


def _path_table(a, b, rows):
    """A table of pathkeys.changes() rows (a, b: the versions' names)."""
    return F.table(
        ["function", "%s / op" % a, "%s / op" % b, "difference",
         "site executions / op, %s" % a, "site executions / op, %s" % b,
         "keys at its sites"],
        [["`%s`" % name, F.val(x), F.val(y), "%+.2f" % diff,
          "n/a" if sa is None else F.val(sa),
          "n/a" if sb is None else F.val(sb), keys]
         for name, x, y, diff, sa, sb, keys in rows], "lrrrrrl")


def versions_section(res, st, out_dir):
    """Linux versions side by side (this run's config), then what
    changed on the path between them."""
    mine = linux_of(res.builds) or source.DEFAULT
    other = [v for v in source.SOURCES if v != mine]
    text = _section(
        res, st, out_dir, VERSIONS, "Linux versions",
        "`./run_all.sh --source %s` runs the same experiment on Linux %s"
        % (other[0], other[0]),
        "The same protocol on each Linux version Debian ships "
        "(`./run_all.sh --source`: Debian's linux-source package of it, "
        "with our series ported to it, and the same config fragments), "
        "each its own run: this one first. Between versions the network "
        "path changes and so do the static keys on it: the jump table "
        "counts every key's sites in the kernel, the site executions only "
        "those tbench's path runs.")
    if not with_2011(st):
        return text
    return "\n".join([text] + path_changes(res, st))
