// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-tests-core.c: known answers of the model's structures beyond the
 * L1s: the L2 behind them and next-line prefetch (model.c), and the
 * overlap rule (overlap.c). Run by unit-tests.c.
 */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "overlap.h"
#include "unit-tests.h"

#define KIB 1024
#define BASE 0x100000ULL	/* page-aligned */
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Counts of the levels of a sequence of accesses. */
struct levels {
	uint64_t n[3];		/* by enum level */
};

/* walk() - rounds cyclic data accesses to span bytes, one a line. */
static void walk(struct cache *l1, struct cache *l2, uint64_t span,
		 int rounds, struct levels *lv)
{
	uint64_t a;
	int r;

	memset(lv, 0, sizeof(*lv));
	for (r = 0; r < rounds; r++)
		for (a = 0; a < span; a += 64)
			lv->n[mem_access(l1, l2, BASE + a)]++;
}

/* fresh() - a 32 KiB 8-way L1 and a 256 KiB 8-way L2, empty. */
static void fresh(struct cache *l1, struct cache *l2)
{
	char err[256];

	cache_free(l1);
	cache_free(l2);
	cache_init(l1, 32 * KIB, 8, 64, err, sizeof(err));
	cache_init(l2, 256 * KIB, 8, 64, err, sizeof(err));
}

static void test_l2_levels(void)
{
	static const struct mem_lat lat = { 14, 200 };
	struct cache l1, l2;
	struct levels lv;
	char err[256], what[200];
	uint64_t cycles;

	check(cache_init(&l1, 32 * KIB, 8, 64, err, sizeof(err)) == 0 &&
	      cache_init(&l2, 256 * KIB, 8, 64, err, sizeof(err)) == 0,
	      "l2: 32 KiB 8-way L1, 256 KiB 8-way L2");
	/* 2048 lines: every access misses L1; L2 misses the first round. */
	walk(&l1, &l2, 128 * KIB, 10, &lv);
	cycles = lv.n[LVL_L2] * level_latency(&lat, LVL_L2) +
		 lv.n[LVL_MEM] * level_latency(&lat, LVL_MEM);
	snprintf(what, sizeof(what),
		 "l2: 4x L1, half L2, 10 rounds: L1 %llu, L2 %llu, memory %llu (want 0, 18432, 2048), %llu cycles (want 667648)",
		 (unsigned long long)lv.n[LVL_L1],
		 (unsigned long long)lv.n[LVL_L2],
		 (unsigned long long)lv.n[LVL_MEM],
		 (unsigned long long)cycles);
	check(lv.n[LVL_L1] == 0 && lv.n[LVL_L2] == 18432 &&
	      lv.n[LVL_MEM] == 2048 && cycles == 18432 * 14 + 2048 * 200,
	      what);
	fresh(&l1, &l2);
	walk(&l1, &l2, 512 * KIB, 2, &lv);
	check(lv.n[LVL_MEM] == 16384,
	      "l2: a cyclic walk over 2x the L2 goes to memory every time");
	fresh(&l1, &l2);
	walk(&l1, &l2, 16 * KIB, 3, &lv);
	check(lv.n[LVL_L1] == 512 && lv.n[LVL_L2] == 0 &&
	      lv.n[LVL_MEM] == 256,
	      "l2: a walk that fits L1 goes to memory the first round only");
	cache_free(&l2);
	cache_free(&l1);

	cache_init(&l1, 32 * KIB, 8, 64, err, sizeof(err));
	walk(&l1, NULL, 128 * KIB, 2, &lv);
	check(lv.n[LVL_L2] == 4096 && lv.n[LVL_MEM] == 0,
	      "l2: without an L2 every L1 miss is served by the next level (LVL_L2)");
	cache_free(&l1);
	check(level_latency(&lat, LVL_L1) == 0 &&
	      level_latency(&lat, LVL_L2) == 14 &&
	      level_latency(&lat, LVL_MEM) == 200,
	      "l2: an L1 hit costs 0, an L2 hit the L2 latency, a miss the memory latency");
}

static void test_l2_unified(void)
{
	struct cache l1i, l1d, l2;
	char err[256];
	enum level a, b, c, d;

	/* One line each L1, one set of two lines in the L2. */
	cache_init(&l1i, 64, 1, 64, err, sizeof(err));
	cache_init(&l1d, 64, 1, 64, err, sizeof(err));
	cache_init(&l2, 128, 2, 64, err, sizeof(err));
	a = mem_access(&l1i, &l2, 0x1000);
	b = mem_access(&l1d, &l2, 0x1000);
	check(a == LVL_MEM && b == LVL_L2,
	      "l2: unified: a line fetched as code is an L2 hit as data");
	/* L2 [A]; data B: [B A]; code C evicts A: [C B]; data A evicts B. */
	a = mem_access(&l1d, &l2, 0x2000);
	b = mem_access(&l1i, &l2, 0x3000);
	c = mem_access(&l1d, &l2, 0x1000);
	d = mem_access(&l1d, &l2, 0x3000);
	check(a == LVL_MEM && b == LVL_MEM && c == LVL_MEM && d == LVL_L2,
	      "l2: unified: code and data lines evict each other, least recent first");
	cache_free(&l1i);
	cache_free(&l1d);
	cache_free(&l2);
}

/* Counts of a sequence of fetches through a prefetching L1I. */
struct fetches {
	uint64_t miss, pf_hit, fill;
};

/* fetch_lines() - fetch lines first..last (step +1 or -1) at BASE. */
static void fetch_lines(struct cache *l1, struct cache *l2, int64_t first,
			int64_t last, struct fetches *f)
{
	int64_t step = first <= last ? 1 : -1, x;
	struct prefetch_ev ev;

	memset(f, 0, sizeof(*f));
	for (x = first;; x += step) {
		f->miss += cache_fetch(l1, l2, BASE + (uint64_t)x * 64 + 8,
				       &ev) != LVL_L1;
		f->pf_hit += ev.hit;
		f->fill += ev.fill;
		if (x == last)
			break;
	}
}

static void test_prefetch(void)
{
	struct cache l1, l2, l1d;
	struct fetches f;
	struct prefetch_ev ev;
	char err[256], what[200];

	check(cache_init_prefetch(&l1, 32 * KIB, 8, 64, err, sizeof(err)) == 0,
	      "prefetch: 32 KiB 8-way L1I with next-line prefetch");
	fetch_lines(&l1, NULL, 0, 63, &f);
	snprintf(what, sizeof(what),
		 "prefetch: a straight run over one page: %llu misses, %llu prefetch hits, %llu fills (want 1, 63, 63)",
		 (unsigned long long)f.miss, (unsigned long long)f.pf_hit,
		 (unsigned long long)f.fill);
	check(f.miss == 1 && f.pf_hit == 63 && f.fill == 63, what);
	fetch_lines(&l1, NULL, 0, 63, &f);
	check(f.miss == 0 && f.pf_hit == 0 && f.fill == 0,
	      "prefetch: run again: plain hits, the marks are gone, nothing to fill");
	fetch_lines(&l1, NULL, 64, 191, &f);
	check(f.miss == 2 && f.pf_hit == 126 && f.fill == 126,
	      "prefetch: two more pages: one miss per page, no prefetch across a page");
	fetch_lines(&l1, NULL, 255, 192, &f);
	check(f.miss == 64 && f.pf_hit == 0 && f.fill == 0,
	      "prefetch: a descending run gets nothing from next-line prefetch");
	cache_fetch(&l1, NULL, BASE + 300 * 64, &ev);
	check(ev.fill && !ev.hit, "prefetch: a fill without a demand yet");
	cache_fetch(&l1, NULL, BASE + 301 * 64, &ev);
	check(ev.hit, "prefetch: its first demand access is a prefetch hit");
	cache_free(&l1);

	cache_init(&l1, 32 * KIB, 8, 64, err, sizeof(err));
	fetch_lines(&l1, NULL, 0, 63, &f);
	check(f.miss == 64 && f.pf_hit == 0 && f.fill == 0,
	      "prefetch: off: a straight run over one page misses 64 times");
	cache_free(&l1);

	cache_init_prefetch(&l1, 32 * KIB, 8, 64, err, sizeof(err));
	cache_init(&l2, 256 * KIB, 8, 64, err, sizeof(err));
	cache_init(&l1d, 32 * KIB, 8, 64, err, sizeof(err));
	check(cache_fetch(&l1, &l2, BASE, &ev) == LVL_MEM && ev.fill,
	      "prefetch: with an L2, a cold fetch goes to memory and prefetches");
	check(mem_access(&l1d, &l2, BASE + 64) == LVL_L2,
	      "prefetch: the prefetched line went through the L2 (a data access hits it there)");
	cache_free(&l1);
	cache_free(&l2);
	cache_free(&l1d);
}

/* Overlap: ROB 192, 4 wide: the window hides 48 cycles. */
static const struct ooo_params core = { 192, 4 };

/* cost_of() - the cost of n events; checks the parameters are taken. */
static struct ooo_cost cost_of(const struct ooo_event *ev, size_t n)
{
	struct ooo_cost c = { 0, 0 };
	char err[256];

	if (ooo_cost(&core, ev, n, &c, err, sizeof(err)) != 0)
		check(0, err);
	return c;
}

static void test_overlap_rules(void)
{
	static const struct ooo_event fed_mem[] = {
		{ 100, 200, OOO_DMISS, true }, { 102, 15, OOO_MISPREDICT, 0 } };
	static const struct ooo_event fed_l2[] = {
		{ 100, 14, OOO_DMISS, true }, { 102, 15, OOO_MISPREDICT, 0 } };
	static const struct ooo_event pred_l2[] = {
		{ 100, 14, OOO_DMISS, false } };
	static const struct ooo_event pred_mem[] = {
		{ 100, 200, OOO_DMISS, false } };
	static const struct ooo_event front[] = {
		{ 10, 14, OOO_IMISS, 0 }, { 20, 200, OOO_IMISS, 0 },
		{ 30, 5, OOO_BTB, 0 }, { 40, 15, OOO_MISPREDICT, 0 } };
	struct ooo_cost c;
	char what[200];

	c = cost_of(fed_mem, N(fed_mem));
	check(c.overlapped == 215 && c.inorder == 215,
	      "overlap: a mispredicted branch fed by a load missing to memory: 200 + 15, as in order");
	c = cost_of(fed_l2, N(fed_l2));
	check(c.overlapped == 29 && c.inorder == 29,
	      "overlap: fed by a load that hits L2: 14 + 15");
	c = cost_of(pred_l2, N(pred_l2));
	check(c.overlapped == 0 && c.inorder == 14,
	      "overlap: a load that hits L2, its branch predicted: hidden (0 of 14)");
	c = cost_of(pred_mem, N(pred_mem));
	snprintf(what, sizeof(what),
		 "overlap: a load missing to memory, its branch predicted: the part beyond the window, %llu (want 200 - 192 / 4 = 152)",
		 (unsigned long long)c.overlapped);
	check(c.overlapped == 152 && c.inorder == 200, what);
	c = cost_of(front, N(front));
	check(c.overlapped == 234 && c.inorder == 234,
	      "overlap: L1I misses (L2 and memory), a BTB miss and a misprediction are charged in full");
}

static void test_overlap_groups(void)
{
	static const struct ooo_event four[] = {
		{ 0, 200, OOO_DMISS, 0 }, { 50, 200, OOO_DMISS, 0 },
		{ 100, 200, OOO_DMISS, 0 }, { 191, 200, OOO_DMISS, 0 } };
	static const struct ooo_event apart[] = {
		{ 0, 200, OOO_DMISS, 0 }, { 192, 200, OOO_DMISS, 0 },
		{ 384, 200, OOO_DMISS, 0 }, { 576, 200, OOO_DMISS, 0 } };
	static const struct ooo_event rising[] = {
		{ 0, 14, OOO_DMISS, 0 }, { 10, 60, OOO_DMISS, 0 },
		{ 20, 200, OOO_DMISS, 0 }, { 30, 14, OOO_DMISS, 0 } };
	static const struct ooo_event mixed[] = {
		{ 0, 200, OOO_DMISS, 0 }, { 5, 200, OOO_DMISS, true },
		{ 7, 15, OOO_MISPREDICT, 0 }, { 9, 200, OOO_DMISS, 0 } };
	struct ooo_params bad[] = { { 0, 1 }, { 4, 0 }, { 4, 5 },
				    { OOO_MAX_ROB + 1, 4 } };
	uint64_t seed = 12345, worse = 0;
	struct ooo_event ev[64];
	struct ooo_cost c;
	char err[256];
	size_t i, j;

	c = cost_of(four, N(four));
	check(c.overlapped == 152 && c.inorder == 800,
	      "overlap: four memory misses within one ROB of the first overlap: one 152");
	c = cost_of(apart, N(apart));
	check(c.overlapped == 4 * 152,
	      "overlap: four a ROB apart: 152 each");
	c = cost_of(rising, N(rising));
	check(c.overlapped == 152 && c.inorder == 288,
	      "overlap: a group costs its longest miss beyond the window (14, 60, 200, 14: 152)");
	c = cost_of(mixed, N(mixed));
	check(c.overlapped == 152 + 200 + 15,
	      "overlap: a miss that feeds a mispredicted branch is charged apart from the group");
	for (i = 0, j = 0; i < N(bad); i++)
		j += ooo_cost(&bad[i], four, N(four), &c, err, sizeof(err)) != 0;
	check(j == N(bad), "overlap: rob 0, width 0, width > rob, rob > 65536 refused");
	for (i = 0; i < 1000; i++) {
		uint64_t insn = 0;

		for (j = 0; j < N(ev); j++) {
			uint64_t r = xorshift64(&seed);

			insn += r % 300;
			ev[j].insn = insn;
			ev[j].latency = (uint32_t)(r >> 20) % 400;
			ev[j].kind = (uint8_t)((r >> 40) % 4);
			ev[j].feeds = (r >> 50) & 1;
		}
		c = cost_of(ev, N(ev));
		worse += c.overlapped > c.inorder;
	}
	check(worse == 0,
	      "overlap: never more than in order (1000 random streams of 64 events)");
}

void test_core(void)
{
	test_l2_levels();
	test_l2_unified();
	test_prefetch();
	test_overlap_rules();
	test_overlap_groups();
}
