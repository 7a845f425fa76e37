/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Region markers of jlbench's TCG plugin: the 9-byte NOP
 * "nopw disp32(%rax,%rax,1)" whose displacement bytes are 'J' 'L' 'R' <id>
 * (open region <id>) or 'J' 'L' 'r' <id> (close it); @id is a constant.
 * The begin marker also takes @n, a loop's iteration count, in %rdi, the
 * register of a call's first argument, so that the call of the loop
 * follows the marker directly: the same instructions in every region.
 * The markers are NOPs everywhere but under the plugin, which counts x86
 * code only: on other architectures a region is only a compiler barrier.
 */
#ifndef _JLBENCH_REGIONS_H
#define _JLBENCH_REGIONS_H

#include <linux/compiler.h>
#include <linux/types.h>

#ifdef CONFIG_X86
#define JLB_REGION_BYTES(kind) \
	".byte 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x4a, 0x4c, " kind ", %c[region]\n"

static __always_inline void jlb_region_begin(const u8 id, unsigned long *n)
{
	asm volatile(JLB_REGION_BYTES("0x52")
		     : "+D" (*n) : [region] "i" (id) : "memory");
}

static __always_inline void jlb_region_end(const u8 id)
{
	asm volatile(JLB_REGION_BYTES("0x72") : : [region] "i" (id) : "memory");
}
#else
static __always_inline void jlb_region_begin(const u8 id, unsigned long *n)
{
	barrier();
}

static __always_inline void jlb_region_end(const u8 id)
{
	barrier();
}
#endif

#endif /* _JLBENCH_REGIONS_H */
