// SPDX-License-Identifier: GPL-2.0
/*
 * pipe.c: perf bench sched pipe's output, line by line. See pipe.h.
 */
#include "pipe.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 8

void jlb_pipe_init(struct jlb_pipe *p)
{
	memset(p, 0, sizeof(*p));
}

/* once: -1 with a reason when the figure was already seen. */
static int once(int *seen, const char *what, char *err, size_t errlen)
{
	if (*seen)
		return jlb_fail(err, errlen, "perf bench printed two %s lines",
				what);
	*seen = 1;
	return 0;
}

int jlb_pipe_line(struct jlb_pipe *p, const char *line, char *err,
		  size_t errlen)
{
	char buf[256], *w[MAX_WORDS];
	int n = jlb_words(line, buf, sizeof(buf), w, MAX_WORDS);

	if (n <= 0)
		return JLB_PIPE_OTHER;
	if (n >= 3 && strcmp(w[0], "#") == 0 && strcmp(w[1], "Executed") == 0) {
		if (n != 8 || strcmp(w[3], "pipe") != 0 ||
		    strcmp(w[4], "operations") != 0 ||
		    strcmp(w[5], "between") != 0 || strcmp(w[6], "two") != 0 ||
		    jlb_parse_uint(w[2], strlen(w[2]), 1, ~0ULL, &p->loops) < 0)
			return jlb_fail(err, errlen, "malformed perf bench line "
					"'%.80s'", line);
		if (once(&p->have_loops, "Executed", err, errlen) < 0 ||
		    jlb_copy(p->tasks, sizeof(p->tasks), w[7], strlen(w[7])) < 0)
			return -1;
		return JLB_PIPE_LOOPS;
	}
	if (strcmp(w[0], "Total") == 0) {
		if (n != 4 || strcmp(w[1], "time:") != 0 ||
		    !jlb_is_number(w[2]) || strcmp(w[3], "[sec]") != 0)
			return jlb_fail(err, errlen, "malformed perf bench line "
					"'%.80s'", line);
		if (once(&p->have_total, "Total time", err, errlen) < 0)
			return -1;
		strcpy(p->total, w[2]);
		return JLB_PIPE_TOTAL;
	}
	if (n == 2 && strcmp(w[1], "usecs/op") == 0) {
		if (!jlb_is_number(w[0]))
			return jlb_fail(err, errlen, "malformed perf bench line "
					"'%.80s'", line);
		if (once(&p->have_usecs, "usecs/op", err, errlen) < 0)
			return -1;
		strcpy(p->usecs, w[0]);
		p->usecs_val = strtod(w[0], NULL);
		return JLB_PIPE_USECS;
	}
	if (n == 2 && strcmp(w[1], "ops/sec") == 0) {
		/* perf prints (int)(loops / seconds): negative on overflow */
		if (!jlb_is_number(w[0]) && !(w[0][0] == '-' &&
					      jlb_is_number(w[0] + 1)))
			return jlb_fail(err, errlen, "malformed perf bench line "
					"'%.80s'", line);
		if (once(&p->have_rate, "ops/sec", err, errlen) < 0)
			return -1;
		strcpy(p->rate, w[0]);
		return JLB_PIPE_RATE;
	}
	return JLB_PIPE_OTHER;
}

int jlb_pipe_finish(const struct jlb_pipe *p, unsigned long long loops,
		    char *err, size_t errlen)
{
	if (!p->have_loops)
		return jlb_fail(err, errlen, "perf bench printed no 'Executed' "
				"line (output truncated?)");
	if (!p->have_total || !p->have_usecs || !p->have_rate)
		return jlb_fail(err, errlen, "perf bench printed no %s line "
				"(output truncated?)", !p->have_total ?
				"'Total time'" : !p->have_usecs ?
				"'usecs/op'" : "'ops/sec'");
	if (p->loops != loops)
		return jlb_fail(err, errlen, "perf bench executed %llu pipe "
				"operations, %llu requested", p->loops, loops);
	if (!(p->usecs_val > 0))
		return jlb_fail(err, errlen, "perf bench reports %s usecs/op",
				p->usecs);
	return 0;
}
