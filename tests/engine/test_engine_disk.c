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
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_reference.h"

static unsigned long long seed = 0xd15cu;

static double unit(void)
{
    return (double)(harness_rand(&seed) >> 11) / 9007199254740992.0;
}

typedef struct dcase {
    const char *name;
    winent_dtype dtype;
    uint32_t bins;
    double lo, hi;
    int has_nodata;
    double nodata;
    int64_t vmin;
    uint64_t nvals;
    double special; /* share of nodata (integers) or NaN / nodata (floats) */
} dcase;

static const dcase cases[] = {
    {"u8 256 values", WINENT_U8, 0, 0, 0, 0, 0, 0, 256, 0},
    {"u8 6 values, nodata 2", WINENT_U8, 0, 0, 0, 1, 2, 0, 6, 0.1},
    {"i8, nodata -1", WINENT_I8, 0, 0, 0, 1, -1, -128, 256, 0.05},
    {"u16 3000 values, nodata 7", WINENT_U16, 0, 0, 0, 1, 7, 0, 3000, 0.05},
    {"i16 full range", WINENT_I16, 0, 0, 0, 0, 0, -32768, 65536, 0},
    {"u32 50k values, nodata", WINENT_U32, 0, 0, 0, 1, 3000000001.0, 3000000000LL, 50000, 0.05},
    {"i32 12 values", WINENT_I32, 0, 0, 0, 0, 0, -6, 12, 0},
    {"u8 bins 5 range 10:200, nodata 9", WINENT_U8, 5, 10, 200, 1, 9, 0, 256, 0.05},
    {"f32 bins 256 range 0:1, NaN, nodata 0.5", WINENT_F32, 256, 0, 1, 1, 0.5, 0, 0, 0.05},
    {"f64 bins 1000 range -1:1, NaN", WINENT_F64, 1000, -1, 1, 0, 0, 0, 0, 0.05},
    {"f64 bins 70000 range 0:1 (remap), NaN", WINENT_F64, 70000, 0, 1, 0, 0, 0, 0, 0.05},
};

static uint8_t *make_input(const dcase *dc, int w, int h)
{
    size_t n = (size_t)w * h, ss = winent_dtype_size(dc->dtype);
    uint8_t *p = malloc(n * ss + 8);
    if (p == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int special = unit() < dc->special;
        if (winent_dtype_is_float(dc->dtype)) {
            double span = dc->hi - dc->lo;
            double v = dc->lo - 0.05 * span + 1.1 * span * unit();
            if (special)
                v = dc->has_nodata && unit() < 0.5 ? dc->nodata : NAN;
            harness_put_sample(p, dc->dtype, i, 0, v);
        } else {
            int64_t v = dc->vmin + (int64_t)(harness_rand(&seed) % dc->nvals);
            if (special && dc->has_nodata)
                v = (int64_t)dc->nodata;
            harness_put_sample(p, dc->dtype, i, v, 0.0);
        }
    }
    return p;
}

static winent_compute_opts disk_opts(const dcase *dc, int r, winent_base base)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.kx = o.ky = 2 * r + 1;
    o.disk = 1;
    o.base = base;
    o.dtype = dc->dtype;
    o.bins = dc->bins;
    o.range_lo = dc->lo;
    o.range_hi = dc->hi;
    o.has_nodata = dc->has_nodata;
    o.nodata = dc->nodata;
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
 * nodata, every pixel's disk from scratch, entropy in float64. */
static void test_reference(void)
{
    const int w = 23, h = 19, r = 4;
    const dcase *dc = &cases[1];
    uint8_t *in = make_input(dc, w, h);
    float *ref = malloc(sizeof *ref * (size_t)w * h);
    winent_compute_opts o = disk_opts(dc, r, WINENT_BASE_2);
    winent_plan *p = NULL;
    winent_err err;
    winent_err_clear(&err);
    if (in == NULL || ref == NULL || winent_plan_create(&o, &p, &err) != WINENT_OK) {
        CHECK(0, "set-up: %s", err.msg);
        goto done;
    }
    winent_chunk whole = {in, (size_t)w, w, h, 0, h, 0, h};
    CHECK(winent_reference_compute(p, &whole, ref, (size_t)w, &err) == WINENT_OK, "%s", err.msg);
    double worst = 0;
    int nan_ok = 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float got = ref[(size_t)y * w + x];
            if (in[(size_t)y * w + x] == (uint8_t)dc->nodata) {
                nan_ok &= isnan(got);
                continue;
            }
            int count[256] = {0}, n = 0;
            for (int dy = -r; dy <= r; dy++)
                for (int dx = -r; dx <= r; dx++) {
                    int yy = y + dy, xx = x + dx;
                    if (yy < 0 || yy >= h || xx < 0 || xx >= w || dx * dx + dy * dy > r * r)
                        continue;
                    uint8_t v = in[(size_t)yy * w + xx];
                    if (v == (uint8_t)dc->nodata)
                        continue;
                    count[v]++;
                    n++;
                }
            double e = 0;
            for (int v = 0; v < 256; v++)
                if (count[v])
                    e -= (double)count[v] / n * log2((double)count[v] / n);
            double d = fabs(e - got);
            worst = d > worst ? d : worst;
        }
    CHECK(nan_ok, "a nodata centre is not NaN");
    CHECK(worst <= 1e-6, "reference disk vs the definition: %g", worst);
done:
    winent_plan_free(p);
    free(in);
    free(ref);
}

static int same_bits(const float *a, const float *b, size_t n, size_t *where)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a)) {
            *where = i;
            return 0;
        }
    return 1;
}

/* One image, one radius: the CPU engine against the reference, whole and
 * in chunks, on 1 and 2 threads. */
static void run_case(const dcase *dc, int r, winent_base base, int w, int h)
{
    winent_compute_opts o = disk_opts(dc, r, base);
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    size_t n = (size_t)w * h, ss = winent_dtype_size(dc->dtype);
    uint8_t *in = make_input(dc, w, h);
    float *ref = malloc(n * sizeof *ref), *got = malloc(n * sizeof *got);
    winent_cpu_engine *e1 = NULL, *e2 = NULL;
    if (!in || !ref || !got) {
        CHECK(0, "out of memory");
        goto done;
    }
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
    if (p == NULL)
        goto done;
    const size_t row_bytes = (size_t)w * ss;
    winent_chunk whole = {in, row_bytes, w, h, 0, h, 0, h};
    CHECK(winent_reference_compute(p, &whole, ref, (size_t)w, &err) == WINENT_OK, "%s", err.msg);
    CHECK(winent_cpu_engine_create(p, w, h, 1, &e1, &err) == WINENT_OK, "%s", err.msg);
    CHECK(winent_cpu_engine_create(p, w, h, 2, &e2, &err) == WINENT_OK, "%s", err.msg);
    if (e1 == NULL || e2 == NULL)
        goto done;
    static const int bands[] = {0, 1, 5, 17};
    for (int ti = 0; ti < 2; ti++) {
        winent_cpu_engine *e = ti ? e2 : e1;
        for (size_t bi = 0; bi < sizeof bands / sizeof bands[0]; bi++) {
            int bh = bands[bi] ? bands[bi] : h;
            memset(got, 0xA5, n * sizeof *got);
            for (int y0 = 0; y0 < h; y0 += bh) {
                int y1 = y0 + bh < h ? y0 + bh : h, in_y0, in_h;
                winent_chunk_input_rows(y0, y1, p->ry, h, &in_y0, &in_h);
                winent_chunk c = {
                    in + (size_t)in_y0 * row_bytes, row_bytes, w, h, in_y0, in_h, y0, y1};
                CHECK(winent_cpu_engine_compute(e, &c, got + (size_t)y0 * w, (size_t)w, &err) ==
                          WINENT_OK,
                      "%s", err.msg);
            }
            size_t at = 0;
            CHECK(same_bits(ref, got, n, &at),
                  "%s, disk %d, base %d, %dx%d image, %d threads, bands of %d: pixel (%zu, %zu) "
                  "reference %.9g, cpu %.9g",
                  dc->name, r, (int)base, w, h, ti + 1, bh, at % (size_t)w, at / (size_t)w, ref[at],
                  got[at]);
        }
    }
done:
    winent_cpu_engine_free(e1);
    winent_cpu_engine_free(e2);
    winent_plan_free(p);
    free(in);
    free(ref);
    free(got);
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
