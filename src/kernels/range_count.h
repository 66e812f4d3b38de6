/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * range_count.h - two passes over samples that --bins/--range need beside
 * the entropy itself, written as plain loops the compiler vectorizes:
 *
 *   winent_range_count:  how many valid samples lie below LO or above HI
 *                        (so were put in the first or last bin), and how
 *                        many were valid at all (SPEC section 2).
 *   winent_range_minmax: the smallest and largest valid finite sample
 *                        (--range auto's first pass).
 *
 * "Valid" is the kernels' own rule (entropy_rule.h): not NaN, and not the
 * nodata value as the sample type holds it (float32 samples compare with
 * nodata cast to float32; an integer sample only with a nodata value its
 * type holds). v == HI is in range: only v > HI counts as above.
 */
#ifndef WINENT_RANGE_COUNT_H
#define WINENT_RANGE_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "entropy_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Running totals of winent_range_count. Start from winent_clamp_init. */
typedef struct winent_clamp_counts {
    uint64_t below;  /* valid samples v < LO */
    uint64_t above;  /* valid samples v > HI */
    uint64_t valid;  /* valid samples seen */
    double min, max; /* of the valid finite samples (a range far wider than
                        the data is as wrong as one too narrow); meaningless
                        while none was seen */
} winent_clamp_counts;

void winent_clamp_init(winent_clamp_counts *c);

/* Fold `b` into `a`. */
void winent_clamp_merge(winent_clamp_counts *a, const winent_clamp_counts *b);

/* Add to `acc` the counts of `count` samples of the plan's dtype (native
 * byte order, any alignment), and widen its min/max. Only meaningful when
 * the plan quantizes (p->rule.quantize); otherwise nothing is clamped.
 * Thread-safe: it writes only `acc`. */
void winent_range_count(const winent_plan *p, const void *samples, size_t count,
                        winent_clamp_counts *acc);

/* A majority of integer classes (not binned) in a float output of type
 * `t`: the magnitude up to which that type holds every integer (float16
 * 2^11, float32 2^24) where options o's sample type reaches past it, else 0
 * (every class is held, or the map is not one of classes). A class past
 * the limit would be rounded into another in the map: the doors check the
 * samples against it (winent_class_outside) and refuse. */
double winent_class_limit(const winent_compute_opts *o, winent_out_type t);

/* The first valid sample of counts `c` outside [-limit, limit] (its
 * largest, else its smallest), into *value; 0 where every one is in. */
int winent_class_outside(const winent_clamp_counts *c, double limit, double *value);

/* Running result of winent_range_minmax. Start from winent_minmax_init. */
typedef struct winent_minmax {
    double min, max; /* of the valid finite samples; meaningless while n == 0 */
    uint64_t n;      /* valid finite samples seen */
} winent_minmax;

void winent_minmax_init(winent_minmax *m);

/* Fold `count` samples of type `dtype` (native byte order, any alignment)
 * into `m`: NaN, infinities and samples equal to `nodata` (when
 * `has_nodata`, with the kernels' rule above) are left out. Thread-safe:
 * it writes only `m`. */
void winent_range_minmax(int dtype, const void *samples, size_t count, int has_nodata,
                         double nodata, winent_minmax *m);

/* Fold `b` into `a`. */
void winent_minmax_merge(winent_minmax *a, const winent_minmax *b);

#ifdef __cplusplus
}
#endif

#endif
