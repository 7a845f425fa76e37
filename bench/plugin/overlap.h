/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * overlap.h: the first-order overlap rule of an out-of-order core, after
 * interval analysis: T. Karkhanis and J. E. Smith, "A first-order
 * superscalar processor model", ISCA 2004; S. Eyerman, L. Eeckhout,
 * T. Karkhanis and J. E. Smith, "A mechanistic performance model for
 * superscalar out-of-order processors", ACM TOCS 27(2), 2009 (and Sniper's
 * interval core model). No QEMU dependency.
 *
 * Input: the miss events of a stream of instructions, in program order,
 * each at the index of its instruction, with its latency (the cycles the
 * in-order model charges it: level_latency() of model.h for a cache
 * miss, the penalty for a misprediction or a BTB miss):
 * - OOO_IMISS: an instruction fetch that missed L1I (served by L2 or
 *   memory);
 * - OOO_BTB: a taken branch that missed in the BTB;
 * - OOO_MISPREDICT: a mispredicted branch (its penalty includes the
 *   front end's refill);
 * - OOO_DMISS: a data access that missed L1D; feeds: a mispredicted
 *   branch waits for its value (the load is on the resolution path of
 *   the branch, as a static key's load is for its test and Jcc).
 *
 * In order (the upper bound): every event costs its latency.
 *
 * Overlapped, with a reorder buffer of ROB instructions filled at WIDTH
 * instructions a cycle, hide = ROB / WIDTH cycles (rounded down; how long
 * dispatch goes on behind a load that blocks the head before the ROB is
 * full):
 * 1. OOO_IMISS, OOO_BTB and OOO_MISPREDICT cost their latency in full:
 *    the front end delivers nothing meanwhile; for a misprediction the
 *    latency is the branch's resolution and the refill of the front end.
 * 2. An OOO_DMISS that feeds a mispredicted branch costs its latency in
 *    full, on top of the misprediction: the branch resolves only when the
 *    load's value arrives, and what was fetched meanwhile is thrown away.
 * 3. Any other OOO_DMISS is independent and joins a group: a group opens
 *    at an independent data miss at instruction i when none is open there
 *    (no group yet, or i >= the open group's first instruction + ROB) and
 *    holds the independent data misses of instructions i .. i + ROB - 1,
 *    which are in the reorder buffer together and overlap (memory-level
 *    parallelism). A group costs max(0, L - hide), L the longest latency
 *    of its misses: a miss the window hides costs nothing, a longer one
 *    the part beyond hide, once per group.
 * Left out (first order): the issue time of a miss within its group,
 * misses of the wrong path, interactions of rule 2's misses with rule 3's
 * groups, and the base CPI (the caller's, here one cycle an instruction).
 * Each overlapped charge is at most the event's latency, so overlapped
 * <= in order.
 */
#ifndef JLBENCH_OVERLAP_H
#define JLBENCH_OVERLAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OOO_MAX_ROB 65536

enum ooo_kind {
	OOO_IMISS,
	OOO_BTB,
	OOO_MISPREDICT,
	OOO_DMISS,
};

struct ooo_event {
	uint64_t insn;		/* index of its instruction */
	uint32_t latency;	/* cycles, in order */
	uint8_t kind;		/* enum ooo_kind */
	bool feeds;		/* OOO_DMISS: a mispredicted branch waits */
};

struct ooo_params {
	uint32_t rob;		/* reorder buffer entries, 1..65536 */
	uint32_t width;		/* dispatch width, 1..rob */
};

/* Penalty cycles of a stream, beyond one cycle an instruction. */
struct ooo_cost {
	uint64_t inorder;	/* every latency in full */
	uint64_t overlapped;	/* the rule above */
};

/* The rule over a stream, one event at a time. */
struct ooo {
	struct ooo_params p;
	struct ooo_cost cost;
	uint64_t group_end;	/* first instruction after the open group */
	uint32_t group_lat;	/* its longest latency so far */
	bool open;
};

/* ooo_init() - a stream without events; 0, or -1 with err (bad p). */
int ooo_init(struct ooo *o, const struct ooo_params *p,
	     char *err, size_t errlen);

/* ooo_add() - the stream's next event: adds to o->cost. */
void ooo_add(struct ooo *o, const struct ooo_event *e);

/*
 * ooo_cost() - the cost of n events (in program order) with parameters p:
 * 0, or -1 with err (bad p). A pure function: ooo_init() and ooo_add().
 */
int ooo_cost(const struct ooo_params *p, const struct ooo_event *ev,
	     size_t n, struct ooo_cost *out, char *err, size_t errlen);

/*
 * The plugin's form of the rule (modelplug.c): the model counts its data
 * misses by class and analysis prices the classes with the penalties
 * (lib/model.py), so the penalties stay analysis's, as for the in-order
 * sum. Rules 1 take the model's existing counts (mispredictions, BTB
 * misses, L1I misses, and with an L2 the L1I misses that missed it too).
 * For rules 2 and 3 the model puts each L1D miss into an ooo_stream, with
 * the level that served it (L2, or memory beyond it):
 * - feeding (rule 2), first order: a load that missed L1D feeds the
 *   conditional branch its translated block ends with when the branch is
 *   at most OOO_FEED_DIST instructions after it (a static key's check is
 *   load; test; Jcc: 2) and the branch was mispredicted. Such a miss is
 *   held until the branch resolves (ooo_resolve()): mispredicted, it
 *   feeds; predicted, or cut off by an interrupt or exception, it is
 *   independent after all. Stores and loads further from the branch are
 *   independent at once.
 * - independent (rule 3): groups as above. A group of L1D misses served
 *   by the L2 costs max(0, l1d_miss - hide); one that holds a miss to
 *   memory max(0, l1d_miss + l2_miss - hide), as l2_miss is charged on
 *   top of l1d_miss. The levels are ordered, so a group's longest latency
 *   is its deepest level whatever the penalties: counting the groups and
 *   the groups that reach memory gives the rule's cycles exactly
 *   (ooo_counts_cycles()).
 * Counts per mode (an index 0..1, counters.h's enum mode): a group goes to
 * the mode of the miss that opened it, its reaching memory to the mode of
 * the miss that took it there.
 */
#define OOO_FEED_DIST 3		/* instructions from a load to its branch */
#define OOO_MAX_HELD 16		/* held misses of one block (more: independent) */

/*
 * ooo_near_branch() - instruction i of a block of n that ends with a
 * conditional branch is at most OOO_FEED_DIST instructions before it.
 */
static inline bool ooo_near_branch(size_t i, size_t n)
{
	return i + 1 < n && n - 1 - i <= OOO_FEED_DIST;
}

struct ooo_counts {
	uint64_t l1d_fed[2];	/* L1D misses feeding a mispredicted branch */
	uint64_t l2d_fed[2];	/* of those, the ones served by memory */
	uint64_t l1d_groups[2];	/* groups of independent L1D misses */
	uint64_t l2d_groups[2];	/* of those, the ones with a miss to memory */
};

struct ooo_stream {
	struct ooo_counts *out;
	uint32_t rob;
	bool open;		/* a group is open */
	bool group_mem;		/* it reached memory */
	uint64_t group_end;	/* first instruction after it */
	uint32_t held;		/* misses waiting for their branch */
	struct {
		uint64_t insn;
		uint8_t mem;	/* served by memory */
		uint8_t mode;
	} hold[OOO_MAX_HELD];
};

/* ooo_stream_init() - counts to *out; 0, or -1 with err (bad rob). */
int ooo_stream_init(struct ooo_stream *s, uint32_t rob,
		    struct ooo_counts *out, char *err, size_t errlen);

/*
 * ooo_dmiss() - an L1D miss at instruction insn of mode mode, served by
 * memory (mem) or the L2: held (a load within OOO_FEED_DIST instructions
 * before its block's conditional branch) until ooo_resolve(), else
 * independent now. In program order, insn never decreasing.
 */
void ooo_dmiss(struct ooo_stream *s, uint64_t insn, bool mem, int mode,
	       bool held);

/*
 * ooo_resolve() - the branch the held misses wait for resolved:
 * mispredicted (they feed it), or not or never seen (independent).
 */
void ooo_resolve(struct ooo_stream *s, bool mispredicted);

/*
 * ooo_counts_cycles() - the overlapped cycles of c's data misses, both
 * modes: l1d_miss, l2_miss the penalties (l2_miss on top of l1d_miss,
 * 0 without an L2), hide = ROB / WIDTH.
 */
uint64_t ooo_counts_cycles(const struct ooo_counts *c, uint32_t l1d_miss,
			   uint32_t l2_miss, uint32_t hide);

#endif
