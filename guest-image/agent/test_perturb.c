// SPDX-License-Identifier: GPL-2.0
/*
 * test_perturb.c: tests of perturb.c.
 */
#include "test_parse.h"
#include "perturb.h"

#include <string.h>

void test_perturb(void)
{
	uint64_t first = jlb_perturb_loops(1), v, lo = ~0ULL, hi = 0;
	uint32_t s;

	CHECK(jlb_perturb_loops(0) == 0);
	CHECK(jlb_perturb_loops(1) == first);
	for (s = 1; s <= 1000; s++) {
		v = jlb_perturb_loops(s);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	CHECK(lo >= 1 && hi <= (1u << 20));
	CHECK(hi - lo > (1u << 19));	/* seeds spread over the range */
	CHECK(jlb_perturb_loops(2) != first);
	CHECK(jlb_perturb_loops(4294967295u) >= 1);
	CHECK(jlb_perturb_spin(0) == 0);
	CHECK(jlb_perturb_spin(7) == jlb_perturb_loops(7));
}

/* The RNG seed: pinned bytes (a change would change every run's bits),
 * the same for the same seed, another for another seed. */
void test_rng_seed(void)
{
	/* splitmix64 from 0 ^ "jlbench!", little-endian, as computed apart */
	static const unsigned char seed0[8] = {
		0x45, 0x75, 0x05, 0x2f, 0xc3, 0xde, 0x3e, 0x51 };
	static const unsigned char seed1_tail[8] = {
		0xf1, 0x38, 0x46, 0xa5, 0xf6, 0x37, 0x64, 0x5e };
	unsigned char a[JLB_RNG_SEED_LEN], b[JLB_RNG_SEED_LEN];

	jlb_rng_seed(0, a);
	CHECK(memcmp(a, seed0, sizeof(seed0)) == 0);
	jlb_rng_seed(0, b);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	jlb_rng_seed(1, b);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	CHECK(memcmp(b + 24, seed1_tail, sizeof(seed1_tail)) == 0);
}
