/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sites.h: a set of code address ranges, read from a text file, with a fast
 * membership test. No QEMU dependency (unit-tested on its own).
 *
 * File format, one entry per line, hex with or without 0x:
 *   ADDR          the instruction that starts at ADDR
 *   START-END     every instruction that starts in [START, END)
 * Blank lines and text after '#' are ignored.
 */
#ifndef JLBENCH_SITES_H
#define JLBENCH_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct site_range {
	uint64_t start;
	uint64_t end;	/* exclusive */
};

struct sites {
	struct site_range *r;	/* sorted, non-overlapping, merged */
	size_t n;
	size_t entries;		/* lines read from the file */
};

/*
 * sites_parse() - parse the text buf[0..len) into s (sorted and merged).
 * Returns 0, or -1 with a message in err (size errlen) naming the line.
 */
int sites_parse(struct sites *s, const char *buf, size_t len,
		char *err, size_t errlen);

/* sites_load() - sites_parse() the file at path. */
int sites_load(struct sites *s, const char *path, char *err, size_t errlen);

/* sites_contains() - true if addr lies in one of the ranges. */
bool sites_contains(const struct sites *s, uint64_t addr);

/*
 * sites_overlaps() - true if some byte of [start, start + len) lies in one
 * of the ranges (len >= 1; a range reaching past 2^64 is cut there).
 */
bool sites_overlaps(const struct sites *s, uint64_t start, uint64_t len);

/* sites_free() - release the ranges. */
void sites_free(struct sites *s);

#endif
