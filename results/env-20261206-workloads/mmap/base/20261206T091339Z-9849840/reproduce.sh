#!/bin/sh
# Rebuild this run's kernels and rerun one of its tries (--help: options).
# The harness: the checkout holding this dir, else --clone's.
d=$(cd "$(dirname "$0")" && pwd)
r=$(git -C "$d" rev-parse --show-toplevel 2>/dev/null) || r=
p=
for a in "$@"; do [ "$p" = --clone ] && r=${r:-$a}; p=$a; done
[ -x "$r/jlbench" ] || {
  echo "$d is not in a jlbench checkout: give --clone CHECKOUT" >&2
  exit 1
}
exec "$r/jlbench" reproduce "$d" "$@"
