/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.h: the modelled hardware of the branches plugin's model=on: a
 * set-associative true-LRU table, a cache built on it, an L2 behind the
 * L1s, next-line instruction prefetch, a gshare direction predictor and a
 * branch target buffer (bench/plugin/README.md, "Model"). The TAGE-like
 * predictor is in tage.h, the overlap rule in overlap.h. No QEMU
 * dependency, so the unit tests build it on its own.
 *
 * Every init function validates its parameters and, when they are bad,
 * returns -1 with a message in err (size errlen) and allocates nothing.
 */
#ifndef JLBENCH_MODEL_H
#define JLBENCH_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits of the parameters (far above any real L1 or predictor). */
#define MODEL_MAX_WAYS 64
#define MODEL_MAX_ENTRIES (1u << 24)	/* lines, counters or BTB entries */
#define MODEL_MAX_LINE 4096

/*
 * A set-associative table of 64-bit keys with true LRU replacement. Set
 * of a key: its low bits (sets is a power of two). Each set keeps its
 * valid keys in recency order, most recent first.
 */
struct lru {
	uint64_t *keys;		/* sets x ways, recency order per set */
	uint64_t *vals;		/* the same shape, a value per key, or NULL */
	uint32_t *fill;		/* valid keys per set */
	uint64_t set_mask;	/* sets - 1 */
	uint32_t ways;
};

/*
 * lru_init() - sets x ways table (sets a power of two, 1 <= ways <= 64),
 * with a value per key if with_vals.
 */
int lru_init(struct lru *t, uint64_t sets, uint64_t ways, bool with_vals,
	     char *err, size_t errlen);

/*
 * lru_access() - look key up; true on a hit. Either way key becomes its
 * set's most recent; a miss inserts it, evicting the least recent key of a
 * full set. If val is not NULL (a table with values), *val points to the
 * key's value: on a miss the evicted key's, for the caller to overwrite.
 */
bool lru_access(struct lru *t, uint64_t key, uint64_t **val);

void lru_free(struct lru *t);

/*
 * lru_find() - key's value if key is in the table (one with values), else
 * NULL; the recency order is left as it is.
 */
uint64_t *lru_find(struct lru *t, uint64_t key);

/* A cache of size bytes, ways ways, line-byte lines; addresses as given. */
struct cache {
	struct lru t;
	unsigned int line_shift;
	bool next_line;		/* next-line prefetch: t.vals marks lines */
};

/*
 * cache_init() - line a power of two (4..4096), 1 <= ways <= 64, size a
 * multiple of ways x line whose number of sets is a power of two.
 */
int cache_init(struct cache *c, uint64_t size, uint64_t ways, uint64_t line,
	       char *err, size_t errlen);

/*
 * cache_init_prefetch() - cache_init() of a cache with next-line prefetch,
 * accessed by cache_fetch() only.
 */
int cache_init_prefetch(struct cache *c, uint64_t size, uint64_t ways,
			uint64_t line, char *err, size_t errlen);

/*
 * cache_access() - access the line of addr; true on a hit. A hit on its
 * set's most recent line (the common case: stack, loops, a block's next
 * run) changes nothing and is answered here, without a call. Not for a
 * cache with prefetch (cache_fetch()).
 */
static inline bool cache_access(struct cache *c, uint64_t addr)
{
	uint64_t key = addr >> c->line_shift, set = key & c->t.set_mask;

	if (c->t.fill[set] && c->t.keys[set * c->t.ways] == key)
		return true;
	return lru_access(&c->t, key, NULL);
}

void cache_free(struct cache *c);

/*
 * The levels behind the L1s. A demand access that misses an L1 goes to a
 * unified L2 (one L2 behind L1I and L1D), and one that misses L2 goes to
 * memory. A miss fills every level it missed. The L2 is neither inclusive
 * nor exclusive: an L2 eviction leaves the L1s alone, an L1 eviction
 * leaves the L2 alone, no write-back traffic (as the L1s). Without an L2
 * (l2 NULL) an L1 miss is served by "the next level", LVL_L2, as the
 * model with L1s only has always charged it.
 */
enum level {
	LVL_L1,			/* an L1 hit */
	LVL_L2,			/* an L1 miss that hits L2 (or no L2) */
	LVL_MEM,		/* an L1 and L2 miss: memory */
};

/* Cycles of an access served by each level beyond the L1. */
struct mem_lat {
	uint32_t l2;		/* an L1 miss that hits L2 */
	uint32_t mem;		/* an L1 miss that misses L2 */
};

/*
 * level_latency() - the cycles an access served by lvl costs beyond an L1
 * hit: 0, the L2 latency or the memory latency.
 */
static inline uint32_t level_latency(const struct mem_lat *lat,
				     enum level lvl)
{
	return lvl == LVL_L1 ? 0 : lvl == LVL_L2 ? lat->l2 : lat->mem;
}

/*
 * mem_access() - a demand access to addr through l1 (without prefetch),
 * then l2 (NULL: none): the level that had its line.
 */
static inline enum level mem_access(struct cache *l1, struct cache *l2,
				    uint64_t addr)
{
	if (cache_access(l1, addr))
		return LVL_L1;
	if (!l2 || cache_access(l2, addr))
		return LVL_L2;
	return LVL_MEM;
}

/*
 * Next-line instruction prefetch: after each demand access to line X of
 * an L1I built by cache_init_prefetch(), line X+1 is brought in if it is
 * absent and in the same 4 KiB page as X (a prefetcher of physical lines
 * does not know the next page's frame). The prefetched line becomes its
 * set's most recent, marked prefetched; it is fetched through l2 (if any)
 * like a miss, but it is not a demand access: it counts in no level's
 * accesses or misses, only as a prefetch fill. It is assumed to arrive in
 * time: the first demand access to a marked line is a hit (an L1 hit that
 * the prefetch made, a prefetch hit) and clears the mark. A line already
 * present is left as it is (neither marked nor made more recent).
 */
struct prefetch_ev {
	bool hit;		/* the demand access hit a prefetched line */
	bool fill;		/* the next line was brought in */
};

/*
 * cache_fetch() - a demand access to addr through l1 and l2 (NULL: none),
 * then, if l1 was built with prefetch, the next-line prefetch: the level
 * that had addr's line; *ev says what prefetch did (nothing without it:
 * then this is mem_access()).
 */
enum level cache_fetch(struct cache *l1, struct cache *l2, uint64_t addr,
		       struct prefetch_ev *ev);

/*
 * gshare: 2-bit saturating counters (0, 1 predict not taken; 2, 3 taken;
 * all start at 1, weakly not taken) indexed by pc XOR the global history
 * of the last hist outcomes (1 = taken, the newest in bit 0).
 */
struct gshare {
	uint8_t *ctr;
	uint64_t mask;		/* entries - 1 */
	uint64_t hist;
	uint64_t hist_mask;	/* (1 << hist bits) - 1 */
};

/* gshare_init() - entries a power of two (2..2^24), 0 <= hist <= log2. */
int gshare_init(struct gshare *g, uint64_t entries, uint64_t hist,
		char *err, size_t errlen);

/*
 * gshare_resolve() - the branch at pc went taken (or not): predict it,
 * train the counter, shift the outcome into the history. True if the
 * prediction was wrong.
 */
bool gshare_resolve(struct gshare *g, uint64_t pc, bool taken);

void gshare_free(struct gshare *g);

/* Branch target buffer: set-associative LRU of (branch pc -> target). */
struct btb {
	struct lru t;
};

/* btb_init() - entries a multiple of ways with a power-of-two quotient. */
int btb_init(struct btb *b, uint64_t entries, uint64_t ways,
	     char *err, size_t errlen);

/*
 * btb_access() - a taken branch at pc went to target: true on a hit (pc in
 * the BTB with this target). A miss inserts or corrects the entry.
 */
bool btb_access(struct btb *b, uint64_t pc, uint64_t target);

void btb_free(struct btb *b);

#endif
