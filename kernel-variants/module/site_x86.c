// SPDX-License-Identifier: GPL-2.0
/*
 * x86 jump label sites: a 2- or 5-byte NOP while the key is disabled,
 * patched into a JMP of the same length to the entry's target while it is
 * enabled.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/nops.h>

#include "jlbench_static_key.h"

static const u8 jlb_nop2[] = { BYTES_NOP2 };
static const u8 jlb_nop5[] = { BYTES_NOP5 };

/* jlb_site_is_nop: the site holds a 2- or 5-byte NOP; note its length. */
bool jlb_site_is_nop(struct jlb_site *s)
{
	const u8 *code = (const u8 *)jump_entry_code(s->entry);
	int len = 0;

	if (!memcmp(code, jlb_nop5, sizeof(jlb_nop5)))
		len = 5;
	else if (!memcmp(code, jlb_nop2, sizeof(jlb_nop2)))
		len = 2;
	if (len && (!s->len || s->len == len)) {
		s->len = len;
		return true;
	}
	pr_info("site_bytes: %pS: %5ph is not the expected NOP\n", code, code);
	return false;
}

/* jlb_site_is_jmp: the site holds a JMP of its NOP's length to its target. */
bool jlb_site_is_jmp(struct jlb_site *s)
{
	const u8 *code = (const u8 *)jump_entry_code(s->entry);
	long rel = (long)jump_entry_target(s->entry) -
		   (long)(jump_entry_code(s->entry) + s->len);
	s32 rel32;

	if (s->len == 2 && code[0] == 0xeb && (s8)code[1] == rel)
		return true;
	memcpy(&rel32, code + 1, sizeof(rel32));
	if (s->len == 5 && code[0] == 0xe9 && rel32 == rel)
		return true;
	pr_info("site_bytes: %pS: %5ph is not a %d-byte JMP to %pS\n", code,
		code, s->len, (void *)jump_entry_target(s->entry));
	return false;
}
