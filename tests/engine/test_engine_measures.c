/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measures of a window's histogram (--measure: renyi:Q, simpson,
 * richness, evenness, majority) on every CPU path against two oracles:
 *  - the reference engine (each window's codes sorted and counted from
 *    scratch), bit for bit: the engine's sliding sums must give its bits,
 *    with 1 and 2 threads, whole images and chunks of several heights;
 *  - a brute-force oracle of this test's own: each window's pixels
 *    counted in a direct histogram of the sample values (not the codes),
 *    the measure from the plain float64 formulas, to float32 rounding.
 * Inputs: random 8-bit, 16-bit, 32-bit (the remap path), floats with
 * --bins/--range, nodata and NaN, windows wider than the image,
 * rectangular and disk windows; and the structured cases: one class
 * everywhere (evenness 0, richness 1), all nodata but one pixel, and a
 * window holding one valid pixel.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_cases.h"
#include "harness.h"

/* `special`: the share of nodata (and NaN for floats). */
typedef value_case vcase;

static const vcase vcases[] = {
    {"u8 5 values", WINENT_U8, 0, 0, 0, 0, 0, 3, 5, 0, 0},
    {"u8 256 values, nodata 7", WINENT_U8, 0, 0, 0, 1, 7, 0, 256, 0.1, 0},
    {"i8 values -4..3, nodata -1", WINENT_I8, 0, 0, 0, 1, -1, -4, 8, 0.1, 0},
    {"u16 300 values, nodata 65535", WINENT_U16, 0, 0, 0, 1, 65535, 65300, 236, 0.05, 0},
    {"i16 full range", WINENT_I16, 0, 0, 0, 0, 0, -32768, 65536, 0, 0},
    {"u32 9 values near the top, nodata", WINENT_U32, 0, 0, 0, 1, 4000000003.0, 4000000000LL,
     9, 0.05, 0},
    {"i32 100k values", WINENT_I32, 0, 0, 0, 0, 0, -50000, 100000, 0, 0},
    {"i16 bins 7 range -100:100, nodata 0", WINENT_I16, 7, -100, 100, 1, 0, -120, 240, 0.05, 0},
    {"f32 bins 12 range 0:1, NaN, nodata 0.5", WINENT_F32, 12, 0, 1, 1, 0.5, 0, 0, 0.1, 0},
    {"f64 bins 70000 range -1:1, NaN", WINENT_F64, 70000, -1, 1, 0, 0, 0, 0, 0.05, 0},
};

typedef struct mcase {
    winent_measure m;
    double q;
} mcase;

static const mcase mcases[] = {
    {WINENT_MEASURE_SIMPSON, 0},  {WINENT_MEASURE_RICHNESS, 0}, {WINENT_MEASURE_EVENNESS, 0},
    {WINENT_MEASURE_RENYI, 2},    {WINENT_MEASURE_RENYI, 0},    {WINENT_MEASURE_RENYI, 0.5},
    {WINENT_MEASURE_RENYI, 3},    {WINENT_MEASURE_RENYI, 1.7},  {WINENT_MEASURE_MAJORITY, 0},
};

static unsigned long long seed = 0x3ea5u;

static double unit(void)
{
    return vc_unit(&seed);
}

static uint8_t *make_input(const vcase *vc, int w, int h, int pattern)
{
    size_t n = (size_t)w * h, ss = winent_dtype_size(vc->dtype);
    uint8_t *p = malloc(n * ss + 8);
    if (p == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int special = unit() < vc->special;
        /* pattern 1: one class; 2: nodata everywhere but every 7th pixel */
        if (pattern == 1)
            special = 0;
        if (pattern == 2)
            special = vc->has_nodata || winent_dtype_is_float(vc->dtype) ? i % 7 != 0 : 0;
        if (winent_dtype_is_float(vc->dtype)) {
            double span = vc->hi - vc->lo;
            double v = pattern == 1 ? vc->lo + 0.3 * span : vc->lo - 0.1 * span + 1.2 * span * unit();
            if (special)
                v = vc->has_nodata && unit() < 0.5 ? vc->nodata : NAN;
            harness_put_sample(p, vc->dtype, i, 0, v);
        } else {
            int64_t v = vc->vmin + (int64_t)(harness_rand(&seed) % vc->nvals);
            if (pattern == 1)
                v = vc->vmin;
            if (pattern == 1 && vc->has_nodata && v == (int64_t)vc->nodata)
                v++;
            if (special && vc->has_nodata)
                v = (int64_t)vc->nodata;
            harness_put_sample(p, vc->dtype, i, v, 0.0);
        }
    }
    return p;
}

/* The sample at i as a value, and whether it counts. */
static int sample_value(const vcase *vc, const uint8_t *in, size_t i, double *v)
{
    switch (vc->dtype) {
    case WINENT_U8: *v = in[i]; break;
    case WINENT_I8: *v = (int8_t)in[i]; break;
    case WINENT_U16: { uint16_t x; memcpy(&x, in + 2 * i, 2); *v = x; break; }
    case WINENT_I16: { int16_t x; memcpy(&x, in + 2 * i, 2); *v = x; break; }
    case WINENT_U32: { uint32_t x; memcpy(&x, in + 4 * i, 4); *v = x; break; }
    case WINENT_I32: { int32_t x; memcpy(&x, in + 4 * i, 4); *v = x; break; }
    case WINENT_F32: {
        float x;
        memcpy(&x, in + 4 * i, 4);
        *v = x;
        if (vc->has_nodata && x == (float)vc->nodata)
            return 0;
        break;
    }
    default: { double x; memcpy(&x, in + 8 * i, 8); *v = x; break; }
    }
    if (isnan(*v))
        return 0;
    if (vc->has_nodata && vc->dtype != WINENT_F32 && *v == vc->nodata)
        return 0;
    if (vc->bins > 0) { /* the bin, as SPEC section 2 defines it */
        double t = (*v - vc->lo) * vc->bins / (vc->hi - vc->lo);
        *v = t < 0 ? 0 : t >= vc->bins ? vc->bins - 1 : floor(t);
    }
    return 1;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* This test's oracle: the window's values, sorted, counted, measured. */
static double oracle(const vcase *vc, const mcase *mc, winent_base base, const uint8_t *in, int w,
                     int h, int kx, int ky, int disk, int x, int y, double *vals)
{
    double v;
    if (!sample_value(vc, in, (size_t)y * w + x, &v))
        return NAN;
    int n = 0;
    for (int dy = -(ky / 2); dy <= ky / 2; dy++)
        for (int dx = -(kx / 2); dx <= kx / 2; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                continue;
            if (disk && dx * dx + dy * dy > (kx / 2) * (kx / 2))
                continue;
            if (sample_value(vc, in, (size_t)yy * w + xx, &v))
                vals[n++] = v;
        }
    qsort(vals, (size_t)n, sizeof *vals, cmp_d);
    double lnb = base == WINENT_BASE_2 ? log(2.0) : base == WINENT_BASE_10 ? log(10.0) : 1.0;
    double hsum = 0, sq = 0, pq = 0, mode = vals[0];
    int rich = 0, best = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && vals[j] == vals[i])
            j++;
        double p = (double)(j - i) / n;
        hsum -= p * log(p);
        sq += p * p;
        pq += pow(p, mc->q);
        if (j - i > best) {
            best = j - i;
            mode = vals[i];
        }
        rich++;
        i = j;
    }
    switch (mc->m) {
    case WINENT_MEASURE_SIMPSON: return 1 - sq;
    case WINENT_MEASURE_RICHNESS: return rich;
    case WINENT_MEASURE_EVENNESS: return rich > 1 ? hsum / log(rich) : 0.0;
    case WINENT_MEASURE_RENYI: return log(pq) / (1 - mc->q) / lnb;
    case WINENT_MEASURE_MAJORITY:
        return vc->bins > 0 ? vc->lo + (mode + 0.5) * (vc->hi - vc->lo) / vc->bins : mode;
    default: return NAN;
    }
}

static void run_case(const vcase *vc, const mcase *mc, int kx, int ky, int disk, winent_base base,
                     int w, int h, int pattern)
{
    winent_compute_opts o = vc_opts(vc, kx, ky);
    o.disk = disk;
    o.base = base;
    o.measure = mc->m;
    o.renyi_q = mc->q;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    const size_t n = (size_t)w * h, row_bytes = (size_t)w * winent_dtype_size(vc->dtype);
    uint8_t *in = make_input(vc, w, h, pattern);
    float *ref = malloc(n * sizeof *ref);
    double *vals = malloc(sizeof *vals * (size_t)kx * ky);
    char label[200];
    snprintf(label, sizeof label, "%s, %s q=%g, %dx%d%s base %d, %dx%d image, pattern %d",
             vc->name, winent_measure_name(mc->m), mc->q, kx, ky, disk ? " disk" : "", (int)base,
             w, h, pattern);
    if (!in || !ref || !vals) {
        CHECK(0, "out of memory");
        goto done;
    }
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s: %s", label, err.msg);
    if (p == NULL)
        goto done;
    winent_chunk whole = {in, row_bytes, w, h, 0, h, 0, h};
    CHECK(winent_reference_compute(p, &whole, ref, (size_t)w, &err) == WINENT_OK, "%s", err.msg);
    /* The oracle, every pixel of small cases, a sample of large ones. */
    double worst = 0;
    size_t worst_at = 0;
    const size_t step = (double)n * kx * ky < 2e6 ? 1 : 97;
    for (size_t i = 0; i < n; i += step) {
        double want = oracle(vc, mc, base, in, w, h, kx, ky, disk, (int)(i % w), (int)(i / w), vals);
        if (isnan(want) || isnan(ref[i])) {
            CHECK(isnan(want) && isnan(ref[i]), "%s: pixel %zu: oracle %g, reference %g", label, i,
                  want, ref[i]);
            continue;
        }
        double d = fabs(ref[i] - want) / fmax(1.0, fabs(want));
        if (mc->m == WINENT_MEASURE_MAJORITY && vc->bins == 0)
            d = ref[i] == (float)want ? 0 : 1;
        if (d > worst) {
            worst = d;
            worst_at = i;
        }
    }
    CHECK(worst <= 2e-6, "%s: reference vs oracle differ by %g at pixel %zu", label, worst,
          worst_at);
    static const int bands[] = {0, 1, 5};
    vc_check_cpu(p, in, row_bytes, w, h, ref, bands, 3, 2, label);
done:
    winent_plan_free(p);
    free(in);
    free(ref);
    free(vals);
}

/* Structured answers that need no oracle: one class everywhere. */
static void known_answers(void)
{
    const vcase *vc = &vcases[0];
    for (size_t m = 0; m < sizeof mcases / sizeof mcases[0]; m++) {
        winent_compute_opts o;
        winent_compute_opts_default(&o);
        o.kx = o.ky = 5;
        o.measure = mcases[m].m;
        o.renyi_q = mcases[m].q;
        winent_plan *p = NULL;
        winent_err err;
        winent_err_clear(&err);
        uint8_t in[36];
        memset(in, (int)vc->vmin, sizeof in);
        float out[36];
        CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
        if (p == NULL)
            continue;
        winent_chunk whole = {in, 6, 6, 6, 0, 6, 0, 6};
        CHECK(winent_reference_compute(p, &whole, out, 6, &err) == WINENT_OK, "%s", err.msg);
        float want = mcases[m].m == WINENT_MEASURE_RICHNESS   ? 1.0f
                     : mcases[m].m == WINENT_MEASURE_MAJORITY ? (float)vc->vmin
                                                              : 0.0f;
        for (int i = 0; i < 36; i++)
            CHECK(out[i] == want && !signbit(out[i]), "%s one class: pixel %d is %g, not %g",
                  winent_measure_name(o.measure), i, out[i], want);
        winent_plan_free(p);
    }
}

int main(void)
{
    known_answers();
    static const int windows[][3] = {{1, 1, 0}, {3, 3, 0}, {5, 3, 0}, {3, 7, 0},
                                     {5, 5, 1}, {9, 9, 1}, {15, 15, 0}};
    static const int sizes[][2] = {{1, 1}, {13, 1}, {4, 3}, {41, 37}};
    const int nv = (int)(sizeof vcases / sizeof vcases[0]);
    const int nm = (int)(sizeof mcases / sizeof mcases[0]);
    int turn = 0;
    for (int v = 0; v < nv; v++)
        for (int m = 0; m < nm; m++) {
            fprintf(stderr, "%s, %s\n", vcases[v].name, winent_measure_name(mcases[m].m));
            for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                    run_case(&vcases[v], &mcases[m], windows[wi][0], windows[wi][1],
                             windows[wi][2], (winent_base)(turn++ % 3), sizes[si][0],
                             sizes[si][1], 0);
            /* One class; nodata but every 7th pixel. */
            run_case(&vcases[v], &mcases[m], 5, 5, 0, (winent_base)(turn++ % 3), 23, 19, 1);
            run_case(&vcases[v], &mcases[m], 3, 3, 0, (winent_base)(turn++ % 3), 23, 19, 2);
        }
    /* Large windows: wider than the image, and a 255 x 255 one inside it. */
    static const mcase big[] = {{WINENT_MEASURE_SIMPSON, 0}, {WINENT_MEASURE_EVENNESS, 0},
                                {WINENT_MEASURE_RENYI, 2}, {WINENT_MEASURE_MAJORITY, 0}};
    for (size_t m = 0; m < sizeof big / sizeof big[0]; m++) {
        run_case(&vcases[1], &big[m], 255, 255, 0, WINENT_BASE_2, 37, 29, 0);
        run_case(&vcases[3], &big[m], 31, 31, 0, WINENT_BASE_E, 67, 53, 0);
        run_case(&vcases[8], &big[m], 41, 41, 1, WINENT_BASE_10, 50, 45, 0);
    }
    return harness_end();
}
