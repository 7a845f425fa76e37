/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsg.h: records of /dev/kmsg and the key=value figure lines that
 * self-test modules print.
 */
#ifndef JLB_KMSG_H
#define JLB_KMSG_H

#include <stddef.h>

#include "parse.h"

/* One /dev/kmsg record "pri,seq,ts,flags;text\n[ continuation]". */
struct jlb_kmsg {
	int level;			/* 0 (emerg) .. 7 (debug) */
	unsigned long long seq;
	const char *text;		/* points into the record */
	size_t textlen;			/* up to the first newline */
};
/* 0, or -1 when rec is not such a record. */
int jlb_parse_kmsg(const char *rec, size_t len, struct jlb_kmsg *k);

/* A "<prefix>key=value" figure line of a self-test module. Returns 1 and
 * fills key (sanitised to [a-z0-9_]) and value (up to end of text, no
 * newline), 0 when the text is not such a line. */
int jlb_figure(const char *text, size_t len, const char *prefix,
	       char *key, size_t keylen, char *value, size_t valuelen);

#endif
