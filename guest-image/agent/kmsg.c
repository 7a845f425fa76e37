// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg.c: /dev/kmsg records and self-test figure lines. See kmsg.h.
 */
#include "kmsg.h"

#include <ctype.h>
#include <string.h>

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
	if (!c2 || jlb_parse_uint(rec, (size_t)(c1 - rec), 0, 1u << 20, &pri) < 0 ||
	    jlb_parse_uint(c1 + 1, (size_t)(c2 - c1 - 1), 0, ~0ULL, &seq) < 0)
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
	    jlb_copy(value, valuelen, eq + 1, len - kl - 1) < 0)
		return 0;
	jlb_key_chars(key, s, kl);
	return 1;
}
