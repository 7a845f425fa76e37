// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c: pure parsers of the jlbench guest agent. See parse.h.
 * No system calls and no global state, so test_parse.c runs on the host.
 */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 16

const char *const jlb_stat_names[JLB_STAT_FIELDS] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* fail: write a reason into err and return -1. */
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* copy: bounded copy; -1 when src (n bytes) does not fit. */
static int copy(char *dst, size_t dstlen, const char *src, size_t n)
{
	if (n >= dstlen)
		return -1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/* parse_uint: a plain decimal in [lo, hi] spanning all of s[0..n). */
static int parse_uint(const char *s, size_t n, unsigned long long lo,
		      unsigned long long hi, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	if (n == 0 || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (~0ULL - (unsigned int)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* is_number: [0-9]+ or [0-9]+.[0-9]+ (how tbench and perf print figures). */
static int is_number(const char *s)
{
	size_t i = 0, digits = 0;

	while (isdigit((unsigned char)s[i])) {
		i++;
		digits++;
	}
	if (digits == 0)
		return 0;
	if (s[i] == '.') {
		i++;
		digits = 0;
		while (isdigit((unsigned char)s[i])) {
			i++;
			digits++;
		}
		if (digits == 0)
			return 0;
	}
	return s[i] == '\0' && i < JLB_NUM_LEN;
}

/* tokenize: split a copy of line at blanks; returns the token count or -1
 * when there are more than max tokens or the line is too long. */
static int tokenize(const char *line, char *buf, size_t buflen,
		    char **tok, int max)
{
	int n = 0;
	char *s;

	if (copy(buf, buflen, line, strlen(line)) < 0)
		return -1;
	for (s = buf; *s;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return -1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
	}
	return n;
}

/* ---- kernel command line ---- */

static int valid_variant(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

static int valid_event_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' ||
	       c == ':' || c == '.';
}

/* parse_events: "none" or a comma list of perf event names. */
static int parse_events(const char *v, size_t n, struct jlb_params *p,
			char *err, size_t errlen)
{
	size_t i = 0, start, k;

	if (copy(p->perf, sizeof(p->perf), v, n) < 0)
		return fail(err, errlen, "jlbench.perf is too long");
	p->nevents = 0;
	if (n == 4 && memcmp(v, "none", 4) == 0)
		return 0;
	while (i <= n) {
		start = i;
		while (i < n && v[i] != ',')
			i++;
		if (i == start)
			return fail(err, errlen,
				    "jlbench.perf: empty event name in '%s'",
				    p->perf);
		for (k = start; k < i; k++)
			if (!valid_event_char(v[k]))
				return fail(err, errlen,
					    "jlbench.perf: bad character in '%s'",
					    p->perf);
		if (p->nevents == JLB_MAX_EVENTS)
			return fail(err, errlen,
				    "jlbench.perf: more than %d events",
				    JLB_MAX_EVENTS);
		if (copy(p->events[p->nevents], JLB_EVENT_LEN, v + start,
			 i - start) < 0)
			return fail(err, errlen,
				    "jlbench.perf: event name too long");
		if (strcmp(p->events[p->nevents], "none") == 0)
			return fail(err, errlen,
				    "jlbench.perf: 'none' inside a list");
		for (k = 0; k < p->nevents; k++)
			if (strcmp(p->events[k], p->events[p->nevents]) == 0)
				return fail(err, errlen,
					    "jlbench.perf: event '%s' twice",
					    p->events[k]);
		p->nevents++;
		i++;
	}
	return 0;
}

enum { K_MODE, K_VARIANT, K_CLIENTS, K_SECONDS, K_PERF, K_PERTURB,
	K_TIMEOUT, K_COUNT };
static const char *const keys[K_COUNT] = {
	"mode", "variant", "clients", "seconds", "perf", "perturb", "timeout",
};

/* bad_value: the reason for a rejected jlbench.<key>=<value>. */
static int bad_value(int key, const char *v, size_t n, const char *want,
		     char *err, size_t errlen)
{
	return fail(err, errlen, "jlbench.%s: '%.*s' is not %s", keys[key],
		    (int)(n > 40 ? 40 : n), v, want);
}

/* number: the value as an integer in lo..hi. */
static int number(int key, const char *v, size_t n, unsigned long long lo,
		  unsigned long long hi, unsigned long long *x,
		  char *err, size_t errlen)
{
	char want[64];

	if (parse_uint(v, n, lo, hi, x) == 0)
		return 0;
	snprintf(want, sizeof(want), "an integer in %llu..%llu", lo, hi);
	return bad_value(key, v, n, want, err, errlen);
}

/* apply: one jlbench.<key>=<value> word. */
static int apply(int key, const char *v, size_t n, struct jlb_params *p,
		 char *err, size_t errlen)
{
	unsigned long long x;

	switch (key) {
	case K_MODE:
		if ((n == 6 && memcmp(v, "tbench", 6) == 0) ||
		    (n == 8 && memcmp(v, "selftest", 8) == 0) ||
		    (n == 5 && memcmp(v, "shell", 5) == 0))
			return copy(p->mode, sizeof(p->mode), v, n);
		return bad_value(key, v, n, "tbench, selftest or shell", err,
				 errlen);
	case K_VARIANT:
		if (!valid_variant(v, n) ||
		    copy(p->variant, sizeof(p->variant), v, n) < 0)
			return bad_value(key, v, n, "[a-z0-9-]{1,63}", err,
					 errlen);
		return 0;
	case K_CLIENTS:
		if (number(key, v, n, 1, 512, &x, err, errlen) < 0)
			return -1;
		p->clients = (unsigned int)x;
		return 0;
	case K_SECONDS:
		if (number(key, v, n, 1, 3600, &x, err, errlen) < 0)
			return -1;
		p->seconds = (unsigned int)x;
		return 0;
	case K_TIMEOUT:
		if (number(key, v, n, 0, 86400, &x, err, errlen) < 0)
			return -1;
		p->timeout = (unsigned int)x;
		return 0;
	case K_PERTURB:
		if (number(key, v, n, 0, 0xffffffffULL, &x, err, errlen) < 0)
			return -1;
		p->perturb = (uint32_t)x;
		return 0;
	case K_PERF:
		return parse_events(v, n, p, err, errlen);
	}
	return fail(err, errlen, "internal: unknown key %d", key);
}

/*
 * next_word: the next blank-separated word of the kernel command line at
 * *s and its length; advances *s. NULL at the end, and at "--", after
 * which the rest of the line is for init's argv.
 */
static const char *next_word(const char **s, size_t *len)
{
	const char *w;

	while (**s == ' ' || **s == '\t' || **s == '\n')
		(*s)++;
	w = *s;
	while (**s && **s != ' ' && **s != '\t' && **s != '\n')
		(*s)++;
	*len = (size_t)(*s - w);
	if (*len == 0 || (*len == 2 && memcmp(w, "--", 2) == 0))
		return NULL;
	return w;
}

int jlb_parse_cmdline(const char *cmdline, struct jlb_params *p,
		      char *err, size_t errlen)
{
	const char *s = cmdline, *w, *eq, *name;
	size_t wl, nl;
	int seen[K_COUNT] = { 0 };
	int k;

	memset(p, 0, sizeof(*p));
	strcpy(p->mode, "tbench");
	strcpy(p->variant, "unknown");
	strcpy(p->perf, "none");
	p->clients = 20;
	p->seconds = 30;
	p->timeout = 120;

	while ((w = next_word(&s, &wl)) != NULL) {
		if (wl < 8 || memcmp(w, "jlbench.", 8) != 0)
			continue;
		name = w + 8;
		eq = memchr(name, '=', wl - 8);
		if (!eq)
			return fail(err, errlen, "'%.*s' has no '=value'",
				    (int)(wl > 60 ? 60 : wl), w);
		nl = (size_t)(eq - name);
		for (k = 0; k < K_COUNT; k++)
			if (strlen(keys[k]) == nl && memcmp(keys[k], name, nl) == 0)
				break;
		if (k == K_COUNT)
			return fail(err, errlen, "unknown parameter 'jlbench.%.*s'",
				    (int)(nl > 40 ? 40 : nl), name);
		if (seen[k]++)
			return fail(err, errlen, "jlbench.%s given twice", keys[k]);
		if (apply(k, eq + 1, wl - 8 - nl - 1, p, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* same_modchar: module names treat '-' and '_' alike. */
static int same_modchar(char a, char b)
{
	return a == b || ((a == '-' || a == '_') && (b == '-' || b == '_'));
}

int jlb_module_options(const char *cmdline, const char *name, char *out,
		       size_t outlen, char *err, size_t errlen)
{
	const char *s = cmdline, *w;
	size_t wl, nl = strlen(name), used = 0, n, i;

	if (outlen == 0)
		return fail(err, errlen, "internal: no room for options");
	out[0] = '\0';
	while ((w = next_word(&s, &wl)) != NULL) {
		if (nl == 0 || wl <= nl + 1 || w[nl] != '.' || w[nl + 1] == '=')
			continue;
		for (i = 0; i < nl && same_modchar(w[i], name[i]); i++)
			;
		if (i < nl)
			continue;
		n = wl - nl - 1;
		if (used + (used ? 1 : 0) + n >= outlen)
			return fail(err, errlen, "options for module %.60s are "
				    "longer than %zu bytes", name, outlen - 1);
		if (used)
			out[used++] = ' ';
		memcpy(out + used, w + nl + 1, n);
		used += n;
		out[used] = '\0';
	}
	return 0;
}

void jlb_event_key(const char *event, char *key, size_t keylen)
{
	size_t i;

	if (keylen == 0)
		return;
	for (i = 0; event[i] && i + 1 < keylen; i++) {
		char c = (char)tolower((unsigned char)event[i]);

		key[i] = (isalnum((unsigned char)c) || c == '_') ? c : '_';
	}
	key[i] = '\0';
}

/* ---- tbench output ---- */

void jlb_tbench_init(struct jlb_tbench *t)
{
	memset(t, 0, sizeof(*t));
}

/* sample: parse and store one per-second line. */
static int sample(struct jlb_tbench *t, char **tok, int n, const char *line,
		  char *err, size_t errlen)
{
	unsigned long long x;
	int warm;

	if (n != 10 || strcmp(tok[3], "MB/sec") != 0 ||
	    parse_uint(tok[0], strlen(tok[0]), 0, 100000, &x) < 0 ||
	    parse_uint(tok[1], strlen(tok[1]), 0, ~0ULL, &x) < 0 ||
	    !is_number(tok[2]) ||
	    parse_uint(tok[5], strlen(tok[5]), 0, 1000000, &x) < 0 ||
	    strcmp(tok[6], "sec") != 0 || strcmp(tok[7], "latency") != 0 ||
	    !is_number(tok[8]) || strcmp(tok[9], "ms") != 0)
		return fail(err, errlen, "malformed tbench sample line '%.80s'",
			    line);
	if (t->have_result)
		return fail(err, errlen, "tbench sample after the result line");
	warm = strcmp(tok[4], "warmup") == 0;
	if (warm) {
		if (t->nsamples)
			return fail(err, errlen,
				    "tbench warmup line after execute lines");
		if (t->nwarmup == JLB_MAX_SAMPLES)
			return fail(err, errlen, "too many tbench warmup lines");
		strcpy(t->warmup[t->nwarmup++], tok[2]);
		return JLB_TB_WARMUP;
	}
	if (t->nsamples == JLB_MAX_SAMPLES)
		return fail(err, errlen, "too many tbench sample lines");
	strcpy(t->samples[t->nsamples++], tok[2]);
	t->last_sample = strtod(tok[2], NULL);
	return JLB_TB_SAMPLE;
}

/* result: "Throughput X MB/sec N clients N procs max_latency=Y ms". */
static int result(struct jlb_tbench *t, char **tok, int n, const char *line,
		  char *err, size_t errlen)
{
	unsigned long long c, p;
	const char *lat;

	if (n != 9 || strcmp(tok[0], "Throughput") != 0 || !is_number(tok[1]) ||
	    strcmp(tok[2], "MB/sec") != 0 ||
	    parse_uint(tok[3], strlen(tok[3]), 1, 100000, &c) < 0 ||
	    strcmp(tok[4], "clients") != 0 ||
	    parse_uint(tok[5], strlen(tok[5]), 1, 100000, &p) < 0 ||
	    strcmp(tok[6], "procs") != 0 ||
	    strncmp(tok[7], "max_latency=", 12) != 0 ||
	    !is_number(tok[7] + 12) || strcmp(tok[8], "ms") != 0)
		return fail(err, errlen, "malformed tbench result line '%.80s'",
			    line);
	if (t->have_result)
		return fail(err, errlen, "two tbench result lines");
	lat = tok[7] + 12;
	strcpy(t->throughput, tok[1]);
	t->throughput_val = strtod(tok[1], NULL);
	strcpy(t->max_latency, lat);
	t->clients = (unsigned int)c;
	t->procs = (unsigned int)p;
	t->have_result = 1;
	return JLB_TB_RESULT;
}

/* table_row: "Name Count AvgLat MaxLat" inside the operation table. */
static int table_row(struct jlb_tbench *t, char **tok, int n,
		     const char *line, char *err, size_t errlen)
{
	unsigned long long count;
	int i;

	if (n != 4 || parse_uint(tok[1], strlen(tok[1]), 0, ~0ULL, &count) < 0 ||
	    !is_number(tok[2]) || !is_number(tok[3]))
		return fail(err, errlen, "malformed tbench operation row '%.80s'",
			    line);
	for (i = 0; tok[0][i]; i++)
		if (!isalpha((unsigned char)tok[0][i]))
			return fail(err, errlen,
				    "malformed tbench operation row '%.80s'",
				    line);
	if (t->ops > ~0ULL - count)
		return fail(err, errlen, "tbench operation counts overflow");
	t->ops += count;
	t->op_rows++;
	return JLB_TB_TABLE;
}

int jlb_tbench_line(struct jlb_tbench *t, const char *line,
		    char *err, size_t errlen)
{
	char buf[512], *tok[MAX_TOKENS];
	int n = tokenize(line, buf, sizeof(buf), tok, MAX_TOKENS);

	if (n < 0) {
		/* Too long or too many words: only fatal inside the table. */
		if (t->in_table)
			return fail(err, errlen, "malformed tbench operation "
				    "row '%.80s'", line);
		return JLB_TB_OTHER;
	}
	if (n == 0) {
		t->in_table = 0;
		return JLB_TB_OTHER;
	}
	if (t->in_table == 1) {
		if (n != 1 || strspn(tok[0], "-") != strlen(tok[0]))
			return fail(err, errlen, "tbench operation table: "
				    "expected a rule, got '%.80s'", line);
		t->in_table = 2;
		return JLB_TB_TABLE;
	}
	if (t->in_table == 2)
		return table_row(t, tok, n, line, err, errlen);
	if (n == 4 && strcmp(tok[0], "Operation") == 0 &&
	    strcmp(tok[1], "Count") == 0) {
		if (t->op_rows)
			return fail(err, errlen, "two tbench operation tables");
		t->in_table = 1;
		return JLB_TB_TABLE;
	}
	if (strcmp(tok[0], "Throughput") == 0)
		return result(t, tok, n, line, err, errlen);
	if (n >= 5 && (strcmp(tok[4], "execute") == 0 ||
		       strcmp(tok[4], "warmup") == 0) &&
	    strcmp(tok[3], "MB/sec") == 0)
		return sample(t, tok, n, line, err, errlen);
	if (n >= 2 && strcmp(tok[1], "cleanup") == 0)
		return JLB_TB_CLEANUP;
	if (n >= 4 && strcmp(tok[0], "client") == 0 &&
	    strcmp(tok[2], "failed") == 0) {
		t->client_failed = 1;
		return JLB_TB_FAILED;
	}
	return JLB_TB_OTHER;
}

int jlb_tbench_finish(const struct jlb_tbench *t, unsigned int clients,
		      char *err, size_t errlen)
{
	if (t->client_failed)
		return fail(err, errlen, "a tbench client failed to start");
	if (t->in_table == 1)
		return fail(err, errlen, "tbench output ends inside the "
			    "operation table header");
	if (t->op_rows == 0)
		return fail(err, errlen, "tbench printed no operation table "
			    "(output truncated?)");
	if (!t->have_result)
		return fail(err, errlen, "tbench printed no Throughput line "
			    "(output truncated?)");
	if (t->clients != clients)
		return fail(err, errlen, "tbench ran %u clients, %u requested",
			    t->clients, clients);
	if (!(t->throughput_val > 0))
		return fail(err, errlen, "tbench throughput is %s MB/s",
			    t->throughput);
	return 0;
}

/* ---- perf stat -x, ---- */

/* perf_line: one CSV line "value,unit,event,runtime,pct,..." */
static int perf_line(const char *line, size_t len, const struct jlb_params *p,
		     struct jlb_perf_value *out, char *err, size_t errlen)
{
	char buf[512], *f[3], *s;
	unsigned int i, nf = 0;
	const char *v;

	if (copy(buf, sizeof(buf), line, len) < 0)
		return fail(err, errlen, "perf: line too long");
	f[nf++] = buf;
	for (s = buf; *s && nf < 3; s++)
		if (*s == ',') {
			*s = '\0';
			f[nf++] = s + 1;
		}
	if (nf < 3)
		return fail(err, errlen, "perf: malformed line '%.80s'", line);
	s = strchr(f[2], ',');
	if (!s)
		return fail(err, errlen, "perf: malformed line '%.80s'", line);
	*s = '\0';
	if (strcmp(f[0], "<not supported>") == 0)
		v = "not-supported";
	else if (strcmp(f[0], "<not counted>") == 0)
		v = "not-counted";
	else if (is_number(f[0]))
		v = f[0];
	else
		return fail(err, errlen, "perf: bad value '%.40s' for '%.40s'",
			    f[0], f[2]);
	for (i = 0; i < p->nevents; i++) {
		if (strcmp(p->events[i], f[2]) != 0)
			continue;
		if (out[i].found)
			return fail(err, errlen, "perf: event '%s' twice",
				    f[2]);
		out[i].found = 1;
		strcpy(out[i].value, v);
		return 0;
	}
	return fail(err, errlen, "perf: unrequested event '%.60s'", f[2]);
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
			return fail(err, errlen, "perf: output truncated in "
				    "'%.60s'", s);
		if (e > s && *s != '#' &&
		    perf_line(s, (size_t)(e - s), p, out, err, errlen) < 0)
			return -1;
		s = e + 1;
	}
	for (i = 0; i < p->nevents; i++)
		if (!out[i].found)
			return fail(err, errlen, "perf: no figure for event '%s'",
				    p->events[i]);
	return 0;
}

/* ---- /proc/stat ---- */

int jlb_parse_stat(const char *text, struct jlb_cpustat *s,
		   char *err, size_t errlen)
{
	const char *p = text, *start;
	unsigned long long v;
	int i;

	while (*p && strncmp(p, "cpu ", 4) != 0) {
		p = strchr(p, '\n');
		if (!p)
			return fail(err, errlen, "/proc/stat has no cpu line");
		p++;
	}
	if (!*p)
		return fail(err, errlen, "/proc/stat has no cpu line");
	p += 4;
	for (i = 0; i < JLB_STAT_FIELDS; i++) {
		while (*p == ' ')
			p++;
		start = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (parse_uint(start, (size_t)(p - start), 0, ~0ULL, &v) < 0 ||
		    (*p != ' ' && *p != '\n'))
			return fail(err, errlen, "/proc/stat: cpu line field "
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
			return fail(err, errlen, "/proc/stat %s went backwards",
				    jlb_stat_names[i]);
		d->v[i] = b->v[i] - a->v[i];
	}
	return 0;
}

/* ---- /dev/kmsg and self-test figures ---- */

int jlb_parse_kmsg(const char *rec, size_t len, struct jlb_kmsg *k)
{
	unsigned long long pri, seq;
	const char *semi = memchr(rec, ';', len), *c1, *c2, *nl;

	if (!semi)
		return -1;
	c1 = memchr(rec, ',', (size_t)(semi - rec));
	if (!c1)
		return -1;
	c2 = memchr(c1 + 1, ',', (size_t)(semi - c1 - 1));
	if (!c2 || parse_uint(rec, (size_t)(c1 - rec), 0, 1u << 20, &pri) < 0 ||
	    parse_uint(c1 + 1, (size_t)(c2 - c1 - 1), 0, ~0ULL, &seq) < 0)
		return -1;
	k->level = (int)(pri & 7);
	k->seq = seq;
	k->text = semi + 1;
	nl = memchr(k->text, '\n', len - (size_t)(k->text - rec));
	k->textlen = nl ? (size_t)(nl - k->text) : len - (size_t)(k->text - rec);
	return 0;
}

int jlb_figure(const char *text, size_t len, const char *prefix,
	       char *key, size_t keylen, char *value, size_t valuelen)
{
	size_t pl = strlen(prefix), i, kl;
	const char *s, *eq;

	if (len <= pl || memcmp(text, prefix, pl) != 0)
		return 0;
	s = text + pl;
	len -= pl;
	eq = memchr(s, '=', len);
	if (!eq || eq == s)
		return 0;
	kl = (size_t)(eq - s);
	for (i = 0; i < kl; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-' && s[i] != '.')
			return 0;
	if (kl >= keylen || len - kl - 1 == 0 ||
	    memchr(eq + 1, '\n', len - kl - 1) ||
	    copy(value, valuelen, eq + 1, len - kl - 1) < 0)
		return 0;
	for (i = 0; i < kl; i++) {
		char c = (char)tolower((unsigned char)s[i]);

		key[i] = (isalnum((unsigned char)c) || c == '_') ? c : '_';
	}
	key[kl] = '\0';
	return 1;
}

/* ---- perturbation ---- */

uint64_t jlb_perturb_loops(uint32_t seed)
{
	/* splitmix64: consecutive seeds give unrelated spin lengths. */
	uint64_t z = (uint64_t)seed + 0x9e3779b97f4a7c15ULL;

	if (seed == 0)
		return 0;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return 1 + (z & ((1u << 20) - 1));
}
