"""The environment floors' files (the numbers: analysis/stats/envfloor.py).

- A workload's floors of each metric, level and difference: tbench's in
  analysis/calibration.json beside the rule's error rates
  (calibrate.write()), every other workload's in analysis/floors.json
  (write_floors(); $JLBENCH_FLOORS names another). floor() takes one from
  either.
- The floors of each kernel function, a table per workload:
  analysis/function-floors/<workload>.tsv (write_function_floors(),
  FunctionFloors; $JLBENCH_FUNCTION_FLOORS names another directory). They
  hold instructions per op: an environment study's profiles count no
  other metric (that needs a --model run).

analysis/calibrate --write stores them (--floors-only, --functions).
"""
import json
import os

from analysis.results.load import FormatError
from lib import ROOT

FLOORS_FILE = os.path.join(ROOT, "analysis", "floors.json")
FUNCTION_FLOORS_DIR = os.path.join(ROOT, "analysis", "function-floors")
FUNCTION_METRIC = "insns"
KINDS = ("level", "difference")
FUNCTION_COLUMNS = ("function",) + tuple("%s_pts" % k for k in KINDS)


def rel(path):
    """path relative to the repository, as the files record it."""
    return os.path.relpath(os.path.abspath(path), ROOT)


def replace(dest, text):
    """Replace the file dest with text and a newline, atomically;
    returns dest."""
    with open(dest + ".tmp", "w") as f:
        f.write(text + "\n")
    os.replace(dest + ".tmp", dest)
    return dest


def read(src):
    """A floors file (calibration.json, floors.json) as a dict, or None
    when there is none."""
    try:
        with open(src) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def floors_path():
    """Where the other workloads' floors are read from and written to."""
    return os.environ.get("JLBENCH_FLOORS") or FLOORS_FILE


def floor(cal, metric, kind):
    """The environment floor of metric in a calibration (calibrate.load()
    or a workload's entry of floors.json): kind "level" (% of one kernel's
    figure) or "difference" (points of a comparison's % change); None
    when it was not measured."""
    m = ((cal or {}).get("metrics") or {}).get(metric)
    if not m:
        return None
    v = m.get("floor_level_pct" if kind == "level"
              else "floor_difference_pts")
    return v if v is not None and v == v else None


def write_floors(workload, env_root, envs, floors, dest=None):
    """Store a workload's environment floors (no rates: its environment
    study alone) beside the others'; returns the path."""
    dest = dest or floors_path()
    out = read(dest) or {}
    out[workload] = {
        "floors_only": True, "environment_study": rel(env_root),
        "environments": {k: rel(v.path) for k, v in envs.items()},
        "seeds": int(envs["base"].runs["perturb_seed"].nunique()),
        "metrics": {m: {"floor_level_pct": f["level"],
                        "floor_difference_pts": f["difference"]}
                    for m, f in floors.items()}}
    return replace(dest, json.dumps(out, indent=1, sort_keys=True))


def function_floors_path(workload):
    """Where workload's function floors are read from and written to."""
    return os.path.join(os.environ.get("JLBENCH_FUNCTION_FLOORS")
                        or FUNCTION_FLOORS_DIR, "%s.tsv" % workload)


def write_function_floors(workload, env_root, table, total, baseline,
                          dest=None):
    """Store a workload's function floors (a DataFrame: a row per
    function, columns KINDS in points of baseline's kernel total, which
    is total per op), measured on the study env_root; returns the path."""
    dest = dest or function_floors_path(workload)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    lines = ["# %s: the environment floor of each kernel function's %s "
             "per op, in points of %s's kernel total (%.1f per op): "
             "analysis/calibrate --functions --env %s --write"
             % (workload, FUNCTION_METRIC, baseline, total, rel(env_root)),
             "\t".join(FUNCTION_COLUMNS)]
    for name, row in table.sort_index().iterrows():
        lines.append("\t".join([name] + ["%.4g" % row[k] for k in KINDS]))
    return replace(dest, "\n".join(lines))


class FunctionFloors:
    """A workload's stored function floors: source (the file) and
    points(name, kind), a function's floor in points of the kernel
    total, None for one the study did not see."""

    def __init__(self, src):
        self.source = src
        with open(src) as f:
            lines = [ln.rstrip("\n") for ln in f if not ln.startswith("#")]
        if not lines or tuple(lines[0].split("\t")) != FUNCTION_COLUMNS:
            raise FormatError("%s: not a table of function floors (its "
                              "header is not %s)" % (
                                  src, " ".join(FUNCTION_COLUMNS)))
        self.floors = {}
        for ln in lines[1:]:
            name, *values = ln.split("\t")
            self.floors[name] = dict(zip(KINDS, map(float, values)))

    def points(self, name, kind):
        return self.floors.get(name, {}).get(kind)


def function_floors(workload, metric=FUNCTION_METRIC):
    """The FunctionFloors of workload's metric, or None when none were
    measured."""
    src = function_floors_path(workload)
    if metric != FUNCTION_METRIC or not os.path.isfile(src):
        return None
    return FunctionFloors(src)
