#!/usr/bin/env bash
# reproduce.sh: rebuild the kernels of this results dir and rerun one try.
#
# Usage: ./reproduce.sh [--clone DIR] [--run N] [--work DIR] [--empty-cache]
#                       [--keep] [--dry-run]
#   --clone DIR    a jlbench git repository that has the commit this run was
#                  made at (default: the repository that holds this dir)
#   --run N        rerun the ok try of run N (runs.csv index; default: the
#                  lowest run with an ok try)
#   --work DIR     where the checkout, the build lists and the rerun's raw
#                  files go (default: a new dir under ${TMPDIR:-/tmp})
#   --empty-cache  build in an empty JLBENCH_CACHE (WORK/cache): every kernel,
#                  module, agent and the initramfs from source. ccache is
#                  used when CCACHE_DIR is set (a compiler cache gives the
#                  objects the compiler would, so it is no input of the run)
#   --keep         keep the work dir after a PASS (it is kept after a FAIL)
#   --dry-run      print the steps, run nothing
#   -h, --help     this text
#
# Steps: (1) clone --clone into WORK/jlbench, check out COMMIT and, when the
# run was made in a dirty tree, apply provenance/git.diff; (2) ask that
# checkout's bench/replay/replay.py which try to rerun and which kernels it
# needs (the one it boots, and those whose modules its initramfs carries);
# (3) build them with kernel-variants/build (the recorded config, arch and
# the patch series of provenance/patches; a user variant from its recorded
# patches, fragment or git commit in provenance/variants/) and check that their build hashes
# and bzImage bytes are the recorded ones; (4) build the initramfs with
# guest-image/build; (5) rerun the try with its recorded QEMU command line
# (raw/*.qemu-cmd, with this machine's paths put in) and compare status,
# throughput, op counts, every runs.csv figure, the per-second samples and
# the plugin counts with the recorded ones: PASS when all are the same bits,
# which icount runs give. Under kvm or tcg a rerun cannot give the same
# bits: the try is rerun and its figures shown beside the recorded ones.
#
# Environment: JLBENCH_CACHE (the build cache, as for every stage),
# JLBENCH_QEMU (another QEMU), JLBENCH_PYTHON (default /usr/bin/python3).
# Exit codes: 0 PASS (kvm, tcg: rerun done); 1 FAIL or an error (named);
# 2 usage error.
set -euo pipefail

# BEGIN RUN DEFINITION (bench/run writes each results dir's values here)
COMMIT=""
DIRTY=0
ACCEL=""
# END RUN DEFINITION

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PYTHON=${JLBENCH_PYTHON:-/usr/bin/python3}
T0=$SECONDS

# log MESSAGE...: one timestamped line on stderr, as every jlbench stage.
log() {
	printf '%s reproduce: %s\n' "$(date '+%Y-%m-%d %H:%M:%S')" "$*" >&2
}

# die MESSAGE...: say what failed and what to do, then FAIL (exit 1).
die() {
	log "error: $*"
	echo "FAIL"
	exit 1
}

# usage_error MESSAGE...: a bad command line (exit 2).
usage_error() {
	log "usage error: $* (see $0 --help)"
	exit 2
}

# step CMD...: log and run CMD, or only print it with --dry-run.
step() {
	if [[ $dry_run == 1 ]]; then
		printf 'dry-run:'
		printf ' %q' "$@"
		printf '\n'
		return 0
	fi
	log "+ $*"
	"$@"
}

# replay ARGS...: python3 -m bench.replay.replay ARGS of the checkout.
replay() {
	(cd "$src" && "$PYTHON" -m bench.replay.replay "$@")
}

clone=""
run=""
work=""
empty_cache=0
keep=0
dry_run=0
while [[ $# -gt 0 ]]; do
	case "$1" in
	-h | --help)
		awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
		exit 0
		;;
	--clone | --run | --work)
		[[ $# -ge 2 && -n "$2" ]] || usage_error "$1 needs a value"
		case "$1" in
		--clone) clone=$2 ;;
		--run) run=$2 ;;
		--work) work=$2 ;;
		esac
		shift 2
		;;
	--empty-cache) empty_cache=1 && shift ;;
	--keep) keep=1 && shift ;;
	--dry-run) dry_run=1 && shift ;;
	*) usage_error "unknown option '$1'" ;;
	esac
done
[[ -z "$run" || "$run" =~ ^[1-9][0-9]*$ ]] || usage_error "--run must be a run number, not '$run'"
[[ -n "$COMMIT" ]] ||
	die "this is bench/replay/reproduce-template.sh: run the reproduce.sh that bench/run wrote into a results dir"
[[ -f "$HERE/provenance/provenance.json" ]] ||
	die "$HERE/provenance/provenance.json is missing: this dir no longer holds what defines its run"
if [[ -z "$clone" ]]; then
	clone=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null) ||
		die "$HERE is not inside a git repository: give a jlbench clone with --clone DIR"
fi
git -C "$clone" rev-parse --git-dir >/dev/null 2>&1 || die "--clone $clone is not a git repository"
if [[ -z "$work" ]]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/jlbench-reproduce.XXXXXX")
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
src=$work/jlbench
[[ ! -e "$src" ]] || die "$src exists: give an empty --work dir"
if [[ $empty_cache == 1 ]]; then
	export JLBENCH_CACHE=$work/cache
	mkdir -p "$JLBENCH_CACHE"
fi
log "results dir $HERE (under $ACCEL), commit $COMMIT$([[ $DIRTY == 1 ]] && echo ' plus provenance/git.diff'), work dir $work, cache ${JLBENCH_CACHE:-the default}"

# (1) the code the run was made with
step git clone --quiet --no-checkout "$clone" "$src" || die "git clone $clone failed"
if [[ $dry_run == 0 ]] && ! git -C "$src" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
	die "commit $COMMIT is not in $clone: fetch it there (git -C $clone fetch origin $COMMIT) or give --clone a clone that has it"
fi
step git -C "$src" -c advice.detachedHead=false checkout --quiet "$COMMIT" || die "checking out $COMMIT failed"
if [[ $DIRTY == 1 ]]; then
	[[ -f "$HERE/provenance/git.diff" ]] ||
		die "the run was made in a dirty tree whose changes were not recorded (see notes in provenance/provenance.json)"
	step git -C "$src" apply --binary "$HERE/provenance/git.diff" ||
		die "provenance/git.diff does not apply to $COMMIT"
fi
if [[ $dry_run == 1 ]]; then
	log "dry run: then bench.replay plan, kernel-variants/build, check-kernels, guest-image/build and rerun, as below"
	src=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null || echo "$clone")
fi

# (2) which try, and which kernels it needs
declare -A plan=()
while IFS='=' read -r key value; do
	plan[$key]=$value
done < <(replay plan "$HERE" ${run:+--run "$run"} || echo "error=1")
[[ -z "${plan[error]:-}" ]] || die "cannot tell which try to rerun (see above)"
read -r -a kernels <<<"${plan[kernels]}"
log "run ${plan[run]} try ${plan[try]} (${plan[variant]}): kernels ${kernels[*]} (Linux ${plan[source]}, ${plan[config]} config, ${plan[arch]})"

# (3) the kernels, from the recorded patch series
build_args=(--source "${plan[source]}" --config "${plan[config]}" --arch "${plan[arch]}" --out "$work/builds.tsv")
read -r -a specs <<<"${plan[specs]:-${plan[kernels]}}"
for k in "${specs[@]}"; do
	build_args+=(--variant "$k")
done
step env JLBENCH_PATCHES="$HERE/provenance/patches" "$src/kernel-variants/build" "${build_args[@]}" ||
	die "building the kernels failed (see above)"
if [[ $dry_run == 0 ]]; then
	replay check-kernels "$HERE" "$work/builds.tsv" --kernels "${kernels[*]}" ||
		die "the rebuilt kernels are not the recorded ones (see above)"
fi

# (4) the initramfs, with the modules of the kernels it carried
image_args=(--out "$work/image.path" --arch "${plan[arch]}")
if [[ "${plan[image_kernels]}" == "?" ]]; then
	log "warning: which modules the recorded initramfs carries is unknown: building it with ${kernels[*]}"
	image_args+=(--builds "$work/builds.tsv")
elif [[ -n "${plan[image_kernels]}" ]]; then
	read -r -a image_kernels <<<"${plan[image_kernels]}"
	if [[ $dry_run == 0 ]]; then
		awk -F '\t' -v want="${image_kernels[*]}" \
			'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 } $1 in keep' \
			"$work/builds.tsv" >"$work/image-builds.tsv"
	fi
	image_args+=(--builds "$work/image-builds.tsv")
fi
step "$src/guest-image/build" "${image_args[@]}" || die "building the initramfs failed (see above)"
if [[ "${plan[plugin]:-0}" == 1 ]]; then
	step "$src/bench/plugin/build" || die "building the branch-count plugin failed (see above)"
fi

# (5) the try again, and the comparison
if [[ $dry_run == 1 ]]; then
	step replay rerun "$HERE" --run "${plan[run]}" --builds "$work/builds.tsv" \
		--image "IMAGE" --out "$work/rerun"
	exit 0
fi
status=0
replay rerun "$HERE" --run "${plan[run]}" --builds "$work/builds.tsv" \
	--image "$(cat "$work/image.path")" --out "$work/rerun" || status=$?
elapsed=$((SECONDS - T0))
case "$status" in
0)
	log "reproduced run ${plan[run]} try ${plan[try]} bit for bit in $((elapsed / 60))m$((elapsed % 60))s"
	if [[ $keep == 0 ]]; then
		rm -rf "$work/jlbench" "$work/rerun" "$work/cache"
	fi
	;;
3)
	log "rerun under $ACCEL done (not comparable bit for bit); its files: $work/rerun"
	status=0
	;;
*)
	log "run ${plan[run]} try ${plan[try]} did not reproduce; rerun files kept in $work/rerun"
	status=1
	;;
esac
exit "$status"
