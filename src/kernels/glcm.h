/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm.h - the co-occurrence (GLCM, Haralick) texture measures of a moving
 * window, exact and sliding: the engine's options, its plan and its CPU
 * entry point, shaped as the entropy engine's (engine_cpu.h) so the
 * pipeline drives both the same way: a band of input rows with their halo
 * in (winent_chunk), one range of output rows out, one float plane per
 * measure asked.
 *
 * What is computed (docs/SPEC.md, "Co-occurrence measures"): for the window
 * of kx x ky pixels centred on each pixel, cropped at the image's borders,
 * and for each offset (dx, dy) = the angle's direction times the distance,
 * the pairs (p, p + (dx, dy)) with both ends inside the cropped window and
 * neither end nodata are counted into the matrix C[i][j] (i the level of
 * the first end, j of the second). Symmetric (the default, as Haralick,
 * GRASS r.texture and scikit-image's symmetric=True): the matrix is
 * C + C^T. It is normalized by its total. Each measure is computed per
 * angle and averaged over the angles whose matrix holds a pair (GRASS's
 * rule). A pixel that is itself nodata gets NaN; a window with no pair at
 * any angle gets NaN.
 *
 * Angles follow scikit-image (rows grow downwards): 0 -> (d, 0),
 * 45 -> (d, d), 90 -> (0, d), 135 -> (-d, d) as (dx, dy).
 */
#ifndef WINENT_GLCM_H
#define WINENT_GLCM_H

#include <stddef.h>
#include <stdint.h>

#include "chunk.h"
#include "entropy_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The measures, in the order of winent_glcm_measure_name. */
typedef enum winent_glcm_measure {
    WINENT_GLCM_ENTROPY = 0,    /* -sum P log P, in the log base of the options */
    WINENT_GLCM_ASM,            /* angular second moment, sum P^2 */
    WINENT_GLCM_ENERGY,         /* sqrt(ASM) */
    WINENT_GLCM_CONTRAST,       /* sum (i - j)^2 P (Haralick's contrast, OTB's inertia) */
    WINENT_GLCM_DISSIMILARITY,  /* sum |i - j| P */
    WINENT_GLCM_HOMOGENEITY,    /* sum P / (1 + (i - j)^2): inverse difference moment */
    WINENT_GLCM_CORRELATION,    /* sum (i - mu_i)(j - mu_j) P / (sigma_i sigma_j); 1 where a
                                   sigma is 0 (scikit-image) */
    WINENT_GLCM_MEAN,           /* mu_i = sum i P */
    WINENT_GLCM_VARIANCE,       /* sigma_i^2 = sum (i - mu_i)^2 P */
    WINENT_GLCM_CLUSTER_SHADE,  /* sum (i + j - mu_i - mu_j)^3 P */
    WINENT_GLCM_CLUSTER_PROMINENCE, /* sum (i + j - mu_i - mu_j)^4 P */
    WINENT_GLCM_COND_ENTROPY,   /* H(j | i) = H(i, j) - H(i) */
    WINENT_GLCM_MUTUAL_INFO,    /* I(i; j) = H(i) + H(j) - H(i, j) */
    WINENT_GLCM_MEASURE_COUNT
} winent_glcm_measure;

/* Angles, as bits of winent_glcm_opts.angles. */
#define WINENT_GLCM_A0 1u
#define WINENT_GLCM_A45 2u
#define WINENT_GLCM_A90 4u
#define WINENT_GLCM_A135 8u
#define WINENT_GLCM_ALL_ANGLES 15u

/* The most levels: the pair histogram has levels^2 cells (2 MiB of 16-bit
 * counts per worker at 1024). */
#define WINENT_GLCM_LEVELS_MAX 1024u
/* The most measures one pass computes. */
#define WINENT_GLCM_MEASURES_MAX WINENT_GLCM_MEASURE_COUNT

typedef struct winent_glcm_opts {
    /* The window (kx, ky; `disk` must be 0), the dtype, the log base, the
     * nodata value and the levels: `compute.bins` = levels N over
     * [range_lo, range_hi] exactly as --bins N --range (SPEC section 2).
     * Without bins an integer band's values are its levels (u8, i8: 256
     * levels; wider types need bins). The CLI maps --levels N on an
     * integer band without --range to bins N over 0:N, which keeps the
     * values 0..N-1 as they are (scikit-image's `levels`). */
    winent_compute_opts compute;
    int distance;      /* 1..min(kx, ky) - 1 is useful; 1..127 accepted */
    unsigned angles;   /* WINENT_GLCM_A* bits; 0 means all four */
    int symmetric;     /* 1: C + C^T (default); 0: C as counted */
    int nmeasures;     /* 1..WINENT_GLCM_MEASURES_MAX */
    winent_glcm_measure measures[WINENT_GLCM_MEASURES_MAX]; /* output planes, in order */
} winent_glcm_opts;

/* Defaults: 5 x 5, base 2, u8 values as levels, distance 1, all four
 * angles, symmetric, the one measure glcm-entropy. */
void winent_glcm_opts_default(winent_glcm_opts *o);

/* "glcm-entropy", ... (the CLI's names); NULL for an unknown one. */
const char *winent_glcm_measure_name(winent_glcm_measure m);
/* The measure named `name` (with or without the "glcm-" prefix), or -1. */
int winent_glcm_measure_parse(const char *name);

/* A one-line description of output plane `k`, e.g. "glcm-entropy 15x15
 * d=1 mean of 4 angles symmetric (bits)", into buf. */
void winent_glcm_describe(const winent_glcm_opts *o, int k, char *buf, size_t len);

typedef struct winent_glcm_plan {
    winent_glcm_opts opts;
    winent_plan *codes;  /* owned: the entropy plan of the compute options (checks) */
    winent_code_rule rule; /* value -> level: the plan's rule, never rotated */
    int levels;          /* L: levels are 0..L-1 */
    int kx, ky, rx, ry;
    int nangles;
    int dx[4], dy[4];    /* the offsets, in angle order 0, 45, 90, 135 */
    int need_hist;       /* a measure needs the pair histogram */
    int need_marg;       /* ... the marginal histograms */
    int need_mom;        /* ... the moment sums */
    int tmax;            /* tables cover counts 0..tmax (= 2 kx ky) */
    int64_t *lq;         /* owned: [0..tmax] round(log_b(c) 2^32) */
    int64_t *t;          /* owned: [0..tmax] c lq[c] */
    int64_t *du;         /* owned: [0..tmax] t[c + 1] - t[c] (du[tmax] = 0) */
    int64_t *hw;         /* owned: [0..L-1] round(2^32 / (1 + d^2)) */
    uint16_t lut8[256];  /* 8-bit dtypes: each sample value's level */
} winent_glcm_plan;

/* Check the options (usage errors naming the CLI's options) and build the
 * tables. */
winent_status winent_glcm_plan_create(const winent_glcm_opts *o, winent_glcm_plan **out,
                                      winent_err *err);
void winent_glcm_plan_free(winent_glcm_plan *p);

/* The input rows [in_y0, in_y0 + in_h) a chunk of output rows [y0, y1)
 * needs: the window's halo (ry) covers every pair, so this is
 * winent_chunk_input_rows with the plan's ry. */

/* The slide's plain-data view of the plan (glcm_slide.h) for images
 * W x H, with the plan's host tables. */
struct winent_glcm_geom;
void winent_glcm_geom_init(const winent_glcm_plan *p, int W, int H, struct winent_glcm_geom *g);

/* Levels of `count` samples of the plan's dtype (native byte order, any
 * address), WINENT_GLCM_SENT (0xFFFF) where not counted. */
void winent_glcm_levels(const winent_glcm_plan *p, const void *samples, size_t count,
                        uint16_t *levels);

typedef struct winent_glcm_cpu winent_glcm_cpu;

/* An engine for `threads` workers on images at most `max_width` wide; a
 * worker's scratch is made on its first band (an engine that never
 * computes holds none). The plan is borrowed. */
winent_status winent_glcm_cpu_create(const winent_glcm_plan *p, int max_width, int threads,
                                     winent_glcm_cpu **out, winent_err *err);

/* Compute output rows [ya, yb) of chunk `c` (inside [c->y0, c->y1)) with
 * the scratch of `worker` (0 .. threads - 1): plane k of the output (the
 * plan's k-th measure) holds row c->y0 at out[k], rows `out_stride`
 * floats apart. Any number of callers at once, each with its own worker
 * number. The bits depend neither on the bands nor on the chunks. */
winent_status winent_glcm_cpu_compute_rows(winent_glcm_cpu *e, int worker, const winent_chunk *c,
                                           int ya, int yb, float *const *out, size_t out_stride,
                                           winent_err *err);

/* All rows [c->y0, c->y1) on the calling thread (worker 0). */
winent_status winent_glcm_cpu_compute(winent_glcm_cpu *e, const winent_chunk *c,
                                      float *const *out, size_t out_stride, winent_err *err);

void winent_glcm_cpu_free(winent_glcm_cpu *e);

/* The scratch one worker of an engine for plan p makes for images `width`
 * wide in bands of at most `band_rows` output rows: exactly what it
 * allocates on its first band and for the band's levels (a winent_glcm_cpu
 * of several measures counts once, with its measures' rows of sums). */
size_t winent_glcm_cpu_scratch_bytes(const winent_glcm_plan *p, int width, int band_rows);

/* What the engine's workers hold now (scratch made, levels' rows). */
size_t winent_glcm_cpu_scratch_held(const winent_glcm_cpu *e);

#ifdef __cplusplus
}
#endif

#endif
