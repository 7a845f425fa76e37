"""The throughput metrics of a run, and which one answers the question.

Every metric is a per-run figure, higher is better:
- `ops_per_s`: tbench operations completed in the measured phase, per
  second of it (guest seconds under icount). It counts work done, whatever
  the work was.
- `throughput_mbps`: tbench's own figure, the payload of the reads and
  writes in the measured phase per second. Under icount a 20 s run covers
  under 2% of the loadfile, whose payload per operation varies several-fold
  along it, so MB/s then measures where the phase ended as much as speed
  (analysis/loadfile.py shows it run by run).

The headline metric is the one the verdict, the first table and the first
plot use: operations per second under icount; MB/s on kvm and tcg, as in
2011, with operations per second beside it.
"""

METRICS = {
    "ops_per_s": {"name": "tbench operations per second", "unit": "ops/s",
                  "short": "ops/s"},
    "throughput_mbps": {"name": "tbench throughput", "unit": "MB/s",
                        "short": "MB/s"},
}
HEADLINE = {"icount": "ops_per_s", "tcg": "throughput_mbps",
            "kvm": "throughput_mbps"}
WHY = {
    "icount": "Under icount the headline is operations per guest second: "
              "a run covers under 2% of tbench's loadfile, so its MB/s "
              "depends on where in the loadfile its window falls (see "
              "\"MB/s explained\").",
    "tcg": "The headline is tbench's MB/s, as in 2011; operations per "
           "second are shown beside it.",
    "kvm": "The headline is tbench's MB/s, as in 2011; operations per "
           "second are shown beside it.",
}


def headline(mode):
    """The metric that answers the question in this accelerator mode."""
    return HEADLINE[mode]


def other(mode):
    """The throughput metric shown beside the headline."""
    return next(m for m in METRICS if m != HEADLINE[mode])


def ops_per_s(runs):
    """Operations per second of the measured phase, per run (a Series)."""
    return runs["ops"].astype(float) / runs["seconds"].astype(float)
