// SPDX-License-Identifier: GPL-2.0
/*
 * perturb.c: the seeded perturbation spin. See perturb.h.
 */
#include "perturb.h"

/* splitmix64: the next 64 bits of the stream whose state is *s;
 * consecutive states give unrelated values. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t jlb_perturb_loops(uint32_t seed)
{
	uint64_t s = seed;

	if (seed == 0)
		return 0;
	return 1 + (splitmix64(&s) & ((1u << 20) - 1));
}

void jlb_rng_seed(uint32_t seed, unsigned char out[JLB_RNG_SEED_LEN])
{
	/* A stream apart from the spin's: "jlbench!" in its state. */
	uint64_t s = (uint64_t)seed ^ 0x6a6c62656e636821ULL, v = 0;
	unsigned int i;

	for (i = 0; i < JLB_RNG_SEED_LEN; i++) {
		if (i % 8 == 0)
			v = splitmix64(&s);
		out[i] = (unsigned char)(v >> (8 * (i % 8)));
	}
}

uint64_t jlb_perturb_spin(uint32_t seed)
{
	volatile uint64_t sink = 0;
	uint64_t i, loops = jlb_perturb_loops(seed);

	for (i = 0; i < loops; i++)
		sink += i;
	return loops;
}
