/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tage.h: a TAGE-like conditional-branch direction predictor, the model's
 * option beside gshare (model.h), after A. Seznec and P. Michaud, "A case
 * for (partially) TAgged GEometric history length branch predictors",
 * Journal of Instruction-Level Parallelism 8, 2006.
 *
 * A bimodal base table of 2-bit counters indexed by pc, and N tagged
 * tables T1..TN (t[0..N-1] here), table i using the last L(i) outcomes of
 * the global history, L geometric: L(1) = MINHIST, L(N) = MAXHIST,
 * L(i) = MINHIST x (MAXHIST / MINHIST)^((i - 1) / (N - 1)), rounded (made
 * one longer than L(i - 1) where rounding would repeat it).
 *
 * Entry of a tagged table: a tag, a 3-bit signed counter ctr (-4..3,
 * predicts taken when >= 0) and a 2-bit useful counter u. Index and tag
 * of table i hash pc with the L(i) history bits folded by XOR into
 * log2(ENTRIES), TAGBITS and TAGBITS - 1 bits (the paper's circular
 * shift registers): index = (pc ^ pc >> log2(ENTRIES) ^ fold) mod ENTRIES,
 * tag = (pc ^ fold_t ^ fold_t' << 1) mod 2^TAGBITS.
 *
 * Prediction: the tagged table with the longest history whose entry's tag
 * matches is the provider, its counter's sign the prediction; the next
 * matching one (or the base table) gives the alternate prediction; with
 * no match the base table predicts.
 *
 * Update, as the paper's section 3 (choices where it leaves one open):
 * - the provider's counter is trained (the base counter when the base
 *   table provided; the base is not trained otherwise);
 * - when the prediction and the alternate prediction differ, the
 *   provider's u goes up if the prediction was right, down if wrong;
 * - on a misprediction by a provider other than TN, an entry is allocated
 *   in the table of shortest history longer than the provider's whose
 *   indexed entry has u = 0 (the paper prefers shorter ones at random,
 *   2:1; here always the shortest, so runs repeat exactly): tag set, ctr
 *   weakly right (0 taken, -1 not taken), u = 0. If every such entry has
 *   u > 0, their u are decremented and nothing is allocated;
 * - every 2^18 resolved branches (the paper: 256K) the most significant
 *   bit of every u is cleared, the next time the least significant one,
 *   and so on alternately.
 * Not modelled: the later refinements of L-TAGE and TAGE-SC-L (using the
 * alternate prediction for newly allocated entries, a loop predictor, a
 * statistical corrector), path history. Entries start empty (no tag
 * matches them) and base counters weakly not taken, as gshare's.
 */
#ifndef JLBENCH_TAGE_H
#define JLBENCH_TAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAGE_MAX_TABLES 8
#define TAGE_MAX_ENTRIES (1u << 20)	/* per tagged table */
#define TAGE_MAX_TAG_BITS 15
#define TAGE_MAX_HIST 1024
#define TAGE_U_PERIOD (1u << 18)	/* branches between u clearings */

/*
 * A history of olen bits folded by XOR into clen bits: bit j of the
 * history (0 the newest) lands on bit j mod clen, so comp is kept up to
 * date by one shift and two XORs per outcome.
 */
struct tage_fold {
	uint32_t comp;
	uint32_t olen, clen;
};

struct tage_entry {
	uint16_t tag;		/* TAGE_EMPTY: no tag matches */
	int8_t ctr;		/* -4..3 */
	uint8_t u;		/* 0..3 */
};

#define TAGE_EMPTY 0xffff

struct tage_table {
	struct tage_entry *e;
	struct tage_fold idx, tag0, tag1;
};

struct tage {
	uint8_t *base;			/* 2-bit counters, start at 1 */
	uint64_t base_mask;		/* base entries - 1 */
	struct tage_table t[TAGE_MAX_TABLES];	/* t[0]: shortest history */
	uint32_t tables, log_entries, tag_bits;
	uint32_t hist[TAGE_MAX_TABLES];	/* L(i) */
	uint8_t *ghist;			/* outcomes, ghist[ptr] the newest */
	uint32_t ptr, ghist_mask;
	uint32_t resolved;		/* since the last u clearing */
	bool clear_low;			/* the next clearing: the low bit */
};

/*
 * tage_init() - base: bimodal counters (a power of two, 2..2^24); tables:
 * tagged tables (1..8); entries: per tagged table (a power of two,
 * 2..2^20); tag_bits: 2..15; min_hist, max_hist: history lengths of the
 * first and the last table, 1 <= min_hist, min_hist + tables - 1 <=
 * max_hist <= 1024 (with one table its history is max_hist).
 */
int tage_init(struct tage *p, uint64_t base, uint64_t tables,
	      uint64_t entries, uint64_t tag_bits, uint64_t min_hist,
	      uint64_t max_hist, char *err, size_t errlen);

/*
 * tage_resolve() - the branch at pc went taken (or not): predict it,
 * update as above, shift the outcome into the history. True if the
 * prediction was wrong.
 */
bool tage_resolve(struct tage *p, uint64_t pc, bool taken);

/*
 * tage_fold_direct() - fold's value computed from the whole history (the
 * definition above), for the unit tests to check the incremental one.
 */
uint32_t tage_fold_direct(const struct tage *p, const struct tage_fold *f);

void tage_free(struct tage *p);

#endif
