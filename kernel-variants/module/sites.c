// SPDX-License-Identifier: GPL-2.0
/*
 * The jump label sites of jlb_key in this module's own jump table, and
 * what their bytes hold (built on jump-label kernels only). The bytes of
 * one site are decoded in site_x86.c or site_s390.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>

#include "jlbench_static_key.h"

/* jlb_find_sites: the module's own jump entries that belong to jlb_key. */
int jlb_find_sites(struct jlb_site *sites)
{
	struct jump_entry *e = THIS_MODULE->jump_entries;
	unsigned int i;
	int n = 0;

	for (i = 0; i < THIS_MODULE->num_jump_entries; i++) {
		if (jump_entry_key(&e[i]) != &jlb_key.key.key)
			continue;
		if (n == JLB_MAX_SITES)
			return -1;
		sites[n].entry = &e[i];
		sites[n].len = 0;
		n++;
	}
	return n;
}

/* jlb_site_copy: the bytes of site @s (at most JLB_SITE_MAX_LEN) into @buf. */
void jlb_site_copy(const struct jlb_site *s, u8 *buf)
{
	memcpy(buf, (const void *)jump_entry_code(s->entry),
	       min(s->len, JLB_SITE_MAX_LEN));
}

/* jlb_sites_are: every site holds a NOP (@jmp false) or a JMP (@jmp true). */
bool jlb_sites_are(struct jlb_site *sites, int n, bool jmp)
{
	bool ok = true;
	int i;

	for (i = 0; i < n; i++)
		ok &= jmp ? jlb_site_is_jmp(&sites[i]) : jlb_site_is_nop(&sites[i]);
	return ok;
}

/* jlb_in_sites: text address @addr lies in one of the @n sites. */
bool jlb_in_sites(unsigned long addr, const struct jlb_site *sites, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned long code = jump_entry_code(sites[i].entry);

		if (addr >= code && addr < code + sites[i].len)
			return true;
	}
	return false;
}
