// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modelcfg.c: the model's arguments and the hardware they build. See
 * modelcfg.h.
 */
#include <stdio.h>
#include <string.h>

#include "modelcfg.h"

void model_cfg_defaults(struct model_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->l1i_size = 32768;
	c->l1i_ways = 8;
	c->l1d_size = 32768;
	c->l1d_ways = 8;
	c->line = 64;
	c->bp_entries = 4096;
	c->bp_hist = 12;
	c->btb_entries = 4096;
	c->btb_ways = 4;
	c->rob = MODEL_DEFAULT_ROB;
}

/* parse_dec() - a decimal number at *pp (no sign); advances *pp. */
static int parse_dec(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*pp = p;
	*out = v;
	return 0;
}

/* parse_nums() - n decimal numbers "A[:B...]" in s, all of it, to *out[]. */
static int parse_nums(const char *s, uint64_t *const *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i && *s++ != ':')
			return -1;
		if (parse_dec(&s, out[i]) != 0)
			return -1;
	}
	return *s ? -1 : 0;
}

#define PARAM_MAX_NUMS 6

/* One NAME=A[:B...] parameter: where its numbers go. */
struct param {
	const char *name;
	size_t n;			/* numbers, 1..PARAM_MAX_NUMS */
	size_t at[PARAM_MAX_NUMS];	/* offsets into struct model_cfg */
	size_t given;			/* a bool set when given; 0: none */
	const char *form;
};

#define OFF(f) offsetof(struct model_cfg, f)
static const struct param params[] = {
	{ "l1i=", 2, { OFF(l1i_size), OFF(l1i_ways) }, 0, "SIZE:ASSOC" },
	{ "l1d=", 2, { OFF(l1d_size), OFF(l1d_ways) }, 0, "SIZE:ASSOC" },
	{ "line=", 1, { OFF(line) }, 0, "BYTES" },
	{ "bp=", 2, { OFF(bp_entries), OFF(bp_hist) }, OFF(bp_given),
	  "ENTRIES:HIST" },
	{ "btb=", 2, { OFF(btb_entries), OFF(btb_ways) }, 0, "ENTRIES:ASSOC" },
	{ "rob=", 1, { OFF(rob) }, 0, "ENTRIES" },
	{ "l2=", 2, { OFF(l2_size), OFF(l2_ways) }, OFF(l2), "SIZE:ASSOC" },
	{ "tage=", 6, { OFF(tage[0]), OFF(tage[1]), OFF(tage[2]),
			OFF(tage[3]), OFF(tage[4]), OFF(tage[5]) },
	  OFF(tage_on), "BASE:TABLES:ENTRIES:TAGBITS:MINHIST:MAXHIST" },
};

/* set_param() - arg is p's NAME=...: store its numbers. */
static int set_param(struct model_cfg *c, const struct param *p,
		     const char *arg, char *err, size_t errlen)
{
	char *base = (char *)c;
	uint64_t *out[PARAM_MAX_NUMS];
	size_t i;

	for (i = 0; i < p->n; i++)
		out[i] = (uint64_t *)(base + p->at[i]);
	if (parse_nums(arg + strlen(p->name), out, p->n) != 0) {
		snprintf(err, errlen, "%s: want %s%s (decimal)", arg, p->name,
			 p->form);
		return -1;
	}
	if (p->given)
		*(bool *)(base + p->given) = true;
	if (!c->set)
		c->set = arg;
	return 1;
}

/* set_iprefetch() - iprefetch=off or iprefetch=next-line. */
static int set_iprefetch(struct model_cfg *c, const char *arg,
			 char *err, size_t errlen)
{
	if (strcmp(arg + 10, "off") == 0) {
		c->iprefetch = false;
	} else if (strcmp(arg + 10, "next-line") == 0) {
		c->iprefetch = true;
	} else {
		snprintf(err, errlen, "%s: want iprefetch=off or iprefetch=next-line",
			 arg);
		return -1;
	}
	if (!c->set)
		c->set = arg;
	return 1;
}

int model_cfg_arg(struct model_cfg *c, const char *arg,
		  char *err, size_t errlen)
{
	size_t i;

	if (strcmp(arg, "model=on") == 0 || strcmp(arg, "model=off") == 0) {
		c->on = arg[7] == 'n';
		return 1;
	}
	if (strncmp(arg, "model=", 6) == 0) {
		snprintf(err, errlen, "%s: want model=on or model=off", arg);
		return -1;
	}
	if (strncmp(arg, "keys=", 5) == 0) {
		if (!arg[5]) {
			snprintf(err, errlen, "keys= needs a file");
			return -1;
		}
		c->keys = arg + 5;
		if (!c->set)
			c->set = arg;
		return 1;
	}
	if (strncmp(arg, "iprefetch=", 10) == 0)
		return set_iprefetch(c, arg, err, errlen);
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		if (strncmp(arg, params[i].name, strlen(params[i].name)) == 0)
			return set_param(c, &params[i], arg, err, errlen);
	return 0;
}

/* prefixed() - err = "what: err" (err holds a message of the callee). */
static int prefixed(char *err, size_t errlen, const char *what)
{
	char tmp[512];

	snprintf(tmp, sizeof(tmp), "%s: %s", what, err);
	snprintf(err, errlen, "%s", tmp);
	return -1;
}

/* build_caches() - L1I, L1D and L2; what names the failing one. */
static int build_caches(struct model *m, const struct model_cfg *c,
			char *what, size_t wlen, char *err, size_t errlen)
{
	snprintf(what, wlen, "l1i=%llu:%llu, line=%llu",
		 (unsigned long long)c->l1i_size,
		 (unsigned long long)c->l1i_ways, (unsigned long long)c->line);
	if ((c->iprefetch ?
	     cache_init_prefetch(&m->l1i, c->l1i_size, c->l1i_ways, c->line,
				 err, errlen) :
	     cache_init(&m->l1i, c->l1i_size, c->l1i_ways, c->line, err,
			errlen)) != 0)
		return -1;
	snprintf(what, wlen, "l1d=%llu:%llu, line=%llu",
		 (unsigned long long)c->l1d_size,
		 (unsigned long long)c->l1d_ways, (unsigned long long)c->line);
	if (cache_init(&m->l1d, c->l1d_size, c->l1d_ways, c->line, err,
		       errlen) != 0)
		return -1;
	if (!c->l2)
		return 0;
	snprintf(what, wlen, "l2=%llu:%llu, line=%llu",
		 (unsigned long long)c->l2_size,
		 (unsigned long long)c->l2_ways, (unsigned long long)c->line);
	if (cache_init(&m->l2, c->l2_size, c->l2_ways, c->line, err,
		       errlen) != 0)
		return -1;
	m->have_l2 = true;
	return 0;
}

/* build_tage() - the TAGE-like predictor of tage=. */
static int build_tage(struct model *m, const struct model_cfg *c,
		      char *what, size_t wlen, char *err, size_t errlen)
{
	const uint64_t *a = c->tage;

	snprintf(what, wlen, "tage=%llu:%llu:%llu:%llu:%llu:%llu",
		 (unsigned long long)a[0], (unsigned long long)a[1],
		 (unsigned long long)a[2], (unsigned long long)a[3],
		 (unsigned long long)a[4], (unsigned long long)a[5]);
	if (c->bp_given) {
		snprintf(err, errlen,
			 "bp= is gshare's: give bp= or tage=, not both");
		return -1;
	}
	if (tage_init(&m->tage, a[0], a[1], a[2], a[3], a[4], a[5], err,
		      errlen) != 0)
		return -1;
	m->use_tage = true;
	return 0;
}

/* build_predictors() - gshare or TAGE, and BTB; what names the failing one. */
static int build_predictors(struct model *m, const struct model_cfg *c,
			    char *what, size_t wlen, char *err, size_t errlen)
{
	if (c->tage_on) {
		if (build_tage(m, c, what, wlen, err, errlen) != 0)
			return -1;
	} else {
		snprintf(what, wlen, "bp=%llu:%llu",
			 (unsigned long long)c->bp_entries,
			 (unsigned long long)c->bp_hist);
		if (gshare_init(&m->bp, c->bp_entries, c->bp_hist, err,
				errlen) != 0)
			return -1;
	}
	snprintf(what, wlen, "btb=%llu:%llu",
		 (unsigned long long)c->btb_entries,
		 (unsigned long long)c->btb_ways);
	if (btb_init(&m->btb, c->btb_entries, c->btb_ways, err, errlen) != 0)
		return -1;
	snprintf(what, wlen, "rob=%llu", (unsigned long long)c->rob);
	if (c->rob < 1 || c->rob > OOO_MAX_ROB) {
		snprintf(err, errlen, "want 1..%d entries", OOO_MAX_ROB);
		return -1;
	}
	return ooo_stream_init(&m->ooo, (uint32_t)c->rob, &m->ooo_own, err,
			       errlen);
}

bool model_branch(struct model *m, uint64_t pc, bool taken)
{
	bool miss = m->use_tage ? tage_resolve(&m->tage, pc, taken) :
		gshare_resolve(&m->bp, pc, taken);

	if (m->ooo.held)
		ooo_resolve(&m->ooo, miss);
	return miss;
}

int model_setup(struct model *m, const struct model_cfg *c,
		char *err, size_t errlen)
{
	char what[96];

	memset(m, 0, sizeof(*m));
	if (!c->on) {
		if (!c->set)
			return 0;
		snprintf(err, errlen, "%s needs model=on", c->set);
		return -1;
	}
	if (build_caches(m, c, what, sizeof(what), err, errlen) != 0 ||
	    build_predictors(m, c, what, sizeof(what), err, errlen) != 0) {
		model_free(m);
		return prefixed(err, errlen, what);
	}
	if (c->keys && sites_load(&m->keys, c->keys, err, errlen) != 0) {
		model_free(m);
		return prefixed(err, errlen, "keys");
	}
	m->have_keys = c->keys != NULL;
	return 0;
}

void model_free(struct model *m)
{
	cache_free(&m->l1i);
	cache_free(&m->l1d);
	cache_free(&m->l2);
	gshare_free(&m->bp);
	tage_free(&m->tage);
	btb_free(&m->btb);
	if (m->have_keys)
		sites_free(&m->keys);
	memset(m, 0, sizeof(*m));
}
