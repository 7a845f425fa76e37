// SPDX-License-Identifier: GPL-2.0
/*
 * test_cpustat.c: tests of cpustat.c against a real /proc/stat.
 */
#include "test_parse.h"
#include "cpustat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_cpustat(void)
{
	struct jlb_cpustat a, b, d;
	unsigned long long x[8];
	char err[JLB_ERR_LEN];
	char *text = slurp("proc-stat.txt", NULL);
	int i;

	CHECK(text != NULL);
	if (text) {
		CHECK(sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			     &x[0], &x[1], &x[2], &x[3], &x[4], &x[5], &x[6],
			     &x[7]) == 8);
		CHECK(jlb_parse_stat(text, &a, err, sizeof(err)) == 0);
		for (i = 0; i < 8; i++)
			check(a.v[i] == x[i], jlb_stat_names[i], __FILE__,
			      __LINE__);
		free(text);
	}
	CHECK(jlb_parse_stat("intr 5\ncpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n",
			     &a, err, sizeof(err)) == 0 && a.v[7] == 8);
	CHECK(jlb_parse_stat("cpu  1 2 3 4 5 6 7 8 9 10\n", &b, err,
			     sizeof(err)) == 0 && b.v[0] == 1);
	CHECK(jlb_parse_stat("cpu  1 2 3\n", &a, err, sizeof(err)) < 0);
	CHECK(jlb_parse_stat("cpu  1 2 x 4 5 6 7 8\n", &a, err, sizeof(err)) < 0);
	CHECK(jlb_parse_stat("cpu  1 2 3 4 5 6 7 8x\n", &a, err,
			     sizeof(err)) < 0);
	CHECK(jlb_parse_stat("cpu0 1 2 3 4 5 6 7 8\n", &a, err, sizeof(err)) < 0);
	CHECK(jlb_parse_stat("", &a, err, sizeof(err)) < 0);
	CHECK(jlb_parse_stat("cpu  1 2 3 4 5 6 7", &a, err, sizeof(err)) < 0);

	for (i = 0; i < 8; i++) {
		a.v[i] = 10;
		b.v[i] = 10 + (unsigned long long)i;
	}
	CHECK(jlb_stat_delta(&a, &b, &d, err, sizeof(err)) == 0);
	CHECK(d.v[0] == 0 && d.v[7] == 7);
	b.v[3] = 9;
	CHECK(jlb_stat_delta(&a, &b, &d, err, sizeof(err)) < 0);
	CHECK(strstr(err, "idle") != NULL);
}
