/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cases.h - what the CPU engine's tests against the reference
 * share (tests/engine/test_engine_*.c): a case of sample values (type,
 * bins and range, nodata, the values drawn), its random image, its compute
 * options, the engine run whole and in chunks with their halo rows against
 * the reference bit for bit, and the reference against a count made here
 * on u8 from a window's mask. Include after harness.h, with src/ on the
 * include path.
 */
#ifndef WINENT_TEST_ENGINE_CASES_H
#define WINENT_TEST_ENGINE_CASES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_reference.h"

/* The samples of a case: integers vmin .. vmin + nvals - 1, floats over the
 * range (and a margin beyond it); a share `special` of them nodata (or, for
 * floats, NaN or nodata); `misalign`: rows handed over at an odd address. */
typedef struct value_case {
    const char *name;
    winent_dtype dtype;
    uint32_t bins;
    double lo, hi;
    int has_nodata;
    double nodata;
    int64_t vmin;
    uint64_t nvals;
    double special;
    int misalign;
} value_case;

/* A uniform double in [0, 1) from `seed`. */
static inline double vc_unit(unsigned long long *seed)
{
    return (double)(harness_rand(seed) >> 11) / 9007199254740992.0;
}

/* A random w x h image of case `vc`, `extra` bytes in front of it (free
 * the pointer returned; the image starts `extra` bytes in). Floats spread
 * over [lo - margin * span, hi + margin * span]. NULL when out of memory. */
static inline uint8_t *vc_make_input(const value_case *vc, int w, int h, double margin,
                                     size_t extra, unsigned long long *seed)
{
    const size_t n = (size_t)w * h;
    uint8_t *buf = (uint8_t *)malloc(n * winent_dtype_size(vc->dtype) + extra + 8);
    if (buf == NULL)
        return NULL;
    uint8_t *p = buf + extra;
    for (size_t i = 0; i < n; i++) {
        const int special = vc_unit(seed) < vc->special;
        if (winent_dtype_is_float(vc->dtype)) {
            const double span = vc->hi - vc->lo;
            double v = vc->lo - margin * span + (1.0 + 2.0 * margin) * span * vc_unit(seed);
            if (special)
                v = vc->has_nodata && vc_unit(seed) < 0.5 ? vc->nodata : NAN;
            harness_put_sample(p, vc->dtype, i, 0, v);
        } else {
            int64_t v = vc->vmin + (int64_t)(harness_rand(seed) % vc->nvals);
            if (special && vc->has_nodata)
                v = (int64_t)vc->nodata;
            harness_put_sample(p, vc->dtype, i, v, 0.0);
        }
    }
    return buf;
}

/* The compute options of case `vc` with window kx x ky (the rest default). */
static inline winent_compute_opts vc_opts(const value_case *vc, int kx, int ky)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.kx = kx;
    o.ky = ky;
    o.dtype = vc->dtype;
    o.bins = vc->bins;
    o.range_lo = vc->lo;
    o.range_hi = vc->hi;
    o.has_nodata = vc->has_nodata;
    o.nodata = vc->nodata;
    return o;
}

/* The CPU engine on plan `p` against the reference's map `ref` bit for bit,
 * on 1 to `threads` threads, the w x h image `in` (rows of `row_bytes`)
 * whole (a band height of 0) and in chunks of each height of `bands`, each
 * with its halo rows. A failure's line starts with `label`. */
static inline void vc_check_cpu(const winent_plan *p, const uint8_t *in, size_t row_bytes, int w,
                                int h, const float *ref, const int *bands, int nbands, int threads,
                                const char *label)
{
    const size_t n = (size_t)w * h;
    float *got = (float *)malloc(n * sizeof *got);
    if (got == NULL) {
        CHECK(0, "%s: out of memory", label);
        return;
    }
    winent_err err;
    winent_err_clear(&err);
    for (int t = 1; t <= threads; t++) {
        winent_cpu_engine *e = NULL;
        if (winent_cpu_engine_create(p, w, h, t, &e, &err) != WINENT_OK) {
            CHECK(0, "%s: engine of %d threads: %s", label, t, err.msg);
            break;
        }
        for (int bi = 0; bi < nbands; bi++) {
            const int bh = bands[bi] ? bands[bi] : h;
            memset(got, 0xA5, n * sizeof *got);
            for (int y0 = 0; y0 < h; y0 += bh) {
                int y1 = y0 + bh < h ? y0 + bh : h, in_y0, in_h;
                winent_chunk_input_rows(y0, y1, p->ry, h, &in_y0, &in_h);
                winent_chunk c = {in + (size_t)in_y0 * row_bytes, row_bytes, w, h, in_y0, in_h,
                                  y0, y1};
                CHECK(winent_cpu_engine_compute(e, &c, got + (size_t)y0 * w, (size_t)w, &err) ==
                          WINENT_OK,
                      "%s: %s", label, err.msg);
            }
            size_t at = 0;
            while (at < n && memcmp(&ref[at], &got[at], sizeof *got) == 0)
                at++;
            CHECK(at == n, "%s, %d threads, bands of %d: pixel (%zu, %zu) reference %.9g, cpu %.9g",
                  label, t, bh, at % (size_t)w, at / (size_t)w, at < n ? ref[at] : 0.0f,
                  at < n ? got[at] : 0.0f);
        }
        winent_cpu_engine_free(e);
    }
    free(got);
}

/* The reference on plan `p` against the definition, counted here on the
 * w x h u8 image `in`: each pixel's window the set bytes of `mask` (ky rows
 * of kx, its centre at column kx / 2, row ky / 2) inside the image, values
 * equal to `nodata` not counted (a nodata centre NaN), entropy in bits in
 * float64, within 1e-6. */
static inline void vc_check_reference_u8(const winent_plan *p, const uint8_t *in, int w, int h,
                                         const unsigned char *mask, int kx, int ky, int nodata,
                                         const char *label)
{
    float *ref = (float *)malloc(sizeof *ref * (size_t)w * h);
    winent_err err;
    winent_err_clear(&err);
    winent_chunk whole = {in, (size_t)w, w, h, 0, h, 0, h};
    if (ref == NULL || winent_reference_compute(p, &whole, ref, (size_t)w, &err) != WINENT_OK) {
        CHECK(0, "%s: the reference: %s", label, ref ? err.msg : "out of memory");
        free(ref);
        return;
    }
    double worst = 0;
    int nan_ok = 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float got = ref[(size_t)y * w + x];
            if (in[(size_t)y * w + x] == nodata) {
                nan_ok &= isnan(got);
                continue;
            }
            int count[256] = {0}, n = 0;
            for (int r = 0; r < ky; r++)
                for (int c = 0; c < kx; c++) {
                    const int yy = y + r - ky / 2, xx = x + c - kx / 2;
                    if (!mask[r * kx + c] || yy < 0 || yy >= h || xx < 0 || xx >= w)
                        continue;
                    const uint8_t v = in[(size_t)yy * w + xx];
                    if (v != nodata) {
                        count[v]++;
                        n++;
                    }
                }
            double e = 0;
            for (int v = 0; v < 256; v++)
                if (count[v])
                    e -= (double)count[v] / n * log2((double)count[v] / n);
            const double d = fabs(e - got); /* n = 0: the map's 0 */
            worst = d > worst ? d : worst;
        }
    CHECK(nan_ok, "%s: a nodata centre is not NaN", label);
    CHECK(worst <= 1e-6, "%s: reference vs the definition: %g", label, worst);
    free(ref);
}

#endif
