/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h: how the branches plugin writes its key=value report lines.
 */
#ifndef JLBENCH_REPORT_H
#define JLBENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>

static inline void put_u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, "%s=%llu\n", key, (unsigned long long)v);
}

/* put_window() - a window figure, or not-counted when not valid. */
static inline void put_window(FILE *f, const char *key, uint64_t v,
			      int valid)
{
	if (valid)
		put_u64(f, key, v);
	else
		fprintf(f, "%s=not-counted\n", key);
}

/* put_region() - key region.<id>.<name>=<v>. */
static inline void put_region(FILE *f, int id, const char *name, uint64_t v)
{
	fprintf(f, "region.%d.%s=%llu\n", id, name, (unsigned long long)v);
}

#endif
