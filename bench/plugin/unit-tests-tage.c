// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-tests-tage.c: known answers of the model's TAGE-like predictor
 * (tage.c): fixed, periodic, long-period and pseudo-random outcomes
 * against gshare, the folded histories, the clearing of the useful
 * counters and parameter validation. Run by unit-tests.c.
 */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "tage.h"
#include "unit-tests.h"

/* A TAGE of the paper's shape: 4 tables of 1024, 9-bit tags, 4..64. */
static int tage_small(struct tage *p)
{
	char err[256];

	return tage_init(p, 4096, 4, 1024, 9, 4, 64, err, sizeof(err));
}

static void test_tage_basic(void)
{
	struct tage p;
	char what[200];
	uint64_t m = 0, late = 0;
	int i;

	check(tage_small(&p) == 0 && p.hist[0] == 4 && p.hist[1] == 10 &&
	      p.hist[2] == 25 && p.hist[3] == 64,
	      "tage: 4096 base counters, 4 tables of 1024, histories 4, 10, 25, 64 (geometric)");
	for (i = 0; i < 10000; i++)
		m += tage_resolve(&p, 0xffffffff81000100ULL, true);
	/* The base counter starts weakly not taken: one miss, then taken. */
	snprintf(what, sizeof(what),
		 "tage: always taken mispredicts once (%llu, want 1)",
		 (unsigned long long)m);
	check(m == 1, what);
	tage_free(&p);

	tage_small(&p);
	for (i = 0, m = 0; i < 10000; i++)
		m += tage_resolve(&p, 0x401000, false);
	check(m == 0, "tage: never taken is never mispredicted");
	for (i = 0, late = 0; i < 8000; i++) {
		bool miss = tage_resolve(&p, 0x401000, i % 8 != 7);

		late += miss && i >= 7000;
	}
	check(late == 0, "tage: a period-8 loop branch is learnt");
	tage_free(&p);
}

/* loop40() - mispredictions of a 40-iteration loop exit, late ones. */
static uint64_t loop40(bool (*resolve)(void *, uint64_t, bool), void *p)
{
	uint64_t late = 0;
	int i;

	for (i = 0; i < 40000; i++) {
		bool miss = resolve(p, 0x401000, i % 40 != 39);

		late += miss && i >= 30000;
	}
	return late;
}

static bool tage_cb(void *p, uint64_t pc, bool taken)
{
	return tage_resolve(p, pc, taken);
}

static bool gshare_cb(void *p, uint64_t pc, bool taken)
{
	return gshare_resolve(p, pc, taken);
}

static void test_tage_history(void)
{
	struct tage p;
	struct gshare g;
	char err[256], what[200];
	uint64_t seed = 0x9e3779b97f4a7c15ULL, t, gs, m = 0, edge = 0;
	uint32_t i, bad = 0;

	/* 39 taken, 1 not: telling the exit needs 40 outcomes of history. */
	tage_small(&p);
	gshare_init(&g, 4096, 12, err, sizeof(err));
	t = loop40(tage_cb, &p);
	gs = loop40(gshare_cb, &g);
	snprintf(what, sizeof(what),
		 "tage: a 40-iteration loop's exit is learnt with 64 bits of history (%llu late misses, want 0; gshare 4096:12: %llu, want 250)",
		 (unsigned long long)t, (unsigned long long)gs);
	check(t == 0 && gs == 250, what);
	tage_free(&p);
	gshare_free(&g);

	/* A random branch and an always-taken back-edge, interleaved. */
	tage_small(&p);
	for (i = 0; i < 100000; i++) {
		m += tage_resolve(&p, 0x401010, xorshift64(&seed) >> 63);
		edge += tage_resolve(&p, 0x401020, true) && i >= 1000;
	}
	snprintf(what, sizeof(what),
		 "tage: a random branch mispredicts near half (%llu of 100000), its loop's back-edge almost never (%llu late)",
		 (unsigned long long)m, (unsigned long long)edge);
	check(m > 47000 && m < 53000 && edge < 100, what);

	for (i = 0; i < p.tables; i++)
		bad += p.t[i].idx.comp != tage_fold_direct(&p, &p.t[i].idx) ||
		       p.t[i].tag0.comp != tage_fold_direct(&p, &p.t[i].tag0) ||
		       p.t[i].tag1.comp != tage_fold_direct(&p, &p.t[i].tag1);
	check(bad == 0,
	      "tage: the incremental folded histories equal their definition");
	tage_free(&p);
}

/* u_bits() - OR of every u of p's tagged tables. */
static unsigned int u_bits(const struct tage *p)
{
	uint64_t j, n = 1ULL << p->log_entries;
	unsigned int bits = 0;
	uint32_t i;

	for (i = 0; i < p->tables; i++)
		for (j = 0; j < n; j++)
			bits |= p->t[i].e[j].u;
	return bits;
}

static void test_tage_u_clearing(void)
{
	uint64_t seed = 42;
	unsigned int before = 0, high = 3, low = 3;
	struct tage p;
	uint32_t i;

	/* Eight branches on pseudo-random bits: u goes up and down. */
	tage_small(&p);
	for (i = 1; i <= 2 * TAGE_U_PERIOD; i++) {
		uint64_t r = xorshift64(&seed);

		tage_resolve(&p, 0x401000 + 16 * (i % 8), r >> 63);
		if (i == TAGE_U_PERIOD - 1)
			before = u_bits(&p);
		if (i == TAGE_U_PERIOD)
			high = u_bits(&p);
		if (i == 2 * TAGE_U_PERIOD)
			low = u_bits(&p);
	}
	check(before == 3 && !(high & 2) && !(low & 1),
	      "tage: after 2^18 branches every u loses its high bit, after 2^18 more its low bit");
	tage_free(&p);
}

struct tage_case {
	const char *what;
	uint64_t a[6];
	int ok;
};

static const struct tage_case tage_cases[] = {
	{ "tage 4096:4:1024:9:4:64", { 4096, 4, 1024, 9, 4, 64 }, 1 },
	{ "tage one table", { 2, 1, 2, 2, 1, 1 }, 1 },
	{ "tage 8 tables to 1024", { 1 << 14, 8, 1 << 12, 15, 5, 1024 }, 1 },
	{ "tage base 3000", { 3000, 4, 1024, 9, 4, 64 }, 0 },
	{ "tage 0 tables", { 4096, 0, 1024, 9, 4, 64 }, 0 },
	{ "tage 9 tables", { 4096, 9, 1024, 9, 4, 64 }, 0 },
	{ "tage 1000 entries", { 4096, 4, 1000, 9, 4, 64 }, 0 },
	{ "tage 2^21 entries", { 4096, 4, 1 << 21, 9, 4, 64 }, 0 },
	{ "tage 1 tag bit", { 4096, 4, 1024, 1, 4, 64 }, 0 },
	{ "tage 16 tag bits", { 4096, 4, 1024, 16, 4, 64 }, 0 },
	{ "tage history 0..64", { 4096, 4, 1024, 9, 0, 64 }, 0 },
	{ "tage history to 1025", { 4096, 4, 1024, 9, 4, 1025 }, 0 },
	{ "tage 4 tables in 4..6", { 4096, 4, 1024, 9, 4, 6 }, 0 },
	{ "tage 4 tables in 4..7", { 4096, 4, 1024, 9, 4, 7 }, 1 },
};

static void test_tage_validation(void)
{
	char err[256], what[400];
	struct tage p;
	size_t i;

	for (i = 0; i < sizeof(tage_cases) / sizeof(tage_cases[0]); i++) {
		const struct tage_case *c = &tage_cases[i];
		int rc;

		err[0] = 0;
		rc = tage_init(&p, c->a[0], c->a[1], c->a[2], c->a[3],
			       c->a[4], c->a[5], err, sizeof(err));
		snprintf(what, sizeof(what), "validate %s: want %s, got %s%s",
			 c->what, c->ok ? "ok" : "an error",
			 rc == 0 ? "ok" : "error: ", err);
		check((rc == 0) == !!c->ok && (rc == 0 || err[0]), what);
		if (rc == 0 && strstr(c->what, "4..7"))
			check(p.hist[0] == 4 && p.hist[1] == 5 &&
			      p.hist[2] == 6 && p.hist[3] == 7,
			      "tage: 4 tables in 4..7 get 4, 5, 6, 7");
		tage_free(&p);
	}
}

void test_tage(void)
{
	test_tage_basic();
	test_tage_history();
	test_tage_u_clearing();
	test_tage_validation();
}
