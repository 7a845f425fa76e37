"""What a run was, from its meta.json, build.json copies and stats.json:
the accelerator (with the nested flag), the Linux version, the
protocol's parameters, and stats.json's metrics and comparisons. Read by
every package above results/."""
from analysis.results import compat, reference
from lib import source
from lib.format import schema


def nested(meta):
    """meta.json's host.nested: why the host was itself an emulated
    machine, or None (lib/hostinfo.py)."""
    host = meta.get("host") if isinstance(meta, dict) else None
    return host.get("nested") if isinstance(host, dict) else None


def accel_key(st):
    """The key of an accelerator's texts: its name, or kvm-nested for kvm
    runs on an emulated host (render() sets st["nested"] from meta.json)."""
    return schema.accel_key(st["accel"], st.get("nested"))


def accel(st):
    """The lib/format/schema.py Accel of a stats dict: every text about it."""
    return schema.ACCEL[accel_key(st)]


def linux_of(builds):
    """The one Linux version ("6.1", "6.12") of a run's builds ({variant:
    build.json}) by their source package's version, or None when none
    says or they mix versions."""
    out = set()
    for b in builds.values():
        src = b.get("source") if isinstance(b.get("source"), dict) else {}
        out.add(source.version_of(src.get("version")))
    return out.pop() if len(out) == 1 else None


def linux(st):
    """The Linux version of a stats dict (stats.json from before "linux"
    are all 6.1's)."""
    return compat.linux(st)


def proto(meta, key, default=""):
    """A protocol parameter from meta.json."""
    p = meta.get("protocol")
    return p.get(key, default) if isinstance(p, dict) else default


def metric(st, name):
    """The metric dict of stats.json named name, or None."""
    return next((m for m in st["metrics"] if m["metric"] == name), None)


def headline(st):
    """The headline metric of a stats dict (MB/s for stats from before
    there was one)."""
    return compat.headline(st)


def with_2011(st):
    """Whether a run repeats 2011's comparison (reference.compares_2011):
    only then is it set beside 2011's figures and spoken of as 2011's
    three kernels."""
    return reference.compares_2011(compat.baseline(st),
                                   (st.get("groups") or {}).get("main", []))


def comparisons(m, group):
    return {c["label"]: c for c in m["comparisons"] if c["group"] == group}


def static_keys(meta, variant):
    """How variant's disabled static-key checks compile: its build.json's
    verified (jump_label, plain_reads) from meta.json, or None when the
    run does not record it."""
    b = ((meta.get("builds") or {}).get(variant) or {}).get("build") or {}
    config = (b.get("verify") or {}).get("config")
    if not isinstance(config, dict) or "jump_label" not in config:
        return None
    return bool(config["jump_label"]), bool(config.get("plain_reads"))


def keys_differ(meta, label, baseline):
    """Whether two kernels of a run differ in how their static-key checks
    compile (jump labels against atomic or plain reads): only then does a
    report explain a change by the checks. Without build records: when
    both are built-ins and not the same one."""
    a, b = static_keys(meta, label), static_keys(meta, baseline)
    if a is None or b is None:
        return label != baseline and label in reference.ORDER and \
            baseline in reference.ORDER
    return a != b
