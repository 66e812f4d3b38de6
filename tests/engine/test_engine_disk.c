/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Circular windows (--disk R): the disk's shape against scikit-image's
 * morphology.disk(R) (its pixel counts, and every row's half-width from
 * dx^2 + dy^2 <= R^2), the reference engine against a count made here
 * from the definition, and the CPU engine (engine_cpu_disk.c) against the
 * reference bit for bit on random data with nodata and NaN: every code
 * width the engine uses (8-bit samples, 16-bit samples, narrowed bins,
 * 32-bit codes, the remap tiles of 32-bit integers), radii 0 to 20 and
 * 127, images smaller and larger than the disk, whole and in chunks of
 * several heights with their halo rows, 1 and 2 threads.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_cases.h"
#include "harness.h"

static unsigned long long seed = 0xd15cu;

/* `special`: the share of nodata (integers) or NaN / nodata (floats). */
static const value_case cases[] = {
    {"u8 256 values", WINENT_U8, 0, 0, 0, 0, 0, 0, 256, 0, 0},
    {"u8 6 values, nodata 2", WINENT_U8, 0, 0, 0, 1, 2, 0, 6, 0.1, 0},
    {"i8, nodata -1", WINENT_I8, 0, 0, 0, 1, -1, -128, 256, 0.05, 0},
    {"u16 3000 values, nodata 7", WINENT_U16, 0, 0, 0, 1, 7, 0, 3000, 0.05, 0},
    {"i16 full range", WINENT_I16, 0, 0, 0, 0, 0, -32768, 65536, 0, 0},
    {"u32 50k values, nodata", WINENT_U32, 0, 0, 0, 1, 3000000001.0, 3000000000LL, 50000, 0.05,
     0},
    {"i32 12 values", WINENT_I32, 0, 0, 0, 0, 0, -6, 12, 0, 0},
    {"u8 bins 5 range 10:200, nodata 9", WINENT_U8, 5, 10, 200, 1, 9, 0, 256, 0.05, 0},
    {"f32 bins 256 range 0:1, NaN, nodata 0.5", WINENT_F32, 256, 0, 1, 1, 0.5, 0, 0, 0.05, 0},
    {"f64 bins 1000 range -1:1, NaN", WINENT_F64, 1000, -1, 1, 0, 0, 0, 0, 0.05, 0},
    {"f64 bins 70000 range 0:1 (remap), NaN", WINENT_F64, 70000, 0, 1, 0, 0, 0, 0, 0.05, 0},
};

/* Floats spread 5 % beyond the range on each side. */
static uint8_t *make_input(const value_case *dc, int w, int h)
{
    return vc_make_input(dc, w, h, 0.05, 0, &seed);
}

static winent_compute_opts disk_opts(const value_case *dc, int r, winent_base base)
{
    winent_compute_opts o = vc_opts(dc, 2 * r + 1, 2 * r + 1);
    o.disk = 1;
    o.base = base;
    return o;
}

/* The disk's shape: scikit-image's disk(R) pixel counts (sum of
 * morphology.disk(R)), and each row's half-width against the definition. */
static void test_shape(void)
{
    static const int counts[][2] = {{0, 1},  {1, 5},   {2, 13},   {3, 29},   {4, 49},
                                    {5, 81}, {7, 149}, {10, 317}, {15, 709}, {127, 50617}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        winent_compute_opts o = disk_opts(&cases[0], counts[i][0], WINENT_BASE_2);
        winent_plan *p = NULL;
        winent_err err;
        winent_err_clear(&err);
        CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
        if (p == NULL)
            continue;
        CHECK(p->area == counts[i][1], "disk(%d): %d pixels, scikit-image has %d", counts[i][0],
              p->area, counts[i][1]);
        const int r = counts[i][0];
        for (int dy = -r; dy <= r; dy++) {
            int w = p->hw[dy + r];
            CHECK(w * w + dy * dy <= r * r && (w + 1) * (w + 1) + dy * dy > r * r,
                  "disk(%d): row %d half-width %d", r, dy, w);
        }
        winent_plan_free(p);
    }
    /* A disk is square: kx != ky is a usage error naming --disk; a radius
     * past 127 one quoting the window as --window diskR takes it. */
    winent_compute_opts o = disk_opts(&cases[0], 2, WINENT_BASE_2);
    o.ky = 3;
    winent_error e;
    CHECK(winent_compute_opts_validate(&o, &e) == WINENT_ERR_USAGE &&
              strncmp(e.message, "--disk:", 7) == 0,
          "5x3 disk: '%s'", e.message);
    o = disk_opts(&cases[0], 128, WINENT_BASE_2);
    CHECK(winent_compute_opts_validate(&o, &e) == WINENT_ERR_USAGE &&
              strstr(e.message, "'disk128'") != NULL,
          "disk 128: '%s'", e.message);
}

/* The reference against the definition, counted here: a u8 image with
 * nodata, every pixel's disk from scratch (dx^2 + dy^2 <= r^2), entropy
 * in float64. */
static void test_reference(void)
{
    const int w = 23, h = 19, r = 4, k = 2 * r + 1;
    const value_case *dc = &cases[1];
    unsigned char mask[9 * 9];
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
            mask[(dy + r) * k + dx + r] = dx * dx + dy * dy <= r * r;
    uint8_t *in = make_input(dc, w, h);
    winent_compute_opts o = disk_opts(dc, r, WINENT_BASE_2);
    winent_plan *p = NULL;
    winent_err err;
    winent_err_clear(&err);
    if (in == NULL || winent_plan_create(&o, &p, &err) != WINENT_OK)
        CHECK(0, "set-up: %s", err.msg);
    else
        vc_check_reference_u8(p, in, w, h, mask, k, k, (int)dc->nodata, "disk 4");
    winent_plan_free(p);
    free(in);
}

/* One image, one radius: the CPU engine against the reference, whole and
 * in chunks, on 1 and 2 threads. */
static void run_case(const value_case *dc, int r, winent_base base, int w, int h)
{
    winent_compute_opts o = disk_opts(dc, r, base);
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    const size_t n = (size_t)w * h, row_bytes = (size_t)w * winent_dtype_size(dc->dtype);
    uint8_t *in = make_input(dc, w, h);
    float *ref = malloc(n * sizeof *ref);
    if (!in || !ref) {
        CHECK(0, "out of memory");
        goto done;
    }
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
    if (p == NULL)
        goto done;
    winent_chunk whole = {in, row_bytes, w, h, 0, h, 0, h};
    CHECK(winent_reference_compute(p, &whole, ref, (size_t)w, &err) == WINENT_OK, "%s", err.msg);
    char label[160];
    snprintf(label, sizeof label, "%s, disk %d, base %d, %dx%d image", dc->name, r, (int)base, w,
             h);
    static const int bands[] = {0, 1, 5, 17};
    vc_check_cpu(p, in, row_bytes, w, h, ref, bands, 4, 2, label);
done:
    winent_plan_free(p);
    free(in);
    free(ref);
}

int main(void)
{
    test_shape();
    test_reference();
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {6, 5}, {37, 29}};
    const int nc = (int)(sizeof cases / sizeof cases[0]);
    int turn = 0;
    for (int c = 0; c < nc; c++) {
        for (int r = 0; r <= 5; r++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                run_case(&cases[c], r, (winent_base)(turn++ % 3), sizes[si][0], sizes[si][1]);
        run_case(&cases[c], c % 2 ? 7 : 12, (winent_base)(turn++ % 3), 301, 97);
    }
    /* Large disks, on images smaller and larger than them. */
    run_case(&cases[0], 20, WINENT_BASE_2, 90, 60);
    run_case(&cases[5], 17, WINENT_BASE_E, 70, 45);
    run_case(&cases[3], 127, WINENT_BASE_2, 40, 30);
    run_case(&cases[0], 127, WINENT_BASE_10, 270, 6);
    return harness_end();
}
