/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Footprints of any shape (winent_compute_opts.footprint): the plan's
 * runs against the mask, the reference engine against a count made here
 * per window from the footprint's definition (tests/lib/footprints.h,
 * float64 entropy), and the CPU engine (engine_cpu_disk.c's runs, the
 * majority's own kernel) against the reference bit for bit: diamonds,
 * rings without their centre, even and odd rectangles, combs of several
 * runs per row, random masks; u8, u16, 32-bit and float codes with nodata
 * and NaN; every histogram measure; an odd rectangle of ones (the
 * rectangle's own paths); images smaller and larger than the
 * footprint, whole and in chunks with their halo rows, 1 and 2 threads;
 * rectangles with an even side given as the window alone (kx, ky, no
 * footprint), which run as a shape of all ones; and the refusals (no
 * pixel, sides past 255, a disk beside it, a GLCM measure).
 */
#include <stdlib.h>
#include <string.h>

#include "engine_cases.h"
#include "footprints.h"
#include "harness.h"

static unsigned long long seed = 0xf00750u;

/* An eighth of the samples nodata (integers with nodata) or NaN (floats). */
static const value_case cases[] = {
    {"u8 9 values, nodata 3", WINENT_U8, 0, 0, 0, 1, 3, 0, 9, 0.125, 0},
    {"u8 256 values", WINENT_U8, 0, 0, 0, 0, 0, 0, 256, 0.125, 0},
    {"u16 2000 values, nodata 7", WINENT_U16, 0, 0, 0, 1, 7, 0, 2000, 0.125, 0},
    {"i16 full range", WINENT_I16, 0, 0, 0, 0, 0, -32768, 65536, 0.125, 0},
    {"u32 40k values, nodata", WINENT_U32, 0, 0, 0, 1, 3000000001.0, 3000000000LL, 40000, 0.125,
     0},
    {"f32 bins 64 range 0:1, NaN", WINENT_F32, 64, 0, 1, 0, 0, 0, 0, 0.125, 0},
    {"f64 bins 70000 (remap), NaN", WINENT_F64, 70000, 0, 1, 0, 0, 0, 0, 0.125, 0},
};

static winent_compute_opts fp_opts(const value_case *fc, const unsigned char *m, int kx, int ky)
{
    winent_compute_opts o = vc_opts(fc, kx, ky);
    o.footprint = m;
    return o;
}

/* The plan's runs cover the mask exactly, once. */
static void test_runs(void)
{
    static unsigned char m[255 * 255];
    static const int shapes[][3] = {{FP_DIAMOND, 5, 0}, {FP_RING, 6, 3}, {FP_ONES, 16, 16},
                                    {FP_ONES, 255, 2},  {FP_COMB, 9, 8}, {FP_RANDOM, 31, 17},
                                    {FP_RANDOM, 255, 255}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int kx, ky;
        fp_make(shapes[s][0], shapes[s][1], shapes[s][2], &kx, &ky, m);
        winent_compute_opts o = fp_opts(&cases[1], m, kx, ky);
        winent_plan *p = NULL;
        winent_err err;
        winent_err_clear(&err);
        CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
        if (p == NULL)
            continue;
        unsigned char *seen = calloc((size_t)kx * ky, 2);
        int area = 0, bad = 0;
        for (int i = 0; i < kx * ky; i++)
            area += m[i] != 0;
        for (int r = 0; r < ky; r++)
            for (int q = p->row_first[r]; q < p->row_first[r + 1]; q++)
                for (int dx = p->row_run[2 * q]; dx <= p->row_run[2 * q + 1]; dx++)
                    seen[r * kx + dx + kx / 2]++;
        for (int c = 0; c < kx; c++)
            for (int q = p->col_first[c]; q < p->col_first[c + 1]; q++)
                for (int dy = p->col_run[2 * q]; dy <= p->col_run[2 * q + 1]; dy++)
                    seen[(size_t)kx * ky + (size_t)(dy + ky / 2) * kx + c]++;
        for (int i = 0; i < kx * ky; i++)
            bad += seen[i] != (m[i] != 0) || seen[kx * ky + i] != (m[i] != 0);
        CHECK(bad == 0 && p->area == area, "%s %dx%d: %d pixels off the runs, area %d of %d",
              fp_names[shapes[s][0]], kx, ky, bad, p->area, area);
        free(seen);
        winent_plan_free(p);
    }
}

/* The reference against the definition, counted here on u8 with nodata:
 * each window's pixels from the mask, the centre at (kx / 2, ky / 2).
 * `plain`: a rectangle of ones given as kx, ky alone (no footprint). */
static void test_reference_as(int shape, int a, int b, int plain)
{
    static unsigned char m[255 * 255];
    int kx, ky;
    fp_make(shape, a, b, &kx, &ky, m);
    const value_case *fc = &cases[0];
    const int w = 29, h = 23;
    uint8_t *in = vc_make_input(fc, w, h, 0.0, 0, &seed);
    winent_compute_opts o = fp_opts(fc, plain ? NULL : m, kx, ky);
    winent_plan *p = NULL;
    winent_err err;
    winent_err_clear(&err);
    char label[96];
    snprintf(label, sizeof label, "%s%s %dx%d", plain ? "window " : "", fp_names[shape], kx, ky);
    if (in == NULL || winent_plan_create(&o, &p, &err) != WINENT_OK)
        CHECK(0, "%s: set-up: %s", label, err.msg);
    else
        vc_check_reference_u8(p, in, w, h, m, kx, ky, (int)fc->nodata, label);
    winent_plan_free(p);
    free(in);
}

static void test_reference(int shape, int a, int b)
{
    test_reference_as(shape, a, b, 0);
}

/* The CPU engine against the reference, whole and in chunks, 1 and 2
 * threads, for one footprint, case and measure (`plain`: FP_ONES given as
 * the window kx, ky alone, a rectangle that may have even sides). */
static void run_case_as(const value_case *fc, int shape, int a, int b, winent_measure meas, int w,
                        int h, int plain)
{
    static unsigned char m[255 * 255];
    int kx, ky;
    fp_make(shape, a, b, &kx, &ky, m);
    winent_compute_opts o = fp_opts(fc, plain ? NULL : m, kx, ky);
    o.measure = meas;
    o.renyi_q = meas == WINENT_MEASURE_RENYI ? 2.0 : 0.0;
    o.base = (winent_base)((a + b + w) % 3);
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    const size_t n = (size_t)w * h, row_bytes = (size_t)w * winent_dtype_size(fc->dtype);
    uint8_t *in = vc_make_input(fc, w, h, 0.0, 0, &seed);
    float *ref = malloc(n * sizeof *ref);
    if (!in || !ref || winent_plan_create(&o, &p, &err) != WINENT_OK) {
        CHECK(0, "set-up: %s", err.msg);
        goto done;
    }
    winent_chunk whole = {in, row_bytes, w, h, 0, h, 0, h};
    CHECK(winent_reference_compute(p, &whole, ref, (size_t)w, &err) == WINENT_OK, "%s", err.msg);
    char label[160];
    snprintf(label, sizeof label, "%s, %s%s %dx%d, %s, %dx%d image", fc->name,
             plain ? "window " : "", fp_names[shape], kx, ky, winent_measure_name(meas), w, h);
    static const int bands[] = {0, 1, 4, 13};
    vc_check_cpu(p, in, row_bytes, w, h, ref, bands, 4, 2, label);
done:
    winent_plan_free(p);
    free(in);
    free(ref);
}

static void run_case(const value_case *fc, int shape, int a, int b, winent_measure meas, int w,
                     int h)
{
    run_case_as(fc, shape, a, b, meas, w, h, 0);
}

/* A rectangle with an even side given as kx, ky (no footprint): a shaped
 * plan of all ones, the same runs and bits as the footprint of ones. */
static void test_plain_rectangles(void)
{
    static const int sides[][2] = {{16, 16}, {4, 6}, {6, 4}, {2, 1}, {1, 2}, {64, 64}, {7, 4}};
    for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++) {
        const int kx = sides[s][0], ky = sides[s][1];
        winent_compute_opts o = fp_opts(&cases[1], NULL, kx, ky);
        winent_plan *p = NULL;
        winent_err err;
        winent_err_clear(&err);
        CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "window %dx%d: %s", kx, ky, err.msg);
        if (p == NULL)
            continue;
        CHECK(p->shaped && p->area == kx * ky && p->rx == kx / 2 && p->ry == ky / 2 &&
                  p->nrow_runs == ky && p->ncol_runs == kx && p->row_run[0] == -(kx / 2) &&
                  p->row_run[1] == kx - 1 - kx / 2 && p->opts.footprint == NULL,
              "window %dx%d: a shape of all ones, one run a row and a column", kx, ky);
        winent_plan_free(p);
        test_reference_as(FP_ONES, kx, ky, 1);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            run_case_as(&cases[c], FP_ONES, kx, ky, WINENT_MEASURE_ENTROPY, 37, 29, 1);
        run_case_as(&cases[0], FP_ONES, kx, ky, WINENT_MEASURE_MAJORITY, 33, 27, 1);
        run_case_as(&cases[2], FP_ONES, kx, ky, WINENT_MEASURE_SIMPSON, 3, 2, 1);
    }
    /* Odd rectangles keep the rectangle's own paths. */
    winent_compute_opts o = fp_opts(&cases[1], NULL, 5, 3);
    winent_plan *p = NULL;
    winent_err err;
    winent_err_clear(&err);
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK && !p->shaped,
          "window 5x3: not shaped");
    winent_plan_free(p);
}

static void test_refusals(void)
{
    static unsigned char m[256 * 2];
    winent_error e;
    winent_compute_opts o = fp_opts(&cases[1], m, 3, 3);
    CHECK(winent_compute_opts_validate(&o, &e) == WINENT_ERR_USAGE &&
              strstr(e.message, "--footprint") && strstr(e.message, "no pixel"),
          "an empty footprint: '%s'", e.message);
    m[0] = 1;
    o = fp_opts(&cases[1], m, 2, 256);
    CHECK(winent_compute_opts_validate(&o, &e) == WINENT_ERR_USAGE &&
              strstr(e.message, "1 to 255"),
          "256 rows: '%s'", e.message);
    o = fp_opts(&cases[1], m, 2, 2);
    CHECK(winent_compute_opts_validate(&o, &e) == WINENT_OK, "a 2x2 footprint: '%s'", e.message);
    o.disk = 1;
    CHECK(winent_compute_opts_validate(&o, &e) == WINENT_ERR_USAGE && strstr(e.message, "disk"),
          "a footprint and a disk: '%s'", e.message);
    o.disk = 0;
    o.measure = WINENT_MEASURE_GLCM_CONTRAST;
    CHECK(winent_compute_opts_validate(&o, &e) == WINENT_ERR_USAGE &&
              strstr(e.message, "rectangular"),
          "a footprint and a GLCM measure: '%s'", e.message);
}

int main(void)
{
    test_runs();
    test_refusals();
    test_plain_rectangles();
    for (int s = 0; s < FP_COUNT; s++)
        test_reference(s, s == FP_ONES ? 6 : 4, s == FP_RING ? 2 : 5);
    test_reference(FP_RING, 3, 2); /* a thin ring: windows that count nothing */
    static const int shapes[][3] = {{FP_DIAMOND, 3, 0}, {FP_RING, 4, 2}, {FP_ONES, 16, 16},
                                    {FP_ONES, 4, 7},    {FP_ONES, 1, 6}, {FP_COMB, 7, 6},
                                    {FP_RANDOM, 9, 6},  {FP_ONES, 5, 3}};
    static const int sizes[][2] = {{1, 1}, {3, 2}, {37, 29}, {130, 41}};
    int turn = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                run_case(&cases[c], shapes[s][0], shapes[s][1], shapes[s][2],
                         WINENT_MEASURE_ENTROPY, sizes[z][0], sizes[z][1]);
    /* Every histogram measure, on the runs and the majority's kernel. */
    static const winent_measure ms[] = {WINENT_MEASURE_RENYI, WINENT_MEASURE_SIMPSON,
                                        WINENT_MEASURE_RICHNESS, WINENT_MEASURE_EVENNESS,
                                        WINENT_MEASURE_MAJORITY};
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            run_case(&cases[turn++ % 3], shapes[s][0], shapes[s][1], shapes[s][2], ms[k], 33,
                     27);
    run_case(&cases[1], FP_RANDOM, 255, 255, WINENT_MEASURE_ENTROPY, 40, 30);
    return harness_end();
}
