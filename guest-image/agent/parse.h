/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h: what the agent's parsers share (no system calls, no global
 * state, so test_parse runs them on the host).
 *
 * Each parser has a file of its own: cmdline.c (the kernel command line),
 * tbench.c (tbench's output), perf.c (perf stat -x, output), cpustat.c
 * (/proc/stat's cpu line), kmsg.c (/dev/kmsg records and self-test
 * figures); perturb.c holds the perturbation spin. Every parser rejects
 * malformed input with a one-line reason in an err buffer of errlen bytes.
 */
#ifndef JLB_PARSE_H
#define JLB_PARSE_H

#include <stddef.h>

#define JLB_ERR_LEN 256		/* size of a reason buffer */
#define JLB_NUM_LEN 24		/* longest figure as printed, with its NUL */

/* Write a reason into err and return -1. */
int jlb_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Bounded copy of n bytes of src with a NUL; -1 when it does not fit. */
int jlb_copy(char *dst, size_t dstlen, const char *src, size_t n);

/* Split a copy of line (in buf) at blanks into at most max words; the
 * word count, or -1 when the line is too long or has more words. */
int jlb_words(const char *line, char *buf, size_t buflen, char **w, int max);

/* A plain decimal in [lo, hi] spanning all of s[0..n); 0 or -1. */
int jlb_parse_uint(const char *s, size_t n, unsigned long long lo,
		   unsigned long long hi, unsigned long long *out);

/* [0-9]+ or [0-9]+.[0-9]+ shorter than JLB_NUM_LEN (how tbench and perf
 * print figures): 1, else 0. */
int jlb_is_number(const char *s);

/* The n bytes of s as key characters into key, with a NUL: lower case,
 * and '_' for anything outside [a-z0-9_]. key has room for n + 1. */
void jlb_key_chars(char *key, const char *s, size_t n);

#endif
