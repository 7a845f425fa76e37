#!/usr/bin/python3
"""bench/timing/timeline.py: where a suite run's minutes went, from the
timeline tests/conftest.py writes when $JLBENCH_TEST_TIMELINE names a
file (bench/timing/bench-suite sets it).

Usage: bench/timing/timeline.py FILE

Prints, per test module, its tests' wall seconds, how long it held the CPU
lock (conftest.cpu_lock) and waited for it, and the CPU seconds the
commands run under the lock used (CPU/held: 2.0 is both cores busy); then
the integration tier's span and how much of it the lock was held by
anyone. Exit codes: 0 printed; 1 the file cannot be read; 2 usage error.
"""
import collections
import json
import sys


def summary(entries):
    tests = [e for e in entries if e["event"] == "test"]
    locks = [e for e in entries if e["event"] == "lock"]
    mods = collections.defaultdict(lambda: collections.Counter())
    for e in tests:
        m = mods[e["test"].split("::")[0]]
        m["wall"] += e["end"] - e["start"]
        m["integration"] = e["integration"]
    for e in locks:
        m = mods[e["test"].split("::")[0]]
        m["held"] += e["end"] - e["start"]
        m["held2"] += (e["end"] - e["start"]) if e["cores"] == 2 else 0
        m["wait"] += e["wait"]
        m["cpu"] += e["cpu"]
    out = ["%-36s %7s %7s %7s %7s %7s %8s" % (
        "module", "wall s", "held s", "alone s", "wait s", "cpu s",
        "cpu/held")]
    for name, m in sorted(mods.items(), key=lambda x: -x[1]["held"]):
        if not m["held"] and not m["integration"]:
            continue
        out.append("%-36s %7.0f %7.0f %7.0f %7.0f %7.0f %8s" % (
            name, m["wall"], m["held"], m["held2"], m["wait"], m["cpu"],
            "%.2f" % (m["cpu"] / m["held"]) if m["held"] else "-"))
    itests = [e for e in tests if e["integration"]]
    if itests:
        t0 = min(e["start"] for e in itests)
        t1 = max(e["end"] for e in itests)
        spans = sorted((e["start"], e["end"]) for e in locks)
        held, cur = 0.0, None
        for a, b in spans:
            if cur and a <= cur[1]:
                cur[1] = max(cur[1], b)
                continue
            if cur:
                held += cur[1] - cur[0]
            cur = [a, b]
        if cur:
            held += cur[1] - cur[0]
        out.append("integration tier: %.0f s; the CPU lock held by some "
                   "test for %.0f s of it" % (t1 - t0, held))
    return "\n".join(out)


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        if argv and argv[0] in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        print("usage: bench/timing/timeline.py FILE", file=sys.stderr)
        return 2
    try:
        with open(argv[0]) as f:
            entries = [json.loads(ln) for ln in f if ln.strip()]
    except (OSError, ValueError) as e:
        print("timeline: %s: %s" % (argv[0], e), file=sys.stderr)
        return 1
    print(summary(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
