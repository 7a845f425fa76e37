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

/* parse_nums() - "A" (b NULL) or "A:B" (decimal) in s, all of it. */
static int parse_nums(const char *s, uint64_t *a, uint64_t *b)
{
	if (parse_dec(&s, a) != 0)
		return -1;
	if (b) {
		if (*s++ != ':' || parse_dec(&s, b) != 0)
			return -1;
	}
	return *s ? -1 : 0;
}

/* One NAME=A[:B] parameter: where its numbers go. */
struct param {
	const char *name;
	size_t a, b;		/* offsets into struct model_cfg; b 0: none */
	const char *form;
};

#define OFF(f) offsetof(struct model_cfg, f)
static const struct param params[] = {
	{ "l1i=", OFF(l1i_size), OFF(l1i_ways), "SIZE:ASSOC" },
	{ "l1d=", OFF(l1d_size), OFF(l1d_ways), "SIZE:ASSOC" },
	{ "line=", OFF(line), 0, "BYTES" },
	{ "bp=", OFF(bp_entries), OFF(bp_hist), "ENTRIES:HIST" },
	{ "btb=", OFF(btb_entries), OFF(btb_ways), "ENTRIES:ASSOC" },
};

/* set_param() - arg is p's NAME=...: store its numbers. */
static int set_param(struct model_cfg *c, const struct param *p,
		     const char *arg, char *err, size_t errlen)
{
	char *base = (char *)c;
	uint64_t *b = p->b ? (uint64_t *)(base + p->b) : NULL;

	if (parse_nums(arg + strlen(p->name), (uint64_t *)(base + p->a),
		       b) != 0) {
		snprintf(err, errlen, "%s: want %s%s (decimal)", arg, p->name,
			 p->form);
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

/* build_caches() - L1I and L1D; what names the failing one. */
static int build_caches(struct model *m, const struct model_cfg *c,
			char *what, size_t wlen, char *err, size_t errlen)
{
	snprintf(what, wlen, "l1i=%llu:%llu, line=%llu",
		 (unsigned long long)c->l1i_size,
		 (unsigned long long)c->l1i_ways, (unsigned long long)c->line);
	if (cache_init(&m->l1i, c->l1i_size, c->l1i_ways, c->line, err,
		       errlen) != 0)
		return -1;
	snprintf(what, wlen, "l1d=%llu:%llu, line=%llu",
		 (unsigned long long)c->l1d_size,
		 (unsigned long long)c->l1d_ways, (unsigned long long)c->line);
	return cache_init(&m->l1d, c->l1d_size, c->l1d_ways, c->line, err,
			  errlen);
}

/* build_predictors() - gshare and BTB; what names the failing one. */
static int build_predictors(struct model *m, const struct model_cfg *c,
			    char *what, size_t wlen, char *err, size_t errlen)
{
	snprintf(what, wlen, "bp=%llu:%llu",
		 (unsigned long long)c->bp_entries,
		 (unsigned long long)c->bp_hist);
	if (gshare_init(&m->bp, c->bp_entries, c->bp_hist, err, errlen) != 0)
		return -1;
	snprintf(what, wlen, "btb=%llu:%llu",
		 (unsigned long long)c->btb_entries,
		 (unsigned long long)c->btb_ways);
	return btb_init(&m->btb, c->btb_entries, c->btb_ways, err, errlen);
}

int model_setup(struct model *m, const struct model_cfg *c,
		char *err, size_t errlen)
{
	char what[64];

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
	gshare_free(&m->bp);
	btb_free(&m->btb);
	if (m->have_keys)
		sites_free(&m->keys);
	memset(m, 0, sizeof(*m));
}
