/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.h: the output file of perf stat -x, and the result keys of perf
 * events.
 */
#ifndef JLB_PERF_H
#define JLB_PERF_H

#include <stddef.h>

#include "cmdline.h"

/* One counter from perf stat -x, output. */
struct jlb_perf_value {
	int found;
	char value[JLB_NUM_LEN];	/* number, "not-supported", "not-counted" */
};

/* Parse the whole -o file of perf stat -x, and find each requested event.
 * Returns 0, or -1 with a reason in err (malformed line, missing event). */
int jlb_parse_perf(const char *text, const struct jlb_params *p,
		   struct jlb_perf_value *out, char *err, size_t errlen);

/* Key suffix for a perf event: lower case, [^a-z0-9_] -> '_'. */
void jlb_event_key(const char *event, char *key, size_t keylen);

#endif
