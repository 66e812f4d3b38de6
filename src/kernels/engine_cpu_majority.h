/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_majority.h - the majority map on the CPU (engine_cpu_majority.c):
 * a sliding histogram that keeps the window's most frequent code.
 */
#ifndef WINENT_ENGINE_CPU_MAJORITY_H
#define WINENT_ENGINE_CPU_MAJORITY_H

#include "chunk.h"
#include "entropy_plan.h"

/* Output rows [ya, yb) of chunk `c` (inside [c->y0, c->y1)) into `out`
 * (row c->y0 first, `out_stride` floats apart): each pixel the value of
 * its window's most frequent code, ties to the smallest, NaN where the
 * pixel is not counted. Any number of callers at once (its scratch is its
 * own). The bits do not depend on the bands. *bins: the bins of the
 * column path the band took (64 or 256: keys of a byte), 0 where it took
 * the sliding histogram. */
winent_status winent_cpu_majority_rows(const winent_plan *p, const winent_chunk *c, int ya, int yb,
                                       float *out, size_t out_stride, int *bins, winent_err *err);

#endif
