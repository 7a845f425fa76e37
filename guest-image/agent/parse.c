// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c: the helpers every parser of the agent uses. See parse.h.
 */
#include "parse.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int jlb_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int jlb_copy(char *dst, size_t dstlen, const char *src, size_t n)
{
	if (n >= dstlen)
		return -1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

int jlb_words(const char *line, char *buf, size_t buflen, char **w, int max)
{
	int n = 0;
	char *s;

	if (jlb_copy(buf, buflen, line, strlen(line)) < 0)
		return -1;
	for (s = buf; *s;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return -1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
	}
	return n;
}

int jlb_parse_uint(const char *s, size_t n, unsigned long long lo,
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

int jlb_is_number(const char *s)
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

void jlb_key_chars(char *key, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)s[i]);

		key[i] = (isalnum((unsigned char)c) || c == '_') ? c : '_';
	}
	key[n] = '\0';
}
