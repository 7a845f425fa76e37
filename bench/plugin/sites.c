// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sites.c: code address ranges from a file. See sites.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sites.h"

/* parse_hex() - one hex number at *pp (optional 0x); advances *pp. */
static int parse_hex(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	while (p < end && isxdigit((unsigned char)*p)) {
		if (digits == 16)
			return -1;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*p) ?
					*p - '0' : tolower((unsigned char)*p) - 'a' + 10);
		digits++;
		p++;
	}
	if (digits == 0)
		return -1;
	*pp = p;
	*out = v;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct site_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

/* parse_line() - one line [p, end) into *r; 1 if a range, 0 if blank. */
static int parse_line(const char *p, const char *end, struct site_range *r)
{
	const char *hash = memchr(p, '#', (size_t)(end - p));

	if (hash)
		end = hash;
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p == end)
		return 0;
	if (parse_hex(&p, end, &r->start) != 0)
		return -1;
	if (p == end) {
		if (r->start == UINT64_MAX)
			return -1;
		r->end = r->start + 1;
		return 1;
	}
	if (*p != '-')
		return -1;
	p++;
	if (parse_hex(&p, end, &r->end) != 0 || p != end ||
	    r->end <= r->start)
		return -1;
	return 1;
}

int sites_parse(struct sites *s, const char *buf, size_t len,
		char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len;
	size_t cap = 0, n = 0, lineno = 0, i, m;
	struct site_range *r = NULL, *grown, one;

	memset(s, 0, sizeof(*s));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		int rc;

		lineno++;
		rc = parse_line(p, eol, &one);
		if (rc < 0) {
			snprintf(err, errlen,
				 "line %zu: expected ADDR or START-END (hex, START < END): '%.*s'",
				 lineno, (int)(eol - p > 60 ? 60 : eol - p), p);
			free(r);
			return -1;
		}
		if (rc > 0) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				grown = realloc(r, cap * sizeof(*r));
				if (!grown) {
					snprintf(err, errlen, "out of memory");
					free(r);
					return -1;
				}
				r = grown;
			}
			r[n++] = one;
		}
		p = nl ? nl + 1 : end;
	}
	s->entries = n;
	if (n) {
		qsort(r, n, sizeof(*r), cmp_range);
		for (i = 1, m = 0; i < n; i++) {
			if (r[i].start <= r[m].end) {
				if (r[i].end > r[m].end)
					r[m].end = r[i].end;
			} else {
				r[++m] = r[i];
			}
		}
		n = m + 1;
	}
	s->r = r;
	s->n = n;
	return 0;
}

int sites_load(struct sites *s, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *grown;
	size_t len = 0, cap = 0, got;
	int rc;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap);
			if (!grown) {
				snprintf(err, errlen, "%s: out of memory", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = grown;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = sites_parse(s, buf, len, err, errlen);
	if (rc != 0 && strlen(err) + strlen(path) + 3 < errlen) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		snprintf(err, errlen, "%s", tmp);
	}
	free(buf);
	return rc;
}

/* ranges_upto() - how many ranges start at or before addr. */
static size_t ranges_upto(const struct sites *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool sites_contains(const struct sites *s, uint64_t addr)
{
	size_t k = ranges_upto(s, addr);

	return k > 0 && addr < s->r[k - 1].end;
}

bool sites_overlaps(const struct sites *s, uint64_t start, uint64_t len)
{
	uint64_t last = start + (len ? len - 1 : 0);
	size_t k;

	if (last < start)
		last = UINT64_MAX;
	/* Ranges are sorted and disjoint: only the last one starting at or
	 * before the access's last byte can reach into it.
	 */
	k = ranges_upto(s, last);
	return k > 0 && start < s->r[k - 1].end;
}

void sites_free(struct sites *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}
