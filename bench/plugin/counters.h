/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters.h: the running counters of the branches plugin. The translated
 * code (inline adds) and the model's callbacks add to one struct counters;
 * the window and the regions are differences of snapshots of it, so every
 * field here is covered by them at no cost per instruction.
 */
#ifndef JLBENCH_COUNTERS_H
#define JLBENCH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "overlap.h"

enum mode { USER = 0, KERNEL = 1 };

struct counters {
	uint64_t insns[2];
	uint64_t branches[2];
	uint64_t site_execs;
	/* model=on only (modelplug.c); indexed by mode like the above */
	uint64_t mispredicts[2];
	uint64_t btb_misses[2];
	uint64_t l1i_accesses[2];	/* line fetches (runs on one line) */
	uint64_t l1i_misses[2];
	uint64_t l1d_accesses[2];
	uint64_t l1d_misses[2];
	uint64_t key_accesses;		/* L1D accesses overlapping keys= */
	uint64_t key_misses;
	uint64_t unresolved;		/* branches whose outcome was not seen */
	/* model=on with l2= (L1 misses that missed L2 too) */
	uint64_t l2i_misses[2];
	uint64_t l2d_misses[2];
	/* model=on with iprefetch=next-line */
	uint64_t l1i_pf_hits[2];	/* line fetches a prefetch made hit */
	uint64_t l1i_pf_fills[2];	/* lines prefetched */
	/* model=on: the L1D misses' overlap classes (overlap.h) */
	struct ooo_counts ooo;
};

#define COUNTERS_N (sizeof(struct counters) / sizeof(uint64_t))
_Static_assert(sizeof(struct counters) == COUNTERS_N * sizeof(uint64_t),
	       "struct counters holds uint64_t fields only");

/* counters_add() - *acc += (a - b), field by field. */
static inline void counters_add(struct counters *acc,
				const struct counters *a,
				const struct counters *b)
{
	uint64_t *x = (uint64_t *)acc;
	const uint64_t *p = (const uint64_t *)a, *q = (const uint64_t *)b;
	size_t i;

	for (i = 0; i < COUNTERS_N; i++)
		x[i] += p[i] - q[i];
}

#endif
