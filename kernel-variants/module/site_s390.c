// SPDX-License-Identifier: GPL-2.0
/*
 * s390 jump label sites (arch/s390/kernel/jump_label.c): a site is
 * "brcl <mask>,<target>", six bytes c0 <mask << 4 | 4> <s32 big-endian
 * (target - site) / 2>. The kernel writes mask 0 (never branch: a NOP)
 * while the key is disabled and mask 15 (always) while it is enabled, both
 * with the target's offset.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <asm/unaligned.h>

#include "jlbench_static_key.h"

#define BRCL_LEN 6

/* site_is_brcl: the site holds "brcl @mask" to its jump entry's target. */
static bool site_is_brcl(struct jlb_site *s, u8 mask)
{
	const u8 *code = (const u8 *)jump_entry_code(s->entry);
	long rel = ((long)jump_entry_target(s->entry) -
		    (long)jump_entry_code(s->entry)) / 2;
	s32 off = (s32)get_unaligned_be32(code + 2);

	s->len = BRCL_LEN;
	if (code[0] == 0xc0 && code[1] == (mask << 4 | 0x04) && off == rel)
		return true;
	pr_info("site_bytes: %pS: %6ph is not brcl %u to %pS\n", code, code,
		mask, (void *)jump_entry_target(s->entry));
	return false;
}

/* jlb_site_is_nop: the site holds brcl 0 (never branch) to its target. */
bool jlb_site_is_nop(struct jlb_site *s)
{
	return site_is_brcl(s, 0);
}

/* jlb_site_is_jmp: the site holds brcl 15 (always branch) to its target. */
bool jlb_site_is_jmp(struct jlb_site *s)
{
	return site_is_brcl(s, 15);
}
