// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the code that enabling jlb_key patches: text_patching
 * (only the key's sites change, and only with jump labels) and site_bytes
 * (jump-label kernels: each site holds the expected NOP while the key is
 * disabled and the expected JMP while it is enabled; sites.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "jlbench_static_key.h"

/*
 * The module's core text. Linux 6.4 split struct module's layouts into
 * mem[] by type (and added for_each_mod_mem_type() with it); before, the
 * text began core_layout.
 */
#ifdef for_each_mod_mem_type
#define jlb_text_base()	((const u8 *)THIS_MODULE->mem[MOD_TEXT].base)
#define jlb_text_size()	(THIS_MODULE->mem[MOD_TEXT].size)
#else
#define jlb_text_base()	((const u8 *)THIS_MODULE->core_layout.base)
#define jlb_text_size()	(THIS_MODULE->core_layout.text_size)
#endif

/*
 * text_diff: bytes of the module's core text that differ from @snap, and in
 * @outside those of them that are not in one of the key's @nsites sites.
 */
static unsigned int text_diff(const u8 *snap, const struct jlb_site *sites,
			      int nsites, unsigned int *outside)
{
	const u8 *text = jlb_text_base();
	unsigned int i, n = 0;

	*outside = 0;
	for (i = 0; i < jlb_text_size(); i++) {
		if (text[i] == snap[i])
			continue;
		n++;
		if (!jlb_in_sites((unsigned long)&text[i], sites, nsites))
			(*outside)++;
	}
	return n;
}

/*
 * jlb_check_code_patching: enable and disable jlb_key once, comparing the
 * module's text with a snapshot taken while it was off. With jump labels,
 * the key's sites and nothing else change, NOP -> JMP and back (site_bytes,
 * text_patching); without, no byte of text may change (text_patching).
 */
void jlb_check_code_patching(void)
{
	struct jlb_site sites[JLB_MAX_SITES] = {};
	u8 site_off[JLB_SITE_MAX_LEN] = {}, site_on[JLB_SITE_MAX_LEN] = {};
	unsigned int size = jlb_text_size();
	unsigned int on_diff, on_out, off_diff, off_out;
	bool bytes_ok = true, text_ok;
	int nsites = 0;
	u8 *snap;

	if (IS_ENABLED(CONFIG_JUMP_LABEL)) {
		nsites = jlb_find_sites(sites);
		if (nsites <= 0) {
			pr_info("site_bytes: %s jump entries of the key in the module\n",
				nsites < 0 ? "too many" : "no");
			jlb_report("site_bytes", false);
			jlb_report("text_patching", false);
			return;
		}
	}
	bytes_ok &= jlb_sites_are(sites, nsites, false);
	jlb_site_copy(&sites[0], site_off);
	snap = vmalloc(size);
	if (!snap) {
		jlb_report("text_patching", false);
		return;
	}
	memcpy(snap, jlb_text_base(), size);

	jump_label_inc(&jlb_key);
	text_ok = jlb_expect("text_patching", 1);
	on_diff = text_diff(snap, sites, nsites, &on_out);
	bytes_ok &= jlb_sites_are(sites, nsites, true);
	jlb_site_copy(&sites[0], site_on);
	jump_label_dec(&jlb_key);
	text_ok &= jlb_expect("text_patching", 0);
	off_diff = text_diff(snap, sites, nsites, &off_out);
	bytes_ok &= jlb_sites_are(sites, nsites, false);
	vfree(snap);

	if (IS_ENABLED(CONFIG_JUMP_LABEL))
		text_ok &= on_diff > 0 && on_out == 0 && off_diff == 0;
	else
		text_ok &= on_diff == 0 && off_diff == 0;
	if (!text_ok)
		pr_info("text_patching: %u bytes changed when enabled (%u outside the key's sites), %u still changed when disabled again\n",
			on_diff, on_out, off_diff);
	pr_info("sites=%d\n", nsites);
	if (IS_ENABLED(CONFIG_JUMP_LABEL)) {
		pr_info("site_len=%d\n", sites[0].len);
		pr_info("site_off=%*ph\n", min(sites[0].len, JLB_SITE_MAX_LEN),
			site_off);
		pr_info("site_on=%*ph\n", min(sites[0].len, JLB_SITE_MAX_LEN),
			site_on);
	}
	pr_info("text_bytes_changed=%u\n", on_diff);
	if (IS_ENABLED(CONFIG_JUMP_LABEL))
		jlb_report("site_bytes", bytes_ok);
	jlb_report("text_patching", text_ok);
}
