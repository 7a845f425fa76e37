// SPDX-License-Identifier: GPL-2.0
/*
 * test_cmdline.c: tests of cmdline.c (jlbench.* parameters, module options).
 */
#include "test_parse.h"
#include "cmdline.h"

#include <stdio.h>
#include <string.h>

static int cmdline_fails(const char *cmdline)
{
	struct jlb_params p;
	char err[JLB_ERR_LEN] = "";
	int r = jlb_parse_cmdline(cmdline, &p, err, sizeof(err));

	return r < 0 && err[0] != '\0';
}

void test_cmdline(void)
{
	struct jlb_params p;
	char err[JLB_ERR_LEN];
	static const char *const bad[] = {
		"jlbench.clients=abc", "jlbench.clients=0", "jlbench.clients=513",
		"jlbench.clients=-1", "jlbench.clients=", "jlbench.clients=+5",
		"jlbench.clients=1e3", "jlbench.clients=2x",
		"jlbench.clients=99999999999999999999999",
		"jlbench.seconds=0", "jlbench.seconds=3601",
		"jlbench.timeout=-1", "jlbench.timeout=86401",
		"jlbench.perturb=4294967296",
		"jlbench.perturb=-1", "jlbench.mode=bench", "jlbench.mode=",
		"jlbench.envpad=65537", "jlbench.envpad=x",
		"jlbench.loops=0", "jlbench.loops=100000001", "jlbench.loops=1k",
		"jlbench.mode=pipes",
		"jlbench.variant=Jump", "jlbench.variant=", "jlbench.variant=a_b",
		"jlbench.variant=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaa",
		"jlbench.colour=red", "jlbench.clients", "jlbench.=1",
		"jlbench.clients=2 jlbench.clients=3", "jlbench.perf=",
		"jlbench.perf=a,,b", "jlbench.perf=a,", "jlbench.perf=,a",
		"jlbench.perf=cycles,none", "jlbench.perf=a,a",
		"jlbench.perf=cpu/instructions/", "jlbench.perf=a;b",
		"jlbench.perf=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		"jlbench.mode=run jlbench.workload=a jlbench.ops=1",
		"jlbench.mode=run jlbench.run=/b jlbench.ops=1",
		"jlbench.mode=run jlbench.run=/b jlbench.workload=a",
		"jlbench.run=b", "jlbench.run=/b,,c", "jlbench.run=/b,",
		"jlbench.run=", "jlbench.ops=0", "jlbench.workload=A",
		"jlbench.run=/1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,"
		"20,21,22,23,24,25,26,27,28,29,30,31,32,33",
	};
	size_t i;

	CHECK(jlb_parse_cmdline("console=ttyS0 panic=-1", &p, err,
				sizeof(err)) == 0);
	CHECK_STR(p.mode, "tbench");
	CHECK_STR(p.variant, "unknown");
	CHECK_STR(p.perf, "none");
	CHECK(p.clients == 20 && p.seconds == 30 && p.timeout == 120);
	CHECK(p.perturb == 0 && p.nevents == 0 && p.envpad == 0);
	CHECK(p.loops == 100000);

	CHECK(jlb_parse_cmdline("console=ttyS0 jlbench.mode=selftest "
				"jlbench.variant=plain-read jlbench.clients=512 "
				"jlbench.seconds=3600 jlbench.timeout=86400 "
				"jlbench.perturb=4294967295 jlbench.envpad=65536 "
				"jlbench.perf=task-clock,L1-dcache-loads,cycles:u"
				" nokaslr\n", &p, err, sizeof(err)) == 0);
	CHECK_STR(p.mode, "selftest");
	CHECK_STR(p.variant, "plain-read");
	CHECK(p.clients == 512 && p.seconds == 3600 && p.timeout == 86400);
	CHECK(p.perturb == 4294967295u && p.envpad == 65536);
	CHECK(p.nevents == 3);
	CHECK_STR(p.events[0], "task-clock");
	CHECK_STR(p.events[1], "L1-dcache-loads");
	CHECK_STR(p.events[2], "cycles:u");
	CHECK_STR(p.perf, "task-clock,L1-dcache-loads,cycles:u");

	CHECK(jlb_parse_cmdline("jlbench.perf=none jlbench.mode=shell", &p, err,
				sizeof(err)) == 0 && p.nevents == 0);
	CHECK_STR(p.mode, "shell");
	CHECK(jlb_parse_cmdline("jlbench.mode=pipe jlbench.loops=100000000",
				&p, err, sizeof(err)) == 0);
	CHECK_STR(p.mode, "pipe");
	CHECK(p.loops == 100000000);
	CHECK(jlb_parse_cmdline("jlbench.mode=pipe jlbench.loops=1", &p, err,
				sizeof(err)) == 0 && p.loops == 1);
	CHECK(jlb_parse_cmdline("jlbench.mode=run jlbench.workload=fault "
				"jlbench.run=/usr/bin/stress-ng,--fault,1 "
				"jlbench.ops=20000", &p, err, sizeof(err)) == 0);
	CHECK_STR(p.mode, "run");
	CHECK_STR(p.workload, "fault");
	CHECK(p.nargs == 3 && p.argv[3] == NULL && p.ops == 20000);
	CHECK_STR(p.argv[0], "/usr/bin/stress-ng");
	CHECK_STR(p.argv[1], "--fault");
	CHECK_STR(p.argv[2], "1");
	/* Words after "--" belong to init's argv; look-alikes are not ours. */
	CHECK(jlb_parse_cmdline("jlbench.clients=3 -- jlbench.clients=abc",
				&p, err, sizeof(err)) == 0 && p.clients == 3);
	CHECK(jlb_parse_cmdline("jlbenchclients=abc xjlbench.clients=abc",
				&p, err, sizeof(err)) == 0 && p.clients == 20);
	CHECK(jlb_parse_cmdline("", &p, err, sizeof(err)) == 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int f = cmdline_fails(bad[i]);

		check(f, bad[i], __FILE__, __LINE__);
	}
	CHECK(jlb_parse_cmdline("jlbench.clients=abc", &p, err,
				sizeof(err)) < 0);
	CHECK(strstr(err, "jlbench.clients") != NULL);
	CHECK(strstr(err, "abc") != NULL);
}

void test_module_options(void)
{
	char out[64], small[8], err[JLB_ERR_LEN];
	const char *cl = "console=ttyS0 jlbench_static_key.invert=1 "
			 "jlbench.mode=selftest jlbench-static-key.threads=2 "
			 "jlbench_static_keys.z=1 test-static-keys.x=1 "
			 "jlbench_static_key.=3 "
			 "jlbench_static_key.flag -- jlbench_static_key.y=2";

	CHECK(jlb_module_options(cl, "jlbench_static_key", out, sizeof(out),
				 err, sizeof(err)) == 0);
	CHECK_STR(out, "invert=1 threads=2 flag");
	CHECK(jlb_module_options(cl, "test_static_keys", out, sizeof(out),
				 err, sizeof(err)) == 0);
	CHECK_STR(out, "x=1");
	CHECK(jlb_module_options(cl, "jlbench", out, sizeof(out), err,
				 sizeof(err)) == 0);
	CHECK_STR(out, "mode=selftest");
	CHECK(jlb_module_options("", "m", out, sizeof(out), err,
				 sizeof(err)) == 0);
	CHECK_STR(out, "");
	CHECK(jlb_module_options("m.a=1 m.b=22", "m", small, sizeof(small),
				 err, sizeof(err)) < 0);
	CHECK(strstr(err, "longer than 7 bytes") != NULL);
}
