/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipe.h: the output of `perf bench sched pipe` (perf 6.1, the default
 * format), one line at a time:
 *
 *   # Running 'sched/pipe' benchmark:
 *   # Executed 2000 pipe operations between two processes
 *        Total time: 0.036 [sec]
 *         18.286500 usecs/op
 *             54685 ops/sec
 *
 * An "operation" is one round trip: each of the two tasks writes an int
 * into its pipe and reads one from the other's.
 */
#ifndef JLB_PIPE_H
#define JLB_PIPE_H

#include <stddef.h>

#include "parse.h"

/* Accumulated state of one perf bench sched pipe run's output. */
struct jlb_pipe {
	unsigned long long loops;	/* "# Executed N pipe operations" */
	char tasks[16];			/* "processes" or "threads" */
	char total[JLB_NUM_LEN];	/* "Total time: X [sec]", as printed */
	char usecs[JLB_NUM_LEN];	/* "X usecs/op", as printed */
	double usecs_val;
	char rate[JLB_NUM_LEN];		/* "N ops/sec", as printed */
	int have_loops, have_total, have_usecs, have_rate;
};

enum jlb_pipe_line {
	JLB_PIPE_OTHER,		/* banner, blank lines, anything unknown */
	JLB_PIPE_LOOPS,		/* "# Executed N pipe operations ..." */
	JLB_PIPE_TOTAL,		/* "Total time: X [sec]" */
	JLB_PIPE_USECS,		/* "X usecs/op" */
	JLB_PIPE_RATE,		/* "N ops/sec" */
};

void jlb_pipe_init(struct jlb_pipe *p);
/* Feed one line (without newline). Returns its kind, or -1 with a reason
 * in err when the line looks like a known kind but is malformed or
 * repeated. */
int jlb_pipe_line(struct jlb_pipe *p, const char *line, char *err,
		  size_t errlen);
/* After the last line: 0 when every figure was seen and perf executed
 * `loops` round trips, -1 with a reason otherwise. */
int jlb_pipe_finish(const struct jlb_pipe *p, unsigned long long loops,
		    char *err, size_t errlen);

#endif
