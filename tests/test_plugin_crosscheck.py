"""Cross-check of branches.so's model=on against QEMU's own cache model.

QEMU's contrib/plugins/cache.c (extracted by bench/plugin/fetch-header
from the same upstream tarball as qemu-plugin.h, built by
bench/plugin/build --cache-plugin) is loaded into the same QEMU as our
plugin, with the same geometry and LRU replacement: both see the same
instructions and memory accesses, so the figures must agree exactly:

- L1D accesses and misses: both count one access per guest memory
  operation at the line of its guest physical address (I/O skipped), the
  line of the first byte only (an access crossing a line is one access
  in both);
- L1I misses: cache.c accesses the line of every instruction, ours the
  line of each run of instructions on one line, which only leaves out
  hits on the most recent line (README, "Model"); so our L1I accesses are
  fewer, never more;
- cache.c's instruction accesses are the instructions executed, which
  our count=insn counts too.

Integration: smoke kernel + testinit (a kernel-heavy window), under the
CPU lock like every boot.
"""
import os

import pytest

from conftest import ROOT, run
from test_plugin_boot import boot

pytestmark = pytest.mark.integration

PLUGIN = ROOT / "bench" / "plugin"


@pytest.fixture(scope="module")
def cache_so(plugin_so):
    p = run([str(PLUGIN / "build"), "--cache-plugin"])
    path = p.stdout.strip()
    assert os.path.basename(path).startswith("cache-"), path
    return path


def cache_c_stats(text):
    """cache.c's figures of core 0: data accesses and misses, instruction
    accesses and misses (its log: a header line "core #, data accesses,
    ...", then one line per core)."""
    lines = text.splitlines()
    head = [i for i, ln in enumerate(lines) if ln.startswith("core #")]
    assert len(head) == 1, text[:2000]
    row = lines[head[0] + 1].split()
    assert row[0] == "0", row
    return {"l1d_accesses": int(row[1]), "l1d_misses": int(row[2]),
            "l1i_accesses": int(row[4]), "l1i_misses": int(row[5])}


def test_locate_cache_plugin(cache_so):
    p = run([str(PLUGIN / "build"), "--locate", "--cache-plugin"])
    assert p.stdout.strip() == cache_so
    syms = run(["nm", "-D", "--defined-only", cache_so]).stdout
    assert "qemu_plugin_install" in syms


@pytest.mark.parametrize("size,ways,line", [(32768, 8, 64), (4096, 2, 32)])
def test_model_matches_cache_c(smoke_builds, plugin_so, cache_so, testinit,
                               tmp_path, size, ways, line):
    kernel = os.path.join(smoke_builds["jump-label"], "bzImage")
    initrd = os.path.join(testinit, "initramfs.cpio.gz")
    log = tmp_path / "cache-c.log"
    geometry = "%d:%d" % (size, ways)
    ours = "%s,model=on,l1i=%s,l1d=%s,line=%d" % (
        plugin_so, geometry, geometry, line)
    theirs = ("%s,icachesize=%d,iassoc=%d,iblksize=%d,dcachesize=%d,"
              "dassoc=%d,dblksize=%d,evict=lru,limit=1"
              % (cache_so, size, ways, line, size, ways, line))
    r, console = boot(tmp_path, "both", kernel, initrd,
                      "jlbtest.loop=100000 jlbtest.syscalls=5000", ours,
                      extra=["-plugin", theirs, "-d", "plugin",
                             "-D", str(log)])
    assert "jlbtest: done" in console
    c = cache_c_stats(log.read_text())
    got = {k: int(r["total_" + k]) for k in c}
    insns = int(r["total_kernel_insns"]) + int(r["total_user_insns"])
    assert got["l1d_accesses"] == c["l1d_accesses"], (got, c)
    assert got["l1d_misses"] == c["l1d_misses"], (got, c)
    assert got["l1i_misses"] == c["l1i_misses"], (got, c)
    assert c["l1i_accesses"] == insns, (c, insns)
    assert got["l1i_accesses"] <= c["l1i_accesses"], (got, c)
    # Real work, and both caches missing.
    assert c["l1d_accesses"] > 10**7 and c["l1i_misses"] > 10**4, c
