/* SPDX-License-Identifier: GPL-2.0 */
/*
 * markers.h: the window markers of PROTOCOL.md for the TCG plugin.
 *
 * Each marker is one 9-byte NOP, "nopw 0x0(%rax,%rax,1)" with a 32-bit
 * displacement: 66 0f 1f 84 00 <disp32>. The displacement spells JLB1
 * (start of the measured window) or JLB2 (end). On real hardware and under
 * KVM it does nothing; the plugin recognises the bytes. The bytes are x86
 * code: on other architectures the markers compile to nothing.
 */
#ifndef JLB_MARKERS_H
#define JLB_MARKERS_H

#if defined(__x86_64__) || defined(__i386__)
static inline void jlb_marker_start(void)
{
	__asm__ __volatile__(".byte 0x66, 0x0f, 0x1f, 0x84, 0x00, "
			     "0x4a, 0x4c, 0x42, 0x31" : : : "memory");
}

static inline void jlb_marker_end(void)
{
	__asm__ __volatile__(".byte 0x66, 0x0f, 0x1f, 0x84, 0x00, "
			     "0x4a, 0x4c, 0x42, 0x32" : : : "memory");
}
#else
/*
 * Other architectures (the s390x selftest image) have no plugin and no
 * tbench window to mark: the markers are nothing there.
 */
static inline void jlb_marker_start(void)
{
}

static inline void jlb_marker_end(void)
{
}
#endif

#endif
