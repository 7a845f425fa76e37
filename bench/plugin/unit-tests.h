/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit-tests.h: what the host unit tests' files share (unit-tests.c runs
 * them all and prints the TAP lines).
 */
#ifndef JLBENCH_UNIT_TESTS_H
#define JLBENCH_UNIT_TESTS_H

/* check() - record one check: "ok N - what" or "not ok N - what". */
void check(int ok, const char *what);

/* test_model() - model.c's known answers (unit-tests-model.c). */
void test_model(void);

#endif
