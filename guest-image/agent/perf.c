// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c: perf stat -x, output and perf event keys. See perf.h.
 */
#include "perf.h"

#include <string.h>

/* perf_line: one CSV line "value,unit,event,runtime,pct,..." */
static int perf_line(const char *line, size_t len, const struct jlb_params *p,
		     struct jlb_perf_value *out, char *err, size_t errlen)
{
	char buf[512], *f[3], *s;
	unsigned int i, nf = 0;
	const char *v;

	if (jlb_copy(buf, sizeof(buf), line, len) < 0)
		return jlb_fail(err, errlen, "perf: line too long");
	f[nf++] = buf;
	for (s = buf; *s && nf < 3; s++)
		if (*s == ',') {
			*s = '\0';
			f[nf++] = s + 1;
		}
	if (nf < 3)
		return jlb_fail(err, errlen, "perf: malformed line '%.80s'", line);
	s = strchr(f[2], ',');
	if (!s)
		return jlb_fail(err, errlen, "perf: malformed line '%.80s'", line);
	*s = '\0';
	if (strcmp(f[0], "<not supported>") == 0)
		v = "not-supported";
	else if (strcmp(f[0], "<not counted>") == 0)
		v = "not-counted";
	else if (jlb_is_number(f[0]))
		v = f[0];
	else
		return jlb_fail(err, errlen, "perf: bad value '%.40s' for '%.40s'",
				f[0], f[2]);
	for (i = 0; i < p->nevents; i++) {
		if (strcmp(p->events[i], f[2]) != 0)
			continue;
		if (out[i].found)
			return jlb_fail(err, errlen, "perf: event '%s' twice",
					f[2]);
		out[i].found = 1;
		strcpy(out[i].value, v);
		return 0;
	}
	return jlb_fail(err, errlen, "perf: unrequested event '%.60s'", f[2]);
}

int jlb_parse_perf(const char *text, const struct jlb_params *p,
		   struct jlb_perf_value *out, char *err, size_t errlen)
{
	const char *s = text, *e;
	unsigned int i;

	memset(out, 0, sizeof(*out) * p->nevents);
	while (*s) {
		e = strchr(s, '\n');
		if (!e)
			return jlb_fail(err, errlen, "perf: output truncated in "
					"'%.60s'", s);
		if (e > s && *s != '#' &&
		    perf_line(s, (size_t)(e - s), p, out, err, errlen) < 0)
			return -1;
		s = e + 1;
	}
	for (i = 0; i < p->nevents; i++)
		if (!out[i].found)
			return jlb_fail(err, errlen, "perf: no figure for event '%s'",
					p->events[i]);
	return 0;
}

void jlb_event_key(const char *event, char *key, size_t keylen)
{
	if (keylen > 0)
		jlb_key_chars(key, event, strnlen(event, keylen - 1));
}
