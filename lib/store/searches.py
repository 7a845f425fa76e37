"""What the store keeps of a bisection or a scan (read_search): its log,
DIR/bisect.log or DIR/scan.log (bench/bisection/bisection.py and
scan.py write them: a start entry, step and decision entries, an end
entry), read whole into rows of the search, step, step_value, decision
and finding tables, or Damaged naming what is wrong with it.
"""
import json
import os

from lib import workloads
from lib.store.read import (SEARCH_LOGS, Damaged, content_hash, integer,
                            number)


def _read_log(path):
    """The entries of a search's log; Damaged when a line is not JSON or
    it does not start with its start entry."""
    entries = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    e = json.loads(line)
                except ValueError as err:
                    raise Damaged("%s line %d: %s" % (
                        os.path.basename(path), n, err))
                if not isinstance(e, dict) or "event" not in e:
                    raise Damaged("%s line %d: not a log entry" % (
                        os.path.basename(path), n))
                entries.append(e)
    except (OSError, UnicodeDecodeError) as e:
        raise Damaged(str(e))
    if not entries or entries[0]["event"] != "start":
        raise Damaged("%s has no start entry" % os.path.basename(path))
    return entries


def _vs(c):
    c = c or {}
    return {"n": integer(c.get("n")), "pct_change": number(
        c.get("pct_change")), "pct_ci_lo": number(c.get("pct_ci_lo")),
        "pct_ci_hi": number(c.get("pct_ci_hi"))}


def _at(search, results):
    """A step's results dir (relative to its search's dir) as run path."""
    if not results:
        return ""
    return os.path.normpath(os.path.join(search, results))


def _finding(rel, head, f, steps):
    """A finding row of a scan's finding or a bisection's end."""
    name = f.get("variant") or f.get("commit") or ""
    vs = _vs(f.get("vs_parent"))
    headline = (f.get("headline") or {}).get("pct_change")
    return dict({
        "ref": "%s:%s" % (rel, name),
        "workload": head.get("workload") or workloads.DEFAULT,
        "metric": head.get("metric") or "",
        "i": integer(f.get("i")),
        "revision": f.get("commit") or f.get("revision") or "",
        "variant": f.get("variant") or "", "parent": f.get("parent") or "",
        "results": _at(rel, f.get("results") or
                       (steps.get(f.get("i")) or {}).get("results")),
        "parent_results": _at(rel, f.get("parent_results")),
        "headline_pct": number(headline),
        "top_functions": json.dumps(f.get("top_functions") or []),
        "static_keys": json.dumps(f.get("static_keys") or {},
                                  sort_keys=True),
        "note": f.get("note") or f.get("static_keys_note") or ""}, **{
            k: vs[k] for k in ("n", "pct_change", "pct_ci_lo",
                               "pct_ci_hi")})


def read_search(path, rel):
    """The record of the bisection or scan whose log is in path."""
    name = next(n for n in SEARCH_LOGS
                if os.path.isfile(os.path.join(path, n)))
    entries = _read_log(os.path.join(path, name))
    head = entries[0]
    kind = "scan" if name == "scan.log" or head.get("kind") == "scan" \
        else "bisect"
    steps, decisions, end = {}, [], None
    for e in entries[1:]:
        if e["event"] == "step":
            steps[e.get("i")] = e
        elif e["event"] == "decision":
            decisions.append(e)
            if e.get("i") in steps:
                steps[e["i"]]["decision"] = e.get("decision")
        elif e["event"] == "end":
            end = e
    step_rows, values = [], []
    for i, e in sorted(steps.items(), key=lambda x: x[0]):
        step_rows.append({
            "i": i, "variant": e.get("variant") or "",
            "revision": e.get("revision") or "",
            "results": _at(rel, e.get("results")),
            "build_hash": e.get("build_hash") or "",
            "decision": e.get("decision") or "", "why": e.get("why") or "",
            "top_functions": json.dumps(e.get("top_functions") or []),
            "seconds": number(e.get("seconds"))})
        for seed, v in sorted((e.get("values") or {}).items()):
            values.append((i, integer(seed), number(v)))
    decision_rows = []
    for seq, e in enumerate(decisions, 1):
        vs = _vs(e.get("vs") or e.get("vs_good"))
        decision_rows.append(dict(vs, seq=seq, i=e.get("i"),
                                  against=integer(e.get("against")) or 0,
                                  decision=e.get("decision") or ""))
    findings = []
    if end and kind == "scan":
        findings = [_finding(rel, head, f, steps)
                    for f in end.get("findings") or []]
    elif end and end.get("first_bad") is not None:
        first = end["first_bad"]
        if isinstance(first, list):
            f = {"commit": "%s..%s" % tuple(
                c["revision"] for c in (head["candidates"][first[0]],
                                        head["candidates"][first[1]])),
                 "note": end.get("message")}
        else:
            step = steps.get(first) or {}
            f = {"i": first, "commit": end.get("revision"),
                 "variant": step.get("variant"),
                 "results": step.get("results"),
                 "vs_parent": end.get("vs_parent"),
                 "top_functions": end.get("top_functions")}
            if first > 0:
                f["parent"] = head["candidates"][first - 1]["revision"]
                f["parent_results"] = (steps.get(first - 1) or {}).get(
                    "results")
        findings = [_finding(rel, head, f, steps)]
    end = end or {}
    search = {
        "path": rel, "kind": kind,
        "workload": head.get("workload") or workloads.DEFAULT,
        "metric": head.get("metric") or "",
        "source": json.dumps(head.get("source"), sort_keys=True),
        "config": head.get("config") or "",
        "seeds": integer(head.get("seeds")),
        "plan_seed": integer(head.get("seed")),
        "floor_pct": number(head.get("floor_pct")),
        "candidates": len(head.get("candidates") or []),
        "sampled": json.dumps(head.get("sampled")) if "sampled" in head
        else "",
        "first_bad": json.dumps(end["first_bad"]) if "first_bad" in end
        else "",
        "message": end.get("message") or "",
        "measured": integer(end.get("measured")) if "measured" in end
        else len(steps),
        "seconds": number(end.get("seconds")),
        "complete": int(bool(end)),
        "content_hash": content_hash(path, [name])}
    return {"search": search, "steps": step_rows, "values": values,
            "decisions": decision_rows, "findings": findings}
