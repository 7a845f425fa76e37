"""The results format in one place: runs.csv and samples.csv columns, the
counters, the per-run metrics and the accelerators.

bench/ writes runs.csv and samples.csv from these tables, analysis/ reads
and describes them with them, plots/prepare labels its figures with them,
and tests check lib/format/FORMATS.md (its tables are formats_tables(),
which `python3 -m lib.format.formats --write` renders there) and the test
fixtures against them. The analysis outputs' columns are
lib/format/outputs.py's.

Adding a counter of the branch-count plugin (bench/plugin/branches.c) is
one entry in PLUGIN_FIELDS: counts.py parses it, results.py gives it a
runs.csv column, analysis divides it by `ops` and reports it under that
name, plots draws it when it has a panel, analysis/compare compares it.
A variant is not named here except BASELINE, the default kernel every other
one is compared with (lib/variants.py's).
"""
import re
from collections import namedtuple

from lib import variants, workloads

BASELINE = variants.BASELINE

# A runs.csv column. unit: None for text columns (kept as text by
# analysis), else the unit of a number; block: the key of the agent's
# result block (guest-image/PROTOCOL.md) the figure is copied from, or
# None; later: absent in results dirs from before it existed.
Column = namedtuple("Column", "name unit block later doc")


def _col(name, doc, unit=None, block=None, later=False):
    return Column(name, unit, block, later, doc)


RUN_COLUMNS = [
    _col("index", "1-based run number in the plan", "count"),
    _col("round", "round of the plan", "count"),
    _col("position", "position in the round", "count"),
    _col("variant", "kernel variant"),
    _col("label", "the variant; `<variant>.aa` for the default A/A twin of "
         "the baseline; `A`/`B` in an A/A-only control"),
    _col("accel", "the accelerator (see Accelerators; `mode` in older "
         "dirs)"),
    _col("perturb_seed", "0 = none; icount: one per round, the same "
         "for every variant; A/A twins and `B` draw theirs from a stream of "
         "their own"),
    _col("try", "try of the run, from 1", "count"),
    _col("kernel_hash", "build hash of the kernel"),
    _col("image_hash", "hash of the initramfs"),
    _col("status", "`ok` or `failed`"),
    _col("reason", "one line, failed tries"),
    _col("throughput_mbps", "tbench's throughput", "MB/s",
         "throughput_mbps"),
    _col("max_latency_ms", "tbench's maximum latency", "ms",
         "max_latency_ms"),
    _col("ops", "tbench operations completed in the measured phase",
         "operations", "ops"),
    _col("boot_seconds", "guest uptime when the agent started", "s",
         "uptime_agent_start_s"),
    _col("uptime_tbench_start_s", "guest uptime when tbench started", "s",
         "uptime_tbench_start_s"),
    _col("uptime_tbench_end_s", "guest uptime when tbench ended", "s",
         "uptime_tbench_end_s"),
    _col("wall_seconds", "QEMU start to exit, host clock", "s"),
    _col("user_ticks", "/proc/stat delta across tbench", "ticks",
         "stat.user_ticks"),
    _col("system_ticks", "/proc/stat delta across tbench", "ticks",
         "stat.system_ticks"),
    _col("steal_ticks", "/proc/stat delta across tbench", "ticks",
         "stat.steal_ticks"),
    _col("idle_ticks", "/proc/stat delta across tbench", "ticks",
         "stat.idle_ticks"),
    _col("irq_ticks", "/proc/stat delta across tbench", "ticks",
         "stat.irq_ticks"),
    _col("softirq_ticks", "/proc/stat delta across tbench", "ticks",
         "stat.softirq_ticks"),
    _col("total_ticks", "sum of the eight /proc/stat fields (stat.*_ticks),"
         " empty unless all are known", "ticks"),
    _col("kernel_warnings", "WARN/RCU stall/hung task lines on the console",
         "count"),
    _col("started_utc", "when the try started"),
    _col("seconds", "tbench's run length (where absent: meta.json "
         "`protocol.seconds`)", "s", later=True),
    _col("host", "where the try ran: the Slurm node name in a Slurm task, "
         "else the host name", later=True),
    _col("qemu_version", "first line of `qemu-system-x86_64 --version` "
         "there", later=True),
]
# The eight /proc/stat fields the agent reports as stat.<field>_ticks;
# total_ticks is their sum.
STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq",
               "steal")
SAMPLE_COLUMNS = ["index", "variant", "label", "second", "throughput_mbps",
                  "warmup"]
# Cells of a counter that was not measured: kept as text, never 0.
NOT_MEASURED = ("not-supported", "not-counted")

# A counter: a runs.csv column counted per try, reported per tbench
# operation (counts / ops). key: its key in the plugin's report (perf: the
# event); name: how REPORT.md names it; better: "lower", "higher" or None
# (descriptive); branches: a count of branches (the report says branches
# were measured when one has a number); panel: (position, title) of its
# panel in plots/branches, or None; required: a plugin report without it
# is unusable.
Counter = namedtuple("Counter", "key column unit name better branches panel "
                     "required")

# The plugin's window figures, in runs.csv order (counted between the
# agent's start and end markers, or `not-counted`).
PLUGIN_COUNTERS = [
    Counter("kernel_insns", "kernel_insns", "instructions",
            "kernel instructions (TCG plugin)", "lower", False,
            (4, "kernel instructions / op"), True),
    Counter("user_insns", "user_insns", "instructions",
            "user instructions (TCG plugin)", "lower", False, None, True),
    Counter("kernel_branches", "kernel_branches", "conditional branches",
            "kernel conditional branches (TCG plugin)", "lower", True,
            (1, "kernel conditional branches / op"), False),
    Counter("user_branches", "user_branches", "conditional branches",
            "user conditional branches (TCG plugin)", "lower", True,
            (2, "user conditional branches / op"), False),
    Counter("site_execs", "site_execs", "site executions",
            "static-key site executions (TCG plugin)", None, False, None,
            False),
]
# Other fields of the plugin's report that get a runs.csv column (after
# the counters): key -> column.
PLUGIN_FLAGS = {"window": "plugin_window"}
PLUGIN_COLUMNS = [c.column for c in PLUGIN_COUNTERS] + list(
    PLUGIN_FLAGS.values())


def _model(key, unit, name):
    return Counter(key, key, unit, name + " (model)", "lower", False, None,
                   False)


# The window figures of the plugin's model of a core (`bench/run --model`,
# lib/model.py); runs.csv has these columns only in runs with the model.
MODEL_COUNTERS = [
    _model("kernel_mispredicts", "mispredictions",
           "kernel branch mispredictions"),
    _model("user_mispredicts", "mispredictions",
           "user branch mispredictions"),
    _model("kernel_btb_misses", "BTB misses", "kernel BTB misses"),
    _model("user_btb_misses", "BTB misses", "user BTB misses"),
    _model("kernel_l1i_accesses", "line fetches", "kernel L1I line fetches"),
    _model("kernel_l1i_misses", "misses", "kernel L1I misses"),
    _model("user_l1i_accesses", "line fetches", "user L1I line fetches"),
    _model("user_l1i_misses", "misses", "user L1I misses"),
    _model("kernel_l1d_accesses", "accesses", "kernel L1D accesses"),
    _model("kernel_l1d_misses", "misses", "kernel L1D misses"),
    _model("user_l1d_accesses", "accesses", "user L1D accesses"),
    _model("user_l1d_misses", "misses", "user L1D misses"),
    _model("key_accesses", "accesses", "static-key word accesses"),
    _model("key_misses", "misses", "static-key word L1D misses"),
    _model("branches_unresolved", "branches",
           "conditional branches left unresolved"),
    # with the model's L2 only (l2=): the L1 misses that missed it too
    _model("kernel_l2i_misses", "misses", "kernel L1I misses missing the L2"),
    _model("user_l2i_misses", "misses", "user L1I misses missing the L2"),
    _model("kernel_l2d_misses", "misses", "kernel L1D misses missing the L2"),
    _model("user_l2d_misses", "misses", "user L1D misses missing the L2"),
    # the overlap rule's classes of L1D misses (bench/plugin/overlap.h), in
    # runs whose meta.json "model" has "overlap"; the l2d_ ones with l2=
    _model("kernel_l1d_fed", "misses",
           "kernel L1D misses feeding a mispredicted branch"),
    _model("user_l1d_fed", "misses",
           "user L1D misses feeding a mispredicted branch"),
    _model("kernel_l1d_groups", "groups",
           "kernel groups of independent L1D misses"),
    _model("user_l1d_groups", "groups",
           "user groups of independent L1D misses"),
    _model("kernel_l2d_fed", "misses",
           "kernel L1D misses to memory feeding a mispredicted branch"),
    _model("user_l2d_fed", "misses",
           "user L1D misses to memory feeding a mispredicted branch"),
    _model("kernel_l2d_groups", "groups",
           "kernel groups of independent L1D misses reaching memory"),
    _model("user_l2d_groups", "groups",
           "user groups of independent L1D misses reaching memory"),
]
L2_COLUMNS = ["kernel_l2i_misses", "user_l2i_misses", "kernel_l2d_misses",
              "user_l2d_misses"]
OVERLAP_COLUMNS = ["kernel_l1d_fed", "user_l1d_fed", "kernel_l1d_groups",
                   "user_l1d_groups"]
OVERLAP_L2_COLUMNS = ["kernel_l2d_fed", "user_l2d_fed", "kernel_l2d_groups",
                      "user_l2d_groups"]
# The columns of every run with the model, and of those with its L2.
MODEL_COLUMNS = [c.column for c in MODEL_COUNTERS
                 if c.column not in L2_COLUMNS + OVERLAP_COLUMNS
                 + OVERLAP_L2_COLUMNS]


def model_columns(model):
    """runs.csv's columns of the model in a run with meta.json's "model"
    entry model (none when it is None): the overlap rule's only in runs
    that have it (meta.json "overlap"), after the others."""
    if not model:
        return []
    l2 = "l2" in model["geometry"]
    return MODEL_COLUMNS + (L2_COLUMNS if l2 else []) + (
        OVERLAP_COLUMNS + (OVERLAP_L2_COLUMNS if l2 else [])
        if "overlap" in model else [])


# Modelled cycles: a counter analysis derives from the columns above and
# meta.json's penalties (analysis/results/load.py); never a runs.csv column.
MODEL_CYCLES = Counter("model_cycles", "model_cycles", "cycles",
                       "modelled cycles (model)", "lower", False,
                       None, False)
# The same with the overlap rule of an out-of-order core (lib/model.py
# overlap_cycles()), in runs that have its counts.
MODEL_CYCLES_OOO = Counter("model_cycles_ooo", "model_cycles_ooo", "cycles",
                           "modelled cycles with overlap (model)", "lower",
                           False, None, False)
DERIVED_MODEL = [MODEL_CYCLES, MODEL_CYCLES_OOO]


def is_model(column):
    """The column is one of the model's counters (modelled cycles too)."""
    return column in [c.column for c in MODEL_COUNTERS + DERIVED_MODEL]


# perf events (`bench/run --perf`) with more to say than their name; any
# other event is a counter named "perf <event key>".
PERF_COUNTERS = [
    Counter("branches", "perf_branches", "branches", "perf branches",
            "lower", True, (3, "branches / op (perf)"), False),
    Counter("branch-misses", "perf_branch_misses", "branch misses",
            "perf branch_misses", "lower", True, None, False),
]


def event_key(event):
    """The agent's key for a perf event: lower case, [^a-z0-9_] -> _."""
    return re.sub(r"[^a-z0-9_]", "_", event.lower())


def perf_column(event):
    """runs.csv column of a perf event: perf_<event key>."""
    return "perf_" + event_key(event)


def counter(column):
    """The Counter of a counter column (a perf column not in PERF_COUNTERS
    gets a default one)."""
    for c in PLUGIN_COUNTERS + PERF_COUNTERS + MODEL_COUNTERS + \
            DERIVED_MODEL:
        if c.column == column:
            return c
    if column.startswith("perf_"):
        key = column[len("perf_"):]
        return Counter(key, column, "events", "perf %s" % key, None, False,
                       None, False)
    raise KeyError("%s is not a counter column" % column)


def counter_columns(columns):
    """The counter columns among columns: perf_<event> (in their order),
    then the plugin's counters, then the model's (with modelled cycles)."""
    return ([c for c in columns if c.startswith("perf_")]
            + [c.column for c in PLUGIN_COUNTERS + MODEL_COUNTERS
               + DERIVED_MODEL if c.column in columns])


def run_columns(perf_events, later=True, model=None,
                workload=workloads.DEFAULT):
    """runs.csv's header for a run counting perf_events, with the model's
    columns when model (meta.json's "model" entry; later=False: as in dirs
    from before the later columns) and the workload's own columns."""
    return ([c.name for c in RUN_COLUMNS if later or not c.later]
            + [perf_column(e) for e in perf_events] + PLUGIN_COLUMNS
            + model_columns(model)
            + [c.name for c in figures(workload).columns])


# runs.csv columns renamed since older dirs were written: old name -> today's.
# Every reader of runs.csv goes through current(); a resumed older dir keeps
# its own header (lib/format/results.py).
RENAMED = {"mode": "accel"}


def current(columns):
    """Today's names of runs.csv columns (a header or a row's keys)."""
    return [RENAMED.get(c, c) for c in columns]


def current_row(row):
    """A runs.csv row (a dict) by today's column names."""
    return {RENAMED.get(c, c): v for c, v in row.items()}


def required_columns():
    """The columns every runs.csv has."""
    return [c.name for c in RUN_COLUMNS if not c.later]


def numeric_columns():
    """The runs.csv columns analysis reads as numbers (counters aside)."""
    return [c.name for c in RUN_COLUMNS + WORKLOAD_COLUMNS if c.unit]


# A per-run metric. throughput: a speed of tbench (one is the headline of
# each accelerator); derived: computed from other columns, not a runs.csv
# column.
Metric = namedtuple("Metric", "name title unit better throughput derived")
METRICS = [
    Metric("ops_per_s", "tbench operations per second", "ops/s", "higher",
           True, True),
    Metric("throughput_mbps", "tbench throughput", "MB/s", "higher", True,
           False),
    Metric("max_latency_ms", "tbench maximum latency", "ms", "lower", False,
           False),
    Metric("ops", "tbench operations in the measured phase", "operations",
           "higher", False, False),
]
THROUGHPUT = {m.name: m for m in METRICS if m.throughput}

# What a workload's runs measure, by the agent's task (lib/workloads.py):
# metrics: the METRICS of its runs (other runs.csv figures stay empty);
# headline: its headline metric, or None for the accelerator's (ACCELS);
# columns: runs.csv columns of its own, after the others.
Figures = namedtuple("Figures", "metrics headline columns")
PIPE_COLUMNS = [
    _col("pipe_usecs_per_op", "perf bench sched pipe's microseconds per "
         "round trip, by its own clock (guest time under icount)", "us",
         "pipe_usecs_per_op"),
]
COMMAND_COLUMNS = [
    _col("workload_s", "guest seconds from the start of the workload's "
         "command to its exit (agent task run)", "s", "workload_s"),
]
_FIGURES = {
    workloads.TBENCH: Figures(tuple(m.name for m in METRICS), None, []),
    workloads.PIPE: Figures(("ops_per_s", "ops"), "ops_per_s", PIPE_COLUMNS),
    workloads.RUN: Figures(("ops_per_s", "ops"), "ops_per_s",
                           COMMAND_COLUMNS),
}
WORKLOAD_COLUMNS = PIPE_COLUMNS + COMMAND_COLUMNS
# The agent tasks of fixed work and the result-block key of the figure each
# reports of its own (lib/format/console.py checks it).
OWN_FIGURE = {task: f.columns[0].block for task, f in _FIGURES.items()
              if f.columns}


def figures(workload):
    """The Figures of a workload (its name, as lib/workloads.py has it)."""
    return _FIGURES[workloads.WORKLOAD[workload].task]


def workload(meta):
    """The workload of a results dir's meta.json (tbench in dirs from
    before the choice existed)."""
    return workloads.of((meta or {}).get("protocol") or {}).name


# An accelerator and every text that describes it. runs_csv: a value
# of runs.csv's accel column (kvm-nested is kvm on a host that was itself
# emulated, meta.json host.nested); wall_clock: figures are the machine's
# wall-clock time (so runs from several hosts do not mix); headline: the
# throughput metric that answers the question.
Accel = namedtuple("Accel", "name runs_csv wall_clock headline description "
                   "head what sees confound headline_why plot_title axis")
_MBPS_HEADLINE = ("The headline is tbench's MB/s, as in 2011; operations "
                  "per second are shown beside it.")
ACCELS = [
    Accel("kvm", True, True, "throughput_mbps",
          description="KVM: hardware throughput",
          head="accelerator kvm: hardware",
          what="KVM on real hardware: hardware throughput",
          sees="This accelerator runs the guest on the host's CPU: its "
               "figures include branch prediction and caches, and the host's "
               "own noise.",
          confound="kvm: hardware figures include host noise (frequency "
                   "scaling, other load); see steal time and drift.",
          headline_why=_MBPS_HEADLINE,
          plot_title="accelerator kvm: hardware",
          axis={"throughput_mbps": "MB/s (KVM, hardware)",
                "ops_per_s": "tbench operations per second (KVM, hardware)"}),
    Accel("tcg", True, True, "throughput_mbps",
          description="QEMU TCG: emulated wall-clock time, noisy, not "
                      "hardware throughput",
          head="accelerator tcg: emulated wall-clock, noisy, not hardware",
          what="QEMU TCG (emulation) timed by the wall clock: noisy, not "
               "hardware throughput",
          sees="This accelerator times an emulator by the wall clock: it "
               "mixes the guest's work with translation and host noise "
               "(10-14% between boots here), and sees no hardware effects "
               "of the guest's code.",
          confound="tcg: wall-clock time of an emulator is dominated by "
                   "translation and host noise; effects of a few per cent "
                   "are hard to resolve.",
          headline_why=_MBPS_HEADLINE,
          plot_title="accelerator tcg: emulated wall clock, not hardware",
          axis={"throughput_mbps": "MB/s, wall clock (emulated, TCG)",
                "ops_per_s": "tbench operations per second, wall clock "
                             "(emulated, TCG)"}),
    Accel("icount", True, False, "ops_per_s",
          description="QEMU TCG with -icount: a deterministic "
                      "instruction-path model in guest time, not hardware "
                      "throughput",
          head="accelerator icount: deterministic instruction-path model in "
               "guest time, not hardware",
          what="QEMU TCG with `-icount`, where throughput is measured in "
               "guest time and every instruction costs the same: a "
               "deterministic model of instruction-path length, not hardware "
               "throughput",
          sees="This accelerator sees the instructions each static-key check "
               "executes (every guest instruction costs the same guest "
               "time); it cannot see branch prediction, caches or pipelines, "
               "where jump labels also help on hardware.",
          confound="icount: every guest instruction costs the same guest "
                   "time, so throughput here measures instruction-path "
                   "length only; branch prediction, caches and pipelines, "
                   "where jump labels also help on hardware, are not "
                   "modelled.",
          headline_why="Under icount the headline is operations per guest "
                       "second: a run covers under 2% of tbench's loadfile, "
                       "so its MB/s depends on where in the loadfile its "
                       "window falls (see \"MB/s explained\").",
          plot_title="accelerator icount: instruction-path model in guest "
                     "time, not hardware",
          axis={"throughput_mbps": "MB/s in guest time (icount model)",
                "ops_per_s": "tbench operations per guest second (icount "
                             "model)"}),
    Accel("kvm-nested", False, True, "throughput_mbps",
          description="KVM inside an emulated machine (QEMU TCG, meta.json "
                      "host.nested): wall-clock figures of emulation, not "
                      "hardware throughput",
          head="accelerator kvm, nested in an emulated machine: wall-clock "
               "of QEMU TCG, not hardware",
          what="KVM nested inside an emulated machine (QEMU TCG with SVM, "
               "meta.json `host.nested`), timed by the wall clock: a "
               "functional run of the kvm path whose figures are not "
               "hardware throughput and compare with nothing",
          sees="This run's KVM host was itself an emulated machine (QEMU "
               "TCG): the guest's code was emulated, so its figures show no "
               "hardware effect of jump labels.",
          confound="kvm, nested: the KVM host was itself emulated (QEMU "
                   "TCG), so every figure mixes emulation, nested "
                   "virtualisation exits and host noise; they are not "
                   "hardware throughput and not comparable with 2011's or "
                   "any other run's.",
          headline_why=_MBPS_HEADLINE,
          plot_title="accelerator kvm, nested in an emulated machine: not "
                     "hardware",
          axis={"throughput_mbps": "MB/s, wall clock of nested KVM "
                                   "(emulated host)",
                "ops_per_s": "tbench operations per second, wall clock of "
                             "nested KVM (emulated host)"}),
]
ACCEL = {m.name: m for m in ACCELS}
RUN_ACCELS = tuple(m.name for m in ACCELS if m.runs_csv)


def run_accel(meta):
    """The accelerator of a results dir's meta.json: accel.name (accel.mode
    in older dirs)."""
    a = meta.get("accel") or {}
    return a.get("name") or a.get("mode")


def accel_key(accel, nested):
    """The ACCEL key of a run: its runs.csv accel, or kvm-nested for a kvm
    run whose host was itself emulated (nested: meta.json host.nested)."""
    return "kvm-nested" if accel == "kvm" and nested else accel


def table(header, rows):
    """A Markdown table (rows: lists of cells)."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def code(x):
    """x in backticks, `-` when empty."""
    return "`%s`" % x if x else "-"


def formats_tables():
    """{title: Markdown table} of the tables lib/format/FORMATS.md shows."""
    return {
        "runs.csv columns": table(
            ["column", "unit", "agent key", "meaning"],
            [[code(c.name), c.unit or "text", code(c.block),
              c.doc + (" (absent in older dirs)" if c.later else "")]
             for c in RUN_COLUMNS]),
        "counters": table(
            ["column", "report key", "unit", "name in REPORT.md", "better",
             "plot panel"],
            [[code(c.column), code(c.key), c.unit, c.name,
              c.better or "-", c.panel[1] if c.panel else "-"]
             for c in PLUGIN_COUNTERS + PERF_COUNTERS + MODEL_COUNTERS
             + DERIVED_MODEL]),
        "metrics": table(
            ["metric", "unit", "what", "better", "headline in"],
            [[code(m.name), m.unit, m.title, m.better,
              ", ".join(x.name for x in ACCELS if x.headline == m.name)
              or "-"] for m in METRICS]),
        "workloads": table(
            ["workload", "one operation", "metrics", "headline",
             "columns of its own"],
            [[code(w.name), w.op, ", ".join(code(m) for m in f.metrics),
              code(f.headline) if f.headline else "the accelerator's",
              ", ".join(code(c.name) for c in f.columns) or "-"]
             for w in workloads.WORKLOADS for f in [figures(w.name)]]),
        "accelerators": table(
            ["accel", "in runs.csv", "wall clock", "what its figures are"],
            [[code(m.name), "yes" if m.runs_csv else "no (kvm)",
              "yes" if m.wall_clock else "no", m.description]
             for m in ACCELS]),
    }
