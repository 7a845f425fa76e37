/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpustat.h: the cpu line of /proc/stat and its change over a run.
 */
#ifndef JLB_CPUSTAT_H
#define JLB_CPUSTAT_H

#include <stddef.h>

#include "parse.h"

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

#endif
