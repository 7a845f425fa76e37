// SPDX-License-Identifier: GPL-2.0
/*
 * test_pipe.c: tests of pipe.c against real perf bench sched pipe outputs
 * (tests/fixtures/agent/pipe-*.out, with pipe-*.expected).
 */
#include "test_parse.h"
#include "pipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct jlb_pipe pb;

/* feed: text through the parser line by line, as the agent does; 0 on a
 * complete result for `loops`, else -1 with a reason in err. */
static int feed(const char *text, unsigned long long loops, char *err)
{
	char line[512];
	const char *s = text, *nl;
	size_t n;

	jlb_pipe_init(&pb);
	while (*s) {
		nl = strchr(s, '\n');
		n = nl ? (size_t)(nl - s) : strlen(s);
		if (n >= sizeof(line))
			return -1;
		memcpy(line, s, n);
		line[n] = '\0';
		if (jlb_pipe_line(&pb, line, err, JLB_ERR_LEN) < 0)
			return -1;
		s += n + (nl ? 1 : 0);
	}
	return jlb_pipe_finish(&pb, loops, err, JLB_ERR_LEN);
}

/* expected: the value of key in an .expected text, or "". */
static const char *expected(const char *text, const char *key)
{
	static char value[128];
	size_t kl = strlen(key), n;
	const char *s = text;

	value[0] = '\0';
	while (s && *s) {
		if (strncmp(s, key, kl) == 0 && s[kl] == '=') {
			n = strcspn(s + kl + 1, "\n");
			if (n < sizeof(value)) {
				memcpy(value, s + kl + 1, n);
				value[n] = '\0';
			}
			break;
		}
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	return value;
}

static void expect_fixture(const char *name)
{
	char file[128], err[JLB_ERR_LEN] = "", got[32];
	char *out, *exp;
	unsigned long long loops;

	snprintf(file, sizeof(file), "%s.out", name);
	out = slurp(file, NULL);
	snprintf(file, sizeof(file), "%s.expected", name);
	exp = slurp(file, NULL);
	CHECK(out != NULL && exp != NULL);
	if (!out || !exp) {
		free(out);
		free(exp);
		return;
	}
	loops = strtoull(expected(exp, "loops"), NULL, 10);
	CHECK(feed(out, loops, err) == 0);
	CHECK_STR(err, "");
	snprintf(got, sizeof(got), "%llu", pb.loops);
	CHECK_STR(got, expected(exp, "ops"));
	CHECK_STR(pb.tasks, expected(exp, "pipe_tasks"));
	CHECK_STR(pb.total, expected(exp, "pipe_total_s"));
	CHECK_STR(pb.usecs, expected(exp, "pipe_usecs_per_op"));
	CHECK_STR(pb.rate, expected(exp, "pipe_ops_per_s"));
	/* another loop count than requested is an error */
	CHECK(feed(out, loops + 1, err) < 0 && strstr(err, "requested"));
	free(out);
	free(exp);
}

/* fails: text is rejected with a reason containing want. */
static int fails(const char *text, unsigned long long loops,
		 const char *want)
{
	char err[JLB_ERR_LEN] = "";

	return feed(text, loops, err) < 0 && strstr(err, want) != NULL;
}

void test_pipe(void)
{
	static const char head[] = "# Running 'sched/pipe' benchmark:\n"
		"# Executed 10 pipe operations between two processes\n\n";

	expect_fixture("pipe-2000");
	expect_fixture("pipe-threads-500");

	/* truncated output: each missing figure is named */
	CHECK(fails("# Running 'sched/pipe' benchmark:\n", 10, "'Executed'"));
	CHECK(fails(head, 10, "'Total time'"));
	CHECK(fails("# Executed 10 pipe operations between two processes\n"
		    "     Total time: 0.001 [sec]\n", 10, "'usecs/op'"));
	CHECK(fails("# Executed 10 pipe operations between two processes\n"
		    "     Total time: 0.001 [sec]\n  100.000000 usecs/op\n",
		    10, "'ops/sec'"));
	/* malformed or repeated figures */
	CHECK(fails("# Executed ten pipe operations between two processes\n",
		    10, "malformed"));
	CHECK(fails("# Executed 10 pipe operations\n", 10, "malformed"));
	CHECK(fails("     Total time: 0,001 [sec]\n", 10, "malformed"));
	CHECK(fails("     Total time: 0.001 sec\n", 10, "malformed"));
	CHECK(fails("  1e3 usecs/op\n", 10, "malformed"));
	CHECK(fails("  x ops/sec\n", 10, "malformed"));
	CHECK(fails("     Total time: 0.001 [sec]\n"
		    "     Total time: 0.001 [sec]\n", 10, "two Total time"));
	CHECK(fails("# Executed 10 pipe operations between two processes\n"
		    "# Executed 10 pipe operations between two processes\n",
		    10, "two Executed"));
	/* a zero time per operation is no measurement */
	CHECK(fails("# Executed 10 pipe operations between two processes\n"
		    "     Total time: 0.000 [sec]\n  0.000000 usecs/op\n"
		    "  -2147483648 ops/sec\n", 10, "0.000000 usecs/op"));
	/* other lines (perf's warnings, blank lines) are ignored */
	CHECK(feed("Warning: something\n\n# Executed 3 pipe operations "
		   "between two threads\n Total time: 0.000 [sec]\n"
		   " 12.000000 usecs/op\n 83333 ops/sec", 3,
		   (char[JLB_ERR_LEN]){ 0 }) == 0);
	CHECK_STR(pb.usecs, "12.000000");
	CHECK_STR(pb.rate, "83333");
}
