/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h: pure parsing for the jlbench guest agent (no system calls).
 *
 * Everything the agent reads from text lives here so that the host can unit
 * test it (test_parse.c): the kernel command line, tbench's output, perf
 * stat's -x, CSV output, the cpu line of /proc/stat and /dev/kmsg records.
 * Every parser rejects malformed input with a one-line reason.
 */
#ifndef JLB_PARSE_H
#define JLB_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define JLB_ERR_LEN 256
#define JLB_MAX_EVENTS 16
#define JLB_EVENT_LEN 64
#define JLB_NUM_LEN 24
#define JLB_MAX_SAMPLES 4000

/* Parameters from the kernel command line (PROTOCOL.md). */
struct jlb_params {
	char mode[16];			/* tbench | selftest | shell */
	char variant[64];		/* [a-z0-9-]+ */
	unsigned int clients;		/* 1..512 */
	unsigned int seconds;		/* 1..3600 */
	unsigned int timeout;		/* 0..86400 (0: tests the guest timeout) */
	uint32_t perturb;		/* 0 = none */
	unsigned int nevents;		/* 0 when jlbench.perf=none */
	char events[JLB_MAX_EVENTS][JLB_EVENT_LEN];
	char perf[JLB_MAX_EVENTS * JLB_EVENT_LEN];	/* as given */
};

/* Fill *p with defaults, then apply the jlbench.* words of cmdline.
 * Returns 0, or -1 with a reason in err. */
int jlb_parse_cmdline(const char *cmdline, struct jlb_params *p,
		      char *err, size_t errlen);

/* The options for module `name` on the kernel command line, as modprobe
 * passes them: each word "<name>.<param>[=<value>]" before "--" becomes
 * "<param>[=<value>]" in out (space-separated; '-' and '_' in <name> are
 * the same). out is "" when there are none. Quoted values with blanks are
 * not supported. Returns 0, or -1 with a reason when out is too small. */
int jlb_module_options(const char *cmdline, const char *name, char *out,
		       size_t outlen, char *err, size_t errlen);

/* Key suffix for a perf event: lower case, [^a-z0-9_] -> '_'. */
void jlb_event_key(const char *event, char *key, size_t keylen);

/* Accumulated state of one tbench run's output. */
struct jlb_tbench {
	unsigned int nsamples, nwarmup;
	char samples[JLB_MAX_SAMPLES][JLB_NUM_LEN];	/* execute MB/s */
	char warmup[JLB_MAX_SAMPLES][JLB_NUM_LEN];	/* warmup MB/s */
	double last_sample;
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

/* One counter from perf stat -x, output. */
struct jlb_perf_value {
	int found;
	char value[JLB_NUM_LEN];	/* number, "not-supported", "not-counted" */
};

/* Parse the whole -o file of perf stat -x, and find each requested event.
 * Returns 0, or -1 with a reason in err (malformed line, missing event). */
int jlb_parse_perf(const char *text, const struct jlb_params *p,
		   struct jlb_perf_value *out, char *err, size_t errlen);

/* The fields of /proc/stat's "cpu" line, in order. */
#define JLB_STAT_FIELDS 8
extern const char *const jlb_stat_names[JLB_STAT_FIELDS];
struct jlb_cpustat {
	unsigned long long v[JLB_STAT_FIELDS];
};

/* Parse /proc/stat text (its first "cpu " line). 0 or -1 with a reason. */
int jlb_parse_stat(const char *text, struct jlb_cpustat *s,
		   char *err, size_t errlen);
/* d = b - a; -1 with a reason when a counter went backwards. */
int jlb_stat_delta(const struct jlb_cpustat *a, const struct jlb_cpustat *b,
		   struct jlb_cpustat *d, char *err, size_t errlen);

/* One /dev/kmsg record "pri,seq,ts,flags;text\n[ continuation]". */
struct jlb_kmsg {
	int level;			/* 0 (emerg) .. 7 (debug) */
	unsigned long long seq;
	const char *text;		/* points into the record */
	size_t textlen;			/* up to the first newline */
};
int jlb_parse_kmsg(const char *rec, size_t len, struct jlb_kmsg *k);

/* A "<prefix>key=value" figure line of a self-test module. Returns 1 and
 * fills key (sanitised to [a-z0-9_]) and value (up to end of text, no
 * newline), 0 when the text is not such a line. */
int jlb_figure(const char *text, size_t len, const char *prefix,
	       char *key, size_t keylen, char *value, size_t valuelen);

/* Number of iterations of the perturbation spin for a seed (0 -> 0). */
uint64_t jlb_perturb_loops(uint32_t seed);

#endif
