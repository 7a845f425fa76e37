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
 * concurrent (keys.c), text_patching, site_bytes (jump-label kernels only;
 * patching.c), bench_branch (bench.c). Figures: jump_label, plain_reads,
 * invert, sites, site_len, site_off and site_on (jump-label kernels: the
 * bytes of the key's first site while disabled and while enabled, hex
 * pairs), text_bytes_changed, threads, rounds, bench_iters, bench_reps,
 * bench_empty_ns, bench_off_ns, bench_on_ns (ns per loop iteration, the
 * minimum over bench_reps runs), stride_big_kib, stride_fit_kib,
 * stride_bytes (the stride loops' buffers and step), count_iters, checks,
 * failed.
 *
 * This file holds the module's parameters, its init function, which runs
 * the checks in a fixed order, and the PASS/FAIL lines.
 *
 * Never load this into a machine's own kernel: it patches its own code and
 * spins with preemption off. jlbench runs it only inside QEMU guests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>

#include "jlbench_static_key.h"

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

static uint stride_big_kib = 64;
module_param(stride_big_kib, uint, 0444);
MODULE_PARM_DESC(stride_big_kib, "KiB the big stride count runs load from, a line at a time (1..4096, default 64: twice a 32 KiB L1D)");

static uint stride_fit_kib = 16;
module_param(stride_fit_kib, uint, 0444);
MODULE_PARM_DESC(stride_fit_kib, "KiB the fitting stride count runs load from, a line at a time (1..4096, default 16: half a 32 KiB L1D)");

static int checks_run, checks_failed;

void jlb_report(const char *check, bool ok)
{
	checks_run++;
	if (ok) {
		pr_info("%s=PASS\n", check);
	} else {
		checks_failed++;
		pr_err("%s=FAIL\n", check);
	}
}

static bool params_ok(void)
{
	if (threads < 1 || threads > 64 || rounds < 1 || rounds > 100000 ||
	    bench_iters < 1000 || bench_iters > 1000000000 ||
	    bench_reps < 1 || bench_reps > 100 ||
	    count_iters < 1000 || count_iters > 1000000 ||
	    stride_big_kib < 1 || stride_big_kib > 4096 ||
	    stride_fit_kib < 1 || stride_fit_kib > 4096) {
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

	jlb_check_default_off(invert);
	jlb_check_inc_inc_dec();
	jlb_check_dec_disables();
	jlb_check_enabled_follows_count();
	jlb_check_concurrent(threads, rounds);
	jlb_check_code_patching();
	jlb_bench(bench_iters, bench_reps, count_iters, stride_big_kib,
		  stride_fit_kib);

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
