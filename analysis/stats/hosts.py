"""Where the runs ran: runs.csv's host and qemu_version (bench/run records
both per try; results dirs from before them lack the columns, and then
nothing here applies).

- icount: guest time counts instructions, so the host does not enter a
  figure (tests/test_bench_slurm.py checks it bit for bit across two Slurm
  nodes), but QEMU's own code does (its devices, firmware and timers
  execute in the guest's timeline): a comparison whose runs ran under more
  than one QEMU version gets a warning naming them.
- kvm and tcg: the wall clock measures the machine. Pairing or blocking by
  host would need every host to run every variant in every round, which a
  Slurm array does not promise; so analysis refuses a dir whose ok runs
  come from more than one host (an error naming them). Pin such runs to
  one node (`bench/run --executor slurm --slurm-args=--nodelist=NODE`).
  Mixed QEMU versions get the same warning as under icount.
"""
from analysis.results.load import ok_rows
from lib.format import schema


def _values(ok, column):
    if column not in ok.columns:
        return []
    return sorted(v for v in set(ok[column].astype(str).str.strip()) if v)


def table(runs):
    """[{host, qemu_version, runs}] of the ok runs ([] without the
    columns)."""
    ok = ok_rows(runs)
    if "host" not in ok.columns:
        return []
    qemu = ok["qemu_version"] if "qemu_version" in ok.columns else ""
    counts = ok.assign(qemu_version=qemu).groupby(
        ["host", "qemu_version"]).size()
    return [{"host": h, "qemu_version": q, "runs": int(n)}
            for (h, q), n in counts.items()]


def check(runs, accel, warnings):
    """Raise ValueError when a wall-clock dir mixes hosts; append a
    warning when the runs mix QEMU versions."""
    ok = ok_rows(runs)
    hosts = _values(ok, "host")
    if schema.ACCEL[accel].wall_clock and len(hosts) > 1:
        raise ValueError(
            "the ok runs of this %s dir come from %d hosts (%s): %s figures "
            "are the machine's, so jlbench does not compare them across "
            "hosts; run the plan on one machine (with Slurm: --slurm-args="
            "--nodelist=NODE)" % (accel, len(hosts), ", ".join(hosts), accel))
    versions = _values(ok, "qemu_version")
    if len(versions) > 1:
        warnings.append(
            "runs ran under %d QEMU versions (%s): QEMU's devices and "
            "firmware run in the guest's timeline, so figures may differ "
            "between versions; compare runs of one version"
            % (len(versions), "; ".join(versions)))
