/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_simd.h - the CPU engine's path for chunks whose codes are all
 * below 16 (the "few values" path), internal to src/kernels.
 *
 * Per band of output rows it keeps, for every column, the histogram of the
 * column's Ky window rows (16 bins), moved down one row per output row (one
 * row in, one row out), and per pixel sums Kx column histograms into the
 * window's. S = sum T[count] then comes either from byte-plane table lookups
 * in SIMD (n <= 63: every count fits a 64-entry byte table; AVX-512 VBMI or
 * AVX2, picked at run time) or, for larger windows, from 16 scalar lookups
 * per pixel on 16-bit counts (an AVX2 kernel, or portable C on any CPU). Every path sums
 * the same int64 terms exactly and finishes with the shared division, so
 * they give the reference's bits. The other measures of a window's
 * histogram (simpson, richness, evenness, renyi) keep the same exact S with
 * their own table and finish each pixel with winent_measure_finish.
 */
#ifndef WINENT_ENGINE_CPU_SIMD_H
#define WINENT_ENGINE_CPU_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "entropy_rule.h"

/* Bins of the few-values path; codes must be below this. */
#define WINENT_FEW_BINS 16

/* Largest window (Kx * Ky) of the byte-histogram SIMD kernels. */
#define WINENT_FEW_SIMD_NMAX 63

typedef enum winent_few_path {
    WINENT_FEW_NONE = 0, /* not used: the sliding engine does everything */
    WINENT_FEW_PORTABLE, /* 16-bit column histograms, scalar lookups (any n) */
    WINENT_FEW_AVX2,     /* byte histograms, vpshufb planes (n <= 63) */
    WINENT_FEW_AVX512    /* byte histograms, vpermb planes (n <= 63) */
} winent_few_path;

/* One band's inputs. Code (y, x) is at base[(y - oy) * stride + x]. */
typedef struct winent_few_job {
    const uint8_t *base; /* borrowed */
    size_t stride;
    int oy;
    int W, H, rx, ry;
    const int64_t *t; /* borrowed; [0..(2rx+1)(2ry+1)]: c * Lq[c] */
    int sent;         /* the code of nodata pixels (< 16), or -1: none */
    float *out;       /* borrowed; output row y at out + (y - out_y0) * out_stride */
    size_t out_stride;
    int out_y0;
    /* The measure's last step from S (entropy_rule.h); NULL or the
     * entropy's: the entropy, finished in SIMD where the path can. The
     * others are finished per pixel by winent_measure_finish itself, so
     * every path gives its bits. */
    const winent_measure_rule *m;
} winent_few_job;

/* 1 when the job's measure is the entropy (its finish vectorized). */
static inline int winent_few_is_entropy(const winent_few_job *j)
{
    return j->m == NULL || j->m->kind == 0; /* WINENT_MEASURE_ENTROPY */
}

/* The values of `count` windows of a measure other than the entropy from
 * their D = T[n] - S (`num`) and n (`nn`), `t` the plan's table:
 * winent_measure_finish's bits, its switch taken once per row. */
void winent_few_finish(const winent_measure_rule *m, const int64_t *t, const int64_t *num,
                       const int64_t *nn, int count, float *o);

/* The path to use for `kx` x `ky` windows on this CPU. `request` is the
 * WINENT_CPU_PATH environment variable (NULL or empty: the fastest, which
 * may be WINENT_FEW_NONE where the sliding engine is faster): "slide" gives
 * WINENT_FEW_NONE, "portable", "avx2" or "avx512" that path, lowered to
 * what the CPU and the window allow (windows over 63 pixels: the AVX2 wide
 * kernel at most). Tests use it to pit the paths against each other.
 * Thread-safe. */
winent_few_path winent_few_choose(int kx, int ky, const char *request);

/* Bytes of scratch one thread needs for rows `max_width` wide. */
size_t winent_few_scratch_bytes(int max_width, int rx);

/* 1 when every code of `h` rows of `w` codes (row stride `stride`) is
 * below 16, else 0. */
int winent_few_scan(const uint8_t *codes, size_t stride, int w, int h);

/* Output rows [ya, yb) of the job through `path` (not NONE), all columns.
 * `scratch` has winent_few_scratch_bytes(W, rx) bytes, 64-byte aligned. */
void winent_few_rows(const winent_few_job *j, winent_few_path path, int ya, int yb, void *scratch);

#endif
