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
 * The 8-bit paths (few values, columns of 64 and 256 bins, the majority's
 * columns of byte keys) are forced one by one (WINENT_CPU_PATH) on 8-bit
 * data, binned data and 16-bit data of few values, windows 3 to 31, with
 * 1 to 4 threads, and the path the engine took is checked.
 * Inputs: random 8-bit, 16-bit, 32-bit (the remap path), floats with
 * --bins/--range, nodata and NaN, windows wider than the image,
 * rectangular and disk windows; and the structured cases: one class
 * everywhere (evenness 0, richness 1), all nodata but one pixel, and a
 * window holding one valid pixel. Under a sanitizer each case takes half
 * the windows and sizes, by turns.
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
/* A sanitizer's build: half of the window and size cases (main). */
static int half;

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

/* How run_case runs the CPU engine: WINENT_CPU_PATH (NULL: unset), the
 * threads 1 .. `threads`, whether the oracle is asked (the reference's
 * bits do not depend on the path), and the paths the engine may report. */
typedef struct engine_way {
    const char *path;
    int threads;
    int oracle;
    const char *want; /* the names allowed, e.g. "few cols64 cols256"; NULL: any */
} engine_way;

static const engine_way default_way = {NULL, 2, 1, NULL};

/* 1 when `name` is one of the space-separated words of `list`. */
static int word_in(const char *name, const char *list)
{
    const size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* The path an engine of plan `p` takes on the whole image. */
static void check_path(const winent_plan *p, const uint8_t *in, size_t row_bytes, int w, int h,
                       const engine_way *way, const char *label)
{
    winent_cpu_engine *e = NULL;
    winent_err err;
    winent_err_clear(&err);
    float *got = malloc(sizeof *got * (size_t)w * h);
    CHECK(got != NULL && winent_cpu_engine_create(p, w, h, 1, &e, &err) == WINENT_OK, "%s: %s",
          label, err.msg);
    if (e != NULL && got != NULL) {
        winent_chunk whole = {in, row_bytes, w, h, 0, h, 0, h};
        CHECK(winent_cpu_engine_compute(e, &whole, got, (size_t)w, &err) == WINENT_OK, "%s",
              err.msg);
        const char *took = winent_cpu_engine_last_path(e);
        CHECK(word_in(took, way->want), "%s: took the path %s, not %s", label, took, way->want);
    }
    winent_cpu_engine_free(e);
    free(got);
}

static void run_case_way(const vcase *vc, const mcase *mc, int kx, int ky, int disk,
                         winent_base base, int w, int h, int pattern, const engine_way *way);

static void run_case(const vcase *vc, const mcase *mc, int kx, int ky, int disk, winent_base base,
                     int w, int h, int pattern)
{
    run_case_way(vc, mc, kx, ky, disk, base, w, h, pattern, &default_way);
}

static void run_case_way(const vcase *vc, const mcase *mc, int kx, int ky, int disk,
                         winent_base base, int w, int h, int pattern, const engine_way *way)
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
    char label[240];
    snprintf(label, sizeof label, "%s, %s q=%g, %dx%d%s base %d, %dx%d image, pattern %d, path %s",
             vc->name, winent_measure_name(mc->m), mc->q, kx, ky, disk ? " disk" : "", (int)base,
             w, h, pattern, way->path ? way->path : "unset");
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
    for (size_t i = 0; way->oracle && i < n; i += step) {
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
    if (way->path != NULL)
        setenv("WINENT_CPU_PATH", way->path, 1);
    vc_check_cpu(p, in, row_bytes, w, h, ref, bands, 3, way->threads, label);
    if (way->want != NULL)
        check_path(p, in, row_bytes, w, h, way, label);
    if (way->path != NULL)
        unsetenv("WINENT_CPU_PATH");
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

/* 8-bit data for the few-values and column paths: their codes below 16,
 * below 64, the sentinel among 256 values, rotated signed values, bins of a
 * 16-bit band, and a 16-bit band of few values (renumbered to bytes). */
static const vcase vcases8[] = {
    {"u8 values 0..11", WINENT_U8, 0, 0, 0, 0, 0, 0, 12, 0, 0},
    {"u8 values 3..50, nodata 7", WINENT_U8, 0, 0, 0, 1, 7, 3, 48, 0.1, 0},
    {"u8 256 values, nodata 200", WINENT_U8, 0, 0, 0, 1, 200, 0, 256, 0.05, 0},
    {"i8 values -90..90, nodata -1", WINENT_I8, 0, 0, 0, 1, -1, -90, 181, 0.1, 0},
    {"u16 bins 40 range 0:4000, nodata 9", WINENT_U16, 40, 0, 4000, 1, 9, 0, 4200, 0.1, 0},
    {"u16 200 values, nodata 65535", WINENT_U16, 0, 0, 0, 1, 65535, 65300, 236, 0.05, 0},
};

/* Every 8-bit path, forced, against the reference and the oracle; the
 * sliding engine forced as the control. */
static void paths8(void)
{
    static const int windows[][2] = {{3, 3}, {5, 7}, {9, 3}, {15, 15}, {31, 5}, {31, 31}};
    static const char *const paths[] = {"portable", "avx2", "avx512", "slide"};
    const int nm = (int)(sizeof mcases / sizeof mcases[0]);
    int turn = 0;
    for (size_t v = 0; v < sizeof vcases8 / sizeof vcases8[0]; v++)
        for (int m = 0; m < nm; m++) {
            const int majority = mcases[m].m == WINENT_MEASURE_MAJORITY;
            /* The majority's byte keys: not from 16-bit samples. */
            const int bytes = !(majority && vcases8[v].dtype == WINENT_U16 && vcases8[v].bins == 0);
            fprintf(stderr, "8-bit paths: %s, %s\n", vcases8[v].name,
                    winent_measure_name(mcases[m].m));
            for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++)
                for (size_t pi = 0; pi < sizeof paths / sizeof paths[0]; pi++) {
                    const int slide = !strcmp(paths[pi], "slide");
                    const engine_way way = {paths[pi], 1 + (int)(turn % 4), pi == 0,
                                            slide || !bytes ? "slide"
                                            : majority      ? "cols64 cols256"
                                                            : "few cols64 cols256"};
                    const int big = windows[wi][0] * windows[wi][1] > 200;
                    run_case_way(&vcases8[v], &mcases[m], windows[wi][0], windows[wi][1], 0,
                                 (winent_base)(turn++ % 3), big ? 67 : 41, big ? 53 : 37,
                                 0, &way);
                }
            /* One class; nodata but every 7th pixel. */
            const engine_way way = {"avx2", 4, 1, bytes ? "few cols64 cols256" : "slide"};
            run_case_way(&vcases8[v], &mcases[m], 5, 5, 0, WINENT_BASE_2, 23, 19, 1, &way);
            run_case_way(&vcases8[v], &mcases[m], 3, 3, 0, WINENT_BASE_E, 23, 19, 2, &way);
        }
}

int main(void)
{
    /* Under a sanitizer (ten times slower) each value and measure case
     * meets half the windows and sizes, by turns: every window and size
     * still meets every case. */
    half = getenv("WINENT_SANITIZE") != NULL;
    paths8();
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
                    if (!half || (int)(wi + si + (size_t)(v + m)) % 2 == 0)
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
