// SPDX-License-Identifier: GPL-2.0
/*
 * tbench.c: tbench's output, line by line. See tbench.h.
 */
#include "tbench.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 16

void jlb_tbench_init(struct jlb_tbench *t)
{
	memset(t, 0, sizeof(*t));
}

/* sample: parse and store one per-second line. */
static int sample(struct jlb_tbench *t, char **tok, int n, const char *line,
		  char *err, size_t errlen)
{
	unsigned long long x;
	int warm;

	if (n != 10 || strcmp(tok[3], "MB/sec") != 0 ||
	    jlb_parse_uint(tok[0], strlen(tok[0]), 0, 100000, &x) < 0 ||
	    jlb_parse_uint(tok[1], strlen(tok[1]), 0, ~0ULL, &x) < 0 ||
	    !jlb_is_number(tok[2]) ||
	    jlb_parse_uint(tok[5], strlen(tok[5]), 0, 1000000, &x) < 0 ||
	    strcmp(tok[6], "sec") != 0 || strcmp(tok[7], "latency") != 0 ||
	    !jlb_is_number(tok[8]) || strcmp(tok[9], "ms") != 0)
		return jlb_fail(err, errlen, "malformed tbench sample line '%.80s'",
				line);
	if (t->have_result)
		return jlb_fail(err, errlen, "tbench sample after the result line");
	warm = strcmp(tok[4], "warmup") == 0;
	if (warm) {
		if (t->nsamples)
			return jlb_fail(err, errlen,
					"tbench warmup line after execute lines");
		if (t->nwarmup == JLB_MAX_SAMPLES)
			return jlb_fail(err, errlen, "too many tbench warmup lines");
		strcpy(t->warmup[t->nwarmup++], tok[2]);
		return JLB_TB_WARMUP;
	}
	if (t->nsamples == JLB_MAX_SAMPLES)
		return jlb_fail(err, errlen, "too many tbench sample lines");
	strcpy(t->samples[t->nsamples++], tok[2]);
	return JLB_TB_SAMPLE;
}

/* result: "Throughput X MB/sec N clients N procs max_latency=Y ms". */
static int result(struct jlb_tbench *t, char **tok, int n, const char *line,
		  char *err, size_t errlen)
{
	unsigned long long c, p;
	const char *lat;

	if (n != 9 || strcmp(tok[0], "Throughput") != 0 || !jlb_is_number(tok[1]) ||
	    strcmp(tok[2], "MB/sec") != 0 ||
	    jlb_parse_uint(tok[3], strlen(tok[3]), 1, 100000, &c) < 0 ||
	    strcmp(tok[4], "clients") != 0 ||
	    jlb_parse_uint(tok[5], strlen(tok[5]), 1, 100000, &p) < 0 ||
	    strcmp(tok[6], "procs") != 0 ||
	    strncmp(tok[7], "max_latency=", 12) != 0 ||
	    !jlb_is_number(tok[7] + 12) || strcmp(tok[8], "ms") != 0)
		return jlb_fail(err, errlen, "malformed tbench result line '%.80s'",
				line);
	if (t->have_result)
		return jlb_fail(err, errlen, "two tbench result lines");
	lat = tok[7] + 12;
	strcpy(t->throughput, tok[1]);
	t->throughput_val = strtod(tok[1], NULL);
	strcpy(t->max_latency, lat);
	t->clients = (unsigned int)c;
	t->procs = (unsigned int)p;
	t->have_result = 1;
	return JLB_TB_RESULT;
}

/* table_row: "Name Count AvgLat MaxLat" inside the operation table. */
static int table_row(struct jlb_tbench *t, char **tok, int n,
		     const char *line, char *err, size_t errlen)
{
	unsigned long long count;
	int i;

	if (n != 4 || jlb_parse_uint(tok[1], strlen(tok[1]), 0, ~0ULL, &count) < 0 ||
	    !jlb_is_number(tok[2]) || !jlb_is_number(tok[3]))
		return jlb_fail(err, errlen, "malformed tbench operation row '%.80s'",
				line);
	for (i = 0; tok[0][i]; i++)
		if (!isalpha((unsigned char)tok[0][i]))
			return jlb_fail(err, errlen,
					"malformed tbench operation row '%.80s'",
					line);
	if (t->ops > ~0ULL - count)
		return jlb_fail(err, errlen, "tbench operation counts overflow");
	t->ops += count;
	t->op_rows++;
	return JLB_TB_TABLE;
}

int jlb_tbench_line(struct jlb_tbench *t, const char *line,
		    char *err, size_t errlen)
{
	char buf[512], *tok[MAX_TOKENS];
	int n = jlb_words(line, buf, sizeof(buf), tok, MAX_TOKENS);

	if (n < 0) {
		/* Too long or too many words: only fatal inside the table. */
		if (t->in_table)
			return jlb_fail(err, errlen, "malformed tbench operation "
					"row '%.80s'", line);
		return JLB_TB_OTHER;
	}
	if (n == 0) {
		t->in_table = 0;
		return JLB_TB_OTHER;
	}
	if (t->in_table == 1) {
		if (n != 1 || strspn(tok[0], "-") != strlen(tok[0]))
			return jlb_fail(err, errlen, "tbench operation table: "
					"expected a rule, got '%.80s'", line);
		t->in_table = 2;
		return JLB_TB_TABLE;
	}
	if (t->in_table == 2)
		return table_row(t, tok, n, line, err, errlen);
	if (n == 4 && strcmp(tok[0], "Operation") == 0 &&
	    strcmp(tok[1], "Count") == 0) {
		if (t->op_rows)
			return jlb_fail(err, errlen, "two tbench operation tables");
		t->in_table = 1;
		return JLB_TB_TABLE;
	}
	if (strcmp(tok[0], "Throughput") == 0)
		return result(t, tok, n, line, err, errlen);
	if (n >= 5 && (strcmp(tok[4], "execute") == 0 ||
		       strcmp(tok[4], "warmup") == 0) &&
	    strcmp(tok[3], "MB/sec") == 0)
		return sample(t, tok, n, line, err, errlen);
	if (n >= 2 && strcmp(tok[1], "cleanup") == 0)
		return JLB_TB_CLEANUP;
	if (n >= 4 && strcmp(tok[0], "client") == 0 &&
	    strcmp(tok[2], "failed") == 0) {
		t->client_failed = 1;
		return JLB_TB_FAILED;
	}
	return JLB_TB_OTHER;
}

int jlb_tbench_finish(const struct jlb_tbench *t, unsigned int clients,
		      char *err, size_t errlen)
{
	if (t->client_failed)
		return jlb_fail(err, errlen, "a tbench client failed to start");
	if (t->in_table == 1)
		return jlb_fail(err, errlen, "tbench output ends inside the "
				"operation table header");
	if (t->op_rows == 0)
		return jlb_fail(err, errlen, "tbench printed no operation table "
				"(output truncated?)");
	if (!t->have_result)
		return jlb_fail(err, errlen, "tbench printed no Throughput line "
				"(output truncated?)");
	if (t->clients != clients)
		return jlb_fail(err, errlen, "tbench ran %u clients, %u requested",
				t->clients, clients);
	if (!(t->throughput_val > 0))
		return jlb_fail(err, errlen, "tbench throughput is %s MB/s",
				t->throughput);
	return 0;
}
