/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.h: the per-function profile of the branches plugin (profile=,
 * symbols=): executed instructions, static-key site executions and the
 * model's events, per function of the kernel's symbol file, or per 4 KiB
 * page for code the file does not cover (user space; kernel code outside
 * the file, e.g. modules). No QEMU dependency (unit-tested on its own).
 *
 * Each bucket has running counters that the translated code (inline adds)
 * and the model's callbacks add to, like struct counters; the window
 * figures are differences of snapshots taken at the window's markers, so
 * the profile covers exactly what the window's counters cover.
 *
 * Symbol file: one "<hex start> <name>" line per function in address
 * order, the last line the end of the last function (e.g. _etext); a
 * function runs from its start to the next line's. lib/format/profile.py
 * writes it from a vmlinux and reads the profile this writes.
 */
#ifndef JLBENCH_PROFILE_H
#define JLBENCH_PROFILE_H

#include <stdint.h>
#include <stdio.h>

enum prof_col {
	PROF_INSNS,
	PROF_SITE_EXECS,
	PROF_MISPREDICTS,	/* model=on only, like the three below */
	PROF_L1I_MISSES,
	PROF_L1D_MISSES,
	PROF_COLS
};

#define PROF_COLS_COUNTING 2	/* columns without the model */
#define PROF_PAGE_SHIFT 12

struct prof_bucket {
	uint64_t live[PROF_COLS];	/* running counts */
	uint64_t at_start[PROF_COLS];	/* live when the open window began */
	uint64_t win[PROF_COLS];	/* sum over closed windows */
	uint64_t start;			/* function start, or page address */
	const char *name;		/* symbol, "[kernel]" or "[user]" */
	struct prof_bucket *next;	/* page hash chain */
	uint8_t kernel;			/* code at a kernel address */
};

struct profile {
	int on;				/* profile= given */
	size_t nfuncs;
	uint64_t end;			/* end of the last function */
	struct prof_bucket *funcs;	/* nfuncs, in address order */
	char *names;			/* the symbol file's text */
	struct prof_bucket **hash;	/* pages, by address */
	size_t hash_size;
	struct prof_bucket **pages;	/* every page bucket */
	size_t npages, pages_cap;
	struct prof_bucket sink[2];	/* profile off: per mode, never written */
};

/*
 * profile_symbols_parse() - take the symbol file's text buf (len bytes
 * and a NUL at buf[len]; allocated with malloc, its ownership passes to
 * p) as p's functions. 0, or -1 with a message in
 * err naming the line.
 */
int profile_symbols_parse(struct profile *p, char *buf, size_t len,
			  char *err, size_t errlen);

/* profile_symbols_load() - profile_symbols_parse() the file at path. */
int profile_symbols_load(struct profile *p, const char *path,
			 char *err, size_t errlen);

/*
 * profile_bucket() - the bucket of the instruction at addr (kernel: a
 * kernel address), created if new; with the profile off, p->sink[kernel].
 * Never NULL (aborts when out of memory); a bucket never moves, so
 * translated code may add to its counters.
 */
struct prof_bucket *profile_bucket(struct profile *p, uint64_t addr,
				   int kernel);

/* profile_window_start(), profile_window_end() - at the window markers. */
void profile_window_start(struct profile *p);
void profile_window_end(struct profile *p);

/*
 * profile_write() - the report: header lines, then one row per bucket
 * with a non-zero window figure, in address order, with ncols columns
 * (PROF_COLS_COUNTING, or PROF_COLS with the model). No rows unless
 * windows > 0. 0, or -1 when out of memory.
 */
int profile_write(const struct profile *p, FILE *f, uint64_t windows,
		  int ncols);

void profile_free(struct profile *p);

#endif
