/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tbench.h: tbench's output, one line at a time: the per-second samples,
 * the operation table and the Throughput line.
 */
#ifndef JLB_TBENCH_H
#define JLB_TBENCH_H

#include <stddef.h>

#include "parse.h"

#define JLB_MAX_SAMPLES 4000

/* Accumulated state of one tbench run's output. */
struct jlb_tbench {
	unsigned int nsamples, nwarmup;
	char samples[JLB_MAX_SAMPLES][JLB_NUM_LEN];	/* execute MB/s */
	char warmup[JLB_MAX_SAMPLES][JLB_NUM_LEN];	/* warmup MB/s */
	int in_table;			/* inside the operation table */
	unsigned int op_rows;
	unsigned long long ops;		/* sum of the Count column */
	int have_result;		/* saw the Throughput line */
	char throughput[JLB_NUM_LEN];	/* MB/s, as printed */
	double throughput_val;
	unsigned int clients, procs;
	char max_latency[JLB_NUM_LEN];	/* ms, as printed */
	int client_failed;		/* "client N failed to start" */
};

enum jlb_tb_line {
	JLB_TB_OTHER,		/* banner, launch lines, blank lines */
	JLB_TB_SAMPLE,		/* "N ops MB/sec execute S sec latency L ms" */
	JLB_TB_WARMUP,		/* same with "warmup" */
	JLB_TB_CLEANUP,		/* "N cleanup S sec" */
	JLB_TB_TABLE,		/* op table header, rule or row */
	JLB_TB_RESULT,		/* "Throughput X MB/sec N clients N procs ..." */
	JLB_TB_FAILED,		/* a client failed to start */
};

void jlb_tbench_init(struct jlb_tbench *t);
/* Feed one line (without newline). Returns its kind, or -1 with a reason
 * in err when the line looks like a known kind but is malformed. */
int jlb_tbench_line(struct jlb_tbench *t, const char *line,
		    char *err, size_t errlen);
/* After the last line: 0 when a complete result was seen for `clients`,
 * -1 with a reason otherwise (truncated output, wrong client count). */
int jlb_tbench_finish(const struct jlb_tbench *t, unsigned int clients,
		      char *err, size_t errlen);

#endif
