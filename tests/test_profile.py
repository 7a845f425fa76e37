"""Known answer of the per-function profile (issue 32), on the smoke
kernels: real builds, real icount runs of tbench.

A user's variant of jump-label, `loop`, adds to tcp_sendmsg() an
inline-assembly loop of known length (tests/fixtures/bisect/make_series.py
--asm: mov, then 400 times dec and jnz: 801 instructions per call); the
A/B of the two is conftest's `ab` (./run_all.sh --variant loop=..., 6
seeds of 2 s), whose report test_bisect checks. The profile's difference
must put tcp_sendmsg at the top with 801 x its calls per operation, the
calls counted by the plugin itself on the loop's first instruction, in a
boot of its own of the same try (icount: the same execution)."""
import os
import shlex
import subprocess

import pytest

from conftest import AB_SEEDS as SEEDS, LOOPS, ROOT, cpu_lock, run
from lib import vmlinux as vml
from analysis.results import check
from analysis.results.load import Results
from lib.format import identity, rawfiles
from lib.format import profile as profilefmt

pytestmark = pytest.mark.integration

PER_CALL = 2 * LOOPS + 1


def loop_address(vmlinux):
    """Address of the planted loop's mov $400,%ecx in tcp_sendmsg."""
    start, size = vml.symbols(vmlinux)["tcp_sendmsg"]
    text = vml.tool("objdump", "-d", "--no-show-raw-insn",
                    "--start-address=%#x" % start,
                    "--stop-address=%#x" % (start + size), vmlinux)
    hits = [ln.split(":")[0].strip() for ln in text.splitlines()
            if "mov" in ln and "$0x%x,%%ecx" % LOOPS in ln]
    assert len(hits) == 1, text
    return int(hits[0], 16)


def calls_per_op(resdir, row, build_dir, tmp):
    """tcp_sendmsg's calls per operation in the try of row: its recorded
    QEMU command again, the plugin counting the loop's first instruction
    (sites=) instead of writing a profile."""
    base = identity.try_base(resdir, row)
    with rawfiles.open(base + ".qemu-cmd") as f:
        cmd = shlex.split(f.read())
    sites = os.path.join(tmp, "loop-site.txt")
    with open(sites, "w") as f:
        f.write("%x\n" % loop_address(os.path.join(build_dir, "vmlinux")))
    i = cmd.index("-plugin")
    out = os.path.join(tmp, "calls.counts")
    cmd[i + 1] = ",".join([cmd[i + 1].split(",")[0], "outfile=" + out,
                           "sites=" + sites])
    cmd[cmd.index("-serial") + 1] = "file:" + os.path.join(tmp, "calls.log")
    with cpu_lock(cores=1):
        subprocess.run(cmd, check=True, timeout=600,
                       stdout=subprocess.DEVNULL)
    with open(out) as f:
        report = dict(ln.split("=", 1) for ln in f.read().splitlines())
    # the same execution as the recorded try
    assert int(report["kernel_insns"]) == int(row["kernel_insns"])
    return int(report["site_execs"]) / float(row["ops"])


def test_profile_adds_up_to_the_window_counts(ab):
    resdir = str(ab.results)
    rows = Results(resdir).runs
    assert len(rows) == 2 * SEEDS and (rows["status"] == "ok").all()
    for _, row in rows.iterrows():
        p = profilefmt.read(identity.try_base(resdir, row)
                            + profilefmt.RAW_EXT)
        assert p.total("insns", kernel_only=True) == int(row["kernel_insns"])
        assert p.total("insns") == (int(row["kernel_insns"])
                                    + int(row["user_insns"]))
    found = check.check_raw(resdir).findings
    assert not found, found


def per_op(resdir, row, name):
    p = profilefmt.read(identity.try_base(resdir, row) + profilefmt.RAW_EXT)
    return p.by_name().get(name, [0])[0] / float(row["ops"])


def test_planted_loop_is_the_top_function(ab, tmp_path):
    resdir, builds = str(ab.results), ab.builds
    rows = Results(resdir).runs
    by_seed = {}
    for _, row in rows.iterrows():
        by_seed.setdefault(row["perturb_seed"], {})[row["variant"]] = row
    # one seed's pair: the loop's cost per op against its calls per op
    pair = by_seed[min(by_seed)]
    got = (per_op(resdir, pair["loop"], "tcp_sendmsg")
           - per_op(resdir, pair["jump-label"], "tcp_sendmsg"))
    want = PER_CALL * calls_per_op(resdir, pair["loop"], builds["loop"],
                                   str(tmp_path))
    assert abs(got - want) <= 0.01 * want, (got, want)

    p = run([str(ROOT / "analysis" / "profile-diff"), "--results", resdir,
             "jump-label", "loop", "--top", "3"])
    rows = [ln for ln in p.stdout.splitlines()
            if "tcp_sendmsg" in ln or "other" in ln]
    assert rows and "tcp_sendmsg" in rows[0], p.stdout
