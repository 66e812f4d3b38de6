/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The co-occurrence engine (src/kernels/glcm_cpu.c) against the brute-force
 * oracle (glcm_oracle.h: the full matrix per window, double precision), on
 * random and structured 8-bit, 16-bit and float inputs, nodata and NaN,
 * windows wider and taller than the image, every angle alone and all four,
 * distances 1 to 3, symmetric and not, all three log bases, every measure:
 * within 2e-6 relative (float32 rounding plus the fixed-point logs). Then
 * the bits: all measures in one pass equal each measure alone, and the
 * image cut into bands and chunks of any height, on two workers, equals it
 * whole. And the scratch a worker makes is what the memory plan counts.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

#include "harness.h"
#include "glcm_oracle.h"
#include "kernels/engine_cpu.h"
#include "kernels/glcm.h"

typedef struct gcase {
    const char *name;
    winent_dtype dtype;
    int levels;       /* 0: the values are the levels */
    double lo, hi;
    int has_nodata;
    double nodata;
    int w, h, kx, ky;
    int pattern;      /* 0 random, 1 stripes, 2 ramp, 3 constant, 4 checkerboard */
    int nvals;        /* random integers below this */
} gcase;

static const gcase cases[] = {
    {"u8 256 levels random", WINENT_U8, 0, 0, 0, 0, 0, 23, 19, 5, 5, 0, 256},
    {"u8 8 values random, 7x3", WINENT_U8, 0, 0, 0, 0, 0, 30, 17, 7, 3, 0, 8},
    {"u8 levels 8 over 0:256, nodata 3", WINENT_U8, 8, 0, 256, 1, 3, 26, 21, 5, 7, 0, 256},
    {"u8 nodata 0, 4 values", WINENT_U8, 0, 0, 0, 1, 0, 21, 22, 9, 9, 0, 4},
    {"i8 random, nodata -1", WINENT_I8, 0, 0, 0, 1, -1, 20, 15, 3, 5, 0, 256},
    {"u16 levels 32 over 0:65536, nodata 7", WINENT_U16, 32, 0, 65536, 1, 7, 24, 20, 7, 7, 0,
     65536},
    {"i16 levels 16 over -100:100", WINENT_I16, 16, -100, 100, 0, 0, 18, 16, 5, 3, 0, 260},
    {"f32 levels 16 over 0:1, NaN", WINENT_F32, 16, 0, 1, 0, 0, 22, 19, 5, 5, 0, 0},
    {"f64 levels 5 over -1:1, nodata 0.5", WINENT_F64, 5, -1, 1, 1, 0.5, 17, 18, 3, 3, 0, 0},
    {"window wider than the image", WINENT_U8, 0, 0, 0, 0, 0, 6, 5, 15, 11, 0, 16},
    {"1 x 1 image", WINENT_U8, 0, 0, 0, 0, 0, 1, 1, 5, 5, 0, 16},
    {"1 row", WINENT_U8, 0, 0, 0, 0, 0, 31, 1, 5, 5, 0, 16},
    {"1 column", WINENT_U8, 0, 0, 0, 0, 0, 1, 29, 5, 5, 0, 16},
    {"stripes", WINENT_U8, 0, 0, 0, 0, 0, 25, 19, 5, 5, 1, 0},
    {"ramp", WINENT_U8, 0, 0, 0, 0, 0, 25, 19, 7, 5, 2, 0},
    {"constant", WINENT_U8, 0, 0, 0, 0, 0, 13, 12, 5, 5, 3, 0},
    {"checkerboard 0/255", WINENT_U8, 0, 0, 0, 0, 0, 16, 15, 5, 5, 4, 0},
    {"u8 255 values, 31x31 over 40x36", WINENT_U8, 0, 0, 0, 0, 0, 40, 36, 31, 31, 0, 256},
};

static unsigned long long seed;

static void *make_input(const gcase *c)
{
    size_t n = (size_t)c->w * c->h;
    void *buf = malloc(n * winent_dtype_size(c->dtype) + 1);
    for (size_t i = 0; i < n; i++) {
        int x = (int)(i % (size_t)c->w), y = (int)(i / (size_t)c->w);
        int64_t v = 0;
        double d = 0;
        switch (c->pattern) {
        case 1: v = (x / 2) % 2 ? 200 : 10; break;
        case 2: v = (x * 7 + y * 3) % 256; break;
        case 3: v = 42; break;
        case 4: v = (x + y) % 2 ? 255 : 0; break;
        default:
            if (winent_dtype_is_float(c->dtype)) {
                d = (double)(harness_rand(&seed) % 100000) / 100000.0 * (c->hi - c->lo) + c->lo;
                if (harness_rand(&seed) % 19 == 0)
                    d = c->has_nodata ? c->nodata : NAN;
            } else {
                int64_t base = c->dtype == WINENT_I8 ? -128 : c->dtype == WINENT_I16 ? -130 : 0;
                v = base + (int64_t)(harness_rand(&seed) % (unsigned)c->nvals);
                if (c->has_nodata && harness_rand(&seed) % 11 == 0)
                    v = (int64_t)c->nodata;
            }
        }
        harness_put_sample(buf, c->dtype, i, v, d);
    }
    return buf;
}

static void set_opts(const gcase *c, int dist, unsigned angles, int sym, int base,
                     winent_glcm_opts *o, oracle_opts *r)
{
    winent_glcm_opts_default(o);
    o->compute.kx = c->kx;
    o->compute.ky = c->ky;
    o->compute.dtype = c->dtype;
    o->compute.base = (winent_base)base;
    o->compute.bins = (uint32_t)c->levels;
    o->compute.range_lo = c->levels ? c->lo : 0;
    o->compute.range_hi = c->levels ? c->hi : 0;
    o->compute.has_nodata = c->has_nodata;
    o->compute.nodata = c->nodata;
    o->distance = dist;
    o->angles = angles;
    o->symmetric = sym;
    o->nmeasures = WINENT_GLCM_MEASURE_COUNT;
    for (int m = 0; m < WINENT_GLCM_MEASURE_COUNT; m++)
        o->measures[m] = (winent_glcm_measure)m;
    *r = (oracle_opts){c->dtype, c->levels, c->lo,  c->hi, c->has_nodata, c->nodata, c->kx,
                       c->ky,    dist,      angles, sym,   base};
}

/* The engine's planes of `o` over the whole image, on one worker. */
static float *engine_map(const winent_glcm_opts *o, const void *in, int w, int h)
{
    winent_err err;
    winent_err_clear(&err);
    winent_glcm_plan *p = NULL;
    winent_glcm_cpu *e = NULL;
    float *out = malloc(sizeof *out * (size_t)w * h * (size_t)o->nmeasures);
    float *planes[WINENT_GLCM_MEASURES_MAX];
    for (int k = 0; k < o->nmeasures; k++)
        planes[k] = out + (size_t)k * w * h;
    CHECK(winent_glcm_plan_create(o, &p, &err) == WINENT_OK, "plan: %s", err.msg);
    if (p != NULL)
        CHECK(winent_glcm_cpu_create(p, w, 1, &e, &err) == WINENT_OK, "engine: %s", err.msg);
    if (e != NULL) {
        winent_chunk ch = {in, (size_t)w * winent_dtype_size(o->compute.dtype), w, h, 0, h, 0, h};
        CHECK(winent_glcm_cpu_compute(e, &ch, planes, (size_t)w, &err) == WINENT_OK, "run: %s",
              err.msg);
    }
    winent_glcm_cpu_free(e);
    winent_glcm_plan_free(p);
    return out;
}

static int same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* Each measure against the oracle. */
static void against_oracle(const gcase *c, const winent_glcm_opts *o, const oracle_opts *r,
                           const void *in, const float *got)
{
    size_t n = (size_t)c->w * c->h;
    double *ref = malloc(sizeof *ref * n);
    for (int m = 0; m < WINENT_GLCM_MEASURE_COUNT; m++) {
        oracle_map(r, in, c->w, c->h, m, ref);
        int bad = 0;
        size_t first = 0;
        for (size_t i = 0; i < n; i++) {
            float g = got[(size_t)m * n + i];
            double e = ref[i];
            int ok = isnan(e) ? isnan(g) : fabs(g - e) <= 2e-6 * fmax(1.0, fabs(e));
            if (!ok && bad++ == 0)
                first = i;
        }
        CHECK(bad == 0,
              "%s, %s d=%d angles %u %s base %d: %d pixels differ, first (%d, %d): %.9g vs "
              "%.9g",
              c->name, winent_glcm_measure_name((winent_glcm_measure)m), o->distance, o->angles,
              o->symmetric ? "sym" : "asym", (int)o->compute.base, bad,
              (int)(first % (size_t)c->w), (int)(first / (size_t)c->w),
              (double)got[(size_t)m * n + first], ref[first]);
    }
    free(ref);
}

/* Bands of `band` rows over chunks of `chunk` rows on two workers, and each
 * measure alone, against the whole image's bits. */
static void bits(const gcase *c, const winent_glcm_opts *o, const void *in, const float *whole)
{
    const int w = c->w, h = c->h;
    const size_t n = (size_t)w * h;
    winent_err err;
    winent_err_clear(&err);
    winent_glcm_plan *p = NULL;
    winent_glcm_cpu *e = NULL;
    if (winent_glcm_plan_create(o, &p, &err) != WINENT_OK ||
        winent_glcm_cpu_create(p, w, 2, &e, &err) != WINENT_OK) {
        CHECK(0, "%s: %s", c->name, err.msg);
        winent_glcm_plan_free(p);
        return;
    }
    float *out = malloc(sizeof *out * n * (size_t)o->nmeasures);
    const size_t rb = (size_t)w * winent_dtype_size(c->dtype);
    for (int chunk = 1; chunk <= h; chunk += 3) {
        for (int y0 = 0; y0 < h; y0 += chunk) {
            int y1 = y0 + chunk < h ? y0 + chunk : h, in0, nin;
            winent_chunk_input_rows(y0, y1, c->ky / 2, h, &in0, &nin);
            winent_chunk ch = {(const char *)in + (size_t)in0 * rb, rb, w, h, in0, nin, y0, y1};
            float *planes[WINENT_GLCM_MEASURES_MAX];
            for (int k = 0; k < o->nmeasures; k++)
                planes[k] = out + (size_t)k * n + (size_t)y0 * w;
            for (int ya = y0, b = 0; ya < y1; ya += 2, b++) {
                int yb = ya + 2 < y1 ? ya + 2 : y1;
                CHECK(winent_glcm_cpu_compute_rows(e, b % 2, &ch, ya, yb, planes, (size_t)w,
                                                   &err) == WINENT_OK,
                      "%s", err.msg);
            }
        }
        CHECK(same_bits(out, whole, n * (size_t)o->nmeasures), "%s: chunks of %d rows differ",
              c->name, chunk);
    }
    free(out);
    winent_glcm_cpu_free(e);
    winent_glcm_plan_free(p);
    for (int m = 0; m < o->nmeasures; m += 4) {
        winent_glcm_opts one = *o;
        one.nmeasures = 1;
        one.measures[0] = (winent_glcm_measure)m;
        float *alone = engine_map(&one, in, w, h);
        CHECK(same_bits(alone, whole + (size_t)m * n, n), "%s: %s alone differs", c->name,
              winent_glcm_measure_name((winent_glcm_measure)m));
        free(alone);
    }
    /* The measures without marginals in one pass: the CPU engine's pair
     * code and column moment paths together, ASM's sums included. */
    winent_glcm_opts nm = *o;
    nm.nmeasures = 0;
    for (int m = 0; m < o->nmeasures; m++)
        if (o->measures[m] != WINENT_GLCM_COND_ENTROPY && o->measures[m] != WINENT_GLCM_MUTUAL_INFO)
            nm.measures[nm.nmeasures++] = o->measures[m];
    float *some = engine_map(&nm, in, w, h);
    for (int k = 0, m = 0; m < o->nmeasures; m++)
        if (o->measures[m] != WINENT_GLCM_COND_ENTROPY && o->measures[m] != WINENT_GLCM_MUTUAL_INFO)
            CHECK(same_bits(some + (size_t)k++ * n, whole + (size_t)m * n, n),
                  "%s: %s without the marginals differs", c->name,
                  winent_glcm_measure_name(o->measures[m]));
    free(some);
}

static void run_case(const gcase *c, int deep)
{
    static const unsigned angle_sets[] = {15, 1, 2, 4, 8, 5};
    void *in = make_input(c);
    for (size_t s = 0; s < sizeof angle_sets / sizeof *angle_sets; s++)
        for (int dist = 1; dist <= 3; dist++)
            for (int sym = 1; sym >= 0; sym--) {
                /* All combinations on the small cases, a spread on the rest. */
                if (!deep && (s + (size_t)dist + (size_t)sym) % 3 != 0)
                    continue;
                int base = (int)((s + (size_t)dist) % 3);
                winent_glcm_opts o;
                oracle_opts r;
                set_opts(c, dist, angle_sets[s], sym, base, &o, &r);
                float *got = engine_map(&o, in, c->w, c->h);
                against_oracle(c, &o, &r, in, got);
                if (s == 0 && dist == 1)
                    bits(c, &o, in, got);
                free(got);
            }
    free(in);
}

/* Options the engine must refuse, naming the option. */
static void usage_errors(void)
{
    winent_glcm_opts o;
    winent_glcm_plan *p = NULL;
    winent_err err;
    winent_glcm_opts_default(&o);
    o.compute.dtype = WINENT_U16;
    winent_err_clear(&err);
    CHECK(winent_glcm_plan_create(&o, &p, &err) == WINENT_ERR_USAGE &&
              strstr(err.msg, "--levels") != NULL,
          "u16 without levels: %s", err.msg);
    winent_glcm_opts_default(&o);
    winent_err_clear(&err);
    o.distance = 0;
    CHECK(winent_glcm_plan_create(&o, &p, &err) == WINENT_ERR_USAGE &&
              strstr(err.msg, "--distance") != NULL,
          "distance 0: %s", err.msg);
    winent_glcm_opts_default(&o);
    winent_err_clear(&err);
    o.compute.disk = 1;
    CHECK(winent_glcm_plan_create(&o, &p, &err) == WINENT_ERR_USAGE, "disk: %s", err.msg);
    CHECK(winent_glcm_measure_parse("glcm-cond-entropy") == WINENT_GLCM_COND_ENTROPY &&
              winent_glcm_measure_parse("contrast") == WINENT_GLCM_CONTRAST &&
              winent_glcm_measure_parse("glcm-nothing") == -1,
          "measure names");
    char d[128];
    winent_glcm_opts_default(&o);
    o.compute.kx = o.compute.ky = 15;
    winent_glcm_describe(&o, 0, d, sizeof d);
    CHECK(strcmp(d, "glcm-entropy 15x15 d=1 mean of angles 0,45,90,135 symmetric (bits)") == 0,
          "describe: %s", d);
}

/* OTB's eight features as eight maps of one pass: counted once. */
static void group_scratch(int w)
{
    static const winent_glcm_measure otb8[8] = {
        WINENT_GLCM_ASM,      WINENT_GLCM_ENTROPY,       WINENT_GLCM_CORRELATION,
        WINENT_GLCM_HOMOGENEITY, WINENT_GLCM_CONTRAST,   WINENT_GLCM_CLUSTER_SHADE,
        WINENT_GLCM_CLUSTER_PROMINENCE, WINENT_GLCM_VARIANCE};
    winent_plan *plans[8] = {NULL};
    size_t each = 0;
    winent_glcm_opts o;
    winent_glcm_opts_default(&o);
    o.compute.kx = o.compute.ky = 7;
    o.compute.bins = 32;
    o.compute.range_lo = 0.0;
    o.compute.range_hi = 40.0;
    o.nmeasures = 8;
    for (int k = 0; k < 8; k++) {
        winent_compute_opts co = o.compute;
        co.measure = (winent_measure)(WINENT_MEASURE_GLCM_ENTROPY + (int)otb8[k]);
        o.measures[k] = otb8[k];
        winent_err err;
        winent_err_clear(&err);
        CHECK(winent_plan_create(&co, &plans[k], &err) == WINENT_OK, "plan %d: %s", k, err.msg);
        if (plans[k] == NULL)
            goto done;
        each += winent_cpu_scratch_bytes(plans[k], w);
    }
    winent_glcm_plan *p = NULL;
    winent_err err;
    winent_err_clear(&err);
    CHECK(winent_glcm_plan_create(&o, &p, &err) == WINENT_OK, "plan: %s", err.msg);
    if (p != NULL) {
        const size_t group = winent_cpu_group_scratch_bytes((const winent_plan *const *)plans, 8, w);
        const size_t one = winent_glcm_cpu_scratch_bytes(p, w, winent_cpu_band_rows(plans[0], w));
        CHECK(group == one && group < each,
              "a pass of 8 maps counts %zu bytes: its engine makes %zu (each map alone %zu)",
              group, one, each);
    }
    winent_glcm_plan_free(p);
done:
    for (int k = 0; k < 8; k++)
        winent_plan_free(plans[k]);
}


/* Bytes the heap holds now (glibc), or 0 where unknown. */
static size_t heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#else
    return 0;
#endif
}

/* The scratch a worker makes, run over an image in bands, is exactly
 * winent_glcm_cpu_scratch_bytes (the memory plan's count): for one measure
 * (eight lanes), OTB's eight features at one angle (four lanes, the
 * moments' sums per angle), the marginals' measures and 300 levels; and a
 * pass of several maps (winent_cpu_group_scratch_bytes) counts one engine
 * with all its measures, not one per map. */
static void scratch_counts(void)
{
    static const struct {
        unsigned angles;
        int levels, nm;
        winent_glcm_measure m[8];
    } sets[] = {
        {0, 0, 1, {WINENT_GLCM_ENTROPY}},
        {WINENT_GLCM_A45, 32, 8,
         {WINENT_GLCM_ASM, WINENT_GLCM_ENTROPY, WINENT_GLCM_CORRELATION, WINENT_GLCM_HOMOGENEITY,
          WINENT_GLCM_CONTRAST, WINENT_GLCM_CLUSTER_SHADE, WINENT_GLCM_CLUSTER_PROMINENCE,
          WINENT_GLCM_VARIANCE}},
        {WINENT_GLCM_A0 | WINENT_GLCM_A90, 0, 2, {WINENT_GLCM_COND_ENTROPY, WINENT_GLCM_MUTUAL_INFO}},
        {0, 300, 2, {WINENT_GLCM_ASM, WINENT_GLCM_DISSIMILARITY}},
    };
    const int w = 300, h = 70, band = 24;
    uint8_t *in = malloc((size_t)w * h);
    float *out = malloc(sizeof *out * (size_t)w * h * 8);
    for (int i = 0; i < w * h; i++)
        in[i] = (uint8_t)((i * 7 + i / w * 3) % 40);
    for (size_t t = 0; t < sizeof sets / sizeof *sets; t++) {
        winent_glcm_opts o;
        winent_glcm_opts_default(&o);
        o.compute.kx = o.compute.ky = 7;
        if (sets[t].levels > 0) {
            o.compute.bins = (unsigned)sets[t].levels;
            o.compute.range_lo = 0.0;
            o.compute.range_hi = 40.0;
        }
        o.angles = sets[t].angles;
        o.nmeasures = sets[t].nm;
        memcpy(o.measures, sets[t].m, sizeof o.measures[0] * (size_t)sets[t].nm);
        winent_err err;
        winent_err_clear(&err);
        winent_glcm_plan *p = NULL;
        winent_glcm_cpu *e = NULL;
        CHECK(winent_glcm_plan_create(&o, &p, &err) == WINENT_OK, "plan: %s", err.msg);
        if (p != NULL)
            CHECK(winent_glcm_cpu_create(p, w, 1, &e, &err) == WINENT_OK, "engine: %s", err.msg);
        if (e == NULL) {
            winent_glcm_plan_free(p);
            continue;
        }
        CHECK(winent_glcm_cpu_scratch_held(e) == 0, "set %zu: scratch before any band", t);
        float *planes[8];
        for (int k = 0; k < sets[t].nm; k++)
            planes[k] = out + (size_t)k * w * h;
        winent_chunk ch = {in, (size_t)w, w, h, 0, h, 0, h};
        const size_t before = heap_bytes();
        for (int y = 0; y < h; y += band)
            CHECK(winent_glcm_cpu_compute_rows(e, 0, &ch, y, y + band < h ? y + band : h, planes,
                                               (size_t)w, &err) == WINENT_OK,
                  "run: %s", err.msg);
        const size_t held = winent_glcm_cpu_scratch_held(e);
        const size_t counted = winent_glcm_cpu_scratch_bytes(p, w, band);
        CHECK(held == counted, "set %zu: the worker holds %zu bytes, the plan counts %zu", t, held,
              counted);
        /* the heap's own count: the buffers' bytes plus each block's header
         * and page rounding (7 blocks) */
        const size_t grew = heap_bytes() - before;
        CHECK(before == 0 || (grew >= counted && grew <= counted + 7 * 4096),
              "set %zu: the heap grew %zu bytes for a scratch counted %zu", t, grew, counted);
        winent_glcm_cpu_free(e);
        winent_glcm_plan_free(p);
    }
    free(in);
    free(out);
    group_scratch(w);
}

int main(void)
{
    const char *s = getenv("WINENT_TEST_SEED");
    seed = s ? strtoull(s, NULL, 0) : 0x61c3u;
    printf("seed %#llx (WINENT_TEST_SEED)\n", seed);
    usage_errors();
    scratch_counts();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(&cases[i], cases[i].w * cases[i].h <= 600);
    return harness_end();
}
