/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bits.h: the power-of-two helpers the model's tables share (model.c,
 * tage.c).
 */
#ifndef JLBENCH_BITS_H
#define JLBENCH_BITS_H

#include <stdbool.h>
#include <stdint.h>

static inline bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* log2_of() - floor(log2(v)) for v >= 1. */
static inline unsigned int log2_of(uint64_t v)
{
	unsigned int n = 0;

	while (v >>= 1)
		n++;
	return n;
}

#endif
