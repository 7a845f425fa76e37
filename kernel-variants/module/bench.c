// SPDX-License-Identifier: GPL-2.0
/*
 * The microbenchmark: the cost of one disabled and one enabled check of a
 * key (jlb_bench_key) per loop iteration, against an empty loop, each the
 * fastest of bench_reps timed runs (bench_empty_ns, bench_off_ns,
 * bench_on_ns); bench_branch checks that the guarded body ran exactly when
 * the key was on.
 *
 * Count runs, for jlbench's TCG plugin (bench/plugin/README.md, "Regions"):
 * each timed loop, and three loops with known answers under the plugin's
 * modelled branch predictor and caches, runs once more with count_iters
 * iterations and once with twice as many, each run between the two region
 * markers of its own id:
 *
 *	region	loop				iterations
 *	1	jlb_bench_empty			count_iters
 *	2	jlb_bench_empty			2 * count_iters
 *	3	jlb_bench_loop, key off		count_iters
 *	4	jlb_bench_loop, key off		2 * count_iters
 *	5	jlb_bench_loop, key on		count_iters
 *	6	jlb_bench_loop, key on		2 * count_iters
 *	7	jlb_bench_random		count_iters
 *	8	jlb_bench_random		2 * count_iters
 *	9	jlb_bench_stride, stride_big_kib	count_iters
 *	10	jlb_bench_stride, stride_big_kib	2 * count_iters
 *	11	jlb_bench_stride, stride_fit_kib	count_iters
 *	12	jlb_bench_stride, stride_fit_kib	2 * count_iters
 *
 * with interrupts and preemption off. Before each region the same loop
 * runs count_iters iterations three times outside any region (warm_up()),
 * so that the runs of n and of 2n iterations start from the same cache and
 * predictor state. The plugin counts the instructions and conditional branches
 * executed in each region (and, with model=on, mispredictions and cache
 * misses); the difference between a loop's two regions divided by
 * count_iters is that loop's count per iteration: the call, the loop entry
 * and exit and the markers are the same in both and cancel. The known
 * answers per iteration under the plugin's default model (32 KiB L1D,
 * 64-byte lines, gshare): key off, about 0 mispredictions once warmed up;
 * random, about 16 (JLB_RANDOM_BRANCHES = 32 branches on random bits, each
 * mispredicted about half the time, and the loop's own branch at most
 * once: 14.4..17.6, 0.45..0.55 per random branch); stride_big_kib
 * (default 64, twice the L1D), about one L1D miss; stride_fit_kib
 * (default 16), about none.
 *
 * The markers are NOPs everywhere else. They are x86 code: on s390 they
 * are nothing (the plugin counts x86 code only), and the count runs are
 * merely more runs of each loop.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/gfp.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/sched.h>

#include "jlbench_static_key.h"
#include "regions.h"

/* The microbenchmark's key, checked only in jlb_bench_loop(). */
static struct jump_label_key jlb_bench_key = JUMP_LABEL_INIT;
static unsigned long jlb_bench_hits;

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

/*
 * jlb_bench_random: JLB_RANDOM_BRANCHES conditional branches per iteration,
 * one on each of the low bits of splitmix64 of a counter, from the same
 * seed in every run (so every run takes the same path). The bits are
 * computed afresh in each iteration by multiplications and shifts, which no
 * compiler can fold into a pattern, and the guarded body is a call, which
 * cannot be made into a conditional move or a set-on-condition: the loop
 * must branch on each bit. No predictor can learn a random bit: whatever
 * it predicts, each of these branches goes the other way about half the
 * time, however its counters alias other branches'.
 *
 * The loop's own branch (taken but once) is what aliasing can spoil. With
 * one random branch per iteration, gshare indexed both by pc XOR a history
 * that alternated between them, and where a kernel's layout put their pcs
 * so that their counters met, the loop's branch went wrong about half the
 * time too: 0.998 mispredictions per iteration instead of about 0.5, in one
 * full jump-label build. With JLB_RANDOM_BRANCHES random branches per
 * iteration, the loop's branch adds at most one misprediction to about
 * JLB_RANDOM_BRANCHES / 2, whatever the layout: the figure measures the
 * random branches. The compiler writes the inner loop out (the GCC unroll
 * pragma), a test and a Jcc per bit: an iteration executes
 * JLB_RANDOM_BRANCHES + 1 conditional branches, which
 * tests/test_model_validation.py checks in the plugin's exact counts.
 */
#define JLB_RANDOM_SEED 0x6a6c62656e6368ULL	/* "jlbench" */
#define JLB_RANDOM_BRANCHES 32

static noinline void jlb_bench_random(unsigned long n)
{
	u64 x = JLB_RANDOM_SEED, z;
	unsigned long i;
	unsigned int b;

	/* the unroll pragma below takes a literal, JLB_RANDOM_BRANCHES */
	BUILD_BUG_ON(JLB_RANDOM_BRANCHES != 32);
	for (i = 0; i < n; i++) {
		x += 0x9e3779b97f4a7c15ULL;
		z = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
#pragma GCC unroll 32
		for (b = 0; b < JLB_RANDOM_BRANCHES; b++)
			if (z & BIT_ULL(b))
				jlb_bench_hit();
	}
}

/*
 * jlb_bench_stride: one load per iteration, at the next JLB_STRIDE bytes of
 * jlb_stride_buf, back to its start after its last line. The buffer is whole
 * pages, page aligned and physically contiguous (alloc_pages_exact()), and
 * JLB_STRIDE is the line size (the plugin's default line=, x86-64's): each
 * load reads the first word of its own line, and one pass over the buffer
 * reads each of its jlb_stride_len / JLB_STRIDE lines once, in the same
 * order every pass. READ_ONCE() makes each load a volatile access, issued
 * once per iteration and never merged, hoisted or dropped; the loop keeps
 * everything else in registers, so it makes no other data access. Over a
 * buffer twice the L1D (true LRU) every load misses, as the lines of each
 * set are read in a cycle longer than its ways; over one that fits, every
 * load hits once warmed up.
 */
#define JLB_STRIDE 64

static const u8 *jlb_stride_buf;
static size_t jlb_stride_len;
static unsigned long jlb_stride_sum;

static noinline void jlb_bench_stride(unsigned long n)
{
	const u8 *buf = jlb_stride_buf;
	size_t len = jlb_stride_len, off = 0;
	unsigned long i, sum = 0;

	for (i = 0; i < n; i++) {
		sum += READ_ONCE(*(const unsigned long *)(buf + off));
		off += JLB_STRIDE;
		if (off == len)
			off = 0;
	}
	WRITE_ONCE(jlb_stride_sum, sum);
}

/* time_loop: fastest of @reps runs of @iters, in ns per iteration x 1000. */
static u64 time_loop(void (*loop)(unsigned long), unsigned long iters,
		     unsigned int reps)
{
	u64 best = U64_MAX, t0, t1;
	unsigned int r;

	for (r = 0; r < reps; r++) {
		preempt_disable();
		t0 = ktime_get_ns();
		loop(iters);
		t1 = ktime_get_ns();
		preempt_enable();
		best = min(best, t1 - t0);
		cond_resched();
	}
	return div64_u64(best * 1000, iters);
}

static void print_ns(const char *name, u64 ns1000)
{
	u32 frac;
	u64 whole = div_u64_rem(ns1000, 1000, &frac);

	pr_info("%s=%llu.%03u\n", name, whole, frac);
}

/*
 * warm_up: @loop with @n iterations, three times, outside any region, so
 * that the region that follows starts from the same cache and predictor
 * state whichever run it holds. Each line and each branch the loop uses is
 * then in the caches and the BTB, the predictor's counters of the loop's
 * steady state are saturated, and even those of the switch from the loop's
 * exit into its entry (a history only those switches make) have been
 * updated twice by the same switch, which takes a 2-bit counter from any
 * state to the side of its outcome. (One warm-up leaves those at whatever
 * the code before it made of them: in the run of n they then mispredict a
 * few times more than in the run of 2n, whose switch the run of n has
 * trained.) The three calls are written out: a loop around them would put
 * its own branch into the history of each switch.
 */
static __always_inline void warm_up(void (*loop)(unsigned long),
				    unsigned long n)
{
	loop(n);
	loop(n);
	loop(n);
}

/*
 * count_run: @loop with @n iterations in region @id, then with twice as
 * many in region @id + 1, each after warm_up(); interrupts and preemption
 * off throughout. The loop runs JLB_COUNT_RUN_ITERS(@n) iterations in all.
 */
#define JLB_COUNT_RUN_ITERS(n) (9 * (n))

static __always_inline void count_run(void (*loop)(unsigned long),
				      const u8 id, unsigned long n)
{
	unsigned long n1 = n, n2 = 2 * n;
	unsigned long flags;

	preempt_disable();
	local_irq_save(flags);
	warm_up(loop, n);
	jlb_region_begin(id, &n1);
	loop(n1);
	jlb_region_end(id);
	warm_up(loop, n);
	jlb_region_begin(id + 1, &n2);
	loop(n2);
	jlb_region_end(id + 1);
	local_irq_restore(flags);
	preempt_enable();
}

/*
 * stride_run: the count runs of jlb_bench_stride over a buffer of @kib KiB
 * in regions @id and @id + 1, the buffer allocated for them and freed
 * after them; false when it could not be allocated.
 */
static __always_inline bool stride_run(const u8 id, unsigned long n,
				       unsigned int kib)
{
	size_t len = (size_t)kib * 1024;
	void *buf = alloc_pages_exact(len, GFP_KERNEL | __GFP_ZERO);

	if (!buf) {
		pr_err("bench_branch: count runs: no memory for a stride buffer of %u KiB\n",
		       kib);
		return false;
	}
	jlb_stride_buf = buf;
	jlb_stride_len = len;
	count_run(jlb_bench_stride, id, n);
	jlb_stride_buf = NULL;
	free_pages_exact(buf, len);
	return true;
}

/*
 * stride_runs: the count runs of jlb_bench_stride over @big_kib (regions 9
 * and 10) and over @fit_kib (11 and 12); false when a buffer could not be
 * allocated.
 */
static bool stride_runs(unsigned long n, unsigned int big_kib,
			unsigned int fit_kib)
{
	bool big, fit;

	pr_info("stride_big_kib=%u\n", big_kib);
	pr_info("stride_fit_kib=%u\n", fit_kib);
	pr_info("stride_bytes=%d\n", JLB_STRIDE);
	big = stride_run(9, n, big_kib);
	fit = stride_run(11, n, fit_kib);
	return big && fit;
}

/*
 * count_runs: the count runs of the five loops (regions 1 to 12), the
 * first of each with @n iterations; true when the guarded body ran 0 times
 * with the key off and every time with it on, and the stride buffers could
 * be allocated.
 */
static bool count_runs(unsigned long n, unsigned int big_kib,
		       unsigned int fit_kib)
{
	unsigned long off_hits, on_hits, all = JLB_COUNT_RUN_ITERS(n);
	bool strided;

	count_run(jlb_bench_empty, 1, n);
	jlb_bench_hits = 0;
	count_run(jlb_bench_loop, 3, n);
	off_hits = jlb_bench_hits;
	jump_label_inc(&jlb_bench_key);
	jlb_bench_hits = 0;
	count_run(jlb_bench_loop, 5, n);
	on_hits = jlb_bench_hits;
	jump_label_dec(&jlb_bench_key);
	count_run(jlb_bench_random, 7, n);
	strided = stride_runs(n, big_kib, fit_kib);

	pr_info("count_iters=%lu\n", n);
	if (off_hits == 0 && on_hits == all)
		return strided;
	pr_info("bench_branch: count runs: guarded body ran %lu times disabled, %lu times enabled (expected 0 and %lu)\n",
		off_hits, on_hits, all);
	return false;
}

/* jlb_bench: the timed runs, then the count runs; prints their figures. */
void jlb_bench(unsigned long iters, unsigned int reps,
	       unsigned long count_iters, unsigned int stride_big_kib,
	       unsigned int stride_fit_kib)
{
	u64 empty, off, on;
	unsigned long off_hits, on_hits;
	bool counted;

	empty = time_loop(jlb_bench_empty, iters, reps);
	jlb_bench_hits = 0;
	off = time_loop(jlb_bench_loop, iters, reps);
	off_hits = jlb_bench_hits;
	jump_label_inc(&jlb_bench_key);
	jlb_bench_hits = 0;
	on = time_loop(jlb_bench_loop, iters, reps);
	on_hits = jlb_bench_hits;
	jump_label_dec(&jlb_bench_key);
	counted = count_runs(count_iters, stride_big_kib, stride_fit_kib);

	pr_info("bench_iters=%lu\n", iters);
	pr_info("bench_reps=%u\n", reps);
	print_ns("bench_empty_ns", empty);
	print_ns("bench_off_ns", off);
	print_ns("bench_on_ns", on);
	if (off_hits != 0 || on_hits != (unsigned long)reps * iters)
		pr_info("bench_branch: guarded body ran %lu times disabled, %lu times enabled (expected 0 and %lu)\n",
			off_hits, on_hits, (unsigned long)reps * iters);
	jlb_report("bench_branch", counted && off_hits == 0 &&
		   on_hits == (unsigned long)reps * iters);
}
