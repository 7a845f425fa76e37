// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * branches.c: jlbench's QEMU TCG plugin (QEMU 7.2, plugin API 1).
 *
 * Counts executed instructions and executed conditional branches (Jcc,
 * JCXZ/JECXZ/JRCXZ, LOOP*), separately for kernel addresses (top half of
 * the x86-64 address space) and everything else ("user"), and optionally the
 * executions of instructions at listed code addresses (sites=FILE). Figures
 * are reported for the whole run, for the window between the guest
 * agent's marker instructions (guest-image/PROTOCOL.md, "Window markers"),
 * and for numbered regions between region markers (ids 0..255, e.g. the
 * static-key module's count runs; bench/plugin/README.md, "Regions").
 *
 * How it stays cheap: all counting is done by TCG inline operations (an add
 * to a global counter compiled into the translated code, no helper call).
 * The window and the regions need no run-time test: the only callbacks are
 * on the marker instructions, which snapshot the running counters; window
 * and region figures are differences of snapshots. Only model=on adds
 * callbacks (per line run and per memory access: modelplug.c), and its
 * counters are snapshotted with the others.
 *
 * Arguments (-plugin branches.so,ARG,ARG...):
 *   outfile=PATH   where the key=value report is written at exit
 *                  (default: QEMU's log, i.e. stderr)
 *   sites=FILE     code addresses / ranges to count (see sites.h)
 *   count=insn|tb  instruction counting: one add per instruction (exact;
 *                  the default) or one add per translation block (a block
 *                  left early by an exception or an I/O recompile still
 *                  counts whole: measured +0.07% kernel instructions in a
 *                  tbench run; branches and sites are exact either way)
 *   profile=PATH   a per-function profile of the window (profile.h),
 *                  written to PATH at exit, with symbols=FILE the
 *                  kernel's functions (else every bucket is a page)
 *   model=on       modelled L1I, L1D, gshare predictor and BTB
 *                  (modelplug.c; callbacks, so it costs far more than the
 *                  counting); its parameters keys=FILE, l1i=SIZE:ASSOC,
 *                  l1d=SIZE:ASSOC, line=BYTES, bp=ENTRIES:HIST,
 *                  btb=ENTRIES:ASSOC are errors without it (modelcfg.h)
 *
 * Inline adds are not atomic: figures are exact with one vCPU thread
 * (-smp 1, or any -icount run, which is single-threaded).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "counters.h"
#include "modelplug.h"
#include "profile.h"
#include "report.h"
#include "sites.h"
#include "x86class.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define PLUGIN_FORMAT 1

/* The counters the translated code and the model add to (counters.h). */
static struct counters live;		/* whole run */
static struct counters window;		/* sum over closed windows */
static struct counters at_start;	/* live when the open window began */
static int window_open;
static uint64_t markers_start, markers_end, windows_closed;
static uint64_t tbs_translated;

/* Per region id: snapshots like the window's, and marker statistics. */
struct region {
	struct counters sum;	/* over closed instances */
	struct counters at_begin;
	uint64_t begins, closed;
	uint64_t unbalanced;	/* begin while open, end while closed */
	int open;
};

static struct region regions[X86_REGIONS];

static struct sites sites;
static int have_sites;
static int count_per_insn = 1;
static const char *outfile;
static struct profile prof;
static const char *profile_out, *symbols_file;
static int vcpus;

/* marker_exec() - a window marker is about to execute. */
static void marker_exec(unsigned int vcpu_index, void *udata)
{
	(void)vcpu_index;
	if ((enum x86_kind)(uintptr_t)udata == X86_MARK_START) {
		markers_start++;
		if (!window_open) {
			at_start = live;
			profile_window_start(&prof);
			window_open = 1;
		}
	} else {
		markers_end++;
		if (window_open) {
			counters_add(&window, &live, &at_start);
			profile_window_end(&prof);
			window_open = 0;
			windows_closed++;
		}
	}
}

/*
 * region_exec() - a region marker is about to execute. udata: the id, plus
 * X86_REGIONS for an end marker. A begin while the region is open or an
 * end while it is closed is counted as unbalanced and otherwise ignored
 * (the first begin stands); regions of different ids may nest or overlap.
 */
static void region_exec(unsigned int vcpu_index, void *udata)
{
	uintptr_t v = (uintptr_t)udata;
	struct region *r = &regions[v % X86_REGIONS];

	(void)vcpu_index;
	if (v < X86_REGIONS) {
		r->begins++;
		if (r->open) {
			r->unbalanced++;
		} else {
			r->at_begin = live;
			r->open = 1;
		}
	} else if (r->open) {
		counters_add(&r->sum, &live, &r->at_begin);
		r->open = 0;
		r->closed++;
	} else {
		r->unbalanced++;
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	enum mode m;

	(void)id;
	if (n == 0)
		return;
	tbs_translated++;
	m = x86_is_kernel_addr(qemu_plugin_tb_vaddr(tb)) ? KERNEL : USER;
	if (modelplug_on())	/* first: see modelplug_tb() */
		modelplug_tb(tb, m, &prof);
	if (!count_per_insn)
		qemu_plugin_register_vcpu_tb_exec_inline(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, &live.insns[m], n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		enum x86_kind k = x86_classify(qemu_plugin_insn_data(insn),
					       qemu_plugin_insn_size(insn));
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		struct prof_bucket *b = prof.on ?
			profile_bucket(&prof, pc, m == KERNEL) : NULL;

		if (count_per_insn)
			qemu_plugin_register_vcpu_insn_exec_inline(
				insn, QEMU_PLUGIN_INLINE_ADD_U64,
				&live.insns[m], 1);
		if (b)
			qemu_plugin_register_vcpu_insn_exec_inline(
				insn, QEMU_PLUGIN_INLINE_ADD_U64,
				&b->live[PROF_INSNS], 1);
		if (x86_is_cond_branch(k))
			qemu_plugin_register_vcpu_insn_exec_inline(
				insn, QEMU_PLUGIN_INLINE_ADD_U64,
				&live.branches[m], 1);
		else if (k == X86_MARK_START || k == X86_MARK_END)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, marker_exec, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)k);
		else if (k == X86_MARK_REGION_BEGIN || k == X86_MARK_REGION_END)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, region_exec, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)(x86_region_id(
					qemu_plugin_insn_data(insn),
					qemu_plugin_insn_size(insn)) +
					(k == X86_MARK_REGION_END ?
					 X86_REGIONS : 0)));
		if (!have_sites || !sites_contains(&sites, pc))
			continue;
		qemu_plugin_register_vcpu_insn_exec_inline(
			insn, QEMU_PLUGIN_INLINE_ADD_U64, &live.site_execs, 1);
		if (b)
			qemu_plugin_register_vcpu_insn_exec_inline(
				insn, QEMU_PLUGIN_INLINE_ADD_U64,
				&b->live[PROF_SITE_EXECS], 1);
	}
}

/*
 * write_regions() - the regions any marker named, in id order: regions
 * (how many), then per region its markers, closed instances, unbalanced
 * markers (a region open at exit counts as one), and the instructions and
 * conditional branches of its closed instances, all modes and kernel only,
 * then the model's figures (model=on).
 */
static void write_regions(FILE *f)
{
	uint64_t n = 0;
	int id;

	for (id = 0; id < X86_REGIONS; id++)
		n += regions[id].begins || regions[id].unbalanced;
	put_u64(f, "regions", n);
	for (id = 0; id < X86_REGIONS; id++) {
		const struct region *r = &regions[id];

		if (!r->begins && !r->unbalanced)
			continue;
		put_region(f, id, "begins", r->begins);
		put_region(f, id, "closed", r->closed);
		put_region(f, id, "unbalanced", r->unbalanced + r->open);
		put_region(f, id, "insns",
			   r->sum.insns[KERNEL] + r->sum.insns[USER]);
		put_region(f, id, "branches",
			   r->sum.branches[KERNEL] + r->sum.branches[USER]);
		put_region(f, id, "kernel_insns", r->sum.insns[KERNEL]);
		put_region(f, id, "kernel_branches", r->sum.branches[KERNEL]);
		modelplug_report_region(f, id, &r->sum);
	}
}

static void write_report(FILE *f)
{
	int w = windows_closed > 0;

	put_u64(f, "format", PLUGIN_FORMAT);
	fprintf(f, "count_mode=%s\n", count_per_insn ? "insn" : "tb");
	put_u64(f, "vcpus", (uint64_t)vcpus);
	put_u64(f, "window", (uint64_t)w);
	put_u64(f, "windows", windows_closed);
	put_u64(f, "window_open_at_exit", (uint64_t)window_open);
	put_u64(f, "markers_start", markers_start);
	put_u64(f, "markers_end", markers_end);
	put_window(f, "kernel_insns", window.insns[KERNEL], w);
	put_window(f, "user_insns", window.insns[USER], w);
	put_window(f, "kernel_branches", window.branches[KERNEL], w);
	put_window(f, "user_branches", window.branches[USER], w);
	put_window(f, "site_execs", window.site_execs, w && have_sites);
	put_u64(f, "sites", have_sites ? sites.entries : 0);
	put_u64(f, "site_ranges", have_sites ? sites.n : 0);
	put_u64(f, "total_kernel_insns", live.insns[KERNEL]);
	put_u64(f, "total_user_insns", live.insns[USER]);
	put_u64(f, "total_kernel_branches", live.branches[KERNEL]);
	put_u64(f, "total_user_branches", live.branches[USER]);
	if (have_sites)
		put_u64(f, "total_site_execs", live.site_execs);
	else
		fprintf(f, "total_site_execs=not-counted\n");
	put_u64(f, "tbs_translated", tbs_translated);
	modelplug_report(f, &window, w, &live);
	write_regions(f);
}

static void write_profile(FILE *f)
{
	if (profile_write(&prof, f, windows_closed,
			  modelplug_on() ? PROF_COLS : PROF_COLS_COUNTING) != 0)
		fprintf(stderr, "branches: profile: out of memory\n");
}

/* write_file() - write(f) into path, through path.tmp renamed. */
static void write_file(const char *path, void (*write)(FILE *f))
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "branches: cannot write %s: %s\n", tmp,
			strerror(errno));
		return;
	}
	write(f);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		fprintf(stderr, "branches: cannot write %s: %s\n", path,
			strerror(errno));
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (profile_out)
		write_file(profile_out, write_profile);
	if (!outfile) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			return;
		write_report(f);
		fclose(f);
		qemu_plugin_outs(buf);
		free(buf);
		return;
	}
	write_file(outfile, write_report);
}

/* parse_arg() - one plugin argument; 0, or -1 after a message. */
static int parse_arg(const char *a, struct model_cfg *mcfg)
{
	char err[1024];
	int rc;

	if (strncmp(a, "outfile=", 8) == 0 && a[8]) {
		outfile = a + 8;
	} else if (strncmp(a, "profile=", 8) == 0 && a[8]) {
		profile_out = a + 8;
		prof.on = 1;
	} else if (strncmp(a, "symbols=", 8) == 0 && a[8]) {
		symbols_file = a + 8;
	} else if (strncmp(a, "sites=", 6) == 0 && a[6]) {
		if (sites_load(&sites, a + 6, err, sizeof(err)) != 0) {
			fprintf(stderr, "branches: sites: %s\n", err);
			return -1;
		}
		have_sites = 1;
	} else if (strcmp(a, "count=tb") == 0) {
		count_per_insn = 0;
	} else if (strcmp(a, "count=insn") == 0) {
		count_per_insn = 1;
	} else if ((rc = model_cfg_arg(mcfg, a, err, sizeof(err))) != 0) {
		if (rc < 0) {
			fprintf(stderr, "branches: %s\n", err);
			return -1;
		}
	} else {
		fprintf(stderr,
			"branches: unknown argument '%s' (want outfile=PATH, sites=FILE, count=insn|tb, profile=PATH, symbols=FILE, "
			MODEL_CFG_USAGE ")\n", a);
		return -1;
	}
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	struct model_cfg mcfg;
	char err[1024];
	int i;

	if (strcmp(info->target_name, "x86_64") != 0) {
		fprintf(stderr, "branches: only x86_64 guests are supported, not %s\n",
			info->target_name);
		return 1;
	}
	vcpus = info->system_emulation ? info->system.smp_vcpus : 1;
	model_cfg_defaults(&mcfg);
	for (i = 0; i < argc; i++)
		if (parse_arg(argv[i], &mcfg) != 0)
			return 1;
	if (modelplug_setup(&mcfg, &live, err, sizeof(err)) != 0) {
		fprintf(stderr, "branches: %s\n", err);
		return 1;
	}
	if ((outfile && strlen(outfile) + 5 > 4096) ||
	    (profile_out && strlen(profile_out) + 5 > 4096)) {
		fprintf(stderr, "branches: outfile or profile path too long\n");
		return 1;
	}
	if (symbols_file && !profile_out) {
		fprintf(stderr, "branches: symbols= is for profile=PATH\n");
		return 1;
	}
	if (symbols_file &&
	    profile_symbols_load(&prof, symbols_file, err, sizeof(err)) != 0) {
		fprintf(stderr, "branches: %s\n", err);
		return 1;
	}
	if (vcpus > 1)
		fprintf(stderr,
			"branches: warning: %d vCPUs: counts are exact only if they run on one thread (-icount, or -accel tcg,thread=single)\n",
			vcpus);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
