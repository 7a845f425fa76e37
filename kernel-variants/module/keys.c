// SPDX-License-Identifier: GPL-2.0
/*
 * The key under test, jlb_key, and the checks of its count: default_off,
 * inc_inc_dec, dec_disables, enabled_follows_count and concurrent. Each
 * check looks at the key three ways: the branch at its one check site
 * (jlb_taken()), jump_label_enabled() and the count.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "jlbench_static_key.h"

/* The key under test; jlb_taken() holds its one check site. */
struct jump_label_key jlb_key = JUMP_LABEL_INIT;

noinline bool jlb_taken(void)
{
	if (static_branch(&jlb_key))
		return true;
	return false;
}

/*
 * jlb_expect: the key looks as a count of @count says it should: the branch
 * is taken and jump_label_enabled() is true exactly when @count is above
 * zero. Explains a mismatch in a line named after @check.
 */
bool jlb_expect(const char *check, int count)
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

void jlb_check_default_off(bool invert)
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
	jlb_report("default_off", ok);
}

void jlb_check_inc_inc_dec(void)
{
	bool ok;

	jump_label_inc(&jlb_key);
	ok = jlb_expect("inc_inc_dec", 1);
	jump_label_inc(&jlb_key);
	ok &= jlb_expect("inc_inc_dec", 2);
	jump_label_dec(&jlb_key);
	ok &= jlb_expect("inc_inc_dec", 1);
	jlb_report("inc_inc_dec", ok);
}

/* Runs after jlb_check_inc_inc_dec(), which leaves the count at 1. */
void jlb_check_dec_disables(void)
{
	bool ok = jump_label_key_count(&jlb_key) == 1;

	if (ok) {
		jump_label_dec(&jlb_key);
		ok = jlb_expect("dec_disables", 0);
	} else {
		pr_info("dec_disables: count is not 1 before the test\n");
	}
	jlb_report("dec_disables", ok);
}

#define FOLLOW_MAX 8

void jlb_check_enabled_follows_count(void)
{
	bool ok = jlb_expect("enabled_follows_count", 0);
	int i;

	for (i = 1; i <= FOLLOW_MAX; i++) {
		jump_label_inc(&jlb_key);
		ok &= jlb_expect("enabled_follows_count", i);
	}
	for (i = FOLLOW_MAX - 1; i >= 0; i--) {
		jump_label_dec(&jlb_key);
		ok &= jlb_expect("enabled_follows_count", i);
	}
	jlb_report("enabled_follows_count", ok);
}

struct jlb_thread {
	struct completion *go;
	struct completion done;
	unsigned int id;
	unsigned int rounds;
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
	for (r = 0; r < t->rounds; r++) {
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

void jlb_check_concurrent(unsigned int threads, unsigned int rounds)
{
	DECLARE_COMPLETION_ONSTACK(go);
	struct jlb_thread *t;
	struct task_struct *task;
	unsigned int i, started = 0, bad = 0;
	bool ok = true;

	t = kcalloc(threads, sizeof(*t), GFP_KERNEL);
	if (!t) {
		jlb_report("concurrent", false);
		return;
	}
	for (i = 0; i < threads; i++) {
		t[i].go = &go;
		t[i].id = i;
		t[i].rounds = rounds;
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
	ok &= jlb_expect("concurrent", 0);
	jlb_report("concurrent", ok);
	pr_info("threads=%u\n", started);
	pr_info("rounds=%u\n", rounds);
}
