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
  it was; the core presets are to set them (docs/model.md);
- PENALTIES: cycles charged per event when analysis turns the counts into
  modelled cycles = instructions + sum of penalty x events.
The defaults resemble a current x86-64 core (e.g. Zen 4 or Golden Cove:
32 KiB 8-way L1I and L1D, 64-byte lines, a mispredict costs 13-17 cycles,
an L1 miss that hits L2 about 14).
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
# The event of each penalty: (kernel, user) runs.csv columns.
PENALTY_EVENTS = {
    "mispredict": ("kernel_mispredicts", "user_mispredicts"),
    "btb_miss": ("kernel_btb_misses", "user_btb_misses"),
    "l1i_miss": ("kernel_l1i_misses", "user_l1i_misses"),
    "l1d_miss": ("kernel_l1d_misses", "user_l1d_misses"),
}
INSNS = ("kernel_insns", "user_insns")
NAMES = [p.name for p in GEOMETRY + OPTIONS + PENALTIES]


class ModelError(ValueError):
    """A bad --model-set."""


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


def settings(pairs):
    """{name: value} of every parameter from the defaults and the
    NAME=VALUE strings of --model-set (later ones win)."""
    out = {p.name: p.default for p in GEOMETRY + OPTIONS + PENALTIES}
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
                         "gshare: give one of them")
    return out


def _geometry(values):
    """The plugin's parameters of values: GEOMETRY (bp only with gshare),
    then the OPTIONS that are set."""
    out = {p.name: values[p.name] for p in GEOMETRY
           if not (p.name == "bp" and values.get("tage", OFF) != OFF)}
    out.update((p.name, values[p.name]) for p in OPTIONS
               if values.get(p.name, OFF) != OFF)
    return out


def meta(values):
    """meta.json's "model" entry of a run with the model."""
    return {
        "geometry": _geometry(values),
        "penalties": {p.name: int(values[p.name]) for p in PENALTIES},
        "cycles": "instructions + " + " + ".join(
            "%s x %s" % (p.name, "+".join(PENALTY_EVENTS[p.name]))
            for p in PENALTIES),
    }


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
    plus each penalty times its events, kernel and user."""
    total = figures[INSNS[0]] + figures[INSNS[1]]
    for name, cols in PENALTY_EVENTS.items():
        total += penalties[name] * (figures[cols[0]] + figures[cols[1]])
    return total


def help_text():
    """--model-set's help: every parameter with its default."""
    return "; ".join("%s (%s, default %s)" % (p.name, p.doc, p.default)
                     for p in GEOMETRY + OPTIONS + PENALTIES)
