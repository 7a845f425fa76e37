/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit-tests.h: what the host unit tests' files share (unit-tests.c runs
 * them all and prints the TAP lines).
 */
#ifndef JLBENCH_UNIT_TESTS_H
#define JLBENCH_UNIT_TESTS_H

#include <stdint.h>

/* xorshift64() - a fixed pseudo-random sequence. */
static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* check() - record one check: "ok N - what" or "not ok N - what". */
void check(int ok, const char *what);

/* test_model() - model.c's known answers (unit-tests-model.c). */
void test_model(void);

/* test_core() - L2, prefetch, overlap (unit-tests-core.c). */
void test_core(void);

/* test_overlap() - the overlap rule as the model runs it (unit-tests-overlap.c). */
void test_overlap(void);

/* test_tage() - the TAGE-like predictor (unit-tests-tage.c). */
void test_tage(void);

/* test_profile() - the per-function profile (unit-tests-profile.c). */
void test_profile(void);

#endif
