"""The throughput metrics of a run, and which one answers the question.

Every metric is a per-run figure, higher is better:
- `ops_per_s`: tbench operations completed in the measured phase, per
  second of it (guest seconds under icount). It counts work done, whatever
  the work was. Every other workload's is its own operations per second
  (lib/workloads.py: a fixed amount of work per run).
- `throughput_mbps`: tbench's own figure, the payload of the reads and
  writes in the measured phase per second. Under icount a 20 s run covers
  under 2% of the loadfile, whose payload per operation varies several-fold
  along it, so MB/s then measures where the phase ended as much as speed
  (analysis/results/loadfile.py shows it run by run).

The headline metric is the one the verdict, the first table and the first
plot use: operations per second under icount; MB/s on kvm and tcg, as in
2011, with operations per second beside it (lib/format/schema.py ACCELS, with
the metrics' names and units).
"""

from lib import workloads
from lib.format import schema


def names():
    """The throughput metrics (lib/format/schema.py), in their order."""
    return list(schema.THROUGHPUT)


def headline(accel, workload=workloads.DEFAULT):
    """The metric that answers the question in this accelerator, for
    this workload (lib/format/schema.py WORKLOADS: pipe has its own)."""
    return schema.figures(workload).headline or schema.ACCEL[accel].headline


def other(accel):
    """The throughput metric shown beside the headline."""
    return next(m for m in schema.THROUGHPUT if m != headline(accel))


def title(name, default=None):
    """What a throughput metric is, in words."""
    m = schema.THROUGHPUT.get(name)
    return m.title if m else (name if default is None else default)


def unit(name):
    """The unit of a throughput metric (its name for other metrics)."""
    m = schema.THROUGHPUT.get(name)
    return m.unit if m else name


def ops_per_s(runs):
    """Operations per second of the measured phase, per run (a Series):
    tbench's ops / seconds; a pipe run's round trips per second by perf
    bench's own clock, 10^6 / pipe_usecs_per_op; any other workload's
    (lib/workloads.py) operations per second of its command, ops /
    workload_s."""
    if "pipe_usecs_per_op" in runs.columns:
        return 1e6 / runs["pipe_usecs_per_op"].astype(float)
    if "workload_s" in runs.columns:
        return runs["ops"].astype(float) / runs["workload_s"].astype(float)
    return runs["ops"].astype(float) / runs["seconds"].astype(float)


def missing(x):
    """True for None, NaN and the empty string."""
    return x is None or x == "" or (isinstance(x, float) and x != x)
