// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-tests-overlap.c: known answers of the overlap rule as the model
 * runs it (overlap.h's stream, through modelcfg.h's model_data() and
 * model_branch(), which modelplug.c calls): a mispredicted branch fed by
 * a missing load, a missing load whose branch is predicted, the ROB's
 * groups, rob=, and the stream's counts against the rule's cycles
 * (overlap.c's ooo_cost()). Run by unit-tests.c.
 */
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "modelcfg.h"
#include "overlap.h"
#include "unit-tests.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define L1D 14			/* penalties of the tests, cycles */
#define L2MISS 36
#define ROB 192
#define WIDTH 4			/* hide = 192 / 4 = 48 */
#define PC 0x401000ULL		/* a conditional branch */

/* A model of args (NULL-terminated), counting overlap classes to *out. */
static int build(struct model *m, const char *const *args,
		 struct ooo_counts *out, char *err, size_t errlen)
{
	struct model_cfg c;

	model_cfg_defaults(&c);
	for (; *args; args++)
		if (model_cfg_arg(&c, *args, err, errlen) != 1)
			return -1;
	if (model_setup(m, &c, err, errlen) != 0)
		return -1;
	memset(out, 0, sizeof(*out));
	model_count_to(m, out);
	return 0;
}

/* cycles() - the overlapped cycles of c's data misses, the tests' core. */
static uint64_t cycles(const struct ooo_counts *c)
{
	return ooo_counts_cycles(c, L1D, L2MISS, ROB / WIDTH);
}

static void test_near_branch(void)
{
	check(ooo_near_branch(0, 3) && ooo_near_branch(1, 3) &&
	      !ooo_near_branch(2, 3),
	      "overlap: load; test; Jcc: the load is near its branch, the branch itself is not");
	check(ooo_near_branch(1, 5) && !ooo_near_branch(0, 5) &&
	      !ooo_near_branch(0, 1),
	      "overlap: near means at most 3 instructions before the block's last");
}

static void test_fed_and_predicted(void)
{
	static const char *const l2[] = { "model=on", "rob=192",
					   "l2=262144:8", NULL };
	static const char *const no_l2[] = { "model=on", "rob=192", NULL };
	struct ooo_counts c;
	struct model m;
	char err[256], what[200];
	enum level lvl;
	bool miss;

	if (build(&m, l2, &c, err, sizeof(err)) != 0) {
		check(0, err);
		return;
	}
	/* a cold key word, two instructions before a taken branch that
	 * gshare (all counters weakly not taken) mispredicts */
	lvl = model_data(&m, 0x10000, 100, KERNEL, true);
	miss = model_branch(&m, PC, true);
	snprintf(what, sizeof(what),
		 "overlap (model): a mispredicted branch fed by a load missing to memory is charged in full: %llu cycles (want 14 + 36 = 50, as in order)",
		 (unsigned long long)cycles(&c));
	check(lvl == LVL_MEM && miss && c.l1d_fed[KERNEL] == 1 &&
	      c.l2d_fed[KERNEL] == 1 && c.l1d_groups[KERNEL] == 0 &&
	      cycles(&c) == L1D + L2MISS, what);
	model_free(&m);

	build(&m, l2, &c, err, sizeof(err));
	lvl = model_data(&m, 0x10000, 100, KERNEL, true);
	miss = model_branch(&m, PC, false);
	snprintf(what, sizeof(what),
		 "overlap (model): a load missing to memory, its branch predicted: %llu cycles of 50 (want 50 - 192 / 4 = 2)",
		 (unsigned long long)cycles(&c));
	check(lvl == LVL_MEM && !miss && c.l1d_fed[KERNEL] == 0 &&
	      c.l1d_groups[KERNEL] == 1 && c.l2d_groups[KERNEL] == 1 &&
	      cycles(&c) == L1D + L2MISS - ROB / WIDTH, what);
	model_free(&m);

	build(&m, no_l2, &c, err, sizeof(err));
	lvl = model_data(&m, 0x10000, 100, USER, true);
	miss = model_branch(&m, PC, false);
	check(lvl == LVL_L2 && !miss && c.l1d_groups[USER] == 1 &&
	      c.l2d_groups[USER] == 0 && cycles(&c) == 0,
	      "overlap (model): a load that hits L2, its branch predicted: hidden (0 of 14)");
	/* the same line again hits: nothing to hold */
	lvl = model_data(&m, 0x10000, 300, USER, true);
	miss = model_branch(&m, PC, true);
	check(lvl == LVL_L1 && miss && c.l1d_fed[USER] == 0 &&
	      c.l1d_groups[USER] == 1,
	      "overlap (model): an L1D hit feeds nothing, mispredicted or not");
	/* a load far from the branch is independent at once */
	model_data(&m, 0x20000, 400, USER, false);
	model_branch(&m, PC + 64, true);
	check(c.l1d_fed[USER] == 0 && c.l1d_groups[USER] == 2,
	      "overlap (model): a load far from its mispredicted branch does not feed it");
	/* a branch an interrupt cut off: the held miss is independent */
	model_data(&m, 0x30000, 1000, KERNEL, true);
	model_branch_lost(&m);
	check(c.l1d_fed[KERNEL] == 0 && c.l1d_groups[KERNEL] == 1 &&
	      m.ooo.held == 0,
	      "overlap (model): a held miss whose branch was not seen is independent");
	model_free(&m);
}

static void test_groups(void)
{
	static const char *const args[] = { "model=on", "rob=192",
					     "l2=262144:8", NULL };
	struct ooo_counts c;
	struct model m;
	char err[256];

	if (build(&m, args, &c, err, sizeof(err)) != 0) {
		check(0, err);
		return;
	}
	/* four misses to memory within one ROB: one group */
	model_data(&m, 0x100000, 0, KERNEL, false);
	model_data(&m, 0x110000, 50, KERNEL, false);
	model_data(&m, 0x120000, 120, USER, false);
	model_data(&m, 0x130000, 191, KERNEL, false);
	check(c.l1d_groups[KERNEL] == 1 && c.l1d_groups[USER] == 0 &&
	      c.l2d_groups[KERNEL] == 1 && cycles(&c) == 2,
	      "overlap (model): four misses to memory within one ROB cost one group (2), counted in the mode that opened it");
	/* the next one a ROB after the first opens another */
	model_data(&m, 0x140000, 192, USER, false);
	check(c.l1d_groups[USER] == 1 && cycles(&c) == 4,
	      "overlap (model): a miss a ROB after the group's first opens another");
	model_free(&m);
}

static void test_rob_arg(void)
{
	static const char *const dflt[] = { "model=on", NULL };
	static const char *const zero[] = { "model=on", "rob=0", NULL };
	static const char *const big[] = { "model=on", "rob=65537", NULL };
	static const char *const off[] = { "rob=128", NULL };
	struct ooo_counts c;
	struct model_cfg cfg;
	struct model m;
	char err[256] = "";

	model_cfg_defaults(&cfg);
	check(cfg.rob == MODEL_DEFAULT_ROB && MODEL_DEFAULT_ROB == 256,
	      "cfg: rob= defaults to 256");
	check(build(&m, dflt, &c, err, sizeof(err)) == 0 && m.ooo.rob == 256,
	      "setup: the default model's ROB is 256");
	model_free(&m);
	check(build(&m, zero, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "rob=0: want 1..65536 entries"),
	      "setup: rob=0 refused, named");
	check(build(&m, big, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "rob=65537"), "setup: rob=65537 refused");
	check(build(&m, off, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "rob=128 needs model=on"),
	      "setup: rob= without model=on is an error");
}

/*
 * The stream's counts priced by ooo_counts_cycles() equal the rule's own
 * cycles (ooo_cost()) on random streams of data misses, fed or not.
 */
static void test_counts_match_rule(void)
{
	static const struct ooo_params core = { ROB, WIDTH };
	static const uint32_t l2s[] = { 0, 20, 36, 200 };
	struct ooo_event ev[64];
	struct ooo_counts c;
	struct ooo_stream s;
	struct ooo_cost want;
	uint64_t seed = 777;
	size_t i, j, k, bad = 0;
	char err[256];

	for (k = 0; k < N(l2s); k++) {
		for (i = 0; i < 500; i++) {
			uint64_t insn = 0;

			memset(&c, 0, sizeof(c));
			ooo_stream_init(&s, ROB, &c, err, sizeof(err));
			for (j = 0; j < N(ev); j++) {
				uint64_t r = xorshift64(&seed);
				bool mem = (r >> 8) & 1, held = (r >> 9) & 1;
				bool fed = held && ((r >> 10) & 1);

				insn += r % 150;
				ev[j].insn = insn;
				ev[j].latency = L1D + (mem ? l2s[k] : 0);
				ev[j].kind = OOO_DMISS;
				ev[j].feeds = fed;
				ooo_dmiss(&s, insn, mem, (int)((r >> 11) & 1),
					  held);
				if (held)
					ooo_resolve(&s, fed);
			}
			ooo_cost(&core, ev, N(ev), &want, err, sizeof(err));
			bad += ooo_counts_cycles(&c, L1D, l2s[k],
						 ROB / WIDTH) != want.overlapped;
		}
	}
	check(bad == 0,
	      "overlap: the stream's counts give the rule's cycles (2000 random streams, L2 misses 0..200 cycles)");
	memset(&c, 0, sizeof(c));
	ooo_stream_init(&s, 4, &c, err, sizeof(err));
	for (i = 0; i < OOO_MAX_HELD + 2; i++)
		ooo_dmiss(&s, 10, false, KERNEL, true);
	ooo_resolve(&s, true);
	check(c.l1d_fed[KERNEL] == OOO_MAX_HELD && c.l1d_groups[KERNEL] == 1,
	      "overlap: held misses beyond the buffer are independent");
	check(ooo_stream_init(&s, 0, &c, err, sizeof(err)) != 0 &&
	      ooo_stream_init(&s, OOO_MAX_ROB + 1, &c, err, sizeof(err)) != 0,
	      "overlap: a stream of rob 0 or above 65536 refused");
}

void test_overlap(void)
{
	test_near_branch();
	test_fed_and_predicted();
	test_groups();
	test_rob_arg();
	test_counts_match_rule();
}
