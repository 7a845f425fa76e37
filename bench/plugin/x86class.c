// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86class.c: conditional-branch and marker classification of x86
 * instructions. See x86class.h.
 */
#include <string.h>

#include "x86class.h"

/*
 * Markers: the 9-byte NOP 66 0f 1f 84 00 <disp32>, disp32 = 'J' 'L' <kind>
 * <arg>: 'B' '1' / 'B' '2' window start / end, 'R' <id> / 'r' <id> region
 * <id> begin / end.
 */
static const uint8_t marker_prefix[] = { 0x66, 0x0f, 0x1f, 0x84, 0x00,
					 'J', 'L' };
#define MARKER_LEN (sizeof(marker_prefix) + 2)

static bool is_marker(const uint8_t *p, size_t len)
{
	return len == MARKER_LEN &&
	       memcmp(p, marker_prefix, sizeof(marker_prefix)) == 0;
}

/* Legacy prefixes: operand/address size, segment overrides (0x2e/0x3e are
 * also the branch hints), LOCK, REPNE (also BND), REP.
 */
static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e:
	case 0x64: case 0x65: case 0x66: case 0x67:
	case 0xf0: case 0xf2: case 0xf3:
		return true;
	default:
		return false;
	}
}

enum x86_kind x86_classify(const uint8_t *p, size_t len)
{
	size_t i = 0;
	uint8_t op;

	if (len == 0 || len > X86_MAX_INSN)
		return X86_OTHER;
	if (is_marker(p, len)) {
		uint8_t kind = p[len - 2], arg = p[len - 1];

		if (kind == 'B' && arg == '1')
			return X86_MARK_START;
		if (kind == 'B' && arg == '2')
			return X86_MARK_END;
		if (kind == 'R')
			return X86_MARK_REGION_BEGIN;
		if (kind == 'r')
			return X86_MARK_REGION_END;
	}
	/*
	 * Skip prefixes. 0x40-0x4f is a REX prefix only when more bytes
	 * follow: in 32-bit code it is INC/DEC, always the last byte of its
	 * instruction. A REX followed by a legacy prefix is ignored by the CPU
	 * but still consumed here.
	 */
	while (i < len - 1 &&
	       (is_legacy_prefix(p[i]) || (p[i] & 0xf0) == 0x40))
		i++;
	op = p[i];
	if (op >= 0x70 && op <= 0x7f)
		return X86_JCC;
	if (op == 0xe3)
		return X86_JCXZ;
	if (op >= 0xe0 && op <= 0xe2)
		return X86_LOOP;
	if (op == 0x0f && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x8f)
		return X86_JCC;
	return X86_OTHER;
}

bool x86_branch_target(const uint8_t *p, size_t len, uint64_t vaddr,
		       uint64_t *target)
{
	size_t i = 0, disp_len;
	uint64_t next = vaddr + len;
	int64_t disp;

	if (!x86_is_cond_branch(x86_classify(p, len)))
		return false;
	while (i < len - 1 &&
	       (is_legacy_prefix(p[i]) || (p[i] & 0xf0) == 0x40))
		i++;
	i += p[i] == 0x0f ? 2 : 1;	/* the opcode */
	disp_len = len - i;
	if (disp_len == 1)
		disp = (int8_t)p[i];
	else if (disp_len == 2)
		disp = (int16_t)(p[i] | p[i + 1] << 8);
	else if (disp_len == 4)
		disp = (int32_t)((uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
				 (uint32_t)p[i + 2] << 16 |
				 (uint32_t)p[i + 3] << 24);
	else
		return false;
	*target = next + (uint64_t)disp;
	if (disp_len == 2)
		*target &= 0xffff;
	return true;
}

int x86_region_id(const uint8_t *p, size_t len)
{
	if (is_marker(p, len) && (p[len - 2] == 'R' || p[len - 2] == 'r'))
		return p[len - 1];
	return -1;
}

bool x86_is_cond_branch(enum x86_kind k)
{
	return k == X86_JCC || k == X86_JCXZ || k == X86_LOOP;
}

const char *x86_kind_name(enum x86_kind k)
{
	switch (k) {
	case X86_JCC: return "jcc";
	case X86_JCXZ: return "jcxz";
	case X86_LOOP: return "loop";
	case X86_MARK_START: return "mark-start";
	case X86_MARK_END: return "mark-end";
	case X86_MARK_REGION_BEGIN: return "region-begin";
	case X86_MARK_REGION_END: return "region-end";
	case X86_OTHER: break;
	}
	return "other";
}
