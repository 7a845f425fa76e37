// SPDX-License-Identifier: GPL-2.0
/*
 * test_perf.c: tests of perf.c against a real perf stat -x, file.
 */
#include "test_parse.h"
#include "cmdline.h"
#include "perf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_events(struct jlb_params *p, const char *list)
{
	char err[JLB_ERR_LEN], cmd[512];

	snprintf(cmd, sizeof(cmd), "jlbench.perf=%s", list);
	if (jlb_parse_cmdline(cmd, p, err, sizeof(err)) < 0)
		printf("FAIL set_events %s: %s\n", list, err);
}

void test_perf(void)
{
	struct jlb_params p;
	struct jlb_perf_value v[JLB_MAX_EVENTS];
	char err[JLB_ERR_LEN];
	char *text = slurp("perf-host.csv", NULL);

	CHECK(text != NULL);
	set_events(&p, "branches,instructions,cycles,task-clock,"
		   "context-switches,cpu-migrations,page-faults");
	CHECK(text && jlb_parse_perf(text, &p, v, err, sizeof(err)) == 0);
	CHECK_STR(v[0].value, "not-supported");
	CHECK_STR(v[1].value, "not-supported");
	CHECK_STR(v[2].value, "not-supported");
	CHECK_STR(v[3].value, "2014.77");
	CHECK_STR(v[4].value, "105");
	CHECK_STR(v[5].value, "8");
	CHECK_STR(v[6].value, "82");
	/* An event perf did not print is an error, not a silent zero. */
	set_events(&p, "branches,major-faults");
	CHECK(text && jlb_parse_perf(text, &p, v, err, sizeof(err)) < 0);
	free(text);

	set_events(&p, "cycles,task-clock");
	CHECK(jlb_parse_perf("# started on x\n\n<not counted>,,cycles,0,0.00,,\n"
			     "12.5,msec,task-clock,1,100.00,1.0,CPUs utilized\n",
			     &p, v, err, sizeof(err)) == 0);
	CHECK_STR(v[0].value, "not-counted");
	CHECK_STR(v[1].value, "12.5");
	CHECK(jlb_parse_perf("", &p, v, err, sizeof(err)) < 0);
	CHECK(strstr(err, "cycles") != NULL);
	CHECK(jlb_parse_perf("<not counted>,,cycles,0,0.00,,\n12.5,msec,task-c",
			     &p, v, err, sizeof(err)) < 0);
	CHECK(strstr(err, "truncated") != NULL);
	CHECK(jlb_parse_perf("12a,,cycles,0,0.00,,\n1,msec,task-clock,1,1,,\n",
			     &p, v, err, sizeof(err)) < 0);
	CHECK(jlb_parse_perf("-5,,cycles,0,0.00,,\n1,msec,task-clock,1,1,,\n",
			     &p, v, err, sizeof(err)) < 0);
	CHECK(jlb_parse_perf("1,,cycles,0,0.00,,\n1,,cycles,0,0.00,,\n"
			     "1,msec,task-clock,1,1,,\n", &p, v, err,
			     sizeof(err)) < 0);
	CHECK(jlb_parse_perf("1,,cycles,0,0.00,,\n1,msec,task-clock,1,1,,\n"
			     "1,,branches,0,0.00,,\n", &p, v, err,
			     sizeof(err)) < 0);
	CHECK(jlb_parse_perf("event syntax error: 'x'\n", &p, v, err,
			     sizeof(err)) < 0);
	CHECK(jlb_parse_perf("1,,cycles\n1,msec,task-clock,1,1,,\n", &p, v,
			     err, sizeof(err)) < 0);
}

void test_event_key(void)
{
	char key[64];

	jlb_event_key("context-switches", key, sizeof(key));
	CHECK_STR(key, "context_switches");
	jlb_event_key("L1-dcache-loads", key, sizeof(key));
	CHECK_STR(key, "l1_dcache_loads");
	jlb_event_key("cycles:u", key, sizeof(key));
	CHECK_STR(key, "cycles_u");
	jlb_event_key("abcdef", key, 4);
	CHECK_STR(key, "abc");
}
