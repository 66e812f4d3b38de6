/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * entropy_plan.h - everything derived once from the compute options that
 * every engine needs: the code rule, the window, and the fixed-point tables.
 */
#ifndef WINENT_ENTROPY_PLAN_H
#define WINENT_ENTROPY_PLAN_H

#include <stdint.h>

#include "entropy_rule.h"
#include "winent.h"
#include "../base/werr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Direct-indexed histograms are used when every code is below this. */
#define WINENT_DIRECT_CODES_MAX 65536u

typedef struct winent_plan {
    winent_compute_opts opts; /* copy of the options */
    winent_code_rule rule;
    int kx, ky, rx, ry;       /* window and its radii */
    int nmax;                 /* kx * ky: the most pixels a window counts (a
                                 disk counts fewer; the tables cover kx * ky) */
    int disk;                 /* the window is the disk of radius rx (= ry):
                                 row dy of it holds the columns |dx| <= hw[dy + ry] */
    int16_t hw[256];          /* disk: half-widths, hw[dy + ry] = the largest w with
                                 w^2 + dy^2 <= R^2 (symmetric: also half-heights) */
    int area;                 /* pixels of the full window: kx * ky, or the disk's or
                                 the footprint's */
    /* A disk, a footprint (opts.footprint) or a rectangle with an even
     * side (all ones) is `shaped`: a set of runs of pixels, which the
     * engines slide (engine_cpu_disk.c, engine_cuda_disk.cuh). The window's pixel (dx, dy) from the centre
     * is mask[(dy + ry) * kx + dx + rx], dx from -rx to kx - 1 - rx (rx =
     * kx / 2: scikit-image's centre, so an even side has one more pixel
     * before the centre than after). Row r of the window (dy = r - ry)
     * holds the runs [row_first[r], row_first[r + 1]) of row_run, each
     * its first and last dx; column c (dx = c - rx) the runs
     * [col_first[c], col_first[c + 1]) of col_run, first and last dy. A
     * disk is one run per row and per column. */
    int shaped;
    unsigned char *mask;      /* owned; shaped plans: kx * ky bytes, 1 in the window */
    int *row_first;           /* owned; [0..ky] */
    int16_t *row_run;         /* owned; 2 per run */
    int *col_first;           /* owned; [0..kx] */
    int16_t *col_run;         /* owned; 2 per run */
    int nrow_runs, ncol_runs; /* runs in all */
    uint64_t ncodes;          /* number of possible codes (without NODATA) */
    int direct;               /* ncodes <= WINENT_DIRECT_CODES_MAX */
    int can_skip;             /* some pixel can be not counted (NaN, or a nodata
                                 value the dtype holds); when 0, the code
                                 WINENT_NODATA_CODE is an ordinary value (a
                                 32-bit integer's all-ones code) */
    int64_t *lq;              /* owned; [0..nmax]: round(log_b(c) * 2^32) */
    int64_t *t;               /* owned; [0..nmax]: the measure's T[c] (entropy:
                                 c * lq[c]; measure.c) */
    int64_t *du;              /* owned; [0..nmax-1]: t[c+1] - t[c] */
    winent_measure_rule measure; /* the last step from S = sum T[count] */
} winent_plan;

/* What winent_compute_check checks beyond the window, base and bins. */
#define WINENT_CHECK_DTYPE 1u      /* the dtype is known (a file's is once it is opened) */
#define WINENT_CHECK_RANGE_AUTO 2u /* the range comes from the data: not checked */
#define WINENT_CHECK_NODATA 4u     /* a nodata the dtype cannot hold is refused (one the
                                      user gave; a file's own matches nothing, harmlessly) */

/* The checks of what is computed, with usage errors in door `w`'s words
 * (winent_compute_opts_check is it with DTYPE | NODATA). */
winent_status winent_compute_check(const winent_compute_opts *o, unsigned flags, winent_words w,
                                   winent_err *err);

/* A nodata value `v` a band of type `t` can hold: a whole number in the
 * type's range (-0 is 0), any value within float32's for f32 (NaN and
 * infinities too; compared as float32), anything for f64. Else
 * WINENT_ERR_USAGE in `w`'s words: no pixel could equal it, so it would
 * mask nothing (a typo, or the value of another band). */
winent_status winent_nodata_check(winent_dtype t, double v, winent_words w, winent_err *err);

/* Check the options (SPEC 1-2, winent_compute_check) and build the tables.
 * Errors are usage errors naming the option. */
winent_status winent_plan_create(const winent_compute_opts *o, winent_plan **out, winent_err *err);
void winent_plan_free(winent_plan *p);

/* Convert `count` samples of the plan's dtype (native byte order) to codes. */
void winent_plan_codes(const winent_plan *p, const void *samples, size_t count, uint32_t *codes);

#ifdef __cplusplus
}
#endif

#endif
