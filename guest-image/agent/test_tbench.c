// SPDX-License-Identifier: GPL-2.0
/*
 * test_tbench.c: tests of tbench.c against real tbench outputs.
 */
#include "test_parse.h"
#include "tbench.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct jlb_tbench tb;

/* feed: run text through the tbench parser as the agent does (a last line
 * without newline still counts). 0 on a complete result, else -1. */
static int feed(const char *text, size_t len, unsigned int clients,
		char *err)
{
	char line[1024];
	size_t i = 0, j;

	jlb_tbench_init(&tb);
	while (i < len) {
		for (j = i; j < len && text[j] != '\n'; j++)
			;
		if (j - i >= sizeof(line))
			return -1;
		memcpy(line, text + i, j - i);
		line[j - i] = '\0';
		if (jlb_tbench_line(&tb, line, err, JLB_ERR_LEN) < 0)
			return -1;
		i = j + 1;
	}
	return jlb_tbench_finish(&tb, clients, err, JLB_ERR_LEN);
}

static void join(char (*v)[JLB_NUM_LEN], unsigned int n, char *out)
{
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, v[i]);
	}
}

/* expect_fixture: NAME.out against NAME.expected. */
static void expect_fixture(const char *name)
{
	char file[256], err[JLB_ERR_LEN] = "", got[8192], *exp, *line, *save;
	size_t len;
	char *text;
	unsigned int clients = 0;
	int r;

	snprintf(file, sizeof(file), "%s.expected", name);
	exp = slurp(file, NULL);
	snprintf(file, sizeof(file), "%s.out", name);
	text = slurp(file, &len);
	check(exp && text, name, __FILE__, __LINE__);
	if (!exp || !text)
		goto out;
	line = strstr(exp, "clients=");
	if (line)
		clients = (unsigned int)atoi(line + 8);
	r = feed(text, len, clients ? clients : 2, err);
	for (line = strtok_r(exp, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		got[0] = '\0';
		if (strcmp(line, "error") == 0) {
			check(r < 0, name, __FILE__, __LINE__);
			snprintf(got, sizeof(got), "%s", err);
		} else if (strcmp(line, "clients") == 0) {
			snprintf(got, sizeof(got), "%u", tb.clients);
		} else if (strcmp(line, "procs") == 0) {
			snprintf(got, sizeof(got), "%u", tb.procs);
		} else if (strcmp(line, "throughput_mbps") == 0) {
			snprintf(got, sizeof(got), "%s", tb.throughput);
		} else if (strcmp(line, "max_latency_ms") == 0) {
			snprintf(got, sizeof(got), "%s", tb.max_latency);
		} else if (strcmp(line, "ops") == 0) {
			snprintf(got, sizeof(got), "%llu", tb.ops);
		} else if (strcmp(line, "samples_mbps") == 0) {
			join(tb.samples, tb.nsamples, got);
		} else if (strcmp(line, "warmup_samples_mbps") == 0) {
			join(tb.warmup, tb.nwarmup, got);
		} else {
			check(0, line, __FILE__, __LINE__);
		}
		if (strcmp(line, "error") != 0 && r < 0)
			printf("  %s: %s\n", name, err);
		checks++;
		if (strcmp(got, eq + 1) != 0) {
			failures++;
			printf("FAIL %s: %s is '%s', expected '%s'\n", name, line,
			       got, eq + 1);
		}
	}
out:
	free(exp);
	free(text);
}

void test_tbench_fixtures(void)
{
	DIR *d = opendir(fixtures);
	struct dirent *e;
	char name[256];
	int n = 0;
	size_t l;

	check(d != NULL, fixtures, __FILE__, __LINE__);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		l = strlen(e->d_name);
		if (l < 10 || strncmp(e->d_name, "tbench", 6) != 0 ||
		    strcmp(e->d_name + l - 9, ".expected") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(l - 9), e->d_name);
		expect_fixture(name);
		n++;
	}
	closedir(d);
	CHECK(n >= 3);
}

/* Every truncation of a real output must be rejected, never crash. */
void test_tbench_truncated(void)
{
	char err[JLB_ERR_LEN];
	size_t len, cut;
	char *text = slurp("tbench-3c-12s.out", &len);
	int bad = 0;

	CHECK(text != NULL);
	if (!text)
		return;
	CHECK(len > 100 && text[len - 1] == '\n');
	for (cut = 0; cut + 1 < len; cut++)
		if (feed(text, cut, 3, err) == 0) {
			bad++;
			printf("FAIL truncated at %zu of %zu accepted\n", cut, len);
		}
	CHECK(bad == 0);
	CHECK(feed(text, len - 1, 3, err) == 0);	/* only the \n missing */
	CHECK(feed(text, len, 3, err) == 0);
	CHECK(feed(text, len, 4, err) < 0);	/* other client count */
	CHECK(strstr(err, "3 clients") != NULL);
	free(text);
}

static int line_kind(const char *line)
{
	char err[JLB_ERR_LEN];

	return jlb_tbench_line(&tb, line, err, sizeof(err));
}

void test_tbench_lines(void)
{
	/* A whole tbench -t 6 run with 2 clients, captured on this host. */
	static const char run[] =
		"dbench version 4.00 - Copyright Andrew Tridgell 1999-2004\n\n"
		"Running for 6 seconds with load '/usr/share/dbench/client.txt'"
		" and minimum warmup 1 secs\n"
		"failed to create barrier semaphore \n"
		"0 of 2 processes prepared for launch   0 sec\n"
		"2 of 2 processes prepared for launch   0 sec\n"
		"releasing clients\n"
		"   2     96110   494.98 MB/sec  execute   1 sec  latency 28.698 ms\n"
		"   2    144053   505.64 MB/sec  execute   2 sec  latency 2.692 ms\n"
		"   2  cleanup   6 sec\n   0  cleanup   6 sec\n\n"
		" Operation      Count    AvgLat    MaxLat\n"
		" ----------------------------------------\n"
		" NTCreateX     104247     0.018     9.737\n"
		" Close          76537     0.018     8.542\n"
		" ReadX         163700     0.019    18.628\n"
		" Flush           7307     0.018     2.631\n\n"
		"Throughput 537.335 MB/sec  2 clients  2 procs  "
		"max_latency=28.698 ms\n";
	static const char *const malformed[] = {
		"   2     96110   494.98 MB/sec  execute   1 sec  latency 28.698",
		"   2     abc   494.98 MB/sec  execute   1 sec  latency 28.698 ms",
		"   2     96110   494.98x MB/sec  execute   1 sec  latency 1 ms",
		"   2     96110   494.98 MB/sec  execute   1 sec  latency 1 ms x",
		"   2     96110   .5 MB/sec  warmup   1 sec  latency 1.0 ms",
		"Throughput 537.335 MB/sec  2 clients  2 procs  max_latency=ms",
		"Throughput abc MB/sec  2 clients  2 procs  max_latency=1.0 ms",
		"Throughput 537.335 MB/sec  0 clients  2 procs  max_latency=1 ms",
		"Throughput 537.335 MB/sec  2 clients  2 procs",
		"Throughput",
	};
	char err[JLB_ERR_LEN], longline[700];
	size_t i;

	CHECK(feed(run, strlen(run), 2, err) == 0);
	CHECK_STR(tb.throughput, "537.335");
	CHECK_STR(tb.max_latency, "28.698");
	CHECK(tb.ops == 104247ULL + 76537 + 163700 + 7307);
	CHECK(tb.nsamples == 2 && tb.nwarmup == 0 && tb.op_rows == 4);
	CHECK_STR(tb.samples[1], "505.64");

	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		jlb_tbench_init(&tb);
		check(line_kind(malformed[i]) < 0, malformed[i], __FILE__,
		      __LINE__);
	}

	jlb_tbench_init(&tb);
	CHECK(line_kind("-1 of 2 processes prepared for launch   0 sec") ==
	      JLB_TB_OTHER);
	CHECK(line_kind("client 1 failed to start") == JLB_TB_FAILED);
	CHECK(jlb_tbench_finish(&tb, 2, err, sizeof(err)) < 0);

	/* A warmup line after execute lines, two result lines. */
	jlb_tbench_init(&tb);
	CHECK(line_kind("   2  1  1.00 MB/sec  execute   1 sec  latency 1.0 ms")
	      == JLB_TB_SAMPLE);
	CHECK(line_kind("   2  1  1.00 MB/sec  warmup   1 sec  latency 1.0 ms")
	      < 0);
	jlb_tbench_init(&tb);
	CHECK(line_kind("Throughput 1.5 MB/sec  2 clients  2 procs  "
			"max_latency=1.0 ms") == JLB_TB_RESULT);
	CHECK(line_kind("Throughput 1.5 MB/sec  2 clients  2 procs  "
			"max_latency=1.0 ms") < 0);
	/* No operation table; a zero throughput; table without its rule. */
	CHECK(jlb_tbench_finish(&tb, 2, err, sizeof(err)) < 0);
	CHECK(strstr(err, "operation table") != NULL);
	jlb_tbench_init(&tb);
	CHECK(line_kind(" Operation      Count    AvgLat    MaxLat") ==
	      JLB_TB_TABLE);
	CHECK(line_kind(" NTCreateX     104247     0.018     9.737") < 0);
	jlb_tbench_init(&tb);
	line_kind(" Operation      Count    AvgLat    MaxLat");
	line_kind(" -------");
	CHECK(line_kind(" NTCreateX     1x     0.018     9.737") < 0);
	CHECK(line_kind(" NTCreate-X     1     0.018     9.737") < 0);
	CHECK(line_kind(" NTCreateX     1     0.018") < 0);
	CHECK(line_kind(" NTCreateX     1     0.018     9.737") ==
	      JLB_TB_TABLE);
	CHECK(line_kind("") == JLB_TB_OTHER);
	CHECK(line_kind("Throughput 0.000 MB/sec  2 clients  2 procs  "
			"max_latency=1.0 ms") == JLB_TB_RESULT);
	CHECK(jlb_tbench_finish(&tb, 2, err, sizeof(err)) < 0);
	CHECK(strstr(err, "throughput") != NULL);

	/* Over-long lines: harmless noise outside the table, fatal in it. */
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	jlb_tbench_init(&tb);
	CHECK(line_kind(longline) == JLB_TB_OTHER);
	line_kind(" Operation      Count    AvgLat    MaxLat");
	line_kind(" -------");
	CHECK(line_kind(longline) < 0);
}
