#!/bin/sh
# Rebuild this run's kernels and rerun one of its tries (--help: options).
d=$(cd "$(dirname "$0")" && pwd)
r=$(git -C "$d" rev-parse --show-toplevel 2>/dev/null) || {
  echo "$d is not in a jlbench checkout: run CHECKOUT/jlbench reproduce $d" >&2
  exit 1
}
exec "$r/jlbench" reproduce "$d" "$@"
