/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86class.h: classify one decoded x86 instruction (its bytes and length, as
 * QEMU's translator hands them to a TCG plugin) as a conditional branch, a
 * jlbench window or region marker, or anything else. No QEMU dependency, so the unit
 * tests build it on its own.
 */
#ifndef JLBENCH_X86CLASS_H
#define JLBENCH_X86CLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum x86_kind {
	X86_OTHER = 0,
	X86_JCC,	/* 0x70-0x7f rel8, 0x0f 0x80-0x8f rel16/32 */
	X86_JCXZ,	/* 0xe3: JCXZ / JECXZ / JRCXZ */
	X86_LOOP,	/* 0xe0-0xe2: LOOPNE / LOOPE / LOOP */
	X86_MARK_START,	/* 66 0f 1f 84 00 "JLB1": window start marker */
	X86_MARK_END,	/* 66 0f 1f 84 00 "JLB2": window end marker */
	X86_MARK_REGION_BEGIN,	/* 66 0f 1f 84 00 "JLR" <id>: open region id */
	X86_MARK_REGION_END,	/* 66 0f 1f 84 00 "JLr" <id>: close region id */
};

/* Region ids are the marker's last byte. */
#define X86_REGIONS 256

/* Longest legal x86 instruction. */
#define X86_MAX_INSN 15

/* x86-64 kernel half of the canonical address space. */
#define X86_KERNEL_BASE 0xffff800000000000ULL

/*
 * x86_classify() - kind of the instruction in p[0..len).
 * len is the instruction length from the decoder that produced the bytes;
 * it tells a REX prefix (64-bit mode) from INC/DEC (one byte, 32-bit mode).
 */
enum x86_kind x86_classify(const uint8_t *p, size_t len);

/*
 * x86_region_id() - the id (0..255) of a region marker in p[0..len), or -1
 * when the instruction is not a region marker.
 */
int x86_region_id(const uint8_t *p, size_t len);

/*
 * x86_branch_target() - the target of the conditional branch (JCC, JCXZ,
 * LOOP) at vaddr in p[0..len): the address after it plus its displacement
 * (rel8, rel16 or rel32, the instruction's last bytes; a rel16 target is
 * cut to 16 bits, as the operand-size prefix does with a zero code segment
 * base). Flat 64-bit code is meant: a segment base or 32-bit wrap-around
 * is not known here. Returns false, target untouched, for anything else.
 */
bool x86_branch_target(const uint8_t *p, size_t len, uint64_t vaddr,
		       uint64_t *target);

/* x86_is_cond_branch() - true for JCC, JCXZ and LOOP kinds. */
bool x86_is_cond_branch(enum x86_kind k);

/* x86_is_kernel_addr() - true for a kernel-half virtual address. */
static inline bool x86_is_kernel_addr(uint64_t vaddr)
{
	return vaddr >= X86_KERNEL_BASE;
}

/* x86_kind_name() - short name of a kind, for tests and diagnostics. */
const char *x86_kind_name(enum x86_kind k);

#endif
