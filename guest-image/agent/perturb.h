/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perturb.h: the seeded perturbation spin before tbench (jlbench.perturb).
 * Under QEMU icount, different seeds start tbench at different phases of
 * the guest's timers while the same seed repeats bit for bit.
 */
#ifndef JLB_PERTURB_H
#define JLB_PERTURB_H

#include <stdint.h>

/* Number of iterations of the spin for a seed: 0 for seed 0, else 1..2^20. */
uint64_t jlb_perturb_loops(uint32_t seed);

/* Spin jlb_perturb_loops(seed) iterations; returns that number. */
uint64_t jlb_perturb_spin(uint32_t seed);

#endif
