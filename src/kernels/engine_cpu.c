/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu.c - the fast CPU engine.
 *
 * Each output row slides its own window histogram left to right: build it
 * once at the row's first column, then per step remove the column leaving
 * and add the column entering (2 * ky updates), keeping S = sum of T[count]
 * exact in int64 through the du table, so any update order gives the bits
 * of the reference. Four rows slide in lockstep with four histograms: their
 * updates are independent, which hides the store-to-load latency of one
 * histogram's counts behind the others.
 *
 * Nodata never branches: every code in play has a bin, nodata included (the
 * "sentinel" bin), and at each pixel n = area - count[sentinel] and
 * S_valid = S - T[count[sentinel]], both exact.
 *
 * Codes come in the narrowest type that holds them:
 *  - u8/i8/u16/i16 with distinct values: the samples themselves (their bit
 *    patterns are a relabelling of the codes, and entropy only sees which
 *    pixels are equal); the sentinel is the nodata bit pattern;
 *  - other plans with fewer than 65536 codes: codes narrowed to 8 or 16 bits
 *    with sentinel = ncodes (65536 codes: 32 bits);
 *  - more codes (32-bit integers, huge --bins): tiles whose codes are
 *    renumbered densely through a hash table, sentinel = region size.
 *
 * The measures other than the entropy (--measure) slide the same way with
 * their own table T (measure.c) and last step (winent_measure_finish); the
 * majority, which keeps no sum, has its own kernel (engine_cpu_majority.c).
 * The paths below finish the entropy only and are not chosen for them.
 *
 * 8-bit codes that are all below 16 in a chunk (checked per chunk: the bits
 * do not depend on the path taken) go to the few-values path instead
 * (engine_cpu_simd.c): column histograms of 16 bins, SIMD where the CPU has
 * it, picked at run time. Other 8-bit chunks go to the column paths of 64
 * or 256 bins (engine_cpu_cols.c), by the chunk's largest code. Which
 * path a band takes, and what it costs for auto's estimate, is one table
 * (engine_cpu_choose.c).
 */
#include "engine_cpu.h"
#include "engine_cpu_choose.h"
#include "engine_cpu_disk.h"
#include "engine_cpu_simd.h"
#include "engine_cpu_cols.h"
#include "engine_cpu_cmp.h"
#include "engine_cpu_majority.h"
#include "glcm.h"
#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Remap blocks: output tiles of this many columns and rows. */
#define REMAP_TILE_W 256
#define REMAP_TILE_H 64

/* 16-bit codes of a band are renumbered densely when it holds at most this
 * many (the histograms' touched bins then sit together in the cache, and
 * bands of at most 256 take the 8-bit paths). */
#define DENSE_MAX 16384

/* Windows sampled per band to guess a column path's changes per step. */
#define COLS_SAMPLES 16

/* Rows sliding in lockstep, each with its own histogram. */
#define LANES 4


typedef enum code_kind {
    CODES_SAMPLES8,  /* the 8-bit samples, read in place */
    CODES_SAMPLES16, /* the 16-bit samples, read in place when aligned */
    CODES_NARROW8,   /* plan codes narrowed to uint8 */
    CODES_NARROW16,  /* plan codes narrowed to uint16 */
    CODES_WIDE32,    /* plan codes as uint32 (exactly 65536 codes) */
    CODES_REMAP      /* plan codes as uint32, renumbered per tile */
} code_kind;

typedef struct thread_scratch {
    uint16_t *hist[LANES]; /* owned: hist_len counts each, all zero between uses */
    void *runs;            /* owned, shaped windows: engine_cpu_disk.c's scratch */
    uint32_t *row;         /* owned: plan codes of one input row (narrowing) */
    uint32_t *ids;         /* remap: dense ids of the tile's region */
    uint32_t *keys;        /* remap: hash keys, WINENT_NODATA_CODE = empty */
    uint32_t *vals;        /* remap: hash values (dense ids) */
    uint32_t *slots;       /* remap: slot of each dense id, to clear after use */
    unsigned hash_bits;
    void *few;             /* owned: the few-values and column paths' scratch, 64-aligned */
    void *codes;           /* owned: codes of the band's input rows (all but CODES_SAMPLES*) */
    size_t codes_cap;      /* bytes of codes */
    uint16_t *dense_of;    /* owned, 16-bit kinds: [65536] a band's dense id of each
                              code, 0xFFFF (none) between bands */
    uint16_t *dense_code;  /* owned: [DENSE_MAX] the code of each dense id */
    void *dense;           /* owned: the band's dense ids, 16-bit then 8-bit rows */
    size_t dense_cap;      /* bytes of dense */
} thread_scratch;

struct winent_cpu_engine {
    const winent_plan *plan; /* borrowed */
    int threads;
    int max_width, max_in_rows;
    code_kind kind;
    int can_nodata;          /* some pixel may be nodata or NaN */
    size_t hist_len;         /* bins of each histogram, sentinel included */
    size_t region_max;       /* remap: most pixels of a tile's region */
    winent_few_path few;     /* path for chunks of codes < 16, or NONE */
    winent_few_path cols;    /* ISA of the column paths (8-bit codes >= 16), or NONE */
    int cmp;                 /* the compare kernel takes the full windows of 8-bit
                                bands without nodata (small windows, AVX-512) */
    int cols_forced;         /* WINENT_CPU_PATH named the ISA: the column paths
                                take every such chunk, not only those where
                                they should beat the sliding engine */
    int last_path;           /* the last band's path, a winent_cpu_path (a hint for
                                band heights and reports; written by any
                                worker) */
    thread_scratch *scratch; /* owned: one per thread */
    /* A co-occurrence measure: the GLCM engine computes the bands. */
    winent_glcm_plan *glcm_plan; /* owned, or NULL */
    winent_glcm_cpu *glcm;       /* owned, or NULL */
};

/* Where a kernel finds its codes and puts its floats. Image coordinates:
 * code (y, x) is at base[(y - oy) * stride + (x - ox)]. */
typedef struct slide_job {
    const void *base;
    size_t stride; /* in codes */
    int ox, oy;
    int W, H, rx, ry;
    const int64_t *t, *du;
    uint32_t sent;  /* sentinel code */
    int has_sent;   /* 0: no pixel is nodata, skip the sentinel arithmetic */
    float *out;
    size_t out_stride;
    int out_y0;
    const winent_plan *plan; /* its runs, when the window is shaped */
    void *runs;              /* the thread's scratch for them */
    const winent_measure_rule *m; /* the plan's measure: the last step from S */
} slide_job;

static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }

/* The pixel's value from the window's S and the sentinel's count. */
static inline float emit(const slide_job *j, int64_t s, uint16_t cs, int area, int centre_is_sent)
{
    if (centre_is_sent)
        return NAN;
    int n = area - cs;
    return winent_measure_finish(j->m, s - j->t[cs], n, j->t);
}

/* Emit column x of every lane, then step each lane's window to x + 1 with
 * whichever of the leaving and entering columns lie inside the image. */
#define EDGE_STEP(T)                                                                           \
    do {                                                                                       \
        int kw_ = imin(W - 1, x + rx) - imax(0, x - rx) + 1;                                   \
        for (int g = 0; g < lanes; g++) {                                                      \
            uint16_t *h = hist[g];                                                             \
            orow[g][x] = emit(j, s[g], has_sent ? h[sent] : 0, kh[g] * kw_,                    \
                              has_sent && crow[g][x] == sent);                                 \
            if (x + 1 >= xb)                                                                   \
                continue;                                                                      \
            int64_t acc = s[g];                                                                \
            for (int k = 0; k < kh[g]; k++) {                                                  \
                const T *r = top[g] + (size_t)k * st;                                          \
                if (x - rx >= 0) {                                                             \
                    unsigned c = h[r[x - rx]] - 1u;                                            \
                    h[r[x - rx]] = (uint16_t)c;                                                \
                    acc -= du[c];                                                              \
                }                                                                              \
                if (x + rx + 1 < W) {                                                          \
                    unsigned c = h[r[x + rx + 1]];                                             \
                    h[r[x + rx + 1]] = (uint16_t)(c + 1);                                      \
                    acc += du[c];                                                              \
                }                                                                              \
            }                                                                                  \
            s[g] = acc;                                                                        \
        }                                                                                      \
    } while (0)

/* Steps through the interior columns [x, xr): emit, then remove the column
 * leaving and add the column entering, in NL lanes of KH rows each. */
#define INTERIOR(T, NL, KH)                                                                    \
    for (; x < xr; x++) {                                                                      \
        for (int g = 0; g < (NL); g++) {                                                       \
            uint16_t *h = hist[g];                                                             \
            orow[g][x] = emit(j, s[g], has_sent ? h[sent] : 0, kh[g] * kw,                     \
                              has_sent && crow[g][x] == sent);                                 \
        }                                                                                      \
        for (int g = 0; g < (NL); g++) {                                                       \
            uint16_t *h = hist[g];                                                             \
            const T *po = top[g] + (x - rx), *pi = top[g] + (x + rx + 1);                      \
            int64_t acc = s[g];                                                                \
            for (int k = 0; k < (KH); k++) {                                                   \
                T vo = po[(size_t)k * st], vi = pi[(size_t)k * st];                            \
                unsigned co = h[vo] - 1u;                                                      \
                h[vo] = (uint16_t)co;                                                          \
                acc -= du[co];                                                                 \
                unsigned ci = h[vi];                                                           \
                h[vi] = (uint16_t)(ci + 1);                                                    \
                acc += du[ci];                                                                 \
            }                                                                                  \
            s[g] = acc;                                                                        \
        }                                                                                      \
    }

/* One kernel per code type: rows [ya, yb) x columns [xa, xb), LANES rows at
 * a time. `hist` are LANES zeroed histograms, left zeroed. */
#define DEFINE_SLIDE(NAME, T)                                                                   \
    static void NAME(const slide_job *j, int ya, int yb, int xa, int xb, uint16_t *const *hist) \
    {                                                                                          \
        const T *base = (const T *)j->base;                                                    \
        const size_t st = j->stride;                                                           \
        const int W = j->W, H = j->H, rx = j->rx, ry = j->ry;                                  \
        const int64_t *du = j->du;                                                             \
        const T sent = (T)j->sent;                                                             \
        const int has_sent = j->has_sent;                                                      \
        /* Steps x -> x + 1 with both columns inside the image: x in [xl, xr). */              \
        const int xl = imax(xa, rx), xr = imin(xb - 1, W - 1 - rx);                            \
        for (int y = ya; y < yb; y += LANES) {                                                 \
            const int lanes = imin(LANES, yb - y);                                             \
            const T *top[LANES];                                                               \
            int kh[LANES];                                                                     \
            int64_t s[LANES];                                                                  \
            float *orow[LANES];                                                                \
            const T *crow[LANES];                                                              \
            for (int g = 0; g < lanes; g++) {                                                  \
                int wy0 = imax(0, y + g - ry), wy1 = imin(H - 1, y + g + ry);                  \
                kh[g] = wy1 - wy0 + 1;                                                         \
                top[g] = base + (size_t)(wy0 - j->oy) * st - j->ox;                            \
                crow[g] = base + (size_t)(y + g - j->oy) * st - j->ox;                         \
                orow[g] = j->out + (size_t)(y + g - j->out_y0) * j->out_stride;                \
                uint16_t *h = hist[g];                                                         \
                int64_t acc = 0;                                                               \
                for (int k = 0; k < kh[g]; k++) {                                              \
                    const T *r = top[g] + (size_t)k * st;                                      \
                    for (int xx = imax(0, xa - rx); xx <= imin(W - 1, xa + rx); xx++) {        \
                        unsigned c = h[r[xx]];                                                 \
                        h[r[xx]] = (uint16_t)(c + 1);                                          \
                        acc += du[c];                                                          \
                    }                                                                          \
                }                                                                              \
                s[g] = acc;                                                                    \
            }                                                                                  \
            int x = xa;                                                                        \
            /* Left edge: the leaving column is outside the image. */                          \
            for (; x < xb && x < xl; x++)                                                      \
                EDGE_STEP(T);                                                                  \
            /* Interior: full-width windows, both columns inside. Whole lane groups of   \
             * 3, 5 or 7 rows get loops the compiler unrolls completely. */                \
            const int kw = 2 * rx + 1;                                                         \
            int same_kh = lanes == LANES;                                                      \
            for (int g = 1; g < lanes; g++)                                                    \
                same_kh = same_kh && kh[g] == kh[0];                                           \
            if (same_kh && kh[0] == 5)                                                         \
                { INTERIOR(T, LANES, 5); }                                                         \
            else if (same_kh && kh[0] == 3)                                                    \
                { INTERIOR(T, LANES, 3); }                                                         \
            else if (same_kh && kh[0] == 7)                                                    \
                { INTERIOR(T, LANES, 7); }                                                         \
            else                                                                               \
                { INTERIOR(T, lanes, kh[g]); }                                                     \
            /* Right edge: the entering column is outside the image (or the end). */           \
            for (; x < xb; x++)                                                                \
                EDGE_STEP(T);                                                                  \
            /* Leave the histograms zero: clear the last window's bins. */                    \
            int lx = xb - 1;                                                                   \
            for (int g = 0; g < lanes; g++)                                                    \
                for (int k = 0; k < kh[g]; k++) {                                              \
                    const T *r = top[g] + (size_t)k * st;                                      \
                    for (int xx = imax(0, lx - rx); xx <= imin(W - 1, lx + rx); xx++)          \
                        hist[g][r[xx]] = 0;                                                    \
                }                                                                              \
        }                                                                                      \
    }

DEFINE_SLIDE(slide_u8, uint8_t)
DEFINE_SLIDE(slide_u16, uint16_t)
DEFINE_SLIDE(slide_u32, uint32_t)

static void slide(const slide_job *j, size_t code_size, int ya, int yb, int xa, int xb,
                  uint16_t *const *hist)
{
    if (j->plan != NULL && j->plan->shaped) { /* disks, footprints: engine_cpu_disk.c */
        _Static_assert(WINENT_DISK_LANES <= LANES, "a disk's lanes are the engine's histograms");
        winent_disk_job d = {j->plan, j->base, j->stride, code_size, j->ox,  j->oy,
                             j->W,    j->H,    j->sent,   j->has_sent, j->out, j->out_stride,
                             j->out_y0};
        winent_cpu_disk_rows(&d, ya, yb, xa, xb, hist, j->runs);
        return;
    }
    switch (code_size) {
    case 1: slide_u8(j, ya, yb, xa, xb, hist); break;
    case 2: slide_u16(j, ya, yb, xa, xb, hist); break;
    default: slide_u32(j, ya, yb, xa, xb, hist); break;
    }
}

static inline uint32_t hash_slot(uint32_t key, unsigned bits)
{
    return (uint32_t)((key * 2654435761u) >> (32 - bits));
}

/* Renumber the codes of rows [ry0, ry1) x columns [rx0, rx1) densely into
 * s->ids (row stride rx1 - rx0), nodata to `sent`; returns the number of
 * distinct codes. */
static uint32_t remap_region(const uint32_t *codes, size_t stride, int oy, int ry0, int ry1,
                             int rx0, int rx1, uint32_t sent, thread_scratch *s)
{
    const uint32_t mask = (1u << s->hash_bits) - 1u;
    uint32_t next = 0;
    size_t rw = (size_t)(rx1 - rx0);
    for (int y = ry0; y < ry1; y++) {
        const uint32_t *src = codes + (size_t)(y - oy) * stride + (size_t)rx0;
        uint32_t *dst = s->ids + (size_t)(y - ry0) * rw;
        for (size_t x = 0; x < rw; x++) {
            uint32_t key = src[x];
            if (key == WINENT_NODATA_CODE) {
                dst[x] = sent;
                continue;
            }
            uint32_t slot = hash_slot(key, s->hash_bits);
            while (s->keys[slot] != WINENT_NODATA_CODE && s->keys[slot] != key)
                slot = (slot + 1) & mask;
            if (s->keys[slot] == WINENT_NODATA_CODE) {
                s->keys[slot] = key;
                s->vals[slot] = next;
                s->slots[next] = slot;
                next++;
            }
            dst[x] = s->vals[slot];
        }
    }
    return next;
}

static void remap_release(thread_scratch *s, uint32_t distinct)
{
    for (uint32_t i = 0; i < distinct; i++)
        s->keys[s->slots[i]] = WINENT_NODATA_CODE;
}

static void free_scratch(thread_scratch *s)
{
    for (int g = 0; g < LANES; g++)
        free(s->hist[g]);
    free(s->row);
    free(s->ids);
    free(s->keys);
    free(s->vals);
    free(s->slots);
    free(s->few);
    free(s->codes);
    free(s->dense_of);
    free(s->dense_code);
    free(s->dense);
    free(s->runs);
}

static size_t code_size(code_kind k)
{
    switch (k) {
    case CODES_SAMPLES8:
    case CODES_NARROW8: return 1;
    case CODES_SAMPLES16:
    case CODES_NARROW16: return 2;
    default: return 4;
    }
}

static winent_status glcm_create(winent_cpu_engine *e, const winent_plan *const *plans, int n,
                                 winent_err *err);

winent_status winent_cpu_engine_create(const winent_plan *p, int max_width, int max_in_rows,
                                       int threads, winent_cpu_engine **out, winent_err *err)
{
    const winent_code_rule *r = &p->rule;
    winent_cpu_engine *e = calloc(1, sizeof *e);
    *out = NULL;
    if (e == NULL)
        goto nomem;
    e->plan = p;
    e->threads = threads < 1 ? 1 : threads;
    e->max_width = max_width < 1 ? 1 : max_width;
    e->max_in_rows = max_in_rows < 1 ? 1 : max_in_rows;
    e->can_nodata = winent_dtype_is_float(p->opts.dtype) || (r->has_nodata && r->nodata_int_ok);
    if (winent_measure_is_glcm(p->opts.measure)) {
        winent_status st = glcm_create(e, &p, 1, err);
        if (st != WINENT_OK) {
            winent_cpu_engine_free(e);
            return st;
        }
        *out = e;
        return WINENT_OK;
    }
    const size_t ss = winent_dtype_size(p->opts.dtype);
    if (!r->quantize && ss == 1) {
        e->kind = CODES_SAMPLES8;
        e->hist_len = 256;
    } else if (!r->quantize && ss == 2) {
        e->kind = CODES_SAMPLES16; /* copied to e->codes when misaligned */
        e->hist_len = 65536;
    } else if (p->direct && p->ncodes < 256) {
        e->kind = CODES_NARROW8;
        e->hist_len = (size_t)p->ncodes + 1;
    } else if (p->direct && p->ncodes < 65536) {
        e->kind = CODES_NARROW16;
        e->hist_len = (size_t)p->ncodes + 1;
    } else if (p->direct) {
        e->kind = CODES_WIDE32;
        e->hist_len = (size_t)p->ncodes + 1;
    } else {
        e->kind = CODES_REMAP;
        int rw = imin(e->max_width, REMAP_TILE_W + 2 * p->rx);
        int rh = imin(e->max_in_rows, REMAP_TILE_H + 2 * p->ry);
        e->region_max = (size_t)rw * (size_t)rh;
        e->hist_len = e->region_max + 1;
    }
    /* 8-bit codes may all be below 16 in a chunk: then the few-values path.
     * WINENT_CPU_PATH (slide, portable, avx2, avx512) forces a path, for
     * tests and benchmarks; unset, the fastest this CPU has. */
    /* Disks and footprints take the slide (engine_cpu_disk.c): no
     * few-values, column or compare path. */
    /* The few-values, column and compare paths finish the entropy only:
     * the other measures take the sliding histogram. */
    if ((e->kind == CODES_SAMPLES8 || e->kind == CODES_NARROW8 || e->kind == CODES_SAMPLES16 ||
         e->kind == CODES_NARROW16) &&
        !p->shaped && p->measure.kind == WINENT_MEASURE_ENTROPY) {
        const char *req = getenv("WINENT_CPU_PATH");
        e->few = winent_few_choose(p->kx, p->ky, req);
        e->cols = winent_cols_choose(p->kx, p->ky, req);
        const int unset = req == NULL || *req == '\0', cmp = !unset && !strcmp(req, "cmp");
        e->cols_forced = !unset && !cmp;
        e->cmp = (unset || cmp) && winent_cmp_available(p->kx, p->ky);
    }
    e->scratch = calloc((size_t)e->threads, sizeof *e->scratch);
    if (e->scratch == NULL)
        goto nomem;
    for (int i = 0; i < e->threads; i++) {
        thread_scratch *s = &e->scratch[i];
        for (int g = 0; g < LANES; g++)
            if ((s->hist[g] = calloc(e->hist_len, sizeof *s->hist[g])) == NULL)
                goto nomem;
        if (p->shaped && (s->runs = malloc(winent_cpu_disk_scratch_bytes(p))) == NULL)
            goto nomem;
        if (e->few != WINENT_FEW_NONE || e->cols != WINENT_FEW_NONE) {
            size_t b = winent_few_scratch_bytes(e->max_width, p->rx);
            size_t bc = winent_cols_scratch_bytes(e->max_width, p->rx);
            b = ((b > bc ? b : bc) + 63) / 64 * 64;
            if ((s->few = aligned_alloc(64, b)) == NULL)
                goto nomem;
        }
        if (e->kind == CODES_NARROW8 || e->kind == CODES_NARROW16) {
            if ((s->row = malloc(sizeof *s->row * (size_t)e->max_width)) == NULL)
                goto nomem;
        }
        if (e->kind == CODES_SAMPLES16 || e->kind == CODES_NARROW16) {
            s->dense_of = malloc(sizeof *s->dense_of * 65536);
            s->dense_code = malloc(sizeof *s->dense_code * DENSE_MAX);
            if (s->dense_of == NULL || s->dense_code == NULL)
                goto nomem;
            memset(s->dense_of, 0xFF, sizeof *s->dense_of * 65536);
        }
        if (e->kind != CODES_REMAP)
            continue;
        unsigned bits = 4;
        while (((size_t)1 << bits) < 2 * e->region_max)
            bits++;
        s->hash_bits = bits;
        s->ids = malloc(sizeof *s->ids * e->region_max);
        s->slots = malloc(sizeof *s->slots * e->region_max);
        s->keys = malloc(sizeof *s->keys << bits);
        s->vals = malloc(sizeof *s->vals << bits);
        if (!s->ids || !s->slots || !s->keys || !s->vals)
            goto nomem;
        memset(s->keys, 0xFF, sizeof *s->keys << bits);
    }
    *out = e;
    return WINENT_OK;
nomem:
    winent_cpu_engine_free(e);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the CPU engine's scratch");
}

void winent_cpu_engine_free(winent_cpu_engine *e)
{
    if (e == NULL)
        return;
    if (e->scratch)
        for (int i = 0; i < e->threads; i++)
            free_scratch(&e->scratch[i]);
    free(e->scratch);
    winent_glcm_cpu_free(e->glcm);
    winent_glcm_plan_free(e->glcm_plan);
    free(e);
}

/* The GLCM engine for the co-occurrence measures of plans[0 .. n) (one
 * pass, plane k the k-th plan's measure): the compute options with those
 * measures, their distance, angles and symmetry (the same in every plan:
 * winent_cpu_engine_can_share). */
static void glcm_opts_of(const winent_plan *const *plans, int n, winent_glcm_opts *gp)
{
    const winent_compute_opts *c = &plans[0]->opts;
    winent_glcm_opts g;
    winent_glcm_opts_default(&g);
    g.compute = *c;
    g.compute.measure = WINENT_MEASURE_ENTROPY;
    g.distance = c->glcm_distance > 0 ? c->glcm_distance : 1;
    g.angles = c->glcm_angles;
    g.symmetric = !c->glcm_asymmetric;
    g.nmeasures = n;
    for (int k = 0; k < n; k++)
        g.measures[k] =
            (winent_glcm_measure)(plans[k]->opts.measure - WINENT_MEASURE_GLCM_ENTROPY);
    *gp = g;
}

static winent_status glcm_create(winent_cpu_engine *e, const winent_plan *const *plans, int n,
                                 winent_err *err)
{
    winent_glcm_opts g;
    glcm_opts_of(plans, n, &g);
    WINENT_TRY(winent_glcm_plan_create(&g, &e->glcm_plan, err));
    return winent_glcm_cpu_create(e->glcm_plan, e->max_width, e->threads, &e->glcm, err);
}

size_t winent_cpu_group_scratch_bytes(const winent_plan *const *plans, int n, int width)
{
    winent_glcm_opts g;
    winent_glcm_plan *gp = NULL;
    winent_err err;
    glcm_opts_of(plans, n, &g);
    if (winent_glcm_plan_create(&g, &gp, &err) != WINENT_OK)
        return 0; /* the engine's creation will say why */
    size_t b = winent_glcm_cpu_scratch_bytes(gp, width, winent_cpu_band_rows(plans[0], width));
    winent_glcm_plan_free(gp);
    return b;
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

int winent_cpu_engine_can_share(const winent_plan *a, const winent_plan *b)
{
    const winent_compute_opts *x = &a->opts, *y = &b->opts;
    if (!winent_measure_is_glcm(x->measure) || !winent_measure_is_glcm(y->measure))
        return 0;
    const unsigned ax = x->glcm_angles ? x->glcm_angles : WINENT_GLCM_ALL_ANGLES;
    const unsigned ay = y->glcm_angles ? y->glcm_angles : WINENT_GLCM_ALL_ANGLES;
    const int dx = x->glcm_distance > 0 ? x->glcm_distance : 1;
    const int dy = y->glcm_distance > 0 ? y->glcm_distance : 1;
    if (x->footprint != NULL || y->footprint != NULL) /* the GLCM engine refuses them */
        return 0;
    return x->kx == y->kx && x->ky == y->ky && x->disk == y->disk && x->base == y->base &&
           x->dtype == y->dtype && x->bins == y->bins && same_double(x->range_lo, y->range_lo) &&
           same_double(x->range_hi, y->range_hi) && x->has_nodata == y->has_nodata &&
           (!x->has_nodata || same_double(x->nodata, y->nodata)) && ax == ay && dx == dy &&
           !x->glcm_asymmetric == !y->glcm_asymmetric;
}

winent_status winent_cpu_engine_create_shared(const winent_plan *const *plans, int n,
                                              int max_width, int threads,
                                              winent_cpu_engine **out, winent_err *err)
{
    *out = NULL;
    _Static_assert(WINENT_CPU_SHARED_MAX == WINENT_GLCM_MEASURES_MAX, "one pass, every measure");
    if (n < 1 || n > WINENT_CPU_SHARED_MAX)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "a shared pass of %d maps", n);
    for (int k = 0; k < n; k++)
        if (!winent_cpu_engine_can_share(plans[0], plans[k]))
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "maps that cannot share one pass");
    winent_cpu_engine *e = calloc(1, sizeof *e);
    if (e == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the CPU engine");
    e->plan = plans[0];
    e->threads = threads < 1 ? 1 : threads;
    e->max_width = max_width < 1 ? 1 : max_width;
    e->max_in_rows = 1;
    winent_status st = glcm_create(e, plans, n, err);
    if (st != WINENT_OK) {
        winent_cpu_engine_free(e);
        return st;
    }
    *out = e;
    return WINENT_OK;
}

winent_status winent_cpu_engine_compute_planes(winent_cpu_engine *e, int worker,
                                               const winent_chunk *c, int ya, int yb,
                                               float *const *planes, int nplanes,
                                               size_t out_stride, winent_err *err)
{
    if (e->glcm == NULL || nplanes != e->glcm_plan->opts.nmeasures) {
        if (nplanes != 1)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "%d planes for an engine of %d", nplanes,
                              e->glcm ? e->glcm_plan->opts.nmeasures : 1);
        return winent_cpu_engine_compute_rows(e, worker, c, ya, yb, planes[0], out_stride, err);
    }
    if (worker < 0 || worker >= e->threads || c->width > e->max_width)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "chunk larger than the CPU engine was sized for");
    if (yb <= ya || c->width == 0)
        return WINENT_OK;
    return winent_glcm_cpu_compute_rows(e->glcm, worker, c, ya, yb, planes, out_stride, err);
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Grow a worker's code buffer to `bytes`; -1 when out of memory. */
static int ensure_codes(thread_scratch *s, size_t bytes)
{
    if (bytes <= s->codes_cap)
        return 0;
    void *b = realloc(s->codes, bytes);
    if (b == NULL)
        return -1;
    s->codes = b;
    s->codes_cap = bytes;
    return 0;
}

/* 1 when one of `h` rows of `w` 8-bit codes (`stride` apart) is `v`. */
static int rows_hold(const uint8_t *codes, size_t stride, int w, int h, uint32_t v)
{
    if (v > 255)
        return 0;
    for (int y = 0; y < h; y++)
        if (memchr(codes + (size_t)y * stride, (int)v, (size_t)w) != NULL)
            return 1;
    return 0;
}

/* Whether `distinct` dense ids, and the sentinel's id `sent_id` where the
 * band has one (`has_sent`: nodata or NaN possible), all fit a byte: 256
 * codes in use leave no id for a sentinel no pixel holds. */
static int dense_fits_bytes(int distinct, uint32_t sent_id, int has_sent)
{
    return distinct <= 256 && (!has_sent || sent_id <= 255);
}

/* Renumber the 16-bit codes of `rows` rows (`stride` apart, W each) densely
 * in order of first sight, into s->dense (rows W apart); the sentinel code
 * `sent` to its id in *sent_id, or to the first unused one when no pixel
 * holds it. Returns the number of distinct codes, or 0 when there are more
 * than DENSE_MAX or no memory (then nothing is renumbered). Where the ids
 * and the sentinel's fit a byte (dense_fits_bytes), they are also narrowed
 * to bytes after the 16-bit rows. */
static int dense16(thread_scratch *s, const uint16_t *src, size_t stride, int W, int rows,
                   int has_sent, uint32_t sent, uint32_t *sent_id)
{
    const size_t n = (size_t)W * (size_t)rows;
    if (n * 3 > s->dense_cap) {
        void *b = realloc(s->dense, n * 3);
        if (b == NULL)
            return 0;
        s->dense = b;
        s->dense_cap = n * 3;
    }
    uint16_t *dst = s->dense;
    int next = 0;
    for (int y = 0; y < rows; y++) {
        const uint16_t *r = src + (size_t)y * stride;
        uint16_t *d = dst + (size_t)y * W;
        for (int x = 0; x < W; x++) {
            uint16_t id = s->dense_of[r[x]];
            if (id == 0xFFFF) {
                if (next == DENSE_MAX) {
                    for (int i = 0; i < next; i++)
                        s->dense_of[s->dense_code[i]] = 0xFFFF;
                    return 0;
                }
                id = s->dense_of[r[x]] = (uint16_t)next;
                s->dense_code[next++] = r[x];
            }
            d[x] = id;
        }
    }
    const uint16_t sid = s->dense_of[sent & 0xFFFF];
    *sent_id = sent <= 0xFFFF && sid != 0xFFFF ? sid : (uint32_t)next;
    for (int i = 0; i < next; i++)
        s->dense_of[s->dense_code[i]] = 0xFFFF;
    if (dense_fits_bytes(next, *sent_id, has_sent)) {
        uint8_t *d8 = (uint8_t *)(dst + n);
        for (size_t i = 0; i < n; i++)
            d8[i] = (uint8_t)dst[i];
    }
    return next;
}

/* Codes of input row `src` (W samples) into `dst` (narrowed as the kind says). */
static void make_codes_row(const winent_cpu_engine *e, const void *src, size_t W, void *dst,
                           thread_scratch *s)
{
    const winent_plan *p = e->plan;
    switch (e->kind) {
    case CODES_SAMPLES16:
        memcpy(dst, src, W * 2);
        break;
    case CODES_NARROW8: {
        uint8_t *d = dst;
        const uint8_t sent = (uint8_t)p->ncodes;
        winent_plan_codes(p, src, W, s->row);
        for (size_t x = 0; x < W; x++)
            d[x] = s->row[x] == WINENT_NODATA_CODE ? sent : (uint8_t)s->row[x];
        break;
    }
    case CODES_NARROW16: {
        uint16_t *d = dst;
        const uint16_t sent = (uint16_t)p->ncodes;
        winent_plan_codes(p, src, W, s->row);
        for (size_t x = 0; x < W; x++)
            d[x] = s->row[x] == WINENT_NODATA_CODE ? sent : (uint16_t)s->row[x];
        break;
    }
    case CODES_WIDE32: {
        uint32_t *d = dst;
        winent_plan_codes(p, src, W, d);
        for (size_t x = 0; x < W; x++)
            if (d[x] == WINENT_NODATA_CODE)
                d[x] = (uint32_t)p->ncodes;
        break;
    }
    case CODES_REMAP:
        winent_plan_codes(p, src, W, dst);
        break;
    default: break;
    }
}

/* The engine's part of the choice of a path (engine_cpu_choose.h). */
static winent_cpu_choice_in choice_of(const winent_cpu_engine *e, int code8, int top)
{
    winent_cpu_choice_in in;
    memset(&in, 0, sizeof in);
    in.few = e->few;
    in.cols = e->cols;
    in.cmp = e->cmp;
    in.cols_forced = e->cols_forced;
    in.remap = e->kind == CODES_REMAP;
    in.kx = e->plan->kx;
    in.ky = e->plan->ky;
    in.code8 = code8;
    in.top = top;
    return in;
}

/* A sample's probes for the estimate: a best case, as though no pixel
 * were nodata; the bins changing per step along the sample's middle row. */
typedef struct sample_probe {
    const winent_plan *plan;
    const uint8_t *codes;
    size_t stride;
    int width, rows;
} sample_probe;

static int sample_nodata_seen(void *ctx)
{
    (void)ctx;
    return 0;
}

static double sample_changes(void *ctx, int bins)
{
    (void)bins;
    const sample_probe *b = ctx;
    const winent_plan *p = b->plan;
    const winent_few_job fj = {b->codes, b->stride, 0, b->width, b->rows, p->rx, p->ry, p->t, -1,
                               NULL, 0, 0};
    return winent_cols_changes(&fj, b->rows / 2, COLS_SAMPLES);
}

/* Before any data: every step changing no bin (the best case). */
static double no_changes(void *ctx, int bins)
{
    (void)ctx;
    (void)bins;
    return 0.0;
}

/* The sample's 16-bit codes as dense byte ids in order of first sight, as
 * a band would get them, into `narrow` (`take` rows `width` apart); 0 when
 * more than 256 are distinct (the band would take the sliding engine) or
 * no memory. */
static int sample_dense8(const winent_plan *p, const uint8_t *codes, size_t row_bytes, int width,
                         int take, uint8_t *narrow)
{
    uint16_t *of = malloc(sizeof *of * 65536);
    uint32_t *row16 = malloc(sizeof *row16 * (size_t)width);
    int next = 0;
    if (of && row16) {
        memset(of, 0xFF, sizeof *of * 65536);
        for (int y = 0; y < take && next <= 256; y++) {
            winent_plan_codes(p, codes + row_bytes * (size_t)y, (size_t)width, row16);
            for (int x = 0; x < width && next <= 256; x++) {
                /* The plan's codes (samples relabelled, as the bits go). */
                const uint32_t v = row16[x] & 0xFFFFu;
                if (of[v] == 0xFFFF)
                    of[v] = (uint16_t)next++;
                narrow[(size_t)y * width + x] = (uint8_t)of[v];
            }
        }
    }
    free(of);
    free(row16);
    return next > 0 && next <= 256;
}

/* The sample's plan codes narrowed to bytes (the sentinel ncodes). */
static int sample_narrow8(const winent_plan *p, const uint8_t *codes, size_t row_bytes, int width,
                          int take, uint8_t *narrow)
{
    uint32_t *row = malloc(sizeof *row * (size_t)width);
    if (row == NULL)
        return 0;
    const uint8_t sent = (uint8_t)p->ncodes;
    for (int y = 0; y < take; y++) {
        winent_plan_codes(p, codes + row_bytes * (size_t)y, (size_t)width, row);
        for (int x = 0; x < width; x++)
            narrow[(size_t)y * width + x] = row[x] == WINENT_NODATA_CODE ? sent : (uint8_t)row[x];
    }
    free(row);
    return 1;
}

double winent_cpu_engine_ns_per_update(const winent_cpu_engine *e, const void *rows,
                                       size_t row_bytes, int width, int nrows)
{
    double ns = 0.0;
    if (e->glcm != NULL) { /* a pair histogram per angle, slid as the entropy's */
        winent_cpu_choice_in none;
        memset(&none, 0, sizeof none);
        winent_cpu_choose(&none, &ns);
        return ns * e->glcm_plan->nangles;
    }
    winent_cpu_choice_in in = choice_of(e, 1, 0);
    in.nodata_seen = sample_nodata_seen;
    if (rows == NULL || nrows < 1 || width < 1 ||
        (e->few == WINENT_FEW_NONE && e->cols == WINENT_FEW_NONE)) {
        in.changes = no_changes; /* no data seen: the best case of any */
        winent_cpu_choose(&in, &ns);
        return ns;
    }
    /* The window's rows around the middle of those given: their codes. */
    const winent_plan *p = e->plan;
    const int take = nrows < p->ky ? nrows : p->ky;
    sample_probe probe = {p, (const uint8_t *)rows + row_bytes * (size_t)((nrows - take) / 2),
                          row_bytes, width, take};
    uint8_t *narrow = NULL;
    if (e->kind == CODES_SAMPLES16 || e->kind == CODES_NARROW16 || e->kind == CODES_NARROW8) {
        narrow = malloc((size_t)width * (size_t)take);
        const int ok = narrow != NULL &&
                       (e->kind == CODES_NARROW8
                            ? sample_narrow8(p, probe.codes, row_bytes, width, take, narrow)
                            : sample_dense8(p, probe.codes, row_bytes, width, take, narrow));
        in.code8 = ok;
        probe.codes = narrow;
        probe.stride = (size_t)width;
    }
    if (in.code8)
        in.top = winent_cols_max_code(probe.codes, probe.stride, width, take);
    in.changes = sample_changes;
    in.ctx = &probe;
    winent_cpu_choose(&in, &ns);
    free(narrow);
    return ns;
}

/* Does the plan read its codes in place (no code rows to make per band)? */
static int codes_in_place(const winent_plan *p)
{
    const size_t ss = winent_dtype_size(p->opts.dtype);
    return !p->rule.quantize && ss <= 2;
}

/* Bands for the few-values path: at least two windows high, so its column
 * set-up (Ky rows) stays a small part of the band's work; about 256 K
 * pixels. */
static int tall_rows(const winent_plan *p, int w)
{
    int rows = (int)((((int64_t)1 << 18) + w - 1) / w);
    return imax(rows, 2 * p->ky);
}

/* Bands for the sliding histograms: about the work of 256 K pixels at 5 x 5
 * (each pixel costs ~2 Ky updates), so large windows get short bands and
 * the CPU's share of a job stays fine-grained; at least 2 ry rows where
 * code rows are made per band (their halo is made again by each band). */
static int short_rows(const winent_plan *p, int w)
{
    int64_t px = ((int64_t)1 << 18) * 20 / (2 * p->ky + 10);
    int rows = (int)((px + w - 1) / w);
    if (!codes_in_place(p))
        rows = imax(rows, 2 * p->ry);
    return rows;
}

int winent_cpu_band_rows(const winent_plan *p, int width)
{
    int w = width > 0 ? width : 1;
    int rows = imax(tall_rows(p, w), short_rows(p, w));
    return (rows + LANES - 1) / LANES * LANES;
}

int winent_cpu_engine_band_rows(const winent_cpu_engine *e, int width)
{
    int w = width > 0 ? width : 1;
    const int last = __atomic_load_n(&e->last_path, __ATOMIC_RELAXED);
    int few = winent_cpu_path_row_of((winent_cpu_path)last)->tall;
    int rows = few ? tall_rows(e->plan, w) : short_rows(e->plan, w);
    return (rows + LANES - 1) / LANES * LANES;
}

size_t winent_cpu_scratch_bytes(const winent_plan *p, int width)
{
    const size_t W = (size_t)(width > 0 ? width : 1);
    if (winent_measure_is_glcm(p->opts.measure))
        return winent_cpu_group_scratch_bytes(&p, 1, width);
    const size_t in_rows = (size_t)(winent_cpu_band_rows(p, width) + 2 * p->ry);
    size_t hist = p->direct && p->ncodes < 65536 ? (size_t)p->ncodes + 1 : 65536;
    size_t b = LANES * hist * sizeof(uint16_t) + W * sizeof(uint32_t); /* histograms, one row */
    /* Code rows: none where the samples are the codes (8-bit samples), the
     * samples' own size where 16-bit samples may be copied to align them,
     * else the narrowest code that holds every code. */
    const size_t ss = winent_dtype_size(p->opts.dtype);
    size_t code = !p->rule.quantize && ss == 1   ? 0
                  : !p->rule.quantize && ss == 2 ? 2
                  : p->direct && p->ncodes < 256 ? 1
                  : p->direct && p->ncodes < 65536 ? 2
                                                   : 4;
    b += W * in_rows * code;
    if (code == 2) /* dense renumbering: the code's id, the id's code, the ids' rows */
        b += 65536 * sizeof(uint16_t) + DENSE_MAX * sizeof(uint16_t) + W * in_rows * 3;
    size_t few = winent_few_scratch_bytes((int)W, p->rx);
    size_t cols = winent_cols_scratch_bytes((int)W, p->rx);
    b += (few > cols ? few : cols) + 64;
    if (p->shaped)
        b += winent_cpu_disk_scratch_bytes(p);
    if (!p->direct) { /* remap tiles: ids, slots, and a hash table twice the region */
        size_t region = (size_t)(REMAP_TILE_W + 2 * p->rx) * (size_t)(REMAP_TILE_H + 2 * p->ry);
        b += region * (2 * sizeof(uint32_t) + LANES * sizeof(uint16_t)) + 4 * region * 8;
    }
    return b;
}

/* The band's slide job: its codes (the samples in place, or code rows
 * made for rows [ra, rb)), their sentinel, and the 16-bit codes renumbered
 * densely where the band holds few enough (bytes, and the 8-bit paths,
 * where at most 256). *code8: the codes are bytes. */
static winent_status band_codes(winent_cpu_engine *e, thread_scratch *s, const winent_chunk *c,
                                int ra, int rb, slide_job *j, code_kind *kind, int *code8,
                                winent_err *err)
{
    const winent_plan *p = e->plan;
    const int W = c->width;
    const size_t ss = winent_dtype_size(p->opts.dtype);
    const char *row_ra = (const char *)c->rows + (size_t)(ra - c->in_y0) * c->row_bytes;
    *kind = e->kind;
    if ((*kind == CODES_SAMPLES16 && (uintptr_t)c->rows % 2 == 0 && c->row_bytes % 2 == 0) ||
        *kind == CODES_SAMPLES8) {
        j->base = row_ra;
        j->stride = c->row_bytes / ss;
    } else {
        const size_t csz = code_size(*kind);
        if (ensure_codes(s, csz * (size_t)W * (size_t)(rb - ra) + 1) != 0)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the CPU engine's codes");
        for (int r = ra; r < rb; r++)
            make_codes_row(e, row_ra + (size_t)(r - ra) * c->row_bytes, (size_t)W,
                           (char *)s->codes + csz * (size_t)W * (size_t)(r - ra), s);
        j->base = s->codes;
        j->stride = (size_t)W;
    }
    j->oy = ra;
    if (*kind == CODES_SAMPLES8 || *kind == CODES_SAMPLES16) {
        /* The nodata sample's bit pattern, as the sample type holds it. */
        uint64_t bits = (uint64_t)p->rule.nodata_int;
        j->sent = ss == 1 ? (uint32_t)(bits & 0xFFu) : (uint32_t)(bits & 0xFFFFu);
    } else if (*kind != CODES_REMAP) {
        j->sent = (uint32_t)p->ncodes;
    }
    *code8 = code_size(*kind) == 1;
    if (code_size(*kind) == 2) {
        uint32_t sid = 0;
        const int distinct = dense16(s, (const uint16_t *)j->base, j->stride, W, rb - ra,
                                     j->has_sent, j->sent, &sid);
        if (distinct > 0) {
            *code8 = dense_fits_bytes(distinct, sid, j->has_sent);
            j->base = *code8 ? (const void *)((const uint16_t *)s->dense + (size_t)W * (rb - ra))
                             : s->dense;
            j->stride = (size_t)W;
            j->sent = sid;
            *kind = *code8 ? CODES_NARROW8 : CODES_NARROW16;
        }
    }
    return WINENT_OK;
}

/* The few-values and column kernels' job over a band's 8-bit codes, its
 * sentinel where the histograms of `bins` bins hold it. */
static winent_few_job few_job_of(const slide_job *j, int bins)
{
    winent_few_job fj = {(const uint8_t *)j->base, j->stride, j->oy, j->W, j->H, j->rx, j->ry,
                         j->t, j->has_sent && j->sent < (uint32_t)bins ? (int)j->sent : -1,
                         j->out, j->out_stride, j->out_y0};
    return fj;
}

/* The choice's probes of a band (its rows [ya, yb), input rows from j->oy). */
typedef struct band_probe {
    const slide_job *j;
    int in_rows, ya, yb;
} band_probe;

static int band_nodata_seen(void *ctx)
{
    const band_probe *b = ctx;
    return b->j->has_sent && rows_hold((const uint8_t *)b->j->base, b->j->stride, b->j->W,
                                       b->in_rows, b->j->sent);
}

static double band_changes(void *ctx, int bins)
{
    const band_probe *b = ctx;
    const winent_few_job fj = few_job_of(b->j, bins);
    return winent_cols_changes(&fj, (b->ya + b->yb) / 2, COLS_SAMPLES);
}

/* The compare kernel on the full windows of rows [ya, yb), the sliding
 * engine on the borders; 0 when the kernel computed nothing (an image
 * too narrow), then nothing is written. */
static int run_cmp(winent_cpu_engine *e, const slide_job *j, thread_scratch *s, int ya, int yb)
{
    const winent_plan *p = e->plan;
    const winent_few_job fj = few_job_of(j, 0);
    const int xe = winent_cmp_rows(&fj, p->lq, ya, yb);
    if (xe <= p->rx)
        return 0;
    const int ia = imax(ya, p->ry), ib = imin(yb, j->H - p->ry);
    if (ya < ia)
        slide(j, 1, ya, ia, 0, j->W, s->hist);
    if (ib < yb)
        slide(j, 1, ib, yb, 0, j->W, s->hist);
    if (p->rx > 0) /* (the kernel builds a window even for no columns) */
        slide(j, 1, ia, ib, 0, p->rx, s->hist);
    if (xe < j->W)
        slide(j, 1, ia, ib, xe, j->W, s->hist);
    return 1;
}

/* Remap: tiles small enough that their distinct codes fit the scratch. */
static void run_remap(winent_cpu_engine *e, slide_job *j, thread_scratch *s, int ra, int ya,
                      int yb)
{
    const winent_plan *p = e->plan;
    const int W = j->W;
    j->sent = (uint32_t)e->region_max;
    for (int ty = ya; ty < yb; ty += REMAP_TILE_H) {
        int tyb = imin(yb, ty + REMAP_TILE_H);
        for (int xa = 0; xa < W; xa += REMAP_TILE_W) {
            int xb = imin(W, xa + REMAP_TILE_W);
            int rx0 = imax(0, xa - p->rx), rx1 = imin(W, xb + p->rx);
            int ry0 = imax(0, ty - p->ry), ry1 = imin(j->H, tyb + p->ry);
            uint32_t distinct = remap_region((const uint32_t *)s->codes, (size_t)W, ra, ry0, ry1,
                                             rx0, rx1, j->sent, s);
            slide_job tj = *j;
            tj.base = s->ids;
            tj.stride = (size_t)(rx1 - rx0);
            tj.ox = rx0;
            tj.oy = ry0;
            slide(&tj, 4, ty, tyb, xa, xb, s->hist);
            remap_release(s, distinct);
        }
    }
}

/* Rows [ya, yb) through the path the table picks for them (the compare
 * kernel, where it computes nothing, hands the band to the next row). */
static void run_band(winent_cpu_engine *e, slide_job *j, thread_scratch *s, code_kind kind,
                     int code8, int ra, int rb, int ya, int yb)
{
    const int top = code8 && (e->few != WINENT_FEW_NONE || e->cols != WINENT_FEW_NONE)
                        ? winent_cols_max_code((const uint8_t *)j->base, j->stride, j->W, rb - ra)
                        : 0;
    band_probe probe = {j, rb - ra, ya, yb};
    winent_cpu_choice_in in = choice_of(e, code8, top);
    in.nodata_seen = band_nodata_seen;
    in.changes = band_changes;
    in.ctx = &probe;
    const winent_cpu_path_row *row = winent_cpu_choose(&in, NULL);
    if (row->path == WINENT_CPU_CMP && !run_cmp(e, j, s, ya, yb)) {
        in.cmp = 0;
        row = winent_cpu_choose(&in, NULL);
    }
    __atomic_store_n(&e->last_path, (int)row->path, __ATOMIC_RELAXED);
    switch (row->path) {
    case WINENT_CPU_CMP: break; /* done above */
    case WINENT_CPU_FEW: {
        const winent_few_job fj = few_job_of(j, row->bins);
        winent_few_rows(&fj, e->few, ya, yb, s->few);
        break;
    }
    case WINENT_CPU_COLS64:
    case WINENT_CPU_COLS256: {
        const winent_few_job fj = few_job_of(j, row->bins);
        winent_cols_rows(&fj, row->bins, e->cols, ya, yb, s->few);
        break;
    }
    case WINENT_CPU_REMAP: run_remap(e, j, s, ra, ya, yb); break;
    default: slide(j, code_size(kind), ya, yb, 0, j->W, s->hist); break;
    }
}

winent_status winent_cpu_engine_compute_rows(winent_cpu_engine *e, int worker,
                                             const winent_chunk *c, int ya, int yb, float *out,
                                             size_t out_stride, winent_err *err)
{
    const winent_plan *p = e->plan;
    const int W = c->width;
    if (W > e->max_width || worker < 0 || worker >= e->threads)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "chunk larger than the CPU engine was sized for");
    if (yb <= ya || W == 0)
        return WINENT_OK;
    /* Input rows this band's windows need. */
    const int ra = imax(0, ya - p->ry), rb = imin(c->height, yb + p->ry);
    if (ya < c->y0 || yb > c->y1 || ra < c->in_y0 || rb > c->in_y0 + c->in_h)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "band [%d, %d) outside its chunk", ya, yb);
    if (e->glcm != NULL) { /* a co-occurrence measure: its own engine and scratch */
        float *planes[1] = {out};
        return winent_glcm_cpu_compute_rows(e->glcm, worker, c, ya, yb, planes, out_stride, err);
    }
    if (p->opts.measure == WINENT_MEASURE_MAJORITY) /* no running sum: its own kernel */
        return winent_cpu_majority_rows(p, c, ya, yb, out, out_stride, err);
    thread_scratch *s = &e->scratch[worker];
    slide_job j;
    memset(&j, 0, sizeof j);
    j.W = W;
    j.H = c->height;
    j.rx = p->rx;
    j.ry = p->ry;
    j.t = p->t;
    j.du = p->du;
    j.out = out;
    j.out_stride = out_stride;
    j.out_y0 = c->y0;
    j.has_sent = e->can_nodata;
    j.plan = p;
    j.runs = s->runs;
    j.m = &p->measure;
    code_kind kind;
    int code8;
    WINENT_TRY(band_codes(e, s, c, ra, rb, &j, &kind, &code8, err));
    run_band(e, &j, s, kind, code8, ra, rb, ya, yb);
    return WINENT_OK;
}

const char *winent_cpu_engine_last_path(const winent_cpu_engine *e)
{
    const int last = __atomic_load_n(&e->last_path, __ATOMIC_RELAXED);
    return winent_cpu_path_row_of((winent_cpu_path)last)->name;
}

winent_status winent_cpu_engine_compute(winent_cpu_engine *e, const winent_chunk *c, float *out,
                                        size_t out_stride, winent_err *err)
{
    const int W = c->width;
    if (W > e->max_width || c->in_h > e->max_in_rows)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "chunk larger than the CPU engine was sized for");
    if (c->y1 <= c->y0 || W == 0)
        return WINENT_OK;
    /* The bands the pipeline's workers take one by one (short ones for
     * large windows), here spread over the engine's own OpenMP team (the
     * public one-chunk call). */
    const int band = winent_cpu_engine_band_rows(e, W);
    const int bands = (c->y1 - c->y0 + band - 1) / band;
    winent_status st = WINENT_OK;
    winent_err first;
    winent_err_clear(&first);
#pragma omp parallel for num_threads(e->threads) schedule(dynamic, 1)
    for (int b = 0; b < bands; b++) {
        winent_err e2;
        winent_err_clear(&e2);
        int ya = c->y0 + b * band, yb = imin(c->y1, ya + band);
        if (winent_cpu_engine_compute_rows(e, thread_id(), c, ya, yb, out, out_stride, &e2) !=
            WINENT_OK) {
#pragma omp critical(winent_cpu_err)
            winent_err_merge(&first, &e2);
        }
    }
    if (first.status != WINENT_OK) {
        winent_err_merge(err, &first);
        st = first.status;
    }
    return st;
}
