#!/usr/bin/env bash
# run_all.sh: the whole jlbench experiment with one command.
#
# Usage: ./run_all.sh [options]
#   deps -> kernels -> image -> plugin -> runs -> selftest -> analysis -> plots
#   -> REPORT.md
#   (kernels: each variant's kernel, its static-key module and its sites
#   file; plugin: the QEMU branch-count plugin, which icount runs load, not
#   built when --accel is kvm or tcg; selftest: one boot per kernel in
#   selftest mode, results in selftest.csv; a failed check is shown in
#   REPORT.md, it does not stop the run)
#
# Options (passed through to the stages):
#   --profile quick|long|seed  run length profile of bench/run (default:
#                          quick; long: 20, 60 and 180 s runs, the
#                          convergence check of REPORT.md)
#   --boots N              runs per kernel (default: the profile's)
#   --variants LIST        comma-separated built-in variants (default: all in
#                          kernel-variants/variants/, printed at the end of
#                          this text; with --variant, the baseline only)
#   --variant NAME=SPEC    a user variant (repeatable): your patches, config
#                          fragment or git tree on top of a built-in
#                          variant, e.g. mine=patches:DIR,
#                          mine=config:FRAG, mine=tree:GITDIR@REV (syntax:
#                          kernel-variants/variant.py --help; README.md
#                          "Testing your own kernel change")
#   --baseline NAME        the kernel the others are compared with
#                          (default: lib/variants.py's baseline; with
#                          --variant, the first of --variants, else the
#                          built-in the first user variant sits on, its
#                          on:, by default lib/variants.py's default-on;
#                          both printed at the end of this text)
#   --seconds S[,S...]     tbench seconds per run (default: the profile's)
#   --no-aa                leave out the A/A twin of the baseline kernel
#                          (by default the baseline also runs as
#                          <baseline>.aa: the report's noise floor)
#   --clients N            tbench clients (default: 20, as in 2011)
#   --workload NAME|suite  what the guest runs (default: tbench): a workload
#                          of lib/workloads.py (pipe: perf bench sched pipe,
#                          the workload of the perf stat table in the
#                          kernel's Documentation/staging/static-keys.rst;
#                          perf bench messaging and syscall; stress-ng
#                          stressors of mm, the scheduler, IPC, the VFS and
#                          sockets), or suite: tbench into the results dir
#                          as usual, then every other workload with the
#                          same kernels, seeds and options into
#                          RESULTS_DIR/suite/<workload>/<run>/, and
#                          REPORT.md's "Across the kernel" section (about
#                          30 more minutes with the full kernels:
#                          docs/timings.md). --resume DIR of a suite run
#                          finishes every workload's run
#   --loops N              a workload other than tbench: its fixed work per
#                          run, in its record's unit (default: the record's
#                          n; pipe: 100000 round trips, as that table's
#                          pipe-test)
#   --append WORDS         extra kernel command line words for every boot
#                          of bench/run, after each build's boot_args (one
#                          argument; no quotes or newlines, of the jlbench.*
#                          words only jlbench.envpad=N;
#                          kept in meta.json, and on --resume the same or
#                          none)
#   --model                icount: the plugin also models a core's branch
#                          predictor and L1 caches (REPORT.md's "Modelled
#                          hardware cost"; several times the runs' wall
#                          time), with --model-set NAME=VALUE (repeatable,
#                          bench/run --help lists the parameters)
#   --model-preset NAME    --model with a core preset's parameters:
#                          nehalem (2008-2011), zen4 or goldencove (each
#                          figure's source in docs/model.md); --model-set
#                          changes single ones on top
#   --accel MODE           auto|kvm|tcg|icount (default: auto)
#   --config NAME          kernel base config: full (default), smoke (the
#                          test suite's, a quick answer) or distro
#                          (Debian's own configuration, built in only;
#                          its kernels take about 46 minutes cold: docs/configs.md)
#   --source VERSION       the kernels' Linux version, one of lib/source.py's
#                          (default: its DEFAULT; both printed at the end of
#                          this text), Debian's linux-source package of it
#                          with our series ported to it; each version is
#                          its own results dir, set side by side in
#                          REPORT.md's "Kernel versions"
#   --jobs N               guests at once in bench/run and bench/selftest
#                          (default: icount, the number of CPUs: icount
#                          figures do not depend on the host's load; kvm
#                          and tcg measure wall-clock time and boot one at
#                          a time)
#   --make-jobs N          make -j for kernel builds (default: nproc)
#   --seed N               seed of the run order and perturbations
#   --resume DIR           finish an interrupted results dir, then analyse it
#   --executor local|slurm where bench/run's tries run (default: local;
#                          slurm: one Slurm job array task per try, see
#                          docs/cluster.md), with
#                          --slurm-partition NAME, --slurm-account NAME,
#                          --slurm-time MIN (limit per try), --slurm-args
#                          ARGS (extra sbatch arguments) and --slurm-shared
#   --s390x jump-label|all|none
#                          the part of the other architectures of
#                          lib/arch.py (those without the benchmark: now
#                          s390x), after the x86_64 report is written: the
#                          smoke kernel of jump-label (the built-in with
#                          jump labels, lib/variants.py's jump: the one
#                          seed 004 is about; the default), of every
#                          variant (all), or
#                          none; each is cross-built and booted once in
#                          selftest mode under its QEMU (s390x:
#                          qemu-system-s390x, TCG) into the results dir
#                          (selftest-<arch>.csv, REPORT.md's s390x section,
#                          then rendered again); cold about 5-6 min per
#                          kernel on 2 cores; with a --source other than
#                          the default one, none is the default (give
#                          --s390x to cross-build that version)
#   --no-s390x             the same as --s390x none
#   --results-root DIR     where bench/run makes the results dir (default:
#                          results/ in the repository)
#   --report FILE          where REPORT.md goes, its figures in plots/img/
#                          beside it (default: REPORT.md and plots/img/ of the
#                          repository)
#   --dry-run              print what each stage would run, run nothing
#   -h, --help             this text
#
# Exit codes: 0 done; 1 a stage failed (it is named); 2 usage error.
set -euo pipefail
# shellcheck source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
JLBENCH_STAGE=run_all

config=full
SOURCE_PY=$JLBENCH_ROOT/lib/source.py
default_source=$("$JLBENCH_PYTHON" "$SOURCE_PY" default)
# The built-in variants' roles (lib/variants.py, its record beside the
# fragments): --s390x jump-label builds the jump one, a user variant sits
# on default_on when its spec names no on:.
VARIANTS_PY=$JLBENCH_ROOT/lib/variants.py
jump_variant=$("$JLBENCH_PYTHON" "$VARIANTS_PY" role jump)
default_on=$("$JLBENCH_PYTHON" "$VARIANTS_PY" role default-on)
source=$default_source
make_jobs=$(nproc)
jobs_args=()
append_args=()
exec_args=()
variants=""
report_file=$JLBENCH_ROOT/REPORT.md
plots_dir=$JLBENCH_ROOT/plots/img
user_specs=()
baseline=""
bench_args=()
resume=""
root_args=()
suite=0
tbench_args=()
loops_given=0
dry_run=0
accel=auto
s390x=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	-h | --help)
		usage_header
		printf '\nLinux versions (--source): %s; the default: %s\n' \
			"$("$JLBENCH_PYTHON" "$SOURCE_PY" names | paste -sd ' ')" "$default_source"
		printf 'Built-in variants (--variants): %s; the baseline: %s; a user variant'"'"'s default on: %s\n' \
			"$("$JLBENCH_PYTHON" "$VARIANTS_PY" names | paste -sd ' ')" \
			"$("$JLBENCH_PYTHON" "$VARIANTS_PY" role baseline)" "$default_on"
		exit 0
		;;
	--profile | --boots | --accel | --seed | --loops)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		bench_args+=("$1" "$2")
		case "$1" in
		--accel) accel=$2 ;;
		--loops) loops_given=1 ;;
		esac
		shift 2
		;;
	--seconds | --clients)
		# tbench's own: a suite's other workloads do fixed work
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		tbench_args+=("$1" "$2")
		shift 2
		;;
	--workload)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		if [[ $2 == suite ]]; then
			suite=1
		else
			bench_args+=("$1" "$2")
		fi
		shift 2
		;;
	--jobs)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		jobs_args=(--jobs "$2")
		shift 2
		;;
	--append)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		append_args=(--append "$2")
		shift 2
		;;
	--results-root)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		root_args=("$1" "$2")
		shift 2
		;;
	--report)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		report_file=$2
		plots_dir=$(dirname "$2")/plots/img
		shift 2
		;;
	--executor | --slurm-partition | --slurm-account | --slurm-time | --slurm-args)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		exec_args+=("$1" "$2")
		shift 2
		;;
	--slurm-shared)
		exec_args+=("$1")
		shift
		;;
	--variants | --config | --make-jobs | --resume | --variant | --baseline | --source)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		case "$1" in
		--variants) variants=$2 ;;
		--variant)
			[[ $2 == *=* ]] || usage_error "--variant takes NAME=SPEC (a built-in variant goes in --variants)"
			user_specs+=("$2")
			;;
		--baseline) baseline=$2 ;;
		--config) config=$2 ;;
		--source) source=$2 ;;
		--make-jobs) make_jobs=$2 ;;
		--resume) resume=$2 ;;
		esac
		shift 2
		;;
	--dry-run)
		dry_run=1
		shift
		;;
	--no-aa | --model)
		bench_args+=("$1")
		shift
		;;
	--model-set | --model-preset)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		bench_args+=("$1" "$2")
		shift 2
		;;
	--no-s390x)
		s390x=none
		shift
		;;
	--s390x)
		[[ $# -ge 2 ]] || usage_error "$1 needs a value"
		case "$2" in
		jump-label | all | none) s390x=$2 ;;
		*) usage_error "--s390x takes jump-label, all or none, not '$2'" ;;
		esac
		shift 2
		;;
	*)
		usage_error "unknown option '$1'"
		;;
	esac
done

if [[ $suite == 1 && $loops_given == 1 ]]; then
	usage_error "--loops sets one workload's work; --workload suite runs each at its record's n"
fi
if [[ -z "$s390x" ]]; then
	s390x=jump-label
	if [[ $source != "$default_source" ]]; then
		s390x=none
		log "s390x: not built for --source $source (give --s390x jump-label|all to cross-build it)"
	fi
fi
variant_args=()
selftest_args=()
if [[ ${#user_specs[@]} -gt 0 ]]; then
	# A/B of the user's kernels against the built-in one the first sits on.
	if [[ -z "$baseline" && -n "$variants" ]]; then
		baseline=${variants%%,*}
	elif [[ -z "$baseline" ]]; then
		baseline=$default_on
		[[ ${user_specs[0]} =~ [=,]on:([a-z0-9_-]+) ]] && baseline=${BASH_REMATCH[1]}
	fi
	names=${variants:-$baseline}
	for spec in "${user_specs[@]}"; do
		names+=,${spec%%=*}
	done
	variants=$names
fi
if [[ -n "$variants" ]]; then
	selftest_args=(--variants "$variants")
	IFS=, read -r -a vlist <<<"$variants"
	for v in "${vlist[@]}"; do
		[[ " ${user_specs[*]%%=*} " == *" $v "* ]] || variant_args+=(--variant "$v")
	done
	bench_args+=(--variants "$variants")
fi
for spec in "${user_specs[@]}"; do
	variant_args+=(--variant "$spec")
done
[[ -z "$baseline" ]] || bench_args+=(--baseline "$baseline")
dry_args=()
[[ $dry_run == 1 ]] && dry_args=(--dry-run)
other_variants=()
case "$s390x" in
jump-label) other_variants=(--variant "$jump_variant") ;;
all) other_variants=("${variant_args[@]}") ;;
esac
ARCH_PY=$JLBENCH_ROOT/lib/arch.py
# The architectures whose images carry no benchmark: selftest boots only.
other_arches=()
for a in $("$JLBENCH_PYTHON" "$ARCH_PY" names); do
	[[ $("$JLBENCH_PYTHON" "$ARCH_PY" get "$a" benchmark) == 1 ]] || other_arches+=("$a")
done

# stage NAME CMD...: run one stage with a banner and its elapsed time; on
# failure name the stage and exit 1.
stage() {
	local name=$1 t0=$SECONDS
	shift
	log "==== stage $name: $*"
	if ! "$@"; then
		die "stage '$name' failed after $(elapsed "$t0") (see its messages above)"
	fi
	log "==== stage $name done in $(elapsed "$t0")"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
builds=$work/builds.tsv

stage deps "$JLBENCH_ROOT/lib/deps"
stage kernels "$JLBENCH_ROOT/kernel-variants/build" --source "$source" --config "$config" --jobs "$make_jobs" \
	--out "$builds" "${variant_args[@]}" "${dry_args[@]}"
stage image "$JLBENCH_ROOT/guest-image/build" --builds "$builds" \
	--out "$work/image.path" "${dry_args[@]}"
# kvm and tcg runs load no TCG plugin; icount (or auto, which may pick it) do.
if [[ $accel != kvm && $accel != tcg ]]; then
	stage plugin "$JLBENCH_ROOT/bench/plugin/build" "${dry_args[@]}"
fi

# arch_images ARCH: cross-build ARCH's kernels (its first base config, e.g.
# smoke) and their image.
arch_images() {
	local a=$1 configs
	read -r -a configs <<<"$("$JLBENCH_PYTHON" "$ARCH_PY" get "$a" configs)"
	stage "$a-kernels" "$JLBENCH_ROOT/kernel-variants/build" --source "$source" --arch "$a" --config "${configs[0]}" \
		--jobs "$make_jobs" --out "$work/$a-builds.tsv" "${other_variants[@]}" "${dry_args[@]}"
	stage "$a-image" "$JLBENCH_ROOT/guest-image/build" --arch "$a" \
		--builds "$work/$a-builds.tsv" --out "$work/$a-image.path" "${dry_args[@]}"
}

# run_suite: every workload but tbench (lib/workloads.py), with the options
# of tbench's run but tbench's own, each into its own results dir under
# $results/suite/<workload>/; a workload whose dir is there is resumed.
run_suite() {
	local w dir args=("${bench_args[@]}")
	# the options, kept for --resume (which gives none)
	mkdir -p "$results/suite"
	if [[ -n "$resume" && -f "$results/suite/options" ]]; then
		mapfile -t args <"$results/suite/options"
	else
		args+=("${append_args[@]}")
		: >"$results/suite/options"
		[[ ${#args[@]} -eq 0 ]] || printf '%s\n' "${args[@]}" >"$results/suite/options"
	fi
	for w in $("$JLBENCH_PYTHON" "$JLBENCH_ROOT/lib/workloads.py" names); do
		[[ $w != tbench ]] || continue
		dir=""
		if [[ -d "$results/suite/$w" ]]; then
			dir=$(find "$results/suite/$w" -mindepth 1 -maxdepth 1 -type d | sort | tail -1)
		fi
		if [[ -n "$dir" ]]; then
			stage "runs-$w" "$JLBENCH_ROOT/bench/run" --resume "$dir" --builds "$builds" \
				--initramfs "$initramfs" --out "$work/$w.path" "${jobs_args[@]}" "${exec_args[@]}"
		else
			stage "runs-$w" "$JLBENCH_ROOT/bench/run" --builds "$builds" --initramfs "$initramfs" \
				--results-root "$results/suite/$w" --out "$work/$w.path" --workload "$w" \
				"${args[@]}" "${jobs_args[@]}" "${exec_args[@]}"
		fi
		stage "analysis-$w" "$JLBENCH_ROOT/analysis/analyze" --no-history "$(cat "$work/$w.path")"
	done
}

# report: analyse the results dir, draw its plots, write REPORT.md.
report() {
	stage analysis "$JLBENCH_ROOT/analysis/analyze" "$results"
	stage plots "$JLBENCH_ROOT/plots/draw" "$results" --out "$plots_dir"
	stage report "$JLBENCH_ROOT/analysis/report" "$results" --out "$report_file" --plots "$plots_dir"
}

if [[ $dry_run == 1 ]]; then
	if [[ $s390x != none ]]; then
		for a in "${other_arches[@]}"; do
			arch_images "$a"
		done
	fi
	if [[ $suite == 1 ]]; then
		log "dry run: would now run bench/run (tbench, then each of: $("$JLBENCH_PYTHON" "$JLBENCH_ROOT/lib/workloads.py" names | grep -vx tbench | paste -sd ' ')), bench/selftest, analysis/analyze, plots/draw and analysis/report"
	else
		log "dry run: would now run bench/run, bench/selftest, analysis/analyze, plots/draw and analysis/report"
	fi
	exit 0
fi
initramfs=$(cat "$work/image.path")
if [[ -n "$resume" ]]; then
	stage runs "$JLBENCH_ROOT/bench/run" --resume "$resume" --builds "$builds" \
		--initramfs "$initramfs" --out "$work/results.path" "${append_args[@]}" "${jobs_args[@]}" \
		"${exec_args[@]}"
else
	stage runs "$JLBENCH_ROOT/bench/run" --builds "$builds" --initramfs "$initramfs" \
		--out "$work/results.path" "${bench_args[@]}" "${tbench_args[@]}" "${append_args[@]}" "${jobs_args[@]}" \
		"${root_args[@]}" "${exec_args[@]}"
fi
results=$(cat "$work/results.path")
[[ -z "$resume" || ! -d "$results/suite" ]] || suite=1
[[ $suite == 0 ]] || run_suite
stage selftest "$JLBENCH_ROOT/bench/selftest" --builds "$builds" --initramfs "$initramfs" \
	--results "$results" --allow-fail "${selftest_args[@]}" "${jobs_args[@]}"
report
log "x86_64 report done in $(elapsed): $report_file from $results"
if [[ $s390x != none && ${#other_arches[@]} -gt 0 ]]; then
	for a in "${other_arches[@]}"; do
		arch_images "$a"
		stage "$a-selftest" "$JLBENCH_ROOT/bench/selftest" --builds "$work/$a-builds.tsv" \
			--initramfs "$(cat "$work/$a-image.path")" --results "$results" --allow-fail \
			"${jobs_args[@]}"
	done
	report
fi
log "done in $(elapsed): $report_file from $results"
