# shellcheck shell=bash
# lib/common.sh: helpers shared by every jlbench stage. Source it; do not run it.
#
# Provides: JLBENCH_ROOT, JLBENCH_CACHE, JLBENCH_PYTHON, log, warn, die,
# elapsed, require_cmd, progress, progress_done, run_cmd, usage_header.

JLBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JLBENCH_CACHE=${JLBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jlbench}
# Debian's interpreter: it is the one that has python3-pandas and python3-scipy.
JLBENCH_PYTHON=${JLBENCH_PYTHON:-/usr/bin/python3}
JLBENCH_STAGE=${JLBENCH_STAGE:-$(basename "$0")}
JLBENCH_T0=${JLBENCH_T0:-$SECONDS}
JLBENCH_DRY_RUN=${JLBENCH_DRY_RUN:-0}
export JLBENCH_ROOT JLBENCH_CACHE JLBENCH_PYTHON

# log MESSAGE...: one timestamped line on stderr (and in $JLBENCH_LOG if set).
log() {
	local line
	line="$(date '+%Y-%m-%d %H:%M:%S') $JLBENCH_STAGE: $*"
	printf '%s\n' "$line" >&2
	if [[ -n "${JLBENCH_LOG:-}" ]]; then
		printf '%s\n' "$line" >>"$JLBENCH_LOG"
	fi
}

# warn MESSAGE...: a log line marked as a warning.
warn() {
	log "warning: $*"
}

# die MESSAGE...: log what failed (and what to do) and exit 1.
die() {
	log "error: $*"
	exit 1
}

# elapsed [START]: seconds since START (default: stage start) as 1m23s.
elapsed() {
	local s=$((SECONDS - ${1:-$JLBENCH_T0}))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# require_cmd CMD PACKAGE: die naming the Debian package when CMD is missing.
require_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: run lib/deps (or apt-get install $2)"
}

# progress MESSAGE...: rewrite one status line on a terminal; quiet otherwise.
progress() {
	if [[ -t 2 && -z "${JLBENCH_QUIET:-}" ]]; then
		printf '\r\033[K%s %s' "$(elapsed "$JLBENCH_T0")" "$*" >&2
	fi
}

# progress_done: end the status line started by progress.
progress_done() {
	if [[ -t 2 && -z "${JLBENCH_QUIET:-}" ]]; then
		printf '\r\033[K' >&2
	fi
}

# run_cmd CMD...: log and run a command, or only print it under --dry-run.
run_cmd() {
	if [[ "$JLBENCH_DRY_RUN" == 1 ]]; then
		printf 'dry-run:'
		printf ' %q' "$@"
		printf '\n'
		return 0
	fi
	log "+ $*"
	"$@"
}

# usage_header: print the leading comment block of the running script.
usage_header() {
	awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# usage_error MESSAGE...: report a bad command line and exit 2.
usage_error() {
	log "error: $* (see $(realpath --relative-to="$JLBENCH_ROOT" "$0") --help)"
	exit 2
}
