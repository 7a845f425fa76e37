"""analysis/stats/hosts.py: hosts and QEMU versions of a results dir's runs."""
import sys

import pandas as pd
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from analysis.sections import facts  # noqa: E402
from analysis.stats import hosts  # noqa: E402


def runs(*rows):
    return pd.DataFrame([dict(zip(("status", "host", "qemu_version"), r))
                         for r in rows])


def test_icount_mixes_hosts_but_warns_on_qemu_versions():
    r = runs(("ok", "n1", "QEMU 7.2"), ("ok", "n2", "QEMU 7.2"),
             ("failed", "n3", "QEMU 8.0"))
    warnings = []
    hosts.check(r, "icount", warnings)
    assert warnings == []
    assert hosts.table(r) == [
        {"host": "n1", "qemu_version": "QEMU 7.2", "runs": 1},
        {"host": "n2", "qemu_version": "QEMU 7.2", "runs": 1}]
    text = facts.hosts({"hosts": hosts.table(r)})
    assert "| n1 | QEMU 7.2 | 1 |" in text
    r = runs(("ok", "n1", "QEMU 7.2"), ("ok", "n2", "QEMU 8.0"))
    hosts.check(r, "icount", warnings)
    assert len(warnings) == 1 and "2 QEMU versions" in warnings[0]


@pytest.mark.parametrize("accel", ["kvm", "tcg"])
def test_wall_clock_accels_refuse_several_hosts(accel):
    with pytest.raises(ValueError) as e:
        hosts.check(runs(("ok", "a", "Q"), ("ok", "b", "Q")), accel, [])
    assert "2 hosts (a, b)" in str(e.value)
    hosts.check(runs(("ok", "a", "Q"), ("failed", "b", "Q")), accel, [])


def test_dirs_without_the_columns():
    r = pd.DataFrame([{"status": "ok"}])
    hosts.check(r, "kvm", [])
    assert hosts.table(r) == [] and facts.hosts({}) == ""
