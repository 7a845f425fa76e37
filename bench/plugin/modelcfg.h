/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modelcfg.h: the model's plugin arguments (model=, keys=, l1i=, l1d=,
 * line=, bp=, btb=, rob=, and the options off unless given: l2=,
 * iprefetch=, tage=), their defaults and their validation, and the
 * modelled hardware they build. No QEMU dependency (unit-tested on its own).
 */
#ifndef JLBENCH_MODELCFG_H
#define JLBENCH_MODELCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "overlap.h"
#include "sites.h"
#include "tage.h"

struct model_cfg {
	bool on;		/* model=on */
	const char *set;	/* the first model parameter given, or NULL */
	const char *keys;	/* keys=FILE, or NULL */
	uint64_t l1i_size, l1i_ways;
	uint64_t l1d_size, l1d_ways;
	uint64_t line;
	uint64_t bp_entries, bp_hist;
	uint64_t btb_entries, btb_ways;
	uint64_t rob;		/* the overlap rule's reorder buffer */
	/* off unless given */
	uint64_t l2_size, l2_ways;
	uint64_t tage[6];	/* BASE:TABLES:ENTRIES:TAGBITS:MIN:MAXHIST */
	bool bp_given, l2, tage_on;
	bool iprefetch;		/* iprefetch=next-line */
};

/* The arguments, for the plugin's usage message. */
#define MODEL_CFG_USAGE \
	"model=on|off, keys=FILE, l1i=SIZE:ASSOC, l1d=SIZE:ASSOC, line=BYTES, bp=ENTRIES:HIST, btb=ENTRIES:ASSOC, rob=ENTRIES, l2=SIZE:ASSOC, iprefetch=off|next-line, tage=BASE:TABLES:ENTRIES:TAGBITS:MINHIST:MAXHIST"

/*
 * model_cfg_defaults() - model off; parameters of a current x86-64 core;
 * no L2, no prefetch, gshare; a reorder buffer of MODEL_DEFAULT_ROB
 * (lib/model.py's PLUGIN_ROB is its copy, the default core's rob;
 * tests/test_model_presets.py fails when the two differ).
 */
#define MODEL_DEFAULT_ROB 256
void model_cfg_defaults(struct model_cfg *c);

/*
 * model_cfg_arg() - take arg if it is a model argument: 1 taken, 0 not a
 * model argument, -1 a bad value (message in err). arg must outlive c.
 */
int model_cfg_arg(struct model_cfg *c, const char *arg,
		  char *err, size_t errlen);

/* The hardware one model_cfg describes. */
struct model {
	struct cache l1i, l1d;
	struct cache l2;	/* have_l2 */
	struct gshare bp;	/* unless use_tage */
	struct tage tage;	/* use_tage */
	struct btb btb;
	struct ooo_stream ooo;	/* the L1D misses' overlap classes */
	struct ooo_counts ooo_own;	/* where they go until model_count_to() */
	struct sites keys;
	bool have_keys, have_l2, use_tage;
};

/*
 * model_setup() - after all arguments: refuse parameters without model=on
 * (and bp= with tage=), then build the caches, predictor and BTB and read
 * the keys file. 0, or -1 with a message naming the argument; nothing is
 * built when the model is off.
 */
int model_setup(struct model *m, const struct model_cfg *c,
		char *err, size_t errlen);

void model_free(struct model *m);

/* model_l2() - m's L2, or NULL without one. */
static inline struct cache *model_l2(struct model *m)
{
	return m->have_l2 ? &m->l2 : NULL;
}

/* model_count_to() - m's overlap classes go to *out from now on. */
static inline void model_count_to(struct model *m, struct ooo_counts *out)
{
	m->ooo.out = out;
}

/*
 * model_data() - a data access of mode mode (counters.h's enum mode) to
 * addr, by instruction insn (a running index of executed instructions):
 * through the L1D and the L2 (if any), the level that had its line. An
 * L1D miss goes to the overlap stream (overlap.h), held for the block's
 * branch if near_branch (a load at most OOO_FEED_DIST instructions before
 * the conditional branch its block ends with: ooo_near_branch()).
 */
static inline enum level model_data(struct model *m, uint64_t addr,
				    uint64_t insn, int mode, bool near_branch)
{
	enum level lvl = mem_access(&m->l1d, model_l2(m), addr);

	if (lvl != LVL_L1)
		ooo_dmiss(&m->ooo, insn, lvl == LVL_MEM, mode, near_branch);
	return lvl;
}

/*
 * model_branch() - the conditional branch at pc went taken (or not):
 * predict and train (gshare or TAGE); the data misses held for it feed it
 * if it was mispredicted. True if it was.
 */
bool model_branch(struct model *m, uint64_t pc, bool taken);

/*
 * model_branch_lost() - the branch the held misses wait for was not seen
 * to resolve (an interrupt or exception came first): they are independent.
 */
static inline void model_branch_lost(struct model *m)
{
	if (m->ooo.held)
		ooo_resolve(&m->ooo, false);
}

#endif
