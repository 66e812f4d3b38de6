/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_entropy - winent_entropy (the in-memory call of include/winent.h)
 * against the reference engine, bit for bit: every sample type, inputs
 * whose rows are padded (row steps that are no multiple of the sample size
 * too: a 16-bit row at an odd address), padded output rows whose padding
 * must stay untouched, packed buffers (steps 0), square and oblong
 * windows, nodata, bins over a range, the three bases, images of one row,
 * one column and of more rows than a chunk holds, on 1 and 2 threads and
 * with --device auto and cpu. Then its refusals: bad options (the
 * validation's message), NULL buffers, steps too small, a bad device.
 * And winent_texture: several measures in one pass, each map the bits of
 * its own winent_entropy call, and its refusals.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* A canary the padding must keep: a NaN with a payload no engine makes. */
static const uint32_t CANARY = 0x7fc0dead;

typedef struct tcase {
    winent_dtype t;
    int w, h, kx, ky;
    winent_base base;
    unsigned values; /* samples drawn from [0, values) (shifted for signed types) */
    int nodata;      /* 1: nodata = 3 */
    int bins;        /* >0: quantized over the data's range */
    size_t in_pad;   /* bytes after each input row */
    size_t out_pad;  /* floats after each output row */
    const char *device;
    int threads;
} tcase;

static int run_case(const tcase *tc, unsigned long long seed)
{
    const size_t ss = winent_dtype_size(tc->t), W = (size_t)tc->w, H = (size_t)tc->h;
    const size_t in_step = W * ss + tc->in_pad, out_step = W + tc->out_pad;
    /* +1: the padded input starts at an odd address, as a row of a bigger
     * image can (the engines load samples with memcpy). */
    unsigned char *block = malloc(in_step * H + 1);
    unsigned char *packed = malloc(W * H * ss);
    float *out = malloc(out_step * H * sizeof(float));
    float *ref = malloc(W * H * sizeof(float));
    float *out2 = malloc(W * H * sizeof(float));
    int ok = 0;
    winent_engine *e = NULL;
    winent_error err;
    char why[WINENT_MSG_LEN + 100] = "";
    if (!block || !packed || !out || !ref || !out2) {
        snprintf(why, sizeof why, "out of memory");
        goto done;
    }
    unsigned char *in = block + (tc->in_pad ? 1 : 0);
    memset(block, 0x5a, in_step * H + 1);
    const int is_signed = tc->t == WINENT_I8 || tc->t == WINENT_I16 || tc->t == WINENT_I32;
    const int is_float = winent_dtype_is_float(tc->t);
    double lo = 1e300, hi = -1e300;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++) {
            unsigned long long r = harness_rand(&seed);
            /* Patches of few values beside noise: low and high entropies. */
            int64_t v = (int64_t)(((x / 9 + y / 7) % 3 == 0) ? r % 3 : r % tc->values);
            if (is_signed)
                v -= (int64_t)tc->values / 2;
            double d = is_float ? (double)v * 0.37 - 1.5 : (double)v;
            if (is_float && r % 97 == 0)
                d = NAN; /* never counted */
            if (!isnan(d)) {
                lo = d < lo ? d : lo;
                hi = d > hi ? d : hi;
            }
            harness_put_sample(packed, tc->t, y * W + x, v, d);
            memcpy(in + y * in_step + x * ss, packed + (y * W + x) * ss, ss);
        }
    for (size_t i = 0; i < out_step * H; i++)
        memcpy(&out[i], &CANARY, 4);

    winent_compute_opts co;
    winent_compute_opts_default(&co);
    co.dtype = tc->t;
    co.kx = tc->kx;
    co.ky = tc->ky;
    co.base = tc->base;
    if (tc->nodata) {
        co.has_nodata = 1;
        co.nodata = is_float ? 3 * 0.37 - 1.5 : 3;
    }
    if (tc->bins || is_float) {
        co.bins = tc->bins ? (uint32_t)tc->bins : 64;
        co.range_lo = lo - 0.25;
        co.range_hi = hi > lo ? hi - 0.25 : lo + 1.0; /* the top samples clamped */
    }
    if (winent_engine_create(&co, WINENT_ENGINE_REFERENCE, 0, tc->w, tc->h, 1, &e, &err) !=
            WINENT_OK ||
        winent_engine_compute(e, packed, W * ss, tc->w, tc->h, 0, tc->h, 0, tc->h, ref, W) !=
            WINENT_OK) {
        snprintf(why, sizeof why, "reference: %s",
                 e ? winent_engine_error(e)->message : err.message);
        goto done;
    }
    winent_status st = winent_entropy(&co, in, in_step, tc->w, tc->h, out, out_step, tc->device,
                                      tc->threads, &err);
    if (st != WINENT_OK || err.status != WINENT_OK) {
        snprintf(why, sizeof why, "winent_entropy: %s (%s)", winent_status_name(st), err.message);
        goto done;
    }
    for (size_t y = 0; y < H; y++) {
        if (memcmp(out + y * out_step, ref + y * W, W * sizeof(float)) != 0) {
            size_t x = 0;
            while (memcmp(&out[y * out_step + x], &ref[y * W + x], 4) == 0)
                x++;
            snprintf(why, sizeof why, "pixel (%zu, %zu): %.9g, reference %.9g", x, y,
                     out[y * out_step + x], ref[y * W + x]);
            goto done;
        }
        for (size_t x = W; x < out_step; x++)
            if (memcmp(&out[y * out_step + x], &CANARY, 4) != 0) {
                snprintf(why, sizeof why, "row %zu: the padding after the row was written", y);
                goto done;
            }
    }
    /* Packed buffers (steps 0) give the same map. */
    st = winent_entropy(&co, packed, 0, tc->w, tc->h, out2, 0, tc->device, tc->threads, &err);
    if (st != WINENT_OK || memcmp(out2, ref, W * H * sizeof(float)) != 0) {
        snprintf(why, sizeof why, "packed: %s %s", winent_status_name(st), err.message);
        goto done;
    }
    ok = 1;
done:
    CHECK(ok, "%s %dx%d window %dx%d base %d%s%s, in +%zu, out +%zu, %s, %d threads: %s",
          winent_dtype_name(tc->t), tc->w, tc->h, tc->kx, tc->ky, (int)tc->base,
          tc->nodata ? " nodata" : "", tc->bins ? " bins" : "", tc->in_pad, tc->out_pad,
          tc->device ? tc->device : "NULL", tc->threads, why);
    winent_engine_free(e);
    free(block);
    free(packed);
    free(out);
    free(ref);
    free(out2);
    return ok ? 0 : -1;
}

static void test_refusals(void)
{
    winent_compute_opts co;
    winent_compute_opts_default(&co);
    uint8_t in[64] = {0};
    float out[64];
    winent_error err, want;

    co.kx = 256;
    CHECK(winent_entropy(&co, in, 8, 8, 8, out, 8, "cpu", 1, &err) == WINENT_ERR_USAGE,
          "a window 256 wide accepted");
    CHECK(winent_compute_opts_validate(&co, &want) == WINENT_ERR_USAGE &&
              strcmp(err.message, want.message) == 0 && strstr(err.message, "--window"),
          "a window 256 wide: '%s' vs validate's '%s'", err.message, want.message);
    winent_compute_opts_default(&co);
    co.dtype = WINENT_F32; /* no range: its own samples' (--range auto) */
    CHECK(winent_entropy(&co, in, 0, 4, 4, out, 0, NULL, 0, &err) == WINENT_OK,
          "f32 without a range: %s", err.message);
    winent_compute_opts_default(&co);
    co.has_nodata = 1;
    co.nodata = 300; /* no u8 sample can be 300: refused, as by the CLI */
    CHECK(winent_entropy(&co, in, 0, 4, 4, out, 0, NULL, 0, &err) == WINENT_ERR_USAGE &&
              strncmp(err.message, "--nodata: '300': a u8 band", 26) == 0,
          "nodata 300 for u8: %s", err.message);
    co.nodata = 2.5;
    CHECK(winent_entropy(&co, in, 0, 4, 4, out, 0, NULL, 0, &err) == WINENT_ERR_USAGE,
          "nodata 2.5 for u8 accepted");
    co.nodata = -0.0; /* is 0 */
    CHECK(winent_entropy(&co, in, 0, 4, 4, out, 0, NULL, 0, &err) == WINENT_OK,
          "nodata -0 for u8: %s", err.message);
    winent_compute_opts_default(&co);
    CHECK(winent_entropy(&co, NULL, 0, 4, 4, out, 0, NULL, 0, &err) == WINENT_ERR_USAGE,
          "NULL input accepted");
    CHECK(winent_entropy(&co, in, 0, 4, 4, NULL, 0, NULL, 0, &err) == WINENT_ERR_USAGE,
          "NULL output accepted");
    CHECK(winent_entropy(&co, in, 7, 8, 8, out, 0, NULL, 0, &err) == WINENT_ERR_USAGE,
          "input step shorter than a row accepted");
    CHECK(winent_entropy(&co, in, 0, 8, 8, out, 7, NULL, 0, &err) == WINENT_ERR_USAGE,
          "output step shorter than a row accepted");
    CHECK(winent_entropy(&co, in, 0, -1, 8, out, 0, NULL, 0, &err) == WINENT_ERR_USAGE,
          "negative width accepted");
    CHECK(winent_entropy(&co, NULL, 0, 0, 8, NULL, 0, NULL, 0, &err) == WINENT_OK &&
              err.status == WINENT_OK,
          "an empty image: %s", err.message);
    CHECK(winent_entropy(&co, in, 0, 8, 8, out, 0, "gpu0", 0, &err) == WINENT_ERR_USAGE &&
              strstr(err.message, "--device"),
          "device gpu0: %s", err.message);
    CHECK(winent_entropy(&co, in, 0, 8, 8, out, 0, "cpu", -3, &err) == WINENT_ERR_USAGE &&
              strstr(err.message, "--threads"),
          "threads -3: %s", err.message);
    if (winent_gpu_count() == 0)
        CHECK(winent_entropy(&co, in, 0, 8, 8, out, 0, "gpu", 0, &err) == WINENT_ERR_DEVICE,
              "device gpu without a GPU: %s", err.message);
    /* err may be NULL. */
    CHECK(winent_entropy(&co, in, 0, 8, 8, out, 0, "cpu", 1, NULL) == WINENT_OK, "err NULL");
}

/* winent_texture: several measures in one pass, each map the bits of
 * winent_entropy with that measure alone, at the caller's row step (the
 * padding kept) and map after map; more rows than a chunk holds. */
static void test_texture(const char *device, int threads)
{
    enum { W = 211, H = 4100, PAD = 3, NM = 6 };
    /* Two co-occurrence maps that share a pass, then one alone. */
    static const winent_measure ms[NM] = {WINENT_MEASURE_ENTROPY,      WINENT_MEASURE_GLCM_CONTRAST,
                                          WINENT_MEASURE_GLCM_ENTROPY, WINENT_MEASURE_RENYI,
                                          WINENT_MEASURE_MAJORITY,     WINENT_MEASURE_GLCM_HOMOGENEITY};
    static const double q[NM] = {0, 0, 0, 2.0, 0, 0};
    const size_t step = W + PAD, plane = step * H;
    uint8_t *in = malloc((size_t)W * H);
    float *out = malloc(plane * NM * sizeof(float));
    float *one = malloc((size_t)W * H * sizeof(float));
    if (!in || !out || !one) {
        CHECK(0, "out of memory");
        free(in), free(out), free(one);
        return;
    }
    unsigned long long s = 77;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = (uint8_t)((s >> 33) % 24 + (i / W / 50) % 3); /* patches of texture */
    }
    for (size_t i = 0; i < plane * NM; i++)
        memcpy(out + i, &CANARY, 4);
    winent_compute_opts co;
    winent_compute_opts_default(&co);
    co.kx = 7;
    co.ky = 5;
    co.has_nodata = 1;
    co.nodata = 5;
    winent_error err;
    const winent_status st =
        winent_texture(&co, ms, q, NM, in, 0, W, H, out, step, device, threads, &err);
    CHECK(st == WINENT_OK, "texture on %s, %d threads: %s", device, threads, err.message);
    for (int k = 0; st == WINENT_OK && k < NM; k++) {
        winent_compute_opts c = co;
        c.measure = ms[k];
        c.renyi_q = q[k];
        CHECK(winent_entropy(&c, in, 0, W, H, one, 0, "cpu", 1, &err) == WINENT_OK, "map %d: %s",
              k, err.message);
        size_t bad = 0, pad = 0;
        for (size_t y = 0; y < H; y++) {
            const float *row = out + (size_t)k * plane + y * step;
            bad += memcmp(row, one + y * W, W * sizeof(float)) != 0;
            for (size_t x = W; x < step; x++)
                pad += memcmp(row + x, &CANARY, 4) != 0;
        }
        CHECK(bad == 0 && pad == 0,
              "texture on %s, %d threads: map %d (measure %d): %zu rows differ from its own "
              "call's, %zu padding floats written",
              device, threads, k, (int)ms[k], bad, pad);
    }
    free(in), free(out), free(one);
}

static void test_texture_refusals(void)
{
    winent_compute_opts co;
    winent_compute_opts_default(&co);
    uint8_t in[64] = {0};
    float out[4 * 64];
    winent_error err;
    const winent_measure two[2] = {WINENT_MEASURE_SIMPSON, WINENT_MEASURE_SIMPSON};
    CHECK(winent_texture(&co, NULL, NULL, 1, in, 0, 8, 8, out, 0, "cpu", 1, &err) ==
                  WINENT_ERR_USAGE &&
              strstr(err.message, "measures is NULL"),
          "NULL measures: %s", err.message);
    CHECK(winent_texture(&co, two, NULL, 0, in, 0, 8, 8, out, 0, "cpu", 1, &err) ==
                  WINENT_ERR_USAGE,
          "no measures accepted");
    CHECK(winent_texture(&co, two, NULL, 2, in, 0, 8, 8, out, 0, "cpu", 1, &err) ==
                  WINENT_ERR_USAGE &&
              strstr(err.message, "--measure: simpson given twice"),
          "a measure twice: %s", err.message);
    const winent_measure glcm[2] = {WINENT_MEASURE_SIMPSON, WINENT_MEASURE_GLCM_ASM};
    co.kx = co.ky = 4; /* the co-occurrence measures take odd sides */
    CHECK(winent_texture(&co, glcm, NULL, 2, in, 0, 8, 8, out, 0, "cpu", 1, &err) ==
              WINENT_ERR_USAGE,
          "glcm-asm at an even window accepted");
}

int main(void)
{
    static const winent_dtype types[] = {WINENT_U8,  WINENT_I8,  WINENT_U16, WINENT_I16,
                                         WINENT_U32, WINENT_I32, WINENT_F32, WINENT_F64};
    unsigned long long seed = 20240601;
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        winent_dtype t = types[k];
        const unsigned values = t == WINENT_U8 || t == WINENT_I8 ? 200 : 5000;
        /* Padded in and out, an oblong window; odd padding (unaligned rows). */
        tcase a = {t, 97, 61, 7, 3, WINENT_BASE_2, values, 0, 0, 3, 5, "cpu", 2};
        run_case(&a, seed++);
        /* nodata, bins, base 10, 1 thread, auto device. */
        tcase b = {t, 64, 40, 5, 5, WINENT_BASE_10, values, 1, 37, 8, 1, "auto", 1};
        run_case(&b, seed++);
        /* One row, one column. */
        tcase c = {t, 50, 1, 3, 3, WINENT_BASE_E, values, 0, 0, 5, 2, NULL, 0};
        run_case(&c, seed++);
        tcase d = {t, 1, 33, 1, 9, WINENT_BASE_E, values, 1, 0, 1, 0, "cpu", 0};
        run_case(&d, seed++);
    }
    /* More rows than one chunk holds (4 Mpixel): chunks at the caller's
     * steps, halos across them. */
    tcase big = {WINENT_U16, 301, 14000, 3, 5, WINENT_BASE_2, 4000, 1, 0, 2, 7, "cpu", 2};
    run_case(&big, seed++);
    test_refusals();
    test_texture("cpu", 1);
    test_texture("cpu", 2);
    test_texture("auto", 0);
    if (winent_gpu_count() > 0)
        test_texture("gpu", 0);
    test_texture_refusals();
    return harness_end();
}
