"""The run plan: rounds, balanced orders and paired perturbation seeds.

A plan is a list of Run, one per boot. Round r runs every label once. Rounds
come in blocks of k (k = number of labels); each block is a Latin square
with its rows, columns and symbols shuffled by the seed, so within a whole
block every label runs once in every position: drift on the host hits all
labels alike. Every run of round r gets the same perturbation seed, so that
variants can be compared paired by seed; an A/A twin label (the baseline
kernel under a second label) draws its seeds from a stream of its own, since
under icount the same kernel with the same seed repeats bit for bit. A plan
with several run lengths (the `long` profile) repeats the rounds at every
length, in a shuffled order. The plan depends only on its arguments and is
also stored as plan.csv in the results dir.
"""
import csv
import random
from collections import namedtuple

from lib import workloads

Run = namedtuple("Run", "index round position variant label perturb_seed "
                 "seconds")
FIELDS = list(Run._fields)
PERTURB_MAX = 2 ** 32 - 1

# Run lengths per profile and accelerator: (boots per label and length,
# tbench seconds per run: one length or several).
# quick: what the default ./run_all.sh runs (icount: 3 variants x 6 seeds x
#   20 s plus the A/A twin; 6 is the fewest seeds at which the report's
#   median rule has a 95% interval, docs/calibration.md; see
#   bench/README.md for the measurements);
# long: the convergence check: every label at 20, 60 and 180 s, 3 seeds each
#   (does MB/s converge to the operations figure as runs cover more of the
#   loadfile?);
# seed: tbench's default 600 s per run, five runs per kernel, as in 2011.
PROFILES = {
    "quick": {"icount": (6, (20,)), "tcg": (5, (30,)), "kvm": (5, (60,))},
    "long": {"icount": (3, (20, 60, 180)), "tcg": (3, (20, 60, 180)),
             "kvm": (3, (20, 60, 180))},
    "seed": {"icount": (5, (600,)), "tcg": (5, (600,)), "kvm": (5, (600,))},
}


# Wall seconds of one try: BOOT + RATIO * tbench seconds, times PLUGIN_FACTOR
# with the branch-count plugin (measured here, see bench/README.md).
# icount: smoke kernel, 20 clients: 15 s -> 47 s, 30 s -> 78 s wall with the
# plugin, 47 s at 15 s without. tcg: 41 s per 30 s MTTCG run (measured
# when the project began, before bench/run).
# kvm: not measurable here; boot ~1 s plus tbench's start-up.
# With --model, a further MODEL_FACTOR: bench/plugin/bench-cost measured
# 3.87x the plugin's wall time (tbench, smoke kernel); full-kernel tries
# took 2m47s-2m55s two at once, against about 45 s without the model.
ESTIMATE = {"icount": (17.0, 2.0), "tcg": (11.0, 1.0), "kvm": (3.0, 1.0)}
PLUGIN_FACTOR = 1.1
MODEL_FACTOR = 4.0


# A workload other than tbench does a fixed amount of work (lib/workloads.py
# n); its plan's `seconds` is FIXED_WORK_SECONDS, and its guest seconds
# come from the record's us_per_n (smoke kernels under icount, rounded up).
FIXED_WORK_SECONDS = 0


def guest_seconds(protocol, seconds):
    """A run's expected workload time in guest seconds: tbench's run
    length `seconds`, or another workload's n (meta.json protocol's
    loops) at its record's us_per_n."""
    w = workloads.of(protocol)
    if w.n is None:
        return seconds
    return protocol["loops"] * w.us_per_n / 1e6


def guest_limit(protocol):
    """The guest seconds the agent allows a fixed-work command (its
    jlbench.timeout): four times the expected, plus a minute, as the full
    kernels take longer than the smoke kernels us_per_n was measured on."""
    return round(4 * guest_seconds(protocol, 0) + 60)


def estimate(accel, seconds, plugin=False, model=False):
    """Expected wall seconds of one try."""
    boot, ratio = ESTIMATE[accel]
    return (boot + ratio * seconds) * (PLUGIN_FACTOR if plugin else 1.0) \
        * (MODEL_FACTOR if model else 1.0)


def default_timeout(accel, seconds, plugin=False, model=False):
    """Hard wall-clock limit of one try: generous, but bounded."""
    return round(2 * estimate(accel, seconds, plugin, model) + 120)


def profile_defaults(profile, accel, workload=workloads.DEFAULT):
    """(boots, tuple of run lengths in seconds) of a profile under an
    accelerator; a run of fixed work has one length, FIXED_WORK_SECONDS
    (its n ends it)."""
    boots, lengths = PROFILES[profile][accel]
    if workloads.WORKLOAD[workload].n is not None:
        return boots, (FIXED_WORK_SECONDS,)
    return boots, lengths


def _latin_block(k, rng):
    """k rows (rounds) of a shuffled k x k Latin square of 0..k-1."""
    rows = list(range(k))
    cols = list(range(k))
    syms = list(range(k))
    rng.shuffle(rows)
    rng.shuffle(cols)
    rng.shuffle(syms)
    return [[syms[(r + c) % k] for c in cols] for r in rows]


def orders(k, rounds, seed):
    """Per round, the order (a list of label positions 0..k-1)."""
    rng = random.Random("order:%d" % seed)
    out = []
    while len(out) < rounds:
        out.extend(_latin_block(k, rng))
    return out[:rounds]


def perturb_seeds(rounds, seed, stream="perturb"):
    """One distinct perturbation seed (1..2^32-1) per round."""
    rng = random.Random("%s:%d" % (stream, seed))
    seen = []
    while len(seen) < rounds:
        s = rng.randint(1, PERTURB_MAX)
        if s not in seen:
            seen.append(s)
    return seen


def make(labels, rounds, seed, perturb, lengths=(20,), twins=()):
    """Build the plan.

    labels: list of (label, variant); for a normal run label == variant, for
    an A/A control two labels share one variant. perturb: give each round a
    perturbation seed (icount) or 0 (no perturbation). lengths: tbench
    seconds; with several, `rounds` rounds run at each length, the lengths
    of successive rounds shuffled by the seed. twins: labels whose
    perturbation seeds come from a stream of their own (A/A twins).
    """
    if not labels:
        raise ValueError("no variants to run")
    if len({lab for lab, _ in labels}) != len(labels):
        raise ValueError("duplicate labels: %s" % [lab for lab, _ in labels])
    if rounds < 1:
        raise ValueError("need at least one round")
    if not lengths or len(set(lengths)) != len(lengths):
        raise ValueError("run lengths must be distinct: %s" % (lengths,))
    total = rounds * len(lengths)
    seeds = perturb_seeds(total, seed) if perturb else [0] * total
    twin_seeds = perturb_seeds(total, seed, "perturb-twin") if perturb \
        else [0] * total
    round_lengths = [s for s in lengths for _ in range(rounds)]
    if len(lengths) > 1:
        random.Random("lengths:%d" % seed).shuffle(round_lengths)
    plan = []
    for r, order in enumerate(orders(len(labels), total, seed)):
        for pos, which in enumerate(order):
            label, variant = labels[which]
            plan.append(Run(len(plan) + 1, r + 1, pos + 1, variant, label,
                            twin_seeds[r] if label in twins else seeds[r],
                            round_lengths[r]))
    return plan


def write(plan, path):
    """Store a plan as CSV."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(FIELDS)
        for run in plan:
            w.writerow(run)


def read(path, seconds):
    """Load a plan written by write(); seconds: the run length of plans
    written before plan.csv had a seconds column."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    plan = []
    for row in rows:
        plan.append(Run(int(row["index"]), int(row["round"]),
                        int(row["position"]), row["variant"], row["label"],
                        int(row["perturb_seed"]),
                        int(row.get("seconds") or seconds)))
    if [r.index for r in plan] != list(range(1, len(plan) + 1)):
        raise ValueError("%s: run indexes are not 1..N" % path)
    return plan


def progress(plan, rows):
    """Given runs.csv rows (dicts), return (pending runs, next try by index).

    A run is finished when one of its tries has status ok; every other run is
    pending, and its next try number follows the highest one recorded, so a
    resumed plan never repeats a finished run nor reuses a try's files.
    """
    done = set()
    last_try = {}
    for row in rows:
        index = int(row["index"])
        last_try[index] = max(last_try.get(index, 0), int(row["try"]))
        if row["status"] == "ok":
            done.add(index)
    pending = [r for r in plan if r.index not in done]
    next_try = {r.index: last_try.get(r.index, 0) + 1 for r in pending}
    return pending, next_try
