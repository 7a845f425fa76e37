// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model.c: set-associative LRU table, caches, L2, next-line prefetch,
 * gshare predictor and branch target buffer of the plugin's model. See
 * model.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "model.h"

int lru_init(struct lru *t, uint64_t sets, uint64_t ways, bool with_vals,
	     char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (ways < 1 || ways > MODEL_MAX_WAYS) {
		snprintf(err, errlen, "associativity %llu is not in 1..%d",
			 (unsigned long long)ways, MODEL_MAX_WAYS);
		return -1;
	}
	if (!is_pow2(sets) || sets > MODEL_MAX_ENTRIES / ways) {
		snprintf(err, errlen,
			 "%llu sets: want a power of two, at most %u entries in all",
			 (unsigned long long)sets, MODEL_MAX_ENTRIES);
		return -1;
	}
	t->keys = calloc(sets * ways, sizeof(*t->keys));
	t->fill = calloc(sets, sizeof(*t->fill));
	t->vals = with_vals ? calloc(sets * ways, sizeof(*t->vals)) : NULL;
	if (!t->keys || !t->fill || (with_vals && !t->vals)) {
		lru_free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->set_mask = sets - 1;
	t->ways = (uint32_t)ways;
	return 0;
}

/* move_to_front() - rotate entries 0..i of a set so entry i comes first. */
static void move_to_front(uint64_t *a, uint32_t i)
{
	uint64_t v = a[i];

	memmove(a + 1, a, i * sizeof(*a));
	a[0] = v;
}

bool lru_access(struct lru *t, uint64_t key, uint64_t **val)
{
	uint64_t set = key & t->set_mask;
	uint64_t *keys = t->keys + set * t->ways;
	uint32_t *fill = &t->fill[set];
	uint32_t i;
	bool hit = false;

	for (i = 0; i < *fill; i++) {
		if (keys[i] == key) {
			hit = true;
			break;
		}
	}
	if (!hit) {
		if (*fill < t->ways)
			(*fill)++;
		i = *fill - 1;	/* the least recent, or the new slot */
		keys[i] = key;
	}
	move_to_front(keys, i);
	if (t->vals) {
		uint64_t *vals = t->vals + set * t->ways;

		move_to_front(vals, i);
		if (val)
			*val = &vals[0];
	}
	return hit;
}

uint64_t *lru_find(struct lru *t, uint64_t key)
{
	uint64_t set = key & t->set_mask;
	const uint64_t *keys = t->keys + set * t->ways;
	uint32_t i;

	for (i = 0; i < t->fill[set]; i++)
		if (keys[i] == key)
			return t->vals ? t->vals + set * t->ways + i : NULL;
	return NULL;
}

void lru_free(struct lru *t)
{
	free(t->keys);
	free(t->vals);
	free(t->fill);
	memset(t, 0, sizeof(*t));
}

/* cache_setup() - cache_init(), with a mark per line if next_line. */
static int cache_setup(struct cache *c, uint64_t size, uint64_t ways,
		       uint64_t line, bool next_line, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (!is_pow2(line) || line < 4 || line > MODEL_MAX_LINE) {
		snprintf(err, errlen,
			 "line size %llu is not a power of two in 4..%d",
			 (unsigned long long)line, MODEL_MAX_LINE);
		return -1;
	}
	if (ways < 1 || ways > MODEL_MAX_WAYS || size == 0 ||
	    size % (ways * line) != 0) {
		snprintf(err, errlen,
			 "size %llu is not a positive multiple of ways x line (%llu x %llu), or ways not in 1..%d",
			 (unsigned long long)size, (unsigned long long)ways,
			 (unsigned long long)line, MODEL_MAX_WAYS);
		return -1;
	}
	c->line_shift = log2_of(line);
	c->next_line = next_line;
	return lru_init(&c->t, size / (ways * line), ways, next_line, err,
			errlen);
}

int cache_init(struct cache *c, uint64_t size, uint64_t ways, uint64_t line,
	       char *err, size_t errlen)
{
	return cache_setup(c, size, ways, line, false, err, errlen);
}

int cache_init_prefetch(struct cache *c, uint64_t size, uint64_t ways,
			uint64_t line, char *err, size_t errlen)
{
	return cache_setup(c, size, ways, line, true, err, errlen);
}

void cache_free(struct cache *c)
{
	lru_free(&c->t);
}

/* The page a next-line prefetch stays in (model.h). */
#define PREFETCH_PAGE_SHIFT 12

enum level cache_fetch(struct cache *l1, struct cache *l2, uint64_t addr,
		       struct prefetch_ev *ev)
{
	uint64_t key = addr >> l1->line_shift, next = key + 1;
	uint64_t *mark;
	enum level lvl = LVL_L1;

	ev->hit = false;
	ev->fill = false;
	if (!l1->next_line)
		return mem_access(l1, l2, addr);
	if (lru_access(&l1->t, key, &mark))
		ev->hit = *mark != 0;
	else if (!l2 || cache_access(l2, addr))
		lvl = LVL_L2;
	else
		lvl = LVL_MEM;
	*mark = 0;
	if ((next << l1->line_shift) >> PREFETCH_PAGE_SHIFT !=
	    addr >> PREFETCH_PAGE_SHIFT || lru_find(&l1->t, next))
		return lvl;
	lru_access(&l1->t, next, &mark);
	*mark = 1;
	if (l2)
		cache_access(l2, next << l1->line_shift);
	ev->fill = true;
	return lvl;
}

int gshare_init(struct gshare *g, uint64_t entries, uint64_t hist,
		char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	if (!is_pow2(entries) || entries < 2 || entries > MODEL_MAX_ENTRIES) {
		snprintf(err, errlen,
			 "%llu counters: want a power of two in 2..%u",
			 (unsigned long long)entries, MODEL_MAX_ENTRIES);
		return -1;
	}
	if (hist > log2_of(entries)) {
		snprintf(err, errlen,
			 "%llu history bits: at most log2(%llu) = %u",
			 (unsigned long long)hist,
			 (unsigned long long)entries, log2_of(entries));
		return -1;
	}
	g->ctr = malloc(entries);
	if (!g->ctr) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(g->ctr, 1, entries);
	g->mask = entries - 1;
	g->hist_mask = (1ULL << hist) - 1;
	return 0;
}

bool gshare_resolve(struct gshare *g, uint64_t pc, bool taken)
{
	uint8_t *c = &g->ctr[(pc ^ g->hist) & g->mask];
	bool predicted = *c >= 2;

	if (taken && *c < 3)
		(*c)++;
	else if (!taken && *c > 0)
		(*c)--;
	g->hist = ((g->hist << 1) | taken) & g->hist_mask;
	return predicted != taken;
}

void gshare_free(struct gshare *g)
{
	free(g->ctr);
	memset(g, 0, sizeof(*g));
}

int btb_init(struct btb *b, uint64_t entries, uint64_t ways,
	     char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	if (ways < 1 || ways > MODEL_MAX_WAYS || entries == 0 ||
	    entries % ways != 0) {
		snprintf(err, errlen,
			 "%llu entries: want a positive multiple of the ways (%llu, in 1..%d)",
			 (unsigned long long)entries, (unsigned long long)ways,
			 MODEL_MAX_WAYS);
		return -1;
	}
	return lru_init(&b->t, entries / ways, ways, true, err, errlen);
}

bool btb_access(struct btb *b, uint64_t pc, uint64_t target)
{
	uint64_t *val;
	bool hit = lru_access(&b->t, pc, &val);

	if (hit && *val == target)
		return true;
	*val = target;
	return false;
}

void btb_free(struct btb *b)
{
	lru_free(&b->t);
}
