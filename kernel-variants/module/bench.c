// SPDX-License-Identifier: GPL-2.0
/*
 * The microbenchmark: the cost of one disabled and one enabled check of a
 * key (jlb_bench_key) per loop iteration, against an empty loop, each the
 * fastest of bench_reps timed runs (bench_empty_ns, bench_off_ns,
 * bench_on_ns); bench_branch checks that the guarded body ran exactly when
 * the key was on.
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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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
 * count_run: @loop with @n iterations in region @id, then with twice as
 * many in region @id + 1, interrupts and preemption off.
 */
static __always_inline void count_run(void (*loop)(unsigned long),
				      const u8 id, unsigned long n)
{
	unsigned long n1 = n, n2 = 2 * n;
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
 * count_runs: the count runs of the three loops (regions 1 to 6), the first
 * of each with @n iterations; true when the guarded body ran 0 times with
 * the key off and every time with it on.
 */
static bool count_runs(unsigned long n)
{
	unsigned long off_hits, on_hits;

	count_run(jlb_bench_empty, 1, n);
	jlb_bench_hits = 0;
	count_run(jlb_bench_loop, 3, n);
	off_hits = jlb_bench_hits;
	jump_label_inc(&jlb_bench_key);
	jlb_bench_hits = 0;
	count_run(jlb_bench_loop, 5, n);
	on_hits = jlb_bench_hits;
	jump_label_dec(&jlb_bench_key);

	pr_info("count_iters=%lu\n", n);
	if (off_hits == 0 && on_hits == 3 * n)
		return true;
	pr_info("bench_branch: count runs: guarded body ran %lu times disabled, %lu times enabled (expected 0 and %lu)\n",
		off_hits, on_hits, 3 * n);
	return false;
}

/* jlb_bench: the timed runs, then the count runs; prints their figures. */
void jlb_bench(unsigned long iters, unsigned int reps,
	       unsigned long count_iters)
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
	counted = count_runs(count_iters);

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
