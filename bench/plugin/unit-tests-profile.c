// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-tests-profile.c: known answers of the per-function profile
 * (profile.c): the symbol file, the bucket of an address, the window
 * snapshots and the report. Run by unit-tests.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "unit-tests.h"

#define SYMS "ffffffff81000000 _stext\n" \
	"ffffffff81000100 tcp_sendmsg\n" \
	"ffffffff81000180 tcp_recvmsg\n" \
	"ffffffff81000200 _etext\n"

/* load() - a profile on, with the symbol text given. */
static int load(struct profile *p, const char *text, char *err, size_t n)
{
	char *buf = strdup(text);

	memset(p, 0, sizeof(*p));
	p->on = 1;
	return profile_symbols_parse(p, buf, strlen(buf), err, n);
}

static void test_symbols(void)
{
	struct profile p;
	char err[256];

	check(load(&p, SYMS, err, sizeof(err)) == 0 && p.nfuncs == 3 &&
	      p.end == 0xffffffff81000200ULL,
	      "profile: 3 functions and the end line");
	check(profile_bucket(&p, 0xffffffff81000100ULL, 1) == &p.funcs[1] &&
	      profile_bucket(&p, 0xffffffff8100017fULL, 1) == &p.funcs[1],
	      "profile: a function runs from its start to the next one's");
	check(profile_bucket(&p, 0xffffffff81000000ULL, 1) == &p.funcs[0] &&
	      profile_bucket(&p, 0xffffffff810001ffULL, 1) == &p.funcs[2],
	      "profile: the first and the last byte of the text");
	check(!strcmp(profile_bucket(&p, 0xffffffff81000200ULL, 1)->name,
		      "[kernel]") && p.npages == 1 &&
	      p.pages[0]->start == 0xffffffff81000000ULL,
	      "profile: _etext and beyond is a [kernel] page");
	check(profile_bucket(&p, 0x555555554123ULL, 0) ==
	      profile_bucket(&p, 0x555555554ffeULL, 0) && p.npages == 2 &&
	      !strcmp(p.pages[1]->name, "[user]"),
	      "profile: user code is counted per 4 KiB page");
	profile_free(&p);

	check(load(&p, "ffffffff81000000 a\nffffffff81000000 b\n", err,
		   sizeof(err)) != 0 && strstr(err, "line 2"),
	      "profile: symbols not in address order are an error naming the line");
	profile_free(&p);
	check(load(&p, "ffffffff81000000 a b\n", err, sizeof(err)) != 0 &&
	      strstr(err, "line 1"),
	      "profile: a name with a space is an error");
	profile_free(&p);
	check(load(&p, "ffffffff81000000 _stext\n", err, sizeof(err)) != 0,
	      "profile: a file without an end line is an error");
	profile_free(&p);
}

static void test_pages_grow(void)
{
	struct profile p;
	char err[256];
	uint64_t i;
	int same = 1;

	load(&p, SYMS, err, sizeof(err));
	for (i = 0; i < 5000; i++)
		profile_bucket(&p, 0x400000 + (i << 12), 0)->live[PROF_INSNS] = i;
	for (i = 0; i < 5000; i++)
		same &= profile_bucket(&p, 0x400000 + (i << 12) + 7, 0)
			->live[PROF_INSNS] == i;
	check(same && p.npages == 5000,
	      "profile: 5000 pages keep their buckets as the table grows");
	profile_free(&p);
}

/* window_report() - two windows, and what is outside them. */
static void test_window(void)
{
	struct profile p;
	struct prof_bucket *send, *user;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	load(&p, SYMS, err, sizeof(err));
	send = profile_bucket(&p, 0xffffffff81000110ULL, 1);
	send->live[PROF_INSNS] = 100;		/* before the window */
	profile_window_start(&p);
	send->live[PROF_INSNS] += 40;
	send->live[PROF_SITE_EXECS] += 3;
	user = profile_bucket(&p, 0x7f0000001000ULL, 0);	/* new inside */
	user->live[PROF_INSNS] += 7;
	profile_window_end(&p);
	send->live[PROF_INSNS] += 1000;		/* between the windows */
	profile_window_start(&p);
	send->live[PROF_INSNS] += 2;
	profile_window_end(&p);
	check(send->win[PROF_INSNS] == 42 && send->win[PROF_SITE_EXECS] == 3 &&
	      user->win[PROF_INSNS] == 7,
	      "profile: windows add up, what lies outside them does not count");

	f = open_memstream(&buf, &len);
	profile_write(&p, f, 2, PROF_COLS_COUNTING);
	fclose(f);
	check(!strcmp(buf, "format=1\nwindow=1\nwindows=2\n"
		      "columns=insns,site_execs\nfunctions=3\n"
		      "7f0000001000 [user] 7 0\n"
		      "ffffffff81000100 tcp_sendmsg 42 3\n"),
	      "profile: the report has the non-zero buckets in address order");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	profile_write(&p, f, 0, PROF_COLS);
	fclose(f);
	check(strstr(buf, "window=0\n") && strstr(buf,
		      "columns=insns,site_execs,mispredicts,l1i_misses,l1d_misses\n") &&
	      !strstr(buf, "tcp_sendmsg"),
	      "profile: without a closed window there are no rows");
	free(buf);
	profile_free(&p);
}

static void test_off(void)
{
	struct profile p;

	memset(&p, 0, sizeof(p));
	check(profile_bucket(&p, 0xffffffff81000110ULL, 1) == &p.sink[1] &&
	      profile_bucket(&p, 0x1000, 0) == &p.sink[0] && p.sink[1].kernel &&
	      p.npages == 0,
	      "profile: off, every address goes to its mode's sink");
}

void test_profile(void)
{
	test_symbols();
	test_pages_grow();
	test_window();
	test_off();
}
