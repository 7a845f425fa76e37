/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the jlbench_static_key module share:
 *
 *	main.c		parameters, init, the PASS/FAIL lines
 *	keys.c		the key under test and the checks of its count
 *	patching.c	the text_patching and site_bytes checks
 *	sites.c		the key's jump label sites (jump-label kernels)
 *	site_x86.c	x86 site bytes: a 2- or 5-byte NOP or JMP
 *	site_s390.c	s390 site bytes: brcl with condition mask 0 or 15
 *	bench.c		the microbenchmark and its count runs
 *	regions.h	the region markers of the count runs
 */
#ifndef _JLBENCH_STATIC_KEY_H
#define _JLBENCH_STATIC_KEY_H

#include <linux/types.h>

#include "jump_label_2011.h"

#if !defined(CONFIG_X86) && !defined(CONFIG_S390)
#error "jlbench_static_key decodes x86 and s390 jump label sites only"
#endif

/* main.c: count a check and print "<check>=PASS" or "<check>=FAIL". */
void jlb_report(const char *check, bool ok);

/* keys.c: the key under test, and its one check site. */
extern struct jump_label_key jlb_key;
bool jlb_taken(void);
bool jlb_expect(const char *check, int count);
void jlb_check_default_off(bool invert);
void jlb_check_inc_inc_dec(void);
void jlb_check_dec_disables(void);
void jlb_check_enabled_follows_count(void);
void jlb_check_concurrent(unsigned int threads, unsigned int rounds);

/* patching.c */
void jlb_check_code_patching(void);

/*
 * A jump label site of jlb_key. Without jump labels a key has no sites in
 * the jump table, and the functions below find none.
 */
#define JLB_MAX_SITES 8
#define JLB_SITE_MAX_LEN 8

struct jlb_site {
	struct jump_entry *entry;
	int len;		/* x86: 2 or 5, from the NOP; s390: 6 */
};

#ifdef CONFIG_JUMP_LABEL
/* sites.c */
int jlb_find_sites(struct jlb_site *sites);
bool jlb_sites_are(struct jlb_site *sites, int n, bool jmp);
void jlb_site_copy(const struct jlb_site *s, u8 *buf);
bool jlb_in_sites(unsigned long addr, const struct jlb_site *sites, int n);

/*
 * site_x86.c or site_s390.c: the site holds the disabled (NOP) or the
 * enabled (JMP) form of its jump; each notes the site's length.
 */
bool jlb_site_is_nop(struct jlb_site *s);
bool jlb_site_is_jmp(struct jlb_site *s);
#else
static inline int jlb_find_sites(struct jlb_site *sites)
{
	return 0;
}

static inline bool jlb_sites_are(struct jlb_site *sites, int n, bool jmp)
{
	return true;
}

static inline void jlb_site_copy(const struct jlb_site *s, u8 *buf)
{
}

static inline bool jlb_in_sites(unsigned long addr,
				const struct jlb_site *sites, int n)
{
	return false;
}
#endif

/* bench.c */
void jlb_bench(unsigned long iters, unsigned int reps,
	       unsigned long count_iters, unsigned int stride_big_kib,
	       unsigned int stride_fit_kib);

#endif /* _JLBENCH_STATIC_KEY_H */
