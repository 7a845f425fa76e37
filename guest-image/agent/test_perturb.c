// SPDX-License-Identifier: GPL-2.0
/*
 * test_perturb.c: tests of perturb.c.
 */
#include "test_parse.h"
#include "perturb.h"

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
