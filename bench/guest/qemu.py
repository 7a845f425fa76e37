"""QEMU command lines, one per accelerator.

All accelerators: fixed memory and vCPU count, no network device (tbench
uses the guest's loopback), no display, no monitor, the serial console to a
file, -no-reboot (a guest reboot or panic=-1 ends QEMU). The CPU model is
QEMU's default (qemu64) under TCG: it has no RDRAND, whose host-random
values would break icount's determinism.

  kvm     -accel kvm -cpu host; wall-clock throughput (hardware).
  tcg     -accel tcg,thread=multi -smp N; emulated wall-clock (noisy).
  icount  -accel tcg -icount shift=2,sleep=off, a fixed virtual RTC, -smp 1:
          guest time advances 2^shift ns per instruction, so a run is a
          deterministic instruction-path-length model (same seed, same bits).

Guest architectures (the "arch" of a build's build.json) are records of
lib/arch.py: QEMU binary (or the variable naming another), machine
arguments, console device, kernel arguments, accelerators, and whether
the TCG plugin (x86 code only) can count them. x86_64 is the benchmark's;
s390x (selftest boots only) runs in qemu-system-s390x -M s390-ccw-virtio
under TCG, QEMU's -serial file as the SCLP VT220 console (ttysclp0).
"""
import os
import shlex

from lib import arch as archmod

ACCELS = ("kvm", "tcg", "icount")
MEMORY_MB = 1024
ICOUNT_SHIFT = 2
RTC_BASE = "2020-01-01T00:00:00"
# On every kernel command line, after console=<the arch's console>: with
# oops=panic and panic=-1 a broken kernel ends QEMU at once instead of
# hanging until the timeout. The arch adds its own (x86_64: nokaslr, the
# same layout every boot, for icount determinism and comparable runs).
COMMON_ARGS = "panic=-1 oops=panic"


def arch_of(name):
    """The lib/arch.py record called name; ValueError for an unknown one."""
    try:
        return archmod.get(name)
    except ValueError:
        raise ValueError("unknown guest arch %r (have: %s)"
                         % (name, ", ".join(sorted(archmod.ARCHES)))) from None


def base_args(arch=archmod.DEFAULT):
    """The kernel arguments every boot of a guest of arch has."""
    a = arch_of(arch)
    return " ".join(["console=" + a.console, COMMON_ARGS] +
                    list(a.boot_args))


QEMU = arch_of(archmod.DEFAULT).qemu
BASE_ARGS = base_args()


class Guest:
    """What one boot needs: kernel, initrd, kernel args and outputs;
    plugin_args: the plugin's arguments after outfile= and sites=."""

    def __init__(self, kernel, initrd, append, console_log,
                 plugin=None, counts_file=None, sites=None, plugin_args=()):
        self.kernel = kernel
        self.initrd = initrd
        self.append = append
        self.console_log = console_log
        self.plugin = plugin
        self.counts_file = counts_file
        self.sites = sites
        self.plugin_args = tuple(plugin_args)


def binary(arch=archmod.DEFAULT):
    """The QEMU to run for a guest of arch: the one its record's variable
    names ($JLBENCH_QEMU for x86_64, e.g. a self-built one;
    $JLBENCH_QEMU_S390X for s390x) or Debian's."""
    a = arch_of(arch)
    return os.environ.get(a.qemu_env) or a.qemu


def accel_args(accel, smp):
    """The accelerator part of the command line."""
    if accel == "kvm":
        return ["-accel", "kvm", "-cpu", "host", "-smp", str(smp)]
    if accel == "tcg":
        return ["-accel", "tcg,thread=multi", "-smp", str(smp)]
    if accel == "icount":
        if smp != 1:
            raise ValueError("icount runs one vCPU (got --smp %d)" % smp)
        return ["-accel", "tcg",
                "-icount", "shift=%d,sleep=off" % ICOUNT_SHIFT,
                "-rtc", "base=%s,clock=vm" % RTC_BASE,
                "-smp", "1"]
    raise ValueError("unknown accelerator %r" % accel)


def command(accel, guest, smp, memory_mb=MEMORY_MB, qemu=QEMU,
            arch=archmod.DEFAULT):
    """The full QEMU argv for one boot of a guest of arch."""
    a = arch_of(arch)
    if accel not in a.accels:
        raise ValueError("%s guests run under %s, not %s"
                         % (arch, " or ".join(a.accels), accel))
    if guest.plugin and not a.plugin:
        raise ValueError("the TCG plugin counts x86 code only, not %s"
                         % arch)
    cmd = [qemu] + list(a.machine) + accel_args(accel, smp) + [
        "-m", str(memory_mb),
        "-nodefaults", "-nographic", "-no-reboot",
        "-monitor", "none",
        "-serial", "file:%s" % guest.console_log,
        "-kernel", guest.kernel,
        "-initrd", guest.initrd,
        "-append", guest.append,
    ]
    if guest.plugin:
        if accel == "kvm":
            raise ValueError("TCG plugins do not run under KVM")
        spec = [guest.plugin, "outfile=" + guest.counts_file]
        if guest.sites:
            spec.append("sites=" + guest.sites)
        spec += guest.plugin_args
        if any("," in x for x in spec):
            raise ValueError("a comma in a plugin path: %s" % spec)
        cmd += ["-plugin", ",".join(spec)]
    return cmd


def shell_line(cmd):
    """One shell-quoted line that replays cmd."""
    return shlex.join(cmd)
