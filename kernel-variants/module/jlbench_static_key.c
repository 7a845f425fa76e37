// SPDX-License-Identifier: GPL-2.0
/*
 * jlbench_static_key: self-test and microbenchmark of the 2011 static branch
 * interface (jump_label_2011.h) on the running kernel, with or without
 * CONFIG_JUMP_LABEL. Everything runs in the module's init function; the
 * results go to the kernel log, one line per check or figure:
 *
 *	jlbench_static_key: <check>=PASS	(KERN_INFO)
 *	jlbench_static_key: <check>=FAIL	(KERN_ERR)
 *	jlbench_static_key: <figure>=<value>	(KERN_INFO)
 *
 * Lines that explain a failure have a space before any '=', so they never
 * read as a figure. The jlbench guest agent turns the key=value lines into
 * selftest.jlbench_static_key.<key>=<value>. Loading returns 0 when every
 * check passed and -EINVAL otherwise (the module is then not kept), so both
 * the return value and the log say whether the self-test passed.
 *
 * Checks: default_off, inc_inc_dec, dec_disables, enabled_follows_count,
 * concurrent, text_patching, site_bytes (jump-label kernels only),
 * bench_branch. Figures: jump_label, plain_reads, invert, sites, site_len,
 * site_off and site_on (jump-label kernels: the bytes of the key's first
 * site while disabled and while enabled, hex pairs),
 * text_bytes_changed, threads, rounds, bench_iters, bench_reps,
 * bench_empty_ns, bench_off_ns, bench_on_ns (ns per loop iteration, the
 * minimum over bench_reps runs), count_iters, checks, failed.
 *
 * Count runs, for jlbench's TCG plugin (bench/plugin/README.md, "Regions"):
 * each timed loop runs once more with count_iters iterations and once with
 * twice as many, each run between the two region markers of its own id:
 *
 *	region	loop			iterations
 *	1	jlb_bench_empty		count_iters
 *	2	jlb_bench_empty		2 * count_iters
 *	3	jlb_bench_loop, key off	count_iters
 *	4	jlb_bench_loop, key off	2 * count_iters
 *	5	jlb_bench_loop, key on	count_iters
 *	6	jlb_bench_loop, key on	2 * count_iters
 *
 * with interrupts and preemption off. The plugin counts the instructions
 * and conditional branches executed in each region; the difference between
 * a loop's two regions divided by count_iters is that loop's exact count per
 * iteration: the call, the loop entry and exit and the markers are the same
 * in both and cancel. The markers are NOPs everywhere else. They are x86
 * code: on s390 they are nothing (the plugin counts x86 code only), and
 * the count runs are merely two more runs of each loop.
 *
 * Architectures: x86 (a site is a 2- or 5-byte NOP patched into a JMP of
 * its length) and s390 (seed 004: a 6-byte brcl whose condition mask is
 * patched, 0 when disabled, 15 when enabled; see site_is_nop()).
 *
 * Never load this into a machine's own kernel: it patches its own code and
 * spins with preemption off. jlbench runs it only inside QEMU guests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "jump_label_2011.h"

#if !defined(CONFIG_X86) && !defined(CONFIG_S390)
#error "jlbench_static_key decodes x86 and s390 jump label sites only"
#endif

#ifdef CONFIG_JUMP_LABEL
#ifdef CONFIG_X86
#include <asm/nops.h>
#else
#include <asm/unaligned.h>
#endif
#endif

static bool invert;
module_param(invert, bool, 0444);
MODULE_PARM_DESC(invert,
		 "expect a default-off key to be taken, so default_off must FAIL (tests the self-test)");

static uint threads = 4;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "kthreads doing concurrent inc/dec (1..64, default 4)");

static uint rounds = 100;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "inc/dec pairs per kthread (1..100000, default 100)");

static ulong bench_iters = 1000000;
module_param(bench_iters, ulong, 0444);
MODULE_PARM_DESC(bench_iters, "iterations per timed loop (1000..1000000000, default 1000000)");

static uint bench_reps = 5;
module_param(bench_reps, uint, 0444);
MODULE_PARM_DESC(bench_reps, "timed runs of each loop; the fastest counts (1..100, default 5)");

static ulong count_iters = 10000;
module_param(count_iters, ulong, 0444);
MODULE_PARM_DESC(count_iters, "iterations of the first count run of each loop; the second runs twice as many (1000..1000000, default 10000)");

/* The key under test, and its one check site: jlb_taken(). */
static struct jump_label_key jlb_key = JUMP_LABEL_INIT;
/* The microbenchmark's key, checked only in jlb_bench_loop(). */
static struct jump_label_key jlb_bench_key = JUMP_LABEL_INIT;
static unsigned long jlb_bench_hits;

static int checks_run, checks_failed;

/* report: one PASS or FAIL line for a check. */
static void report(const char *check, bool ok)
{
	checks_run++;
	if (ok) {
		pr_info("%s=PASS\n", check);
	} else {
		checks_failed++;
		pr_err("%s=FAIL\n", check);
	}
}

static noinline bool jlb_taken(void)
{
	if (static_branch(&jlb_key))
		return true;
	return false;
}

/*
 * expect: the key looks as a count of @count says it should: the branch is
 * taken and jump_label_enabled() is true exactly when @count is above zero.
 */
static bool expect(const char *check, int count)
{
	bool want = count > 0;
	bool taken = jlb_taken();
	bool enabled = jump_label_enabled(&jlb_key);
	int have = jump_label_key_count(&jlb_key);

	if (taken == want && enabled == want && have == count)
		return true;
	pr_info("%s: expected count %d, found count %d, static_branch() %d, jump_label_enabled() %d\n",
		check, count, have, taken, enabled);
	return false;
}

static void check_default_off(void)
{
	bool want = invert;	/* invert=1: expect the impossible */
	bool taken = jlb_taken();
	bool ok = taken == want && !jump_label_enabled(&jlb_key) &&
		  jump_label_key_count(&jlb_key) == 0;

	if (!ok)
		pr_info("default_off: static_branch() %d (expected %d), jump_label_enabled() %d, count %d%s\n",
			taken, want, jump_label_enabled(&jlb_key),
			jump_label_key_count(&jlb_key),
			invert ? " (invert: expectation inverted on purpose)" : "");
	report("default_off", ok);
}

static void check_inc_inc_dec(void)
{
	bool ok;

	jump_label_inc(&jlb_key);
	ok = expect("inc_inc_dec", 1);
	jump_label_inc(&jlb_key);
	ok &= expect("inc_inc_dec", 2);
	jump_label_dec(&jlb_key);
	ok &= expect("inc_inc_dec", 1);
	report("inc_inc_dec", ok);
}

/* Runs after check_inc_inc_dec(), which leaves the count at 1. */
static void check_dec_disables(void)
{
	bool ok = jump_label_key_count(&jlb_key) == 1;

	if (ok) {
		jump_label_dec(&jlb_key);
		ok = expect("dec_disables", 0);
	} else {
		pr_info("dec_disables: count is not 1 before the test\n");
	}
	report("dec_disables", ok);
}

#define FOLLOW_MAX 8

static void check_enabled_follows_count(void)
{
	bool ok = expect("enabled_follows_count", 0);
	int i;

	for (i = 1; i <= FOLLOW_MAX; i++) {
		jump_label_inc(&jlb_key);
		ok &= expect("enabled_follows_count", i);
	}
	for (i = FOLLOW_MAX - 1; i >= 0; i--) {
		jump_label_dec(&jlb_key);
		ok &= expect("enabled_follows_count", i);
	}
	report("enabled_follows_count", ok);
}

struct jlb_thread {
	struct completion *go;
	struct completion done;
	unsigned int id;
	unsigned int bad;	/* rounds that saw the key off while holding it */
};

/*
 * jlb_worker: rounds of inc, check, dec. While a thread holds a reference
 * the key must read as enabled, whatever the others do. Sleeps in some
 * rounds so that the threads interleave even on one CPU without preemption.
 */
static int jlb_worker(void *arg)
{
	struct jlb_thread *t = arg;
	unsigned int r;

	wait_for_completion(t->go);
	for (r = 0; r < rounds; r++) {
		jump_label_inc(&jlb_key);
		if (!jlb_taken() || !jump_label_enabled(&jlb_key))
			t->bad++;
		if ((r + t->id) % 2)
			usleep_range(5, 20);
		jump_label_dec(&jlb_key);
		if ((r + t->id) % 3 == 0)
			usleep_range(5, 20);
		cond_resched();
	}
	kthread_complete_and_exit(&t->done, 0);
}

static void check_concurrent(void)
{
	DECLARE_COMPLETION_ONSTACK(go);
	struct jlb_thread *t;
	struct task_struct *task;
	unsigned int i, started = 0, bad = 0;
	bool ok = true;

	t = kcalloc(threads, sizeof(*t), GFP_KERNEL);
	if (!t) {
		report("concurrent", false);
		return;
	}
	for (i = 0; i < threads; i++) {
		t[i].go = &go;
		t[i].id = i;
		init_completion(&t[i].done);
		task = kthread_run(jlb_worker, &t[i], "jlb_sk/%u", i);
		if (IS_ERR(task)) {
			pr_info("concurrent: kthread_run failed (%ld)\n",
				PTR_ERR(task));
			ok = false;
			break;
		}
		started++;
	}
	complete_all(&go);
	for (i = 0; i < started; i++) {
		wait_for_completion(&t[i].done);
		bad += t[i].bad;
	}
	kfree(t);
	if (bad)
		pr_info("concurrent: %u rounds saw the key disabled while holding it\n",
			bad);
	ok &= bad == 0 && started == threads;
	ok &= expect("concurrent", 0);
	report("concurrent", ok);
	pr_info("threads=%u\n", started);
	pr_info("rounds=%u\n", rounds);
}

#define MAX_SITES 8

#ifdef CONFIG_JUMP_LABEL
#define SITE_MAX_LEN 8

struct jlb_site {
	struct jump_entry *entry;
	int len;		/* x86: 2 or 5, from the NOP; s390: 6 */
};

/* find_sites: the module's own jump entries that belong to jlb_key. */
static int find_sites(struct jlb_site *sites)
{
	struct jump_entry *e = THIS_MODULE->jump_entries;
	unsigned int i;
	int n = 0;

	for (i = 0; i < THIS_MODULE->num_jump_entries; i++) {
		if (jump_entry_key(&e[i]) != &jlb_key.key.key)
			continue;
		if (n == MAX_SITES)
			return -1;
		sites[n].entry = &e[i];
		sites[n].len = 0;
		n++;
	}
	return n;
}

#ifdef CONFIG_X86
static const u8 jlb_nop2[] = { BYTES_NOP2 };
static const u8 jlb_nop5[] = { BYTES_NOP5 };

/* site_is_nop: the site holds a 2- or 5-byte NOP; note its length. */
static bool site_is_nop(struct jlb_site *s)
{
	const u8 *code = (const u8 *)jump_entry_code(s->entry);
	int len = 0;

	if (!memcmp(code, jlb_nop5, sizeof(jlb_nop5)))
		len = 5;
	else if (!memcmp(code, jlb_nop2, sizeof(jlb_nop2)))
		len = 2;
	if (len && (!s->len || s->len == len)) {
		s->len = len;
		return true;
	}
	pr_info("site_bytes: %pS: %5ph is not the expected NOP\n", code, code);
	return false;
}

/* site_is_jmp: the site holds a JMP of its NOP's length to its target. */
static bool site_is_jmp(struct jlb_site *s)
{
	const u8 *code = (const u8 *)jump_entry_code(s->entry);
	long rel = (long)jump_entry_target(s->entry) -
		   (long)(jump_entry_code(s->entry) + s->len);
	s32 rel32;

	if (s->len == 2 && code[0] == 0xeb && (s8)code[1] == rel)
		return true;
	memcpy(&rel32, code + 1, sizeof(rel32));
	if (s->len == 5 && code[0] == 0xe9 && rel32 == rel)
		return true;
	pr_info("site_bytes: %pS: %5ph is not a %d-byte JMP to %pS\n", code,
		code, s->len, (void *)jump_entry_target(s->entry));
	return false;
}
#else
/*
 * s390 (arch/s390/kernel/jump_label.c): a site is "brcl <mask>,<target>",
 * six bytes c0 <mask << 4 | 4> <s32 big-endian (target - site) / 2>. The
 * kernel writes mask 0 (never branch: a NOP) while the key is disabled and
 * mask 15 (always) while it is enabled, both with the target's offset.
 */
#define BRCL_LEN 6

/* site_is_brcl: the site holds "brcl @mask" to its jump entry's target. */
static bool site_is_brcl(struct jlb_site *s, u8 mask)
{
	const u8 *code = (const u8 *)jump_entry_code(s->entry);
	long rel = ((long)jump_entry_target(s->entry) -
		    (long)jump_entry_code(s->entry)) / 2;
	s32 off = (s32)get_unaligned_be32(code + 2);

	s->len = BRCL_LEN;
	if (code[0] == 0xc0 && code[1] == (mask << 4 | 0x04) && off == rel)
		return true;
	pr_info("site_bytes: %pS: %6ph is not brcl %u to %pS\n", code, code,
		mask, (void *)jump_entry_target(s->entry));
	return false;
}

/* site_is_nop: the site holds brcl 0 (never branch) to its target. */
static bool site_is_nop(struct jlb_site *s)
{
	return site_is_brcl(s, 0);
}

/* site_is_jmp: the site holds brcl 15 (always branch) to its target. */
static bool site_is_jmp(struct jlb_site *s)
{
	return site_is_brcl(s, 15);
}
#endif

/* site_copy: the bytes of site @s (at most SITE_MAX_LEN) into @buf. */
static void site_copy(const struct jlb_site *s, u8 *buf)
{
	memcpy(buf, (const void *)jump_entry_code(s->entry),
	       min(s->len, SITE_MAX_LEN));
}

/* sites_are: every site holds a NOP (@jmp false) or a JMP (@jmp true). */
static bool sites_are(struct jlb_site *sites, int n, bool jmp)
{
	bool ok = true;
	int i;

	for (i = 0; i < n; i++)
		ok &= jmp ? site_is_jmp(&sites[i]) : site_is_nop(&sites[i]);
	return ok;
}

/* in_sites: text address @addr lies in one of the @n sites. */
static bool in_sites(unsigned long addr, const struct jlb_site *sites, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned long code = jump_entry_code(sites[i].entry);

		if (addr >= code && addr < code + sites[i].len)
			return true;
	}
	return false;
}
#else
/* Without jump labels a key has no sites in the jump table. */
struct jlb_site {
	int len;
};

static bool in_sites(unsigned long addr, const struct jlb_site *sites, int n)
{
	return false;
}
#endif

/*
 * text_diff: bytes of the module's core text that differ from @snap, and in
 * @outside those of them that are not in one of the key's @nsites sites.
 */
static unsigned int text_diff(const u8 *snap, const struct jlb_site *sites,
			      int nsites, unsigned int *outside)
{
	const u8 *text = THIS_MODULE->core_layout.base;
	unsigned int i, n = 0;

	*outside = 0;
	for (i = 0; i < THIS_MODULE->core_layout.text_size; i++) {
		if (text[i] == snap[i])
			continue;
		n++;
		if (!in_sites((unsigned long)&text[i], sites, nsites))
			(*outside)++;
	}
	return n;
}

/*
 * check_code_patching: enable and disable jlb_key once, comparing the
 * module's text with a snapshot taken while it was off. With jump labels,
 * the key's sites and nothing else change, NOP -> JMP and back (site_bytes,
 * text_patching); without, no byte of text may change (text_patching).
 */
static void check_code_patching(void)
{
	struct jlb_site sites[MAX_SITES] = {};
	unsigned int size = THIS_MODULE->core_layout.text_size;
	unsigned int on_diff, on_out, off_diff, off_out;
	bool bytes_ok = true, text_ok;
	int nsites = 0;
	u8 *snap;
#ifdef CONFIG_JUMP_LABEL
	u8 site_off[SITE_MAX_LEN], site_on[SITE_MAX_LEN];

	nsites = find_sites(sites);
	if (nsites <= 0) {
		pr_info("site_bytes: %s jump entries of the key in the module\n",
			nsites < 0 ? "too many" : "no");
		report("site_bytes", false);
		report("text_patching", false);
		return;
	}
	bytes_ok &= sites_are(sites, nsites, false);
	site_copy(&sites[0], site_off);
#endif
	snap = vmalloc(size);
	if (!snap) {
		report("text_patching", false);
		return;
	}
	memcpy(snap, THIS_MODULE->core_layout.base, size);

	jump_label_inc(&jlb_key);
	text_ok = expect("text_patching", 1);
	on_diff = text_diff(snap, sites, nsites, &on_out);
#ifdef CONFIG_JUMP_LABEL
	bytes_ok &= sites_are(sites, nsites, true);
	site_copy(&sites[0], site_on);
#endif
	jump_label_dec(&jlb_key);
	text_ok &= expect("text_patching", 0);
	off_diff = text_diff(snap, sites, nsites, &off_out);
#ifdef CONFIG_JUMP_LABEL
	bytes_ok &= sites_are(sites, nsites, false);
#endif
	vfree(snap);

	if (IS_ENABLED(CONFIG_JUMP_LABEL))
		text_ok &= on_diff > 0 && on_out == 0 && off_diff == 0;
	else
		text_ok &= on_diff == 0 && off_diff == 0;
	if (!text_ok)
		pr_info("text_patching: %u bytes changed when enabled (%u outside the key's sites), %u still changed when disabled again\n",
			on_diff, on_out, off_diff);
	pr_info("sites=%d\n", nsites);
#ifdef CONFIG_JUMP_LABEL
	pr_info("site_len=%d\n", sites[0].len);
	pr_info("site_off=%*ph\n", min(sites[0].len, SITE_MAX_LEN), site_off);
	pr_info("site_on=%*ph\n", min(sites[0].len, SITE_MAX_LEN), site_on);
#endif
	pr_info("text_bytes_changed=%u\n", on_diff);
	if (IS_ENABLED(CONFIG_JUMP_LABEL))
		report("site_bytes", bytes_ok);
	report("text_patching", text_ok);
}

/*
 * Region markers of jlbench's TCG plugin: the 9-byte NOP
 * "nopw disp32(%rax,%rax,1)" whose displacement bytes are 'J' 'L' 'R' <id>
 * (open region <id>) or 'J' 'L' 'r' <id> (close it); @id is a constant.
 * The begin marker also takes @n, a loop's iteration count, in %rdi, the
 * register of a call's first argument, so that the call of the loop
 * follows the marker directly: the same instructions in every region.
 */
#ifdef CONFIG_X86
#define JLB_REGION_BYTES(kind) \
	".byte 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x4a, 0x4c, " kind ", %c[region]\n"

static __always_inline void jlb_region_begin(const u8 id, unsigned long *n)
{
	asm volatile(JLB_REGION_BYTES("0x52")
		     : "+D" (*n) : [region] "i" (id) : "memory");
}

static __always_inline void jlb_region_end(const u8 id)
{
	asm volatile(JLB_REGION_BYTES("0x72") : : [region] "i" (id) : "memory");
}
#else
/* The markers are x86 code; elsewhere a region is only a compiler barrier. */
static __always_inline void jlb_region_begin(const u8 id, unsigned long *n)
{
	barrier();
}

static __always_inline void jlb_region_end(const u8 id)
{
	barrier();
}
#endif

static noinline void jlb_bench_hit(void)
{
	jlb_bench_hits++;
}

/*
 * The timed loops. barrier() makes the compiler reload memory in every
 * iteration, so no variant's key check (a NOP, an atomic_read() or a plain
 * load) can be hoisted out of the loop; the guarded body is a call, so the
 * check cannot be turned into a branch-free sequence either.
 */
static noinline void jlb_bench_empty(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		barrier();
}

static noinline void jlb_bench_loop(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (static_branch(&jlb_bench_key))
			jlb_bench_hit();
		barrier();
	}
}

/* time_loop: fastest of bench_reps runs, in ns per iteration x 1000. */
static u64 time_loop(void (*loop)(unsigned long))
{
	u64 best = U64_MAX, t0, t1;
	unsigned int r;

	for (r = 0; r < bench_reps; r++) {
		preempt_disable();
		t0 = ktime_get_ns();
		loop(bench_iters);
		t1 = ktime_get_ns();
		preempt_enable();
		best = min(best, t1 - t0);
		cond_resched();
	}
	return div64_u64(best * 1000, bench_iters);
}

static void print_ns(const char *name, u64 ns1000)
{
	u32 frac;
	u64 whole = div_u64_rem(ns1000, 1000, &frac);

	pr_info("%s=%llu.%03u\n", name, whole, frac);
}

/*
 * count_run: @loop with count_iters iterations in region @id, then with
 * twice as many in region @id + 1, interrupts and preemption off.
 */
static __always_inline void count_run(void (*loop)(unsigned long),
				      const u8 id)
{
	unsigned long n1 = count_iters, n2 = 2 * count_iters;
	unsigned long flags;

	preempt_disable();
	local_irq_save(flags);
	jlb_region_begin(id, &n1);
	loop(n1);
	jlb_region_end(id);
	jlb_region_begin(id + 1, &n2);
	loop(n2);
	jlb_region_end(id + 1);
	local_irq_restore(flags);
	preempt_enable();
}

/*
 * count_runs: the count runs of the three loops (regions 1 to 6); true when
 * the guarded body ran 0 times with the key off and every time with it on.
 */
static bool count_runs(void)
{
	unsigned long off_hits, on_hits;

	count_run(jlb_bench_empty, 1);
	jlb_bench_hits = 0;
	count_run(jlb_bench_loop, 3);
	off_hits = jlb_bench_hits;
	jump_label_inc(&jlb_bench_key);
	jlb_bench_hits = 0;
	count_run(jlb_bench_loop, 5);
	on_hits = jlb_bench_hits;
	jump_label_dec(&jlb_bench_key);

	pr_info("count_iters=%lu\n", count_iters);
	if (off_hits == 0 && on_hits == 3 * count_iters)
		return true;
	pr_info("bench_branch: count runs: guarded body ran %lu times disabled, %lu times enabled (expected 0 and %lu)\n",
		off_hits, on_hits, 3 * count_iters);
	return false;
}

static void bench(void)
{
	u64 empty, off, on;
	unsigned long off_hits, on_hits;
	bool counted;

	empty = time_loop(jlb_bench_empty);
	jlb_bench_hits = 0;
	off = time_loop(jlb_bench_loop);
	off_hits = jlb_bench_hits;
	jump_label_inc(&jlb_bench_key);
	jlb_bench_hits = 0;
	on = time_loop(jlb_bench_loop);
	on_hits = jlb_bench_hits;
	jump_label_dec(&jlb_bench_key);
	counted = count_runs();

	pr_info("bench_iters=%lu\n", bench_iters);
	pr_info("bench_reps=%u\n", bench_reps);
	print_ns("bench_empty_ns", empty);
	print_ns("bench_off_ns", off);
	print_ns("bench_on_ns", on);
	if (off_hits != 0 || on_hits != (unsigned long)bench_reps * bench_iters)
		pr_info("bench_branch: guarded body ran %lu times disabled, %lu times enabled (expected 0 and %lu)\n",
			off_hits, on_hits, (unsigned long)bench_reps * bench_iters);
	report("bench_branch", counted && off_hits == 0 &&
	       on_hits == (unsigned long)bench_reps * bench_iters);
}

static bool params_ok(void)
{
	if (threads < 1 || threads > 64 || rounds < 1 || rounds > 100000 ||
	    bench_iters < 1000 || bench_iters > 1000000000 ||
	    bench_reps < 1 || bench_reps > 100 ||
	    count_iters < 1000 || count_iters > 1000000) {
		pr_err("parameter out of range (see modinfo)\n");
		return false;
	}
	return true;
}

static int __init jlb_init(void)
{
	if (!params_ok())
		return -EINVAL;
	pr_info("jump_label=%d\n", IS_ENABLED(CONFIG_JUMP_LABEL));
	pr_info("plain_reads=%d\n", IS_ENABLED(CONFIG_JUMP_LABEL_PLAIN_READS));
	pr_info("invert=%d\n", invert);

	check_default_off();
	check_inc_inc_dec();
	check_dec_disables();
	check_enabled_follows_count();
	check_concurrent();
	check_code_patching();
	bench();

	pr_info("checks=%d\n", checks_run);
	pr_info("failed=%d\n", checks_failed);
	return checks_failed ? -EINVAL : 0;
}

static void __exit jlb_exit(void)
{
}

module_init(jlb_init);
module_exit(jlb_exit);

MODULE_DESCRIPTION("2011 static branch API on static keys: self-test and microbenchmark");
MODULE_AUTHOR("jlbench");
MODULE_LICENSE("GPL");
