/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.h: the modelled hardware of the branches plugin's model=on: a
 * set-associative true-LRU table, a cache built on it, a gshare direction
 * predictor and a branch target buffer (bench/plugin/README.md, "Model").
 * No QEMU dependency, so the unit tests build it on its own.
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

/* A cache of size bytes, ways ways, line-byte lines; addresses as given. */
struct cache {
	struct lru t;
	unsigned int line_shift;
};

/*
 * cache_init() - line a power of two (4..4096), 1 <= ways <= 64, size a
 * multiple of ways x line whose number of sets is a power of two.
 */
int cache_init(struct cache *c, uint64_t size, uint64_t ways, uint64_t line,
	       char *err, size_t errlen);

/*
 * cache_access() - access the line of addr; true on a hit. A hit on its
 * set's most recent line (the common case: stack, loops, a block's next
 * run) changes nothing and is answered here, without a call.
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
