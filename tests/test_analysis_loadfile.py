"""analysis/results/loadfile.py: tbench's bytes from loadfile positions,
against a small loadfile whose payload is worked out by hand, and the headline
metric per accelerator (analysis/results/metrics.py)."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from analysis.results import loadfile, metrics  # noqa: E402
from lib.format import console  # noqa: E402

SMALL = ROOT / "tests" / "fixtures" / "analysis" / "loadfile-small.txt"
# Payload per line, as dbench 4.0 counts it (child.c, sockio.c):
#  1 comment                                   0
#  2 NTCreateX                                 0
#  3 WriteX size 100                         100
#  4 ReadX ret_size 150                      150
#  5 timestamp, WriteX size 0x40              64
#  6 ReadX ret_size 010 (strtol base 0: octal) 8
#  7 WriteX with a badly formed status         0 (skipped by dbench)
#  8 Close                                     0
PAYLOAD = [0, 0, 100, 150, 64, 8, 0, 0]


@pytest.fixture
def small():
    return loadfile.Loadfile.read(str(SMALL))


def test_payload_of_each_line(small):
    assert [loadfile.line_payload(x) for x in SMALL.read_text()
            .splitlines()] == PAYLOAD
    assert small.lines == 8 and small.cum[-1] == 322


def test_bytes_between_lines_and_past_the_end(small):
    assert small.before(1) == 0
    assert small.before(4) == 100          # lines 1..3
    assert small.between(4, 7) == 222      # lines 4, 5, 6
    assert small.before(9) == 322          # the whole file
    assert small.before(12) == 422         # again from line 1: + lines 1..3


def test_strtol_like_dbench():
    assert [loadfile._strtol(t) for t in ("65536", "0x40", "010", "0",
                                          "12abc", "junk")] == [
        65536, 64, 8, 0, 12, 0]


CONSOLE = """\
jlbench: tbench:    2         2     0.00 MB/sec  warmup   1 sec  latency 1.0 ms
[    5.000000] some kernel line
jlbench: tbench:    2         4     0.00 MB/sec  execute   1 sec  latency 1 ms
jlbench: tbench:    2         5     0.00 MB/sec  execute   2 sec  latency 1 ms
jlbench: tbench:    2         7     0.00 MB/sec  execute   3 sec  latency 1 ms
jlbench: tbench:    2  cleanup   4 sec
"""


def test_prediction_of_a_run(small):
    text = CONSOLE.replace("0.00 MB/sec  execute   1", "0.0003 MB/sec  "
                           "execute   1").replace(
        "0.00 MB/sec  execute   3", "0.000248 MB/sec  execute   3")
    ticks = console.tbench_ticks(text)
    assert [(t.phase, t.second, t.line) for t in ticks] == [
        ("warmup", 1, 2), ("execute", 1, 4), ("execute", 2, 5),
        ("execute", 3, 7)]
    p = loadfile.predict(ticks, small)
    # 2 clients x lines 4..6 (222 bytes) over seconds 1..3
    assert p["window_predicted_mbps"] == pytest.approx(2 * 222e-6 / 2)
    # tbench: 0.000248 MB/s x 3 s - 0.0003 MB/s x 1 s over 2 s
    assert p["window_measured_mbps"] == pytest.approx(
        (0.000248 * 3 - 0.0003) / 2)
    # the first second as tbench measured it, the rest from positions
    assert p["predicted_mbps"] == pytest.approx((0.0003 + 2 * 222e-6) / 3)
    # positions alone: start half-way between lines 2 and 4 = line 3,
    # lines 3..6 hold 322 bytes per client
    assert p["start_line"] == 3
    assert p["position_only_mbps"] == pytest.approx(2 * 322e-6 / 3)
    assert p["end_line"] == 7 and p["clients"] == 2


def test_no_prediction_without_two_measured_lines(small):
    assert loadfile.predict(console.tbench_ticks(CONSOLE.split(
        "jlbench: tbench:    2         5")[0]), small) is None


def test_headline_metric_per_mode():
    assert metrics.headline("icount") == "ops_per_s"
    assert metrics.headline("kvm") == "throughput_mbps"
    assert metrics.headline("tcg") == "throughput_mbps"
    assert metrics.other("icount") == "throughput_mbps"
    assert metrics.other("kvm") == "ops_per_s"
    with pytest.raises(KeyError):
        metrics.headline("hvf")
