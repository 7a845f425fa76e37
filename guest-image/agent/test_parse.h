/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_parse.h: what the host unit tests of the parsers share. Each
 * test_<parser>.c tests <parser>.c; test_parse.c runs them all.
 */
#ifndef JLB_TEST_PARSE_H
#define JLB_TEST_PARSE_H

#include <stddef.h>

extern int checks, failures;

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), #a, __FILE__, __LINE__)

/* Count a check; print a FAIL line naming `what` when ok is 0. */
void check(int ok, const char *what, const char *file, int line);
/* Count a check of a string against its expected value. */
void check_str(const char *a, const char *b, const char *what,
	       const char *file, int line);
/* A fixture file's text (caller frees), or NULL; its length in *len. */
char *slurp(const char *name, size_t *len);
/* The fixture directory given on the command line. */
extern const char *fixtures;

void test_cmdline(void);
void test_module_options(void);
void test_tbench_fixtures(void);
void test_tbench_truncated(void);
void test_tbench_lines(void);
void test_pipe(void);
void test_perf(void);
void test_event_key(void);
void test_cpustat(void);
void test_kmsg(void);
void test_perturb(void);
void test_rng_seed(void);

#endif
