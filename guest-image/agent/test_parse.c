// SPDX-License-Identifier: GPL-2.0
/*
 * test_parse.c: host unit tests of parse.c.
 *
 * Usage: test_parse FIXTURE_DIR
 * FIXTURE_DIR (tests/fixtures/agent) holds real tbench outputs (*.out)
 * with the figures expected from them (*.expected, key=value), a real
 * perf stat -x, file and a real /proc/stat. Prints one line per failed
 * check and a summary; exits 1 when any check failed.
 */
#include "parse.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures;
static const char *fixtures;

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), #a, __FILE__, __LINE__)

static void check(int ok, const char *what, const char *file, int line)
{
	checks++;
	if (!ok) {
		failures++;
		printf("FAIL %s:%d: %s\n", file, line, what);
	}
}

static void check_str(const char *a, const char *b, const char *what,
		      const char *file, int line)
{
	checks++;
	if (strcmp(a, b) != 0) {
		failures++;
		printf("FAIL %s:%d: %s is '%s', expected '%s'\n", file, line,
		       what, a, b);
	}
}

/* slurp: a fixture file's text (caller frees), or NULL. */
static char *slurp(const char *name, size_t *len)
{
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = (size_t)n;
	}
	return buf;
}

/* ---- command line ---- */

static int cmdline_fails(const char *cmdline)
{
	struct jlb_params p;
	char err[JLB_ERR_LEN] = "";
	int r = jlb_parse_cmdline(cmdline, &p, err, sizeof(err));

	return r < 0 && err[0] != '\0';
}

static void test_cmdline(void)
{
	struct jlb_params p;
	char err[JLB_ERR_LEN], key[64];
	static const char *const bad[] = {
		"jlbench.clients=abc", "jlbench.clients=0", "jlbench.clients=513",
		"jlbench.clients=-1", "jlbench.clients=", "jlbench.clients=+5",
		"jlbench.clients=1e3", "jlbench.clients=2x",
		"jlbench.clients=99999999999999999999999",
		"jlbench.seconds=0", "jlbench.seconds=3601",
		"jlbench.timeout=-1", "jlbench.timeout=86401",
		"jlbench.perturb=4294967296",
		"jlbench.perturb=-1", "jlbench.mode=bench", "jlbench.mode=",
		"jlbench.variant=Jump", "jlbench.variant=", "jlbench.variant=a_b",
		"jlbench.variant=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaa",
		"jlbench.colour=red", "jlbench.clients", "jlbench.=1",
		"jlbench.clients=2 jlbench.clients=3", "jlbench.perf=",
		"jlbench.perf=a,,b", "jlbench.perf=a,", "jlbench.perf=,a",
		"jlbench.perf=cycles,none", "jlbench.perf=a,a",
		"jlbench.perf=cpu/instructions/", "jlbench.perf=a;b",
		"jlbench.perf=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
	};
	size_t i;

	CHECK(jlb_parse_cmdline("console=ttyS0 panic=-1", &p, err,
				sizeof(err)) == 0);
	CHECK_STR(p.mode, "tbench");
	CHECK_STR(p.variant, "unknown");
	CHECK_STR(p.perf, "none");
	CHECK(p.clients == 20 && p.seconds == 30 && p.timeout == 120);
	CHECK(p.perturb == 0 && p.nevents == 0);

	CHECK(jlb_parse_cmdline("console=ttyS0 jlbench.mode=selftest "
				"jlbench.variant=plain-read jlbench.clients=512 "
				"jlbench.seconds=3600 jlbench.timeout=86400 "
				"jlbench.perturb=4294967295 "
				"jlbench.perf=task-clock,L1-dcache-loads,cycles:u"
				" nokaslr\n", &p, err, sizeof(err)) == 0);
	CHECK_STR(p.mode, "selftest");
	CHECK_STR(p.variant, "plain-read");
	CHECK(p.clients == 512 && p.seconds == 3600 && p.timeout == 86400);
	CHECK(p.perturb == 4294967295u);
	CHECK(p.nevents == 3);
	CHECK_STR(p.events[0], "task-clock");
	CHECK_STR(p.events[1], "L1-dcache-loads");
	CHECK_STR(p.events[2], "cycles:u");
	CHECK_STR(p.perf, "task-clock,L1-dcache-loads,cycles:u");

	CHECK(jlb_parse_cmdline("jlbench.perf=none jlbench.mode=shell", &p, err,
				sizeof(err)) == 0 && p.nevents == 0);
	CHECK_STR(p.mode, "shell");
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

	jlb_event_key("context-switches", key, sizeof(key));
	CHECK_STR(key, "context_switches");
	jlb_event_key("L1-dcache-loads", key, sizeof(key));
	CHECK_STR(key, "l1_dcache_loads");
	jlb_event_key("cycles:u", key, sizeof(key));
	CHECK_STR(key, "cycles_u");
	jlb_event_key("abcdef", key, 4);
	CHECK_STR(key, "abc");
}

/* ---- tbench ---- */

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

static void test_tbench_fixtures(void)
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
static void test_tbench_truncated(void)
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

static void test_tbench_lines(void)
{
	/* The output from the issue text, captured on this host. */
	static const char brief[] =
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

	CHECK(feed(brief, strlen(brief), 2, err) == 0);
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

/* ---- perf ---- */

static void set_events(struct jlb_params *p, const char *list)
{
	char err[JLB_ERR_LEN], cmd[512];

	snprintf(cmd, sizeof(cmd), "jlbench.perf=%s", list);
	if (jlb_parse_cmdline(cmd, p, err, sizeof(err)) < 0)
		printf("FAIL set_events %s: %s\n", list, err);
}

static void test_perf(void)
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

/* ---- /proc/stat ---- */

static void test_stat(void)
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

/* ---- kmsg, figures, perturbation ---- */

static void test_kmsg(void)
{
	static const char rec[] = "6,339,5140900,-;NET: Registered\n"
				  " SUBSYSTEM=net\n";
	char key[32], value[32];
	struct jlb_kmsg k;
	const char *pre = "test_static_keys: ";

	CHECK(jlb_parse_kmsg(rec, sizeof(rec) - 1, &k) == 0);
	CHECK(k.level == 6 && k.seq == 339);
	CHECK(k.textlen == 15 && memcmp(k.text, "NET: Registered", 15) == 0);
	CHECK(jlb_parse_kmsg("11,2,3,c;x", 10, &k) == 0 && k.level == 3);
	CHECK(jlb_parse_kmsg("abc", 3, &k) < 0);
	CHECK(jlb_parse_kmsg("6;x", 3, &k) < 0);
	CHECK(jlb_parse_kmsg("x,1,2,-;t", 9, &k) < 0);
	CHECK(jlb_parse_kmsg("6,,2,-;t", 8, &k) < 0);

	CHECK(jlb_figure("test_static_keys: loop-ns=12", 28, pre, key,
			 sizeof(key), value, sizeof(value)) == 1);
	CHECK_STR(key, "loop_ns");
	CHECK_STR(value, "12");
	CHECK(jlb_figure("test_static_keys: hello", 23, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
	CHECK(jlb_figure("other: a=b", 10, pre, key, sizeof(key), value,
			 sizeof(value)) == 0);
	CHECK(jlb_figure("test_static_keys: =b", 20, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
	CHECK(jlb_figure("test_static_keys: a b=c", 23, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
	CHECK(jlb_figure("test_static_keys: a=", 20, pre, key, sizeof(key),
			 value, sizeof(value)) == 0);
}

static void test_module_options(void)
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

static void test_perturb(void)
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
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR\n", argv[0]);
		return 2;
	}
	fixtures = argv[1];
	test_cmdline();
	test_tbench_fixtures();
	test_tbench_truncated();
	test_tbench_lines();
	test_perf();
	test_stat();
	test_kmsg();
	test_module_options();
	test_perturb();
	printf("test_parse: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
