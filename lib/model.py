"""The modelled hardware of `bench/run --model`: its parameters and penalties.

With --model, the branch-count plugin (bench/plugin/README.md, "Model")
also runs a model of a core's front end and L1 caches over the guest's
instruction and memory streams: a gshare branch predictor with a BTB, an
L1 instruction cache and an L1 data cache, and it counts the accesses to
the static-key words (bench/model/keywords.py). The model is a stated
approximation, not hardware: REPORT.md labels every figure from it as
modelled.

Three kinds of parameters, each settable with `--model-set NAME=VALUE` and
recorded in meta.json's "model":
- GEOMETRY: passed to the plugin as NAME=VALUE (it checks them at start);
- OPTIONS: structures off unless set (an L2, next-line L1I prefetch, a
  TAGE-like predictor instead of gshare): passed to the plugin, and
  recorded in the geometry, only when set, so a run without them is what
  it was; the core presets set them;
- PENALTIES: cycles charged per event when analysis turns the counts into
  modelled cycles = instructions + sum of penalty x events; the L2's
  (OPTION_PENALTIES) only in runs with l2=.
- CORE: the out-of-order overlap rule's reorder buffer and dispatch width
  (bench/plugin/overlap.h): the plugin groups the L1D misses by rob=
  (passed only when it is not the plugin's own default, so the default
  model's arguments are what they were), and analysis prices the groups
  with the penalties and hide = rob / width cycles (overlap_cycles()):
  modelled cycles with overlap, beside the in-order sum above, its upper
  bound.
The defaults resemble a current x86-64 core (e.g. Zen 4 or Golden Cove:
32 KiB 8-way L1I and L1D, 64-byte lines, a mispredict costs 13-17 cycles,
an L1 miss that hits L2 about 14).

PRESETS (`--model-preset NAME`) set every parameter after a published
core (docs/model.md has the table with the source of each figure);
--model-set changes single parameters on top of one.
"""
from collections import namedtuple

Param = namedtuple("Param", "name default doc")

GEOMETRY = [
    Param("l1i", "32768:8", "L1 instruction cache: bytes:ways"),
    Param("l1d", "32768:8", "L1 data cache: bytes:ways"),
    Param("line", "64", "cache line bytes (both caches)"),
    Param("bp", "4096:12", "gshare predictor: 2-bit counters:history bits"),
    Param("btb", "4096:4", "branch target buffer (taken conditional "
          "branches): entries:ways"),
]
OFF = "off"
OPTIONS = [
    Param("l2", OFF, "unified L2 behind L1I and L1D: bytes:ways"),
    Param("iprefetch", OFF, "next-line L1I prefetch: next-line"),
    Param("tage", OFF, "TAGE-like predictor instead of gshare (bp): base "
          "counters:tables:entries per table:tag bits:min history:max "
          "history"),
]
OPTION_NAMES = [p.name for p in OPTIONS]
# The form of each parameter's value: (number of positive integers, or a
# tuple of the words it takes; the form's name for messages). An option
# also takes "off".
FORMS = {
    "l1i": (2, "bytes:ways"), "l1d": (2, "bytes:ways"),
    "l2": (2, "bytes:ways or off"), "bp": (2, "entries:history"),
    "btb": (2, "entries:ways"),
    "iprefetch": ((OFF, "next-line"), "off or next-line"),
    "tage": (6, "base:tables:entries:tagbits:minhist:maxhist or off"),
}
PENALTIES = [
    Param("mispredict", "15", "cycles per mispredicted conditional branch"),
    Param("btb_miss", "5", "cycles per taken branch missing in the BTB"),
    Param("l1i_miss", "14", "cycles per L1I miss (served by L2)"),
    Param("l1d_miss", "14", "cycles per L1D miss (served by L2)"),
]
# Penalties of an option, charged only in runs with it (OPTION_OF).
OPTION_PENALTIES = [
    Param("l2_miss", "36", "cycles per L1I or L1D miss that also misses "
          "the L2, on top of l1i_miss or l1d_miss (the model has no L3: "
          "taken as an L3 hit); only with l2="),
]
OPTION_OF = {"l2_miss": "l2"}
# The reorder buffer the plugin models when it is given no rob=: a copy
# of bench/plugin/modelcfg.h's MODEL_DEFAULT_ROB, not a choice of its own
# (tests/test_model_presets.py fails when the two differ). _geometry()
# passes rob= only when a run's differs, so that the default model's plugin
# arguments are what they were before the overlap rule. The plugin takes
# 1..OOO_MAX_ROB (bench/plugin/overlap.h, 65536), a bound, not a default.
PLUGIN_ROB = "256"
CORE = [
    # the default core's is the plugin's own (a default of another value
    # would be passed as rob=)
    Param("rob", PLUGIN_ROB, "reorder buffer entries, the overlap rule's "
          "window (instructions)"),
    Param("width", "4", "dispatch width (instructions a cycle); a window "
          "hides rob / width cycles of a data miss"),
]
# The events of each penalty: runs.csv columns (kernel, user).
PENALTY_EVENTS = {
    "mispredict": ("kernel_mispredicts", "user_mispredicts"),
    "btb_miss": ("kernel_btb_misses", "user_btb_misses"),
    "l1i_miss": ("kernel_l1i_misses", "user_l1i_misses"),
    "l1d_miss": ("kernel_l1d_misses", "user_l1d_misses"),
    "l2_miss": ("kernel_l2i_misses", "user_l2i_misses",
                "kernel_l2d_misses", "user_l2d_misses"),
}
INSNS = ("kernel_insns", "user_insns")
# The overlap rule's classes of L1D misses (runs.csv columns, kernel and
# user; bench/plugin/overlap.h): misses feeding a mispredicted branch,
# and groups of independent ones; the l2d_ ones only with l2= (of those,
# the misses to memory, and the groups holding one).
OVERLAP_EVENTS = {
    "fed": ("kernel_l1d_fed", "user_l1d_fed"),
    "fed_mem": ("kernel_l2d_fed", "user_l2d_fed"),
    "groups": ("kernel_l1d_groups", "user_l1d_groups"),
    "groups_mem": ("kernel_l2d_groups", "user_l2d_groups"),
}
ALL = GEOMETRY + OPTIONS + CORE + PENALTIES + OPTION_PENALTIES
NAMES = [p.name for p in ALL]

# Core presets: every parameter after a published core, each figure with
# its source (REFERENCES) or, where none is published, "assumed" and why
# (docs/model.md shows the table, preset_table()).
Preset = namedtuple("Preset", "core values sources")
REFERENCES = {
    "agner": "Agner Fog, The microarchitecture of Intel, AMD and VIA CPUs "
             "(agner.org/optimize), Nehalem: \"the measured misprediction "
             "penalty is at least 17 clock cycles\"; Sandy Bridge's BTB "
             "\"is bigger than in Nehalem according to unofficial "
             "rumors\" (no size for either)",
    "nhm-caches": "Nehalem's caches: 32 KB 4-way L1I, 32 KB 8-way L1D, "
                  "256 KB 8-way L2 of 64-byte lines, L2 10 cycles, L3 40 "
                  "(course notes: openbooks.link/?p=11728, redirect.cs.umbc"
                  ".edu/~olano/class/611-16-2/hw5.html; the sizes also in "
                  "hardwaresecrets.com, Inside Intel Nehalem "
                  "Microarchitecture p. 3); L3 load to use 30-40 "
                  "cycles according to Intel's architects (D. Kanter, Real "
                  "World Technologies, Inside Nehalem, as quoted on "
                  "forums.tomshardware.com)",
    "amd-sog": "AMD Software Optimization Guide for the Family 19h (Zen 4) "
               "Microarchitecture, pub. 57647, sec. 2.8: \"the branch "
               "misprediction penalty is in the range from 11 to 18 cycles "
               "... the common case penalty is 13 cycles\" (as quoted in "
               "LLVM's X86ScheduleZnver4.td)",
    "zen4-caches": "Zen 4: 32 KB 8-way L1I and L1D, 1 MB 8-way L2 "
                   "(meterpreter.org, Zen 4 L2 cache will double); L2 "
                   "latency 14 cycles, L3 50 (airvers.com, from Chiakokhua's "
                   "table)",
    "zen4-btb": "AnandTech, Ryzen 9 7950X review p. 8: L1 BTB 1.5K, L2 BTB "
                "7K entries",
    "gc-caches": "Golden Cove: 32 KiB 8-way L1I, 48 KiB 12-way L1D, "
                 "1.25 MiB 10-way L2 (client; hardwaretimes.com, Sapphire "
                 "Rapids cache hierarchy, from a Linux patch); L1D 64 sets "
                 "x 12 ways (so 64-byte lines), 5 cycles, L2 about 15 "
                 "(Chips and Cheese, Going Armchair Quarterback on Golden "
                 "Cove's Caches, 2022-02-11)",
    "gc-btb": "Intel Architecture Day 2021: 12K branch targets, up from 5K "
              "(overclock-then-game.com, Alder Lake-S review p. 3)",
    "llvm-adlp": "LLVM X86SchedAlderlakeP.td and X86SchedSapphireRapids.td: "
                 "MispredictPenalty = 14 (a compiler's cost model, not a "
                 "measurement; no vendor figure found)",
    "nhm-ooo": "Nehalem's out-of-order window: a reorder buffer of 128 "
               "entries (Core 2's had 96), 4 micro-ops renamed a cycle (D. "
               "Kanter, Real World Technologies, Inside Nehalem p. 6); "
               "Intel's optimization manual: up to 128 micro-ops in flight "
               "(as quoted on forum.beyond3d.com)",
    "zen4-ooo": "AMD Software Optimization Guide for Family 19h, pub. "
                "57647, sec. 2.9.8 and 2.10.3: up to 6 macro ops "
                "dispatched a cycle, up to 320 in flight in the retire "
                "control unit without SMT (as quoted in LLVM's "
                "X86ScheduleZnver4.td)",
    "gc-ooo": "LLVM X86SchedAlderlakeP.td: IssueWidth = 6 (its allocation "
              "width) and MicroOpBufferSize = 512 (its reorder buffer) (a "
              "compiler's cost model; no vendor figure read from here)",
    "assumed": "not published: an assumption (docs/model.md says why)",
}
# The commits that fixed PRESETS' figures, before the first pipe run set
# them beside the published hardware counters (analysis/models/published.py):
# caches, predictors and penalties, then reorder buffer and width.
PRESETS_FIXED_IN = ("ae3989f", "1ad4514")
# Figures no vendor publishes, the same in every preset.
_ASSUMED = {"btb_miss": "assumed", "iprefetch": "assumed"}
PRESETS = {
    "nehalem": Preset(
        "Intel Nehalem/Westmere class, 2008-2011",
        {"l1i": "32768:4", "l1d": "32768:8", "line": "64",
         "l2": "262144:8", "bp": "4096:12", "tage": OFF, "btb": "2048:4",
         "iprefetch": "next-line", "mispredict": "17", "btb_miss": "5",
         "l1i_miss": "10", "l1d_miss": "10", "l2_miss": "30", "rob": "128",
         "width": "4"},
        dict(_ASSUMED, l1i="nhm-caches", l1d="nhm-caches", l2="nhm-caches",
             line="nhm-caches", bp="assumed", tage="assumed", btb="assumed",
             mispredict="agner", rob="nhm-ooo", width="nhm-ooo",
             l1i_miss="nhm-caches", l1d_miss="nhm-caches",
             l2_miss="nhm-caches")),
    "zen4": Preset(
        "AMD Zen 4 class, 2022",
        {"l1i": "32768:8", "l1d": "32768:8", "line": "64",
         "l2": "1048576:8", "tage": "8192:8:2048:12:4:640",
         "btb": "7168:7", "iprefetch": "next-line", "mispredict": "13",
         "btb_miss": "5", "l1i_miss": "14", "l1d_miss": "14",
         "l2_miss": "36", "rob": "320", "width": "6"},
        dict(_ASSUMED, l1i="zen4-caches", l1d="zen4-caches", line="assumed",
             rob="zen4-ooo", width="zen4-ooo",
             l2="zen4-caches", tage="assumed", btb="zen4-btb",
             mispredict="amd-sog", l1i_miss="zen4-caches",
             l1d_miss="zen4-caches", l2_miss="zen4-caches")),
    "goldencove": Preset(
        "Intel Golden Cove class, Alder Lake's P-core, 2021",
        {"l1i": "32768:8", "l1d": "49152:12", "line": "64",
         "l2": "1310720:10", "tage": "8192:8:2048:12:4:640",
         "btb": "12288:12", "iprefetch": "next-line", "mispredict": "14",
         "btb_miss": "5", "l1i_miss": "15", "l1d_miss": "15",
         "l2_miss": "45", "rob": "512", "width": "6"},
        dict(_ASSUMED, l1i="gc-caches", l1d="gc-caches", l2="gc-caches",
             rob="gc-ooo", width="gc-ooo",
             line="gc-caches", tage="assumed", btb="gc-btb",
             mispredict="llvm-adlp", l1i_miss="gc-caches",
             l1d_miss="gc-caches", l2_miss="assumed")),
}


class ModelError(ValueError):
    """A bad --model-set or --model-preset."""


def _check(name, value):
    """Raise ModelError unless value has the form of parameter name."""
    want, form = FORMS.get(name, (1, "a positive integer"))
    if name in OPTION_NAMES and value == OFF:
        return
    if isinstance(want, tuple):
        ok = value in want
    else:
        parts = value.split(":")
        ok = len(parts) == want and \
            all(p.isdigit() and int(p) > 0 for p in parts)
    if not ok:
        raise ModelError("--model-set %s=%s: want %s" % (name, value, form))


def settings(pairs, preset=None):
    """{name: value} of every parameter from the defaults, the preset's
    values (a PRESETS name, or None) and the NAME=VALUE strings of
    --model-set (later ones win)."""
    out = {p.name: p.default for p in ALL}
    if preset is not None:
        if preset not in PRESETS:
            raise ModelError("--model-preset %s: no such preset; known: %s"
                             % (preset, ", ".join(sorted(PRESETS))))
        out.update(PRESETS[preset].values)
    given = set()
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or name not in out:
            raise ModelError("--model-set %r: want NAME=VALUE, NAME one of "
                             "%s" % (pair, ", ".join(NAMES)))
        _check(name, value)
        out[name] = value
        given.add(name)
    if out["tage"] != OFF and "bp" in given:
        raise ModelError("--model-set bp= is gshare's and tage= replaces "
                         "gshare: give one of them (tage=off for gshare)")
    return out


def _geometry(values):
    """The plugin's parameters of values: GEOMETRY (bp only with gshare),
    then the OPTIONS that are set."""
    out = {p.name: values[p.name] for p in GEOMETRY
           if not (p.name == "bp" and values.get("tage", OFF) != OFF)}
    if values.get("rob", PLUGIN_ROB) != PLUGIN_ROB:
        out["rob"] = values["rob"]
    out.update((p.name, values[p.name]) for p in OPTIONS
               if values.get(p.name, OFF) != OFF)
    return out


def _penalties(values):
    """The penalties of values' run: PENALTIES, then those of the options
    it has."""
    return PENALTIES + [p for p in OPTION_PENALTIES
                        if values.get(OPTION_OF[p.name], OFF) != OFF]


def meta(values, preset=None):
    """meta.json's "model" entry of a run with the model (with the preset's
    name when it started from one)."""
    pens = _penalties(values)
    out = {"preset": preset} if preset else {}
    out.update({
        "geometry": _geometry(values),
        "penalties": {p.name: int(values[p.name]) for p in pens},
        "cycles": "instructions + " + " + ".join(
            "%s x %s" % (p.name, "+".join(PENALTY_EVENTS[p.name]))
            for p in pens),
        "overlap": {"rob": int(values["rob"]), "width": int(values["width"])},
    })
    return out


def plugin_args(model_meta, keys_file=None):
    """The plugin arguments that turn the model on with model_meta's
    geometry (and keys= when the variant has static-key words)."""
    args = ["model=on"] + ["%s=%s" % kv
                           for kv in model_meta["geometry"].items()]
    if keys_file:
        args.append("keys=" + keys_file)
    return tuple(args)


def cycles(figures, penalties):
    """Modelled cycles from {column: int} figures of one run: instructions
    plus each of its penalties ({name: cycles}) times its events."""
    return sum(figures[c] for c in INSNS) + sum(
        pen * sum(figures[c] for c in PENALTY_EVENTS[name])
        for name, pen in penalties.items())


def hide(overlap):
    """The cycles of a data miss a reorder window hides: rob / width
    (rounded down, as bench/plugin/overlap.h)."""
    return overlap["rob"] // overlap["width"]


def overlap_terms(penalties, overlap):
    """Modelled cycles with overlap as instructions + sum of weight x
    events: [(title, weight in cycles, runs.csv columns)] of a run with
    these penalties and meta.json's "overlap" (bench/plugin/overlap.h):
    front-end events and mispredictions in full; L1D misses feeding a
    mispredicted branch in full; a group of independent ones
    max(0, L - hide) for its longest latency L."""
    h = hide(overlap)
    l1d = penalties["l1d_miss"]
    l2 = penalties.get("l2_miss")

    def cut(lat):
        return max(0, lat - h)

    out = [("mispredict", penalties["mispredict"],
            PENALTY_EVENTS["mispredict"]),
           ("btb_miss", penalties["btb_miss"], PENALTY_EVENTS["btb_miss"]),
           ("l1i_miss", penalties["l1i_miss"], PENALTY_EVENTS["l1i_miss"])]
    if l2 is not None:
        out.append(("l2_miss (L1I)", l2, PENALTY_EVENTS["l2_miss"][:2]))
    out += [("l1d_miss (fed)", l1d, OVERLAP_EVENTS["fed"]),
            ("l1d_miss (groups)", cut(l1d), OVERLAP_EVENTS["groups"])]
    if l2 is not None:
        out += [("l2_miss (fed)", l2, OVERLAP_EVENTS["fed_mem"]),
                ("l2_miss (groups)", cut(l1d + l2) - cut(l1d),
                 OVERLAP_EVENTS["groups_mem"])]
    return out


def overlap_columns(penalties):
    """The runs.csv columns overlap_cycles() needs beyond the
    instructions (of a run with these penalties)."""
    return [c for _, _, cols in overlap_terms(
        penalties, {"rob": 1, "width": 1}) for c in cols]


def overlap_cycles(figures, penalties, overlap):
    """Modelled cycles with overlap from {column: int} figures of one run
    (overlap_terms()); at most cycles(figures, penalties)."""
    return sum(figures[c] for c in INSNS) + sum(
        w * sum(figures[c] for c in cols)
        for _, w, cols in overlap_terms(penalties, overlap))


def help_text():
    """--model-set's help: every parameter with its default."""
    return "; ".join("%s (%s, default %s)" % (p.name, p.doc, p.default)
                     for p in ALL)


def preset_help():
    """--model-preset's help: every preset with what it stands for."""
    return "; ".join("%s (%s)" % (name, p.core)
                     for name, p in sorted(PRESETS.items()))


def preset_table():
    """docs/model.md's table of the presets (Markdown): each parameter's
    value and source in every preset, then the sources."""
    rows = ["| parameter | %s |" % " | ".join("`%s`" % n for n in PRESETS),
            "|---|%s" % ("---|" * len(PRESETS))]
    for p in ALL:
        rows.append("| `%s` | %s |" % (p.name, " | ".join(
            "%s [%s]" % (x.values[p.name], x.sources[p.name])
            if p.name in x.values else "-" for x in PRESETS.values())))
    refs = ["- [%s] %s" % kv for kv in REFERENCES.items()]
    return "\n".join(rows + [""] + refs)


if __name__ == "__main__":
    print(preset_table())
