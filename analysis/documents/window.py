"""What a window is made of, in words: one window's top kernel functions
and its guest-environment families (analysis/profile-top), and a suite
run's table of them, a row per workload (docs/workloads.md). The figures
are analysis/comparison/composition.py's."""
from analysis.comparison import composition
from analysis.sections import fmt

TOP_IN_TABLE = 5


def text(w, top):
    """The terminal listing of Window w: its top functions, then each
    family and the workload's own share."""
    out = ["%s" % w.path,
           "kernel instructions in the window: %d%s" % (
               w.total, " (%.0f per op, %d ops)" % (w.total / w.ops, w.ops)
               if w.ops else ""),
           "",
           "%5s  %-40s %14s %8s" % ("rank", "function", "insns", "share")]
    for i, f in enumerate(w.functions[:top], 1):
        fam = composition.family_of(f.name)
        out.append("%5d  %-40s %14d %7.2f%%%s" % (
            i, f.name, f.insns, f.share_pct,
            "  [%s]" % fam.name if fam else ""))
    out += ["", "guest environment (at most %.1f%% each):"
            % composition.LIMIT_PCT]
    for fam in composition.FAMILIES:
        n, share, members = w.families[fam.name]
        top_members = ", ".join("%s %.2f%%" % (f.name, f.share_pct)
                                for f in members[:3])
        out.append("  %-8s %-24s %7.3f%%%s" % (
            fam.name, fam.title, share,
            "  (%s)" % top_members if members else ""))
    out.append("the workload's own path: %.3f%%" % w.own_pct)
    return "\n".join(out) + "\n"


def suite_table(windows):
    """The Markdown table of [(workload, Window)]: kernel instructions per
    op, the top functions with their shares, each family's share and the
    workload's own."""
    rows = []
    for name, w in windows:
        top = ", ".join("%s %.1f%%" % (composition.base_name(f.name),
                                       f.share_pct)
                        for f in w.functions[:TOP_IN_TABLE])
        fams = " / ".join("%.2f" % w.families[f.name][1]
                          for f in composition.FAMILIES)
        rows.append(("`%s`" % name, "%.0f" % (w.total / w.ops), top, fams,
                     "%.2f%%" % w.own_pct))
    return fmt.table(
        ("workload", "kernel insns per op",
         "top %d kernel functions (share of the window)" % TOP_IN_TABLE,
         "%s (%%)" % " / ".join(f.name for f in composition.FAMILIES),
         "own path"),
        rows, "lrlrr")
