"""bench/guest/accel.py: which accelerator auto picks, with injected host
state."""
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.guest import accel  # noqa: E402


def host(tmp_path, module=None, dev=True):
    """A fake /dev/kvm and /sys/module under tmp_path."""
    sysmod = tmp_path / "sys_module"
    sysmod.mkdir()
    if module:
        (sysmod / module).mkdir()
    devpath = tmp_path / "kvm"
    if dev:
        devpath.write_text("")
    return str(devpath), str(sysmod)


class Probe:
    def __init__(self, ok, detail="reached the agent in 1.2 s"):
        self.ok, self.detail, self.calls = ok, detail, 0

    def __call__(self):
        self.calls += 1
        return self.ok, self.detail


def test_kvm_usable_and_probe_ok(tmp_path):
    dev, sysmod = host(tmp_path, "kvm_intel")
    probe = Probe(True)
    d = accel.decide("auto", probe, dev, sysmod)
    assert (d.name, d.kvm_kind, probe.calls) == ("kvm", "kvm_intel", 1)
    assert "probe boot reached the agent" in d.reason
    assert accel.decide("kvm", Probe(True), dev, sysmod).name == "kvm"


def test_pvm_falls_back_without_probe(tmp_path):
    dev, sysmod = host(tmp_path, "kvm_pvm")
    probe = Probe(True)
    d = accel.decide("auto", probe, dev, sysmod)
    assert (d.name, d.kvm_kind, probe.calls) == ("icount", "pvm", 0)
    assert "PVM" in d.reason
    with pytest.raises(accel.AccelError, match="PVM"):
        accel.decide("kvm", probe, dev, sysmod)


def test_no_device(tmp_path):
    dev, sysmod = host(tmp_path, None, dev=False)
    d = accel.decide("auto", Probe(True), dev, sysmod)
    assert (d.name, d.kvm_kind) == ("icount", "none")
    assert "does not exist" in d.reason
    with pytest.raises(accel.AccelError, match="does not exist"):
        accel.decide("kvm", Probe(True), dev, sysmod)


def test_device_not_openable(tmp_path):
    dev, sysmod = host(tmp_path, "kvm_amd")

    def denied(path, flags):
        raise PermissionError(13, "Permission denied")
    d = accel.decide("auto", Probe(True), dev, sysmod, opener=denied)
    assert d.name == "icount" and "Permission denied" in d.reason


def test_probe_boot_fails(tmp_path):
    dev, sysmod = host(tmp_path, "kvm_intel")
    probe = Probe(False, "killed at the 60 s timeout without reaching the "
                  "agent")
    d = accel.decide("auto", probe, dev, sysmod)
    assert d.name == "icount" and probe.calls == 1
    assert "probe boot under KVM failed" in d.reason
    assert "60 s timeout" in d.reason
    with pytest.raises(accel.AccelError, match="probe boot"):
        accel.decide("kvm", probe, dev, sysmod)


def test_explicit_tcg_and_icount_never_probe(tmp_path):
    dev, sysmod = host(tmp_path, "kvm_intel")
    probe = Probe(True)
    assert accel.decide("tcg", probe, dev, sysmod).name == "tcg"
    assert "noisy" in accel.decide("tcg", probe, dev, sysmod).reason
    assert accel.decide("icount", probe, dev, sysmod).name == "icount"
    assert probe.calls == 0
    with pytest.raises(ValueError):
        accel.decide("xen", probe, dev, sysmod)


def test_this_host_reports_a_kind():
    assert accel.kvm_kind() in ("pvm", "kvm_intel", "kvm_amd", "kvm", "none")
    usable, kind, why = accel.kvm_usable()
    if os.path.isdir("/sys/module/kvm_pvm"):
        assert not usable and kind == "pvm"
    assert why
