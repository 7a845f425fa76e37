// SPDX-License-Identifier: GPL-2.0
/*
 * cmdline.c: the kernel command line: the jlbench.* parameters and the
 * options of a loadable module. See cmdline.h.
 */
#include "cmdline.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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

	if (jlb_copy(p->perf, sizeof(p->perf), v, n) < 0)
		return jlb_fail(err, errlen, "jlbench.perf is too long");
	p->nevents = 0;
	if (n == 4 && memcmp(v, "none", 4) == 0)
		return 0;
	while (i <= n) {
		start = i;
		while (i < n && v[i] != ',')
			i++;
		if (i == start)
			return jlb_fail(err, errlen,
					"jlbench.perf: empty event name in '%s'",
					p->perf);
		for (k = start; k < i; k++)
			if (!valid_event_char(v[k]))
				return jlb_fail(err, errlen,
						"jlbench.perf: bad character in '%s'",
						p->perf);
		if (p->nevents == JLB_MAX_EVENTS)
			return jlb_fail(err, errlen,
					"jlbench.perf: more than %d events",
					JLB_MAX_EVENTS);
		if (jlb_copy(p->events[p->nevents], JLB_EVENT_LEN, v + start,
			     i - start) < 0)
			return jlb_fail(err, errlen,
					"jlbench.perf: event name too long");
		if (strcmp(p->events[p->nevents], "none") == 0)
			return jlb_fail(err, errlen,
					"jlbench.perf: 'none' inside a list");
		for (k = 0; k < p->nevents; k++)
			if (strcmp(p->events[k], p->events[p->nevents]) == 0)
				return jlb_fail(err, errlen,
						"jlbench.perf: event '%s' twice",
						p->events[k]);
		p->nevents++;
		i++;
	}
	return 0;
}

enum { K_MODE, K_VARIANT, K_CLIENTS, K_SECONDS, K_PERF, K_PERTURB,
	K_TIMEOUT, K_ENVPAD, K_LOOPS, K_WORKLOAD, K_RUN, K_OPS, K_COUNT };
static const char *const keys[K_COUNT] = {
	"mode", "variant", "clients", "seconds", "perf", "perturb", "timeout",
	"envpad", "loops", "workload", "run", "ops",
};

/* parse_run: jlbench.run, the command as a comma list of words, the first
 * an absolute path. */
static int parse_run(const char *v, size_t n, struct jlb_params *p,
		     char *err, size_t errlen)
{
	char *w;

	if (jlb_copy(p->cmd, sizeof(p->cmd), v, n) < 0)
		return jlb_fail(err, errlen, "jlbench.run is longer than %d "
				"bytes", JLB_CMD_LEN - 1);
	if (p->cmd[0] != '/')
		return jlb_fail(err, errlen, "jlbench.run: '%.40s' does not "
				"start with an absolute path", p->cmd);
	p->nargs = 0;
	for (w = p->cmd; w; ) {
		char *comma = strchr(w, ',');

		if (comma)
			*comma = '\0';
		if (!*w)
			return jlb_fail(err, errlen, "jlbench.run: an empty word");
		if (p->nargs == JLB_MAX_ARGS)
			return jlb_fail(err, errlen, "jlbench.run: more than %d "
					"words", JLB_MAX_ARGS);
		p->argv[p->nargs++] = w;
		w = comma ? comma + 1 : NULL;
	}
	p->argv[p->nargs] = NULL;
	return 0;
}

/* bad_value: the reason for a rejected jlbench.<key>=<value>. */
static int bad_value(int key, const char *v, size_t n, const char *want,
		     char *err, size_t errlen)
{
	return jlb_fail(err, errlen, "jlbench.%s: '%.*s' is not %s", keys[key],
			(int)(n > 40 ? 40 : n), v, want);
}

/* number: the value as an integer in lo..hi. */
static int number(int key, const char *v, size_t n, unsigned long long lo,
		  unsigned long long hi, unsigned long long *x,
		  char *err, size_t errlen)
{
	char want[64];

	if (jlb_parse_uint(v, n, lo, hi, x) == 0)
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
		    (n == 4 && memcmp(v, "pipe", 4) == 0) ||
		    (n == 3 && memcmp(v, "run", 3) == 0) ||
		    (n == 8 && memcmp(v, "selftest", 8) == 0) ||
		    (n == 5 && memcmp(v, "shell", 5) == 0))
			return jlb_copy(p->mode, sizeof(p->mode), v, n);
		return bad_value(key, v, n, "tbench, pipe, run, selftest or shell",
				 err, errlen);
	case K_VARIANT:
		if (!valid_variant(v, n) ||
		    jlb_copy(p->variant, sizeof(p->variant), v, n) < 0)
			return bad_value(key, v, n, "[a-z0-9-]{1,63}", err,
					 errlen);
		return 0;
	case K_WORKLOAD:
		if (!valid_variant(v, n) ||
		    jlb_copy(p->workload, sizeof(p->workload), v, n) < 0)
			return bad_value(key, v, n, "[a-z0-9-]{1,63}", err,
					 errlen);
		return 0;
	case K_RUN:
		return parse_run(v, n, p, err, errlen);
	case K_OPS:
		return number(key, v, n, 1, 1ULL << 62, &p->ops, err, errlen);
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
	case K_ENVPAD:
		if (number(key, v, n, 0, JLB_MAX_ENVPAD, &x, err, errlen) < 0)
			return -1;
		p->envpad = (unsigned int)x;
		return 0;
	case K_LOOPS:
		if (number(key, v, n, 1, JLB_MAX_LOOPS, &x, err, errlen) < 0)
			return -1;
		p->loops = (unsigned int)x;
		return 0;
	case K_PERF:
		return parse_events(v, n, p, err, errlen);
	}
	return jlb_fail(err, errlen, "internal: unknown key %d", key);
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
	strcpy(p->workload, "unknown");
	strcpy(p->perf, "none");
	p->clients = 20;
	p->seconds = 30;
	p->timeout = 120;
	p->loops = JLB_DEFAULT_LOOPS;

	while ((w = next_word(&s, &wl)) != NULL) {
		if (wl < 8 || memcmp(w, "jlbench.", 8) != 0)
			continue;
		name = w + 8;
		eq = memchr(name, '=', wl - 8);
		if (!eq)
			return jlb_fail(err, errlen, "'%.*s' has no '=value'",
					(int)(wl > 60 ? 60 : wl), w);
		nl = (size_t)(eq - name);
		for (k = 0; k < K_COUNT; k++)
			if (strlen(keys[k]) == nl && memcmp(keys[k], name, nl) == 0)
				break;
		if (k == K_COUNT)
			return jlb_fail(err, errlen, "unknown parameter 'jlbench.%.*s'",
					(int)(nl > 40 ? 40 : nl), name);
		if (seen[k]++)
			return jlb_fail(err, errlen, "jlbench.%s given twice", keys[k]);
		if (apply(k, eq + 1, wl - 8 - nl - 1, p, err, errlen) < 0)
			return -1;
	}
	if (strcmp(p->mode, "run") == 0 &&
	    (!seen[K_RUN] || !seen[K_OPS] || !seen[K_WORKLOAD]))
		return jlb_fail(err, errlen, "jlbench.mode=run needs "
				"jlbench.workload, jlbench.run and jlbench.ops");
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
		return jlb_fail(err, errlen, "internal: no room for options");
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
			return jlb_fail(err, errlen, "options for module %.60s are "
					"longer than %zu bytes", name, outlen - 1);
		if (used)
			out[used++] = ' ';
		memcpy(out + used, w + nl + 1, n);
		used += n;
		out[used] = '\0';
	}
	return 0;
}
