"""Which accelerator a run uses, and why.

auto picks kvm only when /dev/kvm exists and opens read-write, the KVM
module is not PVM (/sys/module/kvm_pvm: PVM runs only guests built for it,
which a stock 6.1 kernel is not), and a short probe boot under KVM reaches
the agent in bounded time. Otherwise it picks icount (deterministic TCG) and
says why. `--accel kvm` fails with that reason instead of falling back;
`--accel tcg|icount` are taken as asked.
"""
import os

DEV = "/dev/kvm"
SYS_MODULE = "/sys/module"
# How long a probe boot may take to reach the agent. On hardware a KVM boot
# gets there in a few seconds; a kernel KVM cannot run (PVM) hangs, so the
# bound is what `auto` waits before falling back. Inside an emulated
# machine (hostinfo.nested(): tests/nested/run) nested KVM boots took
# 37-53 s, so the bound there is longer.
PROBE_SECONDS = 60
NESTED_PROBE_SECONDS = 300
# Inside an emulated machine a probe boot also fails by chance: its inner
# kernel's boot-time timer check sometimes panics ("IO-APIC + timer
# doesn't work!", docs/nested.md). There a failed probe boots once more.
NESTED_PROBE_BOOTS = 2


class AccelError(Exception):
    """The requested accelerator cannot be used; str() says why."""


class Decision:
    """name: kvm|tcg|icount; kvm_kind: what /dev/kvm is (recorded in meta);
    reason: one line, why this accelerator."""

    def __init__(self, name, kvm_kind, reason):
        self.name = name
        self.kvm_kind = kvm_kind
        self.reason = reason

    def as_dict(self):
        return {"name": self.name, "kvm_kind": self.kvm_kind,
                "reason": self.reason}


def probe_bound(asked, nested):
    """(seconds, why) the probe boot may take: asked (--probe-timeout) when
    given, else PROBE_SECONDS, or NESTED_PROBE_SECONDS when nested (the
    text of hostinfo.nested()) says the host is itself emulated."""
    if asked:
        return asked, "--probe-timeout"
    if nested:
        return NESTED_PROBE_SECONDS, "the host is emulated"
    return PROBE_SECONDS, "default"


def probe_boots(nested):
    """How many probe boots auto makes before it falls back: one, or
    NESTED_PROBE_BOOTS when nested says the host is itself emulated."""
    return NESTED_PROBE_BOOTS if nested else 1


def kvm_kind(sys_module=SYS_MODULE):
    """The loaded KVM flavour: pvm, kvm_intel, kvm_amd, kvm or none."""
    for name in ("kvm_pvm", "kvm_intel", "kvm_amd", "kvm"):
        if os.path.isdir(os.path.join(sys_module, name)):
            return "pvm" if name == "kvm_pvm" else name
    return "none"


def kvm_usable(dev=DEV, sys_module=SYS_MODULE, opener=os.open):
    """(usable, kind, reason) for the host's /dev/kvm, without booting."""
    kind = kvm_kind(sys_module)
    if not os.path.exists(dev):
        return False, kind, "%s does not exist (no KVM on this host)" % dev
    try:
        fd = opener(dev, os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        return False, kind, "%s cannot be opened read-write (%s)" % (
            dev, e.strerror or e)
    os.close(fd)
    if kind == "pvm":
        return False, kind, (
            "%s is PVM (%s/kvm_pvm): it runs only PVM-enabled guest "
            "kernels, not stock 6.1" % (dev, sys_module))
    return True, kind, "%s is usable (%s)" % (dev, kind)


def decide(requested, probe, dev=DEV, sys_module=SYS_MODULE, opener=os.open):
    """Resolve --accel into a Decision.

    probe: callable() -> (ok, detail), a short KVM boot of the jump-label
    kernel; it is only called when the static checks pass. Raises AccelError
    when kvm was asked for and cannot be used.
    """
    if requested in ("tcg", "icount"):
        kind = kvm_kind(sys_module)
        note = " (emulated wall-clock time: noisy)" if requested == "tcg" \
            else " (deterministic guest time)"
        return Decision(requested, kind, "--accel %s asked for%s" % (
            requested, note))
    if requested not in ("auto", "kvm"):
        raise ValueError("unknown --accel %r" % requested)
    usable, kind, why = kvm_usable(dev, sys_module, opener)
    if usable:
        ok, detail = probe()
        if ok:
            return Decision("kvm", kind, "%s; probe boot %s" % (why, detail))
        why = "probe boot under KVM failed: %s" % detail
    if requested == "kvm":
        raise AccelError("--accel kvm is not possible: %s" % why)
    return Decision("icount", kind,
                    "KVM not used: %s; using deterministic TCG (icount)" % why)
