/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perturb.h: what the agent derives from a run's seed (jlbench.perturb):
 * the perturbation spin before the window (under QEMU icount, different
 * seeds start the workload at different phases of the guest's timers
 * while the same seed repeats bit for bit) and the bytes that seed the
 * guest kernel's random number generator (PROTOCOL.md, "Random numbers").
 */
#ifndef JLB_PERTURB_H
#define JLB_PERTURB_H

#include <stdint.h>

/* Number of iterations of the spin for a seed: 0 for seed 0, else 1..2^20. */
uint64_t jlb_perturb_loops(uint32_t seed);

/* Spin jlb_perturb_loops(seed) iterations; returns that number. */
uint64_t jlb_perturb_spin(uint32_t seed);

/* Bytes credited to the kernel's RNG: 256 bits, its crng's full seed. */
#define JLB_RNG_SEED_LEN 32

/* The RNG seed of a run's seed (0 included): the same seed, the same bytes. */
void jlb_rng_seed(uint32_t seed, unsigned char out[JLB_RNG_SEED_LEN]);

#endif
