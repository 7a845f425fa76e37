"""What changed on tbench's path between two runs of jump-label kernels
(REPORT.md's "Kernel versions"): the functions whose kernel instructions
per operation changed most, their static-key site executions per
operation in each run, and the keys their sites test; and the functions
whose sites a run passes most (busiest: "Across the kernel").

The figures are the runs' per-function profiles (raw/*.profile.gz,
analysis/comparison/profile.py: jump-label against jump-label, so no part of a
difference is a check's cost). The keys are names, not measurements: the
data symbols that the jump table entries of the function's sites point
into (a tracepoint's key sits inside its struct tracepoint, so the
tracepoint is named), read from the jump-label build's vmlinux, which is
in the build cache (meta.json `builds`), not in the results dir: where
the build is not at hand the column says so.
"""
import bisect
import os

from analysis.comparison import profile
from analysis.results.load import FormatError
from lib import hostinfo, variants, vmlinux

JUMP = variants.JUMP
SHOWN_KEYS = 3


def build_dir(res, variant=JUMP):
    """The build dir of variant's kernel in this machine's cache, or None
    when meta.json does not name it or it is not there."""
    b = (res.meta.get("builds") or {}).get(variant) or {}
    path = hostinfo.local_path(b.get("dir"))
    return path if path and os.path.isfile(
        os.path.join(path, "vmlinux")) else None


def site_keys(build):
    """{function: sorted key symbols} of the jump table of a build dir's
    vmlinux: per code symbol holding sites, the data symbols their keys
    lie in."""
    path = os.path.join(build, "vmlinux")
    syms = vmlinux.symbols(path)
    table = vmlinux.jump_table(path, syms)
    code, _ = vmlinux.code_symbols(path)
    starts = [a for a, _ in code]
    held = vmlinux.Holders(syms)
    out = {}
    for site, _target, key, _flags in table["decoded"]:
        i = bisect.bisect_right(starts, site) - 1
        if i < 0:
            continue
        holder = held.at(key)
        out.setdefault(code[i][1], set()).add(
            holder[0] if holder else "%#x" % key)
    return {f: sorted(k) for f, k in out.items()}


def keys_at(res, functions, variant=JUMP):
    """{function: the keys its sites test} of those of functions that have
    static-key sites, in their order, read from the vmlinux of variant's
    build of res; None when that build is not in this machine's cache."""
    build = build_dir(res, variant)
    if build is None:
        return None
    keys = site_keys(build)
    return {f: keys[f] for f in functions if keys.get(f)}


def busiest(res, keys, label=JUMP, n=SHOWN_KEYS):
    """The n functions whose static-key sites label's tries in res pass
    most often, each (name, site executions per op, the keys at its sites:
    keys is site_keys()'s dict, or None when no build is at hand); []
    when the run's profiles of label do not count sites."""
    try:
        s = profile.Tries(res, label).per_op(profile.SITES).mean()
    except FormatError:
        return []
    return [(name, float(x), None if keys is None else keys.get(name, []))
            for name, x in s[s > 0].nlargest(n).items()]


def _keys_cell(keys, names):
    """The keys at a function's sites in the two builds (keys: two lists,
    None where a build is not at hand), a key of one build only marked
    with its name (names: the two runs'); at most SHOWN_KEYS named."""
    if None in keys:
        return "build not at hand"
    both = sorted(set(keys[0]) | set(keys[1]))
    if not both:
        return "-"
    cells = ["`%s`%s" % (k, "" if k in keys[0] and k in keys[1] else
                         " (%s only)" % names[0 if k in keys[0] else 1])
             for k in both[:SHOWN_KEYS]]
    more = len(both) - SHOWN_KEYS
    return ", ".join(cells) + (" and %d more" % more if more > 0 else "")


def changes(res_a, res_b, names, n=10):
    """What changed from res_a's jump-label kernel to res_b's: (by_insns,
    by_sites, Diff), by_insns the n functions whose kernel instructions
    per op changed most, by_sites the n whose static-key site executions
    per op did ([] when a run's profiles do not count sites), each row
    (name, instructions per op in a and in b, their difference, site
    executions per op in a and in b, the keys at its sites in either
    build; names: the runs' names for the keys of one build only); None
    when a run has no jump-label profiles."""
    try:
        d = profile.compare((res_a, JUMP), (res_b, JUMP))
    except (FormatError, KeyError, ValueError):
        return None
    sites = []
    for t in (d.a, d.b):
        try:
            sites.append(t.per_op(profile.SITES).mean())
        except FormatError:
            sites.append(None)
    keys = []
    for res in (res_a, res_b):
        build = build_dir(res)
        keys.append(site_keys(build) if build else None)

    def row(name):
        s = [None if x is None else float(x.get(name, 0.0)) for x in sites]
        a, b = float(d.mean_a.get(name, 0.0)), float(d.mean_b.get(name, 0.0))
        return (name, a, b, b - a, s[0], s[1], _keys_cell(
            [None if k is None else k.get(name, []) for k in keys], names))

    by_insns = [row(r["name"]) for r in d.rows(n) if r["kind"] == "function"]
    by_sites = []
    if all(x is not None for x in sites):
        delta = sites[1].sub(sites[0], fill_value=0.0)
        delta = delta[delta != 0]
        ranked = sorted(zip(-delta.abs().values, delta.index))
        by_sites = [row(name) for _, name in ranked[:n]]
    return by_insns, by_sites, d
