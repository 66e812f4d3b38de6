/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_cmp.h - the CPU engine's compare kernel for small windows of
 * 8-bit codes (any number of distinct codes), internal to src/kernels: the
 * SIMD twin of the GPU's compare kernel.
 *
 * S = sum over the distinct codes of T[count] is also sum over the window's
 * pixels a of Lq[count of a's code]; 64 neighbouring output pixels at a time
 * (one byte lane each), every pair of window offsets is compared once
 * (vpcmpeqb) and both counts move, then Lq[count] comes from byte-plane
 * lookups (vpermb). No histogram, so the cost does not depend on how many
 * codes there are or how they are laid out. Windows of at most
 * WINENT_CMP_NMAX pixels (3 x 3, 5 x 5, 7 x 3, ...), full windows only (the
 * caller computes the borders), no nodata pixel in the rows. AVX-512 BW +
 * VBMI; the bits are the reference's (the same int64 S, the shared
 * division in vdivpd).
 */
#ifndef WINENT_ENGINE_CPU_CMP_H
#define WINENT_ENGINE_CPU_CMP_H

#include <stdint.h>

#include "engine_cpu_simd.h"

/* The largest window of the compare kernel (pairs grow as n^2 / 2). */
#define WINENT_CMP_NMAX 25

/* 1 when this CPU runs the compare kernel and `kx` x `ky` windows fit it.
 * Thread-safe. */
int winent_cmp_available(int kx, int ky);

/* The compare kernel's cost relative to the sliding engine's on `kx` x
 * `ky` windows (below 1: it is faster), from a model fitted on this
 * project's measurements (docs/PERFORMANCE.md, issue 32). Thread-safe. */
double winent_cmp_ratio(int kx, int ky);

/* The full windows of output rows [ya, yb) of the job: rows [max(ya, ry),
 * min(yb, H - ry)) x columns [rx, xe), xe = rx + 64 m as far as the image
 * allows; returns xe (rx when it computed nothing). `lq` is the plan's
 * [0..n] table. Every code of the rows is counted (the job's sent is
 * ignored). */
int winent_cmp_rows(const winent_few_job *j, const int64_t *lq, int ya, int yb);

#endif
