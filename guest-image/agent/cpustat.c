// SPDX-License-Identifier: GPL-2.0
/*
 * cpustat.c: the cpu line of /proc/stat. See cpustat.h.
 */
#include "cpustat.h"

#include <string.h>

const char *const jlb_stat_names[JLB_STAT_FIELDS] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

int jlb_parse_stat(const char *text, struct jlb_cpustat *s,
		   char *err, size_t errlen)
{
	const char *p = text, *start;
	unsigned long long v;
	int i;

	while (*p && strncmp(p, "cpu ", 4) != 0) {
		p = strchr(p, '\n');
		if (!p)
			return jlb_fail(err, errlen, "/proc/stat has no cpu line");
		p++;
	}
	if (!*p)
		return jlb_fail(err, errlen, "/proc/stat has no cpu line");
	p += 4;
	for (i = 0; i < JLB_STAT_FIELDS; i++) {
		while (*p == ' ')
			p++;
		start = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (jlb_parse_uint(start, (size_t)(p - start), 0, ~0ULL, &v) < 0 ||
		    (*p != ' ' && *p != '\n'))
			return jlb_fail(err, errlen, "/proc/stat: cpu line field "
					"%d (%s) is malformed", i + 1,
					jlb_stat_names[i]);
		s->v[i] = v;
	}
	return 0;
}

int jlb_stat_delta(const struct jlb_cpustat *a, const struct jlb_cpustat *b,
		   struct jlb_cpustat *d, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < JLB_STAT_FIELDS; i++) {
		if (b->v[i] < a->v[i])
			return jlb_fail(err, errlen, "/proc/stat %s went backwards",
					jlb_stat_names[i]);
		d->v[i] = b->v[i] - a->v[i];
	}
	return 0;
}
