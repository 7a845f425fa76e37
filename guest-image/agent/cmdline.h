/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmdline.h: the jlbench.* parameters of the kernel command line
 * (PROTOCOL.md) and the options it holds for a loadable module.
 */
#ifndef JLB_CMDLINE_H
#define JLB_CMDLINE_H

#include <stddef.h>
#include <stdint.h>

#include "parse.h"

#define JLB_MAX_EVENTS 16
#define JLB_EVENT_LEN 64
#define JLB_MAX_ENVPAD 65536
#define JLB_MAX_LOOPS 100000000
/* Round trips of `perf bench sched pipe` by default: as many as the
 * pipe-test of Documentation/staging/static-keys.rst made per run (its
 * perf stat counts 200,003 context switches a run, two per round trip). */
#define JLB_DEFAULT_LOOPS 100000
/* Mode run's command: at most this many words, this many bytes in all. */
#define JLB_MAX_ARGS 32
#define JLB_CMD_LEN 512

/* Parameters from the kernel command line (PROTOCOL.md). */
struct jlb_params {
	char mode[16];			/* tbench | pipe | run | selftest | shell */
	char variant[64];		/* [a-z0-9-]+ */
	char workload[64];		/* run: the workload's name, echoed */
	unsigned int nargs;		/* run: words of argv */
	char *argv[JLB_MAX_ARGS + 1];	/* run: the command, into cmd */
	char cmd[JLB_CMD_LEN];		/* run: jlbench.run, NUL per comma */
	unsigned long long ops;		/* run: operations of the command */
	unsigned int clients;		/* 1..512 */
	unsigned int seconds;		/* 1..3600 */
	unsigned int loops;		/* pipe: 1..JLB_MAX_LOOPS round trips */
	unsigned int timeout;		/* 0..86400 (0: tests the guest timeout) */
	uint32_t perturb;		/* 0 = none */
	unsigned int envpad;		/* 0..JLB_MAX_ENVPAD bytes of padding */
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

#endif
