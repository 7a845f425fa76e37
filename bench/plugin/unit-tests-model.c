// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-tests-model.c: known answers of the plugin's hardware model
 * (model.c): caches under cyclic strides, true LRU order, gshare on fixed,
 * periodic and pseudo-random outcomes, BTB fill and eviction, parameter
 * validation, and the plugin arguments (modelcfg.c), the options (L2,
 * prefetch, TAGE) included. Run by unit-tests.c.
 */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "modelcfg.h"
#include "unit-tests.h"

#define KIB 1024

/* stride_misses() - misses of rounds cyclic passes over span bytes. */
static uint64_t stride_misses(struct cache *c, uint64_t span, uint64_t step,
			      int rounds)
{
	uint64_t a, misses = 0;
	int r;

	for (r = 0; r < rounds; r++)
		for (a = 0; a < span; a += step)
			misses += !cache_access(c, 0x100000 + a);
	return misses;
}

static void test_cache_strides(void)
{
	struct cache c;
	char err[256], what[160];
	uint64_t m;

	check(cache_init(&c, 32 * KIB, 8, 64, err, sizeof(err)) == 0,
	      "cache: 32 KiB 8-way 64-byte lines");
	m = stride_misses(&c, 64 * KIB, 64, 10);
	snprintf(what, sizeof(what),
		 "cache: cyclic stride over 2x the size misses every access (%llu of 10240)",
		 (unsigned long long)m);
	check(m == 10240, what);
	cache_free(&c);

	cache_init(&c, 32 * KIB, 8, 64, err, sizeof(err));
	m = stride_misses(&c, 16 * KIB, 64, 10);
	snprintf(what, sizeof(what),
		 "cache: a stride that fits misses only cold (%llu, want 256)",
		 (unsigned long long)m);
	check(m == 256, what);
	m = stride_misses(&c, 32 * KIB, 64, 10);
	snprintf(what, sizeof(what),
		 "cache: exactly the size misses only its new lines (%llu, want 256)",
		 (unsigned long long)m);
	check(m == 256, what);
	m = stride_misses(&c, 32 * KIB, 8, 1);
	check(m == 0, "cache: every byte offset of a cached line hits");
	cache_free(&c);
}

static void test_cache_lru(void)
{
	/* One set of two ways: A B A C A B C, true LRU. */
	static const char seq[] = "ABACABC";
	static const char want[] = "mmhmhmm";
	struct cache c;
	char err[256], got[sizeof(seq)];
	size_t i;

	check(cache_init(&c, 128, 2, 64, err, sizeof(err)) == 0,
	      "cache: one set of two 64-byte ways");
	for (i = 0; seq[i]; i++)
		got[i] = cache_access(&c, (uint64_t)(seq[i] - 'A') * 64 + 5) ?
			 'h' : 'm';
	got[i] = 0;
	check(strcmp(got, want) == 0,
	      "cache: A B A C A B C gives miss miss hit miss hit miss miss (LRU evicts B, then C, then A)");
	cache_free(&c);

	/* Two sets: lines 0 and 2 share set 0, line 1 is alone in set 1. */
	cache_init(&c, 128, 1, 64, err, sizeof(err));
	cache_access(&c, 0);
	cache_access(&c, 64);
	check(!cache_access(&c, 128), "cache: direct-mapped conflict misses");
	check(cache_access(&c, 64), "cache: the other set is untouched");
	check(!cache_access(&c, 0), "cache: the conflict evicted line 0");
	cache_free(&c);
}

static void test_gshare(void)
{
	struct gshare g;
	char err[256], what[160];
	uint64_t seed = 0x9e3779b97f4a7c15ULL, m = 0, late = 0;
	int i;

	check(gshare_init(&g, 4096, 12, err, sizeof(err)) == 0,
	      "gshare: 4096 counters, 12 history bits");
	for (i = 0; i < 10000; i++) {
		bool miss = gshare_resolve(&g, 0xffffffff81000100ULL, true);

		m += miss;
		late += miss && i >= 100;
	}
	/* 13 histories (0, 1, 11, ..., twelve 1s), each counter weakly not
	 * taken at first: one miss each, then never again.
	 */
	snprintf(what, sizeof(what),
		 "gshare: always taken mispredicts only while warming (%llu, want 13; %llu late)",
		 (unsigned long long)m, (unsigned long long)late);
	check(m == 13 && late == 0, what);
	gshare_free(&g);

	gshare_init(&g, 4096, 12, err, sizeof(err));
	for (i = 0, m = 0; i < 10000; i++)
		m += gshare_resolve(&g, 0x401000, false);
	check(m == 0, "gshare: never taken is never mispredicted");
	for (i = 0, m = 0, late = 0; i < 8000; i++) {
		bool miss = gshare_resolve(&g, 0x401000, i % 8 != 7);

		late += miss && i >= 7000;
	}
	check(late == 0, "gshare: a period-8 loop branch is learnt");
	gshare_free(&g);

	gshare_init(&g, 4096, 12, err, sizeof(err));
	for (i = 0, m = 0; i < 100000; i++)
		m += gshare_resolve(&g, 0x401000, xorshift64(&seed) >> 63);
	snprintf(what, sizeof(what),
		 "gshare: pseudo-random outcomes mispredict near half (%llu of 100000)",
		 (unsigned long long)m);
	check(m > 47000 && m < 53000, what);
	gshare_free(&g);
}

static void test_btb(void)
{
	struct btb b;
	char err[256];
	uint64_t pc, m = 0, hits = 0;

	check(btb_init(&b, 16, 4, err, sizeof(err)) == 0,
	      "btb: 16 entries, 4 ways (4 sets)");
	for (pc = 0x1000; pc < 0x1010; pc++)
		m += !btb_access(&b, pc, pc + 0x100);
	check(m == 16, "btb: filling it misses 16 times");
	for (pc = 0x1000; pc < 0x1010; pc++)
		hits += btb_access(&b, pc, pc + 0x100);
	check(hits == 16, "btb: then all 16 hit");
	check(!btb_access(&b, 0x1010, 0x1110),
	      "btb: a fifth branch of set 0 misses");
	check(!btb_access(&b, 0x1000, 0x1100),
	      "btb: it evicted the least recent of set 0");
	check(btb_access(&b, 0x1010, 0x1110) && btb_access(&b, 0x1008, 0x1108),
	      "btb: the others of set 0 stay");
	check(btb_access(&b, 0x1001, 0x1101), "btb: other sets are untouched");
	check(!btb_access(&b, 0x1001, 0x2000), "btb: a new target misses");
	check(btb_access(&b, 0x1001, 0x2000), "btb: and replaces the old one");
	btb_free(&b);
}

struct geom_case {
	const char *what;
	int kind;	/* 0 cache (a, b, c = size, ways, line), 1 gshare, 2 btb */
	uint64_t a, b, c;
	int ok;
};

static const struct geom_case geom_cases[] = {
	{ "cache 32768:8:64", 0, 32768, 8, 64, 1 },
	{ "cache 64 bytes, 1 way", 0, 64, 1, 64, 1 },
	{ "cache line 48 (not a power of two)", 0, 32768, 8, 48, 0 },
	{ "cache line 2 (too small)", 0, 32768, 8, 2, 0 },
	{ "cache line 8192 (too big)", 0, 1 << 20, 8, 8192, 0 },
	{ "cache size not a multiple of ways x line", 0, 32000, 8, 64, 0 },
	{ "cache with 3 sets", 0, 3 * 8 * 64, 8, 64, 0 },
	{ "cache with 0 ways", 0, 32768, 0, 64, 0 },
	{ "cache with 65 ways", 0, 65 * 64, 65, 64, 0 },
	{ "cache of size 0", 0, 0, 8, 64, 0 },
	{ "cache of 2^30 lines", 0, 1ULL << 36, 1, 64, 0 },
	{ "gshare 4096:12", 1, 4096, 12, 0, 1 },
	{ "gshare 2:0 (bimodal)", 1, 2, 0, 0, 1 },
	{ "gshare 4096 counters, 13 history bits", 1, 4096, 13, 0, 0 },
	{ "gshare 3000 counters", 1, 3000, 8, 0, 0 },
	{ "gshare 0 counters", 1, 0, 0, 0, 0 },
	{ "gshare 2^25 counters", 1, 1 << 25, 12, 0, 0 },
	{ "btb 4096:4", 2, 4096, 4, 0, 1 },
	{ "btb 10:4 (not a multiple)", 2, 10, 4, 0, 0 },
	{ "btb 12:4 (3 sets)", 2, 12, 4, 0, 0 },
	{ "btb 0:1", 2, 0, 1, 0, 0 },
	{ "btb 4096:0", 2, 4096, 0, 0, 0 },
};

static int geom_init(const struct geom_case *c, char *err, size_t n)
{
	struct cache ca;
	struct gshare g;
	struct btb b;
	int rc;

	if (c->kind == 0) {
		rc = cache_init(&ca, c->a, c->b, c->c, err, n);
		cache_free(&ca);
	} else if (c->kind == 1) {
		rc = gshare_init(&g, c->a, c->b, err, n);
		gshare_free(&g);
	} else {
		rc = btb_init(&b, c->a, c->b, err, n);
		btb_free(&b);
	}
	return rc;
}

static void test_validation(void)
{
	size_t i;
	char err[256], what[400];

	for (i = 0; i < sizeof(geom_cases) / sizeof(geom_cases[0]); i++) {
		const struct geom_case *c = &geom_cases[i];
		int rc;

		err[0] = 0;
		rc = geom_init(c, err, sizeof(err));
		snprintf(what, sizeof(what), "validate %s: want %s, got %s%s%s",
			 c->what, c->ok ? "ok" : "an error",
			 rc == 0 ? "ok" : "error: ", err, "");
		check((rc == 0) == !!c->ok && (rc == 0 || err[0]), what);
	}
}

/* cfg_of() - arguments (NULL-terminated) into c; the last return code. */
static int cfg_of(struct model_cfg *c, const char *const *args,
		  char *err, size_t n)
{
	int rc = 0;

	model_cfg_defaults(c);
	for (; *args && rc >= 0; args++)
		rc = model_cfg_arg(c, *args, err, n);
	return rc;
}

static void test_cfg_args(void)
{
	static const char *const good[] = { "model=on", "l1i=65536:4",
		"line=32", "bp=1024:10", "btb=512:2", "keys=/k", NULL };
	static const char *const no_assoc[] = { "l1d=1024", NULL };
	static const char *const suffix[] = { "l1d=32k:8", NULL };
	static const char *const sign[] = { "bp=-4:2", NULL };
	static const char *const model_bad[] = { "model=yes", NULL };
	static const char *const keys_empty[] = { "keys=", NULL };
	static const char *const other[] = { "outfile=/x", NULL };
	struct model_cfg c;
	char err[256];

	model_cfg_defaults(&c);
	check(!c.on && c.l1i_size == 32768 && c.l1i_ways == 8 &&
	      c.l1d_size == 32768 && c.l1d_ways == 8 && c.line == 64 &&
	      c.bp_entries == 4096 && c.bp_hist == 12 &&
	      c.btb_entries == 4096 && c.btb_ways == 4 && !c.keys && !c.set,
	      "cfg: defaults (off, 32 KiB 8-way, 64-byte lines, 4096:12, 4096:4)");
	check(cfg_of(&c, good, err, sizeof(err)) == 1 && c.on &&
	      c.l1i_size == 65536 && c.l1i_ways == 4 && c.line == 32 &&
	      c.bp_entries == 1024 && c.bp_hist == 10 &&
	      c.btb_entries == 512 && c.btb_ways == 2 &&
	      strcmp(c.keys, "/k") == 0 && c.l1d_size == 32768,
	      "cfg: every argument is taken");
	check(cfg_of(&c, no_assoc, err, sizeof(err)) < 0 &&
	      strstr(err, "l1d=SIZE:ASSOC"), "cfg: l1d= without :ASSOC");
	check(cfg_of(&c, suffix, err, sizeof(err)) < 0, "cfg: no size suffixes");
	check(cfg_of(&c, sign, err, sizeof(err)) < 0, "cfg: no signs");
	check(cfg_of(&c, model_bad, err, sizeof(err)) < 0 &&
	      strstr(err, "model=on or model=off"), "cfg: model=yes");
	check(cfg_of(&c, keys_empty, err, sizeof(err)) < 0, "cfg: keys= empty");
	check(cfg_of(&c, other, err, sizeof(err)) == 0,
	      "cfg: other arguments are not the model's");
}

static void test_cfg_options(void)
{
	static const char *const opts[] = { "model=on", "l2=1048576:16",
		"iprefetch=next-line", "tage=4096:4:1024:9:4:64", NULL };
	static const char *const pf_bad[] = { "iprefetch=yes", NULL };
	static const char *const tage_short[] = { "tage=4096:4", NULL };
	static const char *const l2_one[] = { "l2=1048576", NULL };
	struct model_cfg c;
	char err[256];

	model_cfg_defaults(&c);
	check(!c.l2 && !c.iprefetch && !c.tage_on && !c.bp_given,
	      "cfg: L2, prefetch and TAGE are off by default");
	check(cfg_of(&c, opts, err, sizeof(err)) == 1 && c.l2 &&
	      c.l2_size == 1048576 && c.l2_ways == 16 && c.iprefetch &&
	      c.tage_on && c.tage[0] == 4096 && c.tage[1] == 4 &&
	      c.tage[2] == 1024 && c.tage[3] == 9 && c.tage[4] == 4 &&
	      c.tage[5] == 64 && !c.bp_given,
	      "cfg: l2=, iprefetch= and tage= are taken");
	check(cfg_of(&c, pf_bad, err, sizeof(err)) < 0 &&
	      strstr(err, "want iprefetch=off or iprefetch=next-line"),
	      "cfg: iprefetch=yes");
	check(cfg_of(&c, tage_short, err, sizeof(err)) < 0 &&
	      strstr(err, "tage=BASE:TABLES:ENTRIES:TAGBITS:MINHIST:MAXHIST"),
	      "cfg: tage= with two numbers of six");
	check(cfg_of(&c, l2_one, err, sizeof(err)) < 0 &&
	      strstr(err, "l2=SIZE:ASSOC"), "cfg: l2= without :ASSOC");
}

static void test_cfg_setup_options(void)
{
	static const char *const all[] = { "model=on", "l2=1048576:16",
		"iprefetch=next-line", "tage=4096:4:1024:9:4:64", NULL };
	static const char *const both[] = { "model=on", "bp=4096:12",
		"tage=4096:4:1024:9:4:64", NULL };
	static const char *const l2_bad[] = { "model=on", "l2=1000:16", NULL };
	static const char *const tage_bad[] = { "model=on",
		"tage=4096:9:1024:9:4:64", NULL };
	static const char *const pf_off[] = { "iprefetch=off", NULL };
	static const char *const on[] = { "model=on", NULL };
	struct model_cfg c;
	struct model m;
	char err[256];

	cfg_of(&c, all, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) == 0 && m.have_l2 &&
	      model_l2(&m) == &m.l2 && m.l2.t.set_mask == 1023 &&
	      m.l2.t.ways == 16 && m.l1i.next_line && !m.l1d.next_line &&
	      m.use_tage && m.tage.tables == 4 && !m.bp.ctr,
	      "setup: l2=1048576:16 builds 1024 sets of 16 ways, prefetch on L1I only, TAGE instead of gshare");
	model_free(&m);
	cfg_of(&c, on, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) == 0 && !m.have_l2 &&
	      !model_l2(&m) && !m.l2.t.keys && !m.l1i.next_line &&
	      !m.use_tage && m.bp.ctr && !m.tage.base,
	      "setup: by default no L2, no prefetch, gshare");
	model_free(&m);
	cfg_of(&c, both, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "not both"), "setup: bp= and tage= together refused");
	cfg_of(&c, l2_bad, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "l2=1000:16, line=64: size 1000"),
	      "setup: a bad L2 names it");
	cfg_of(&c, tage_bad, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "tage=4096:9:1024:9:4:64: 9 tagged tables"),
	      "setup: a bad TAGE names it");
	cfg_of(&c, pf_off, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "iprefetch=off needs model=on"),
	      "setup: iprefetch= without model=on is an error");
}

static void test_cfg_setup(void)
{
	static const char *const off_param[] = { "model=off", "btb=64:4",
		NULL };
	static const char *const on_bad[] = { "model=on", "l1d=32000:8",
		NULL };
	static const char *const on_keys[] = { "model=on",
		"keys=/nonexistent/keys", NULL };
	static const char *const on[] = { "model=on", NULL };
	struct model_cfg c;
	struct model m;
	char err[256];

	model_cfg_defaults(&c);
	check(model_setup(&m, &c, err, sizeof(err)) == 0 && !m.l1i.t.keys,
	      "setup: model off builds nothing");
	cfg_of(&c, off_param, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "btb=64:4 needs model=on"),
	      "setup: a parameter without model=on is an error");
	cfg_of(&c, on_bad, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "l1d=32000:8"), "setup: a bad L1D names it");
	cfg_of(&c, on_keys, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) != 0 &&
	      strstr(err, "/nonexistent/keys"), "setup: a missing keys file");
	cfg_of(&c, on, err, sizeof(err));
	check(model_setup(&m, &c, err, sizeof(err)) == 0 && !m.have_keys &&
	      m.l1d.t.ways == 8 && m.l1d.t.set_mask == 63 &&
	      m.l1i.line_shift == 6 && m.btb.t.set_mask == 1023,
	      "setup: the defaults build 64 sets of 8 ways, 1024 BTB sets");
	model_free(&m);
}

void test_model(void)
{
	test_cache_strides();
	test_cache_lru();
	test_gshare();
	test_btb();
	test_validation();
	test_cfg_args();
	test_cfg_options();
	test_cfg_setup();
	test_cfg_setup_options();
}
