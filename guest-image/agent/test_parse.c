// SPDX-License-Identifier: GPL-2.0
/*
 * test_parse.c: host unit tests of the agent's parsers (parse.h).
 *
 * Usage: test_parse FIXTURE_DIR
 * FIXTURE_DIR (tests/fixtures/agent) holds real tbench and perf bench
 * sched pipe outputs (*.out) with the figures expected from them
 * (*.expected, key=value), a real
 * perf stat -x, file and a real /proc/stat. Prints one line per failed
 * check and a summary; exits 1 when any check failed.
 */
#include "test_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int checks, failures;
const char *fixtures;

void check(int ok, const char *what, const char *file, int line)
{
	checks++;
	if (!ok) {
		failures++;
		printf("FAIL %s:%d: %s\n", file, line, what);
	}
}

void check_str(const char *a, const char *b, const char *what,
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
char *slurp(const char *name, size_t *len)
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
	test_pipe();
	test_perf();
	test_event_key();
	test_cpustat();
	test_kmsg();
	test_module_options();
	test_perturb();
	test_rng_seed();
	printf("test_parse: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
