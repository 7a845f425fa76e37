// SPDX-License-Identifier: GPL-2.0
/*
 * perturb.c: the seeded perturbation spin. See perturb.h.
 */
#include "perturb.h"

uint64_t jlb_perturb_loops(uint32_t seed)
{
	/* splitmix64: consecutive seeds give unrelated spin lengths. */
	uint64_t z = (uint64_t)seed + 0x9e3779b97f4a7c15ULL;

	if (seed == 0)
		return 0;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return 1 + (z & ((1u << 20) - 1));
}

uint64_t jlb_perturb_spin(uint32_t seed)
{
	volatile uint64_t sink = 0;
	uint64_t i, loops = jlb_perturb_loops(seed);

	for (i = 0; i < loops; i++)
		sink += i;
	return loops;
}
