/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_reference.h - the plain reference: each window counted from
 * scratch by sorting its codes. Obviously correct and slow; for tests only.
 */
#ifndef WINENT_ENGINE_REFERENCE_H
#define WINENT_ENGINE_REFERENCE_H

#include "chunk.h"
#include "entropy_plan.h"

/* Output rows [c->y0, c->y1) into `out` (row stride `out_stride` floats),
 * with the exact fixed-point formula: bit-identical to every engine. */
winent_status winent_reference_compute(const winent_plan *p, const winent_chunk *c, float *out,
                                       size_t out_stride, winent_err *err);

/* The same windows with the plain float64 formula
 * H = log(n) - (1/n) sum c log c, in the plan's base, as double:
 * what SPEC section 1 calls the reference value. */
winent_status winent_reference_compute_f64(const winent_plan *p, const winent_chunk *c, double *out,
                                           size_t out_stride, winent_err *err);

#endif
