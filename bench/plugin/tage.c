// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tage.c: the model's TAGE-like direction predictor. See tage.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "tage.h"

/* power() - x^n, n small. */
static double power(double x, unsigned int n)
{
	double r = 1;

	while (n--)
		r *= x;
	return r;
}

/*
 * geometric() - h[0..n-1]: lo to hi, geometric, rounded, strictly
 * increasing (hi >= lo + n - 1). The ratio by bisection: no libm.
 */
static void geometric(uint32_t *h, uint32_t n, uint32_t lo, uint32_t hi)
{
	double a = 1, b = (double)hi / lo, r;
	uint32_t i;
	int k;

	if (n == 1) {
		h[0] = hi;
		return;
	}
	for (k = 0; k < 100; k++) {
		r = (a + b) / 2;
		if (power(r, n - 1) < (double)hi / lo)
			a = r;
		else
			b = r;
	}
	r = (a + b) / 2;
	h[0] = lo;
	for (i = 1; i < n; i++) {
		uint32_t v = (uint32_t)(lo * power(r, i) + 0.5);

		if (v <= h[i - 1])
			v = h[i - 1] + 1;
		if (v > hi - (n - 1 - i))
			v = hi - (n - 1 - i);
		h[i] = v;
	}
	h[n - 1] = hi;
}

/* check_args() - tage_init()'s parameter rules; 0 or -1 with err. */
static int check_args(uint64_t base, uint64_t tables, uint64_t entries,
		      uint64_t tag_bits, uint64_t min_hist, uint64_t max_hist,
		      char *err, size_t errlen)
{
	if (!is_pow2(base) || base < 2 || base > (1u << 24)) {
		snprintf(err, errlen,
			 "%llu base counters: want a power of two in 2..%u",
			 (unsigned long long)base, 1u << 24);
		return -1;
	}
	if (tables < 1 || tables > TAGE_MAX_TABLES) {
		snprintf(err, errlen, "%llu tagged tables: want 1..%d",
			 (unsigned long long)tables, TAGE_MAX_TABLES);
		return -1;
	}
	if (!is_pow2(entries) || entries < 2 || entries > TAGE_MAX_ENTRIES) {
		snprintf(err, errlen,
			 "%llu entries per table: want a power of two in 2..%u",
			 (unsigned long long)entries, TAGE_MAX_ENTRIES);
		return -1;
	}
	if (tag_bits < 2 || tag_bits > TAGE_MAX_TAG_BITS) {
		snprintf(err, errlen, "%llu tag bits: want 2..%d",
			 (unsigned long long)tag_bits, TAGE_MAX_TAG_BITS);
		return -1;
	}
	if (min_hist < 1 || max_hist > TAGE_MAX_HIST ||
	    min_hist + tables - 1 > max_hist) {
		snprintf(err, errlen,
			 "histories %llu..%llu: want 1 <= min, min + tables - 1 <= max <= %d",
			 (unsigned long long)min_hist,
			 (unsigned long long)max_hist, TAGE_MAX_HIST);
		return -1;
	}
	return 0;
}

static void fold_init(struct tage_fold *f, uint32_t olen, uint32_t clen)
{
	f->comp = 0;
	f->olen = olen;
	f->clen = clen;
}

/* fold_update() - after the newest outcome went in at ghist[ptr]. */
static void fold_update(struct tage_fold *f, const uint8_t *h, uint32_t ptr,
			uint32_t mask)
{
	uint32_t c = (f->comp << 1) ^ h[ptr];

	c ^= (uint32_t)h[(ptr + f->olen) & mask] << (f->olen % f->clen);
	c ^= c >> f->clen;
	f->comp = c & ((1u << f->clen) - 1);
}

uint32_t tage_fold_direct(const struct tage *p, const struct tage_fold *f)
{
	uint32_t c = 0, j;

	for (j = 0; j < f->olen; j++)
		c ^= (uint32_t)p->ghist[(p->ptr + j) & p->ghist_mask] <<
		     (j % f->clen);
	return c;
}

int tage_init(struct tage *p, uint64_t base, uint64_t tables,
	      uint64_t entries, uint64_t tag_bits, uint64_t min_hist,
	      uint64_t max_hist, char *err, size_t errlen)
{
	uint32_t i, n = (uint32_t)tables, len = 2;
	uint64_t j;
	bool ok;

	memset(p, 0, sizeof(*p));
	if (check_args(base, tables, entries, tag_bits, min_hist, max_hist,
		       err, errlen) != 0)
		return -1;
	while (len <= max_hist)
		len <<= 1;
	p->base = malloc(base);
	p->ghist = calloc(len, 1);
	ok = p->base && p->ghist;
	for (i = 0; i < n; i++) {
		p->t[i].e = malloc(entries * sizeof(*p->t[i].e));
		ok = ok && p->t[i].e;
	}
	if (!ok) {
		tage_free(p);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(p->base, 1, base);
	p->base_mask = base - 1;
	p->tables = n;
	p->log_entries = log2_of(entries);
	p->tag_bits = (uint32_t)tag_bits;
	p->ghist_mask = len - 1;
	geometric(p->hist, n, (uint32_t)min_hist, (uint32_t)max_hist);
	for (i = 0; i < n; i++) {
		for (j = 0; j < entries; j++) {
			p->t[i].e[j].tag = TAGE_EMPTY;
			p->t[i].e[j].ctr = 0;
			p->t[i].e[j].u = 0;
		}
		fold_init(&p->t[i].idx, p->hist[i], p->log_entries);
		fold_init(&p->t[i].tag0, p->hist[i], p->tag_bits);
		fold_init(&p->t[i].tag1, p->hist[i], p->tag_bits - 1);
	}
	return 0;
}

/* clear_u() - the periodic clearing of one bit of every u. */
static void clear_u(struct tage *p)
{
	uint8_t keep = p->clear_low ? 2 : 1;
	uint64_t j, n = 1ULL << p->log_entries;
	uint32_t i;

	for (i = 0; i < p->tables; i++)
		for (j = 0; j < n; j++)
			p->t[i].e[j].u &= keep;
	p->clear_low = !p->clear_low;
}

/* allocate() - after a misprediction by provider (-1: the base table). */
static void allocate(struct tage *p, const uint64_t *idx,
		     const uint16_t *tag, int provider, bool taken)
{
	int i, n = (int)p->tables;

	for (i = provider + 1; i < n; i++) {
		struct tage_entry *e = &p->t[i].e[idx[i]];

		if (e->u == 0) {
			e->tag = tag[i];
			e->ctr = taken ? 0 : -1;
			return;
		}
	}
	for (i = provider + 1; i < n; i++)
		p->t[i].e[idx[i]].u--;
}

/* push() - shift the outcome into the history and every fold. */
static void push(struct tage *p, bool taken)
{
	uint32_t i;

	p->ptr = (p->ptr - 1) & p->ghist_mask;
	p->ghist[p->ptr] = taken;
	for (i = 0; i < p->tables; i++) {
		fold_update(&p->t[i].idx, p->ghist, p->ptr, p->ghist_mask);
		fold_update(&p->t[i].tag0, p->ghist, p->ptr, p->ghist_mask);
		fold_update(&p->t[i].tag1, p->ghist, p->ptr, p->ghist_mask);
	}
}

bool tage_resolve(struct tage *p, uint64_t pc, bool taken)
{
	uint64_t idx[TAGE_MAX_TABLES], emask = (1ULL << p->log_entries) - 1;
	uint16_t tag[TAGE_MAX_TABLES];
	uint8_t *b = &p->base[pc & p->base_mask];
	int i, provider = -1, alt = -1;
	bool pred, altpred;

	for (i = 0; i < (int)p->tables; i++) {
		const struct tage_table *t = &p->t[i];

		idx[i] = (pc ^ (pc >> p->log_entries) ^ t->idx.comp) & emask;
		tag[i] = (uint16_t)((pc ^ t->tag0.comp ^ (t->tag1.comp << 1)) &
				    ((1u << p->tag_bits) - 1));
	}
	for (i = (int)p->tables - 1; i >= 0 && alt < 0; i--) {
		if (p->t[i].e[idx[i]].tag != tag[i])
			continue;
		if (provider < 0)
			provider = i;
		else
			alt = i;
	}
	altpred = alt >= 0 ? p->t[alt].e[idx[alt]].ctr >= 0 : *b >= 2;
	if (provider >= 0) {
		struct tage_entry *e = &p->t[provider].e[idx[provider]];

		pred = e->ctr >= 0;
		if (taken && e->ctr < 3)
			e->ctr++;
		else if (!taken && e->ctr > -4)
			e->ctr--;
		if (pred != altpred && pred == taken && e->u < 3)
			e->u++;
		else if (pred != altpred && pred != taken && e->u > 0)
			e->u--;
	} else {
		pred = *b >= 2;
		if (taken && *b < 3)
			(*b)++;
		else if (!taken && *b > 0)
			(*b)--;
	}
	if (pred != taken && provider < (int)p->tables - 1)
		allocate(p, idx, tag, provider, taken);
	if (++p->resolved == TAGE_U_PERIOD) {
		p->resolved = 0;
		clear_u(p);
	}
	push(p, taken);
	return pred != taken;
}

void tage_free(struct tage *p)
{
	uint32_t i;

	free(p->base);
	free(p->ghist);
	for (i = 0; i < TAGE_MAX_TABLES; i++)
		free(p->t[i].e);
	memset(p, 0, sizeof(*p));
}
