/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GLCM GPU engine's thread work (winent_glcm_segment of
 * src/kernels/glcm_slide.h, compiled here by nvcc as the kernel's is) run
 * on the host, segment by segment as the kernel hands them out (segments
 * of 1, 3, 64 columns and whole rows, chunks of several heights), against
 * the CPU engine, bit for bit: every measure, both symmetries, distances
 * 1 and 2, single angles and all four, 8-bit values, quantized 16-bit and
 * float levels with nodata and NaN, windows wider than the image. Needs no
 * GPU. Where one is usable, the device engine (winent_glcm_cuda_compute)
 * is held to the same bits too; elsewhere that part is skipped.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "glcm_slide.h"

extern "C" {
#include "harness.h"
#include "kernels/glcm.h"
#include "kernels/glcm_cuda.h"
}

typedef struct tcase {
    const char *name;
    winent_dtype dtype;
    uint32_t levels;
    double lo, hi;
    int has_nodata;
    double nodata;
    int w, h, k, distance;
    unsigned angles;
    int symmetric;
} tcase;

static const tcase cases[] = {
    {"u8 values 5x5 all angles", WINENT_U8, 0, 0, 0, 0, 0, 37, 23, 5, 1, 15, 1},
    {"u8 levels 32, nodata 4, 15x15 d2", WINENT_U8, 32, 0, 256, 1, 4, 70, 40, 15, 2, 15, 1},
    {"u16 levels 64 asym 45", WINENT_U16, 64, 0, 65536, 1, 9, 41, 30, 7, 1, 2, 0},
    {"f32 levels 16, NaN, asym 135", WINENT_F32, 16, 0, 1, 0, 0, 33, 29, 9, 1, 8, 0},
    {"window wider than the image", WINENT_U8, 16, 0, 256, 0, 0, 9, 6, 31, 1, 15, 1},
};

static unsigned long long seed = 0x61c3cu;

static void *make_input(const tcase *tc)
{
    size_t n = (size_t)tc->w * tc->h;
    void *buf = malloc(n * winent_dtype_size(tc->dtype) + 8);
    for (size_t i = 0; i < n; i++) {
        if (winent_dtype_is_float(tc->dtype)) {
            double v = (double)(harness_rand(&seed) % 100000) / 100000.0;
            harness_put_sample(buf, tc->dtype, i, 0, harness_rand(&seed) % 17 == 0 ? NAN : v);
            continue;
        }
        int64_t v = (int64_t)(harness_rand(&seed) % (tc->dtype == WINENT_U8 ? 256u : 65536u));
        if (tc->has_nodata && harness_rand(&seed) % 13 == 0)
            v = (int64_t)tc->nodata;
        harness_put_sample(buf, tc->dtype, i, v, 0);
    }
    return buf;
}

static void opts_of(const tcase *tc, winent_glcm_opts *o)
{
    winent_glcm_opts_default(o);
    o->compute.kx = o->compute.ky = tc->k;
    o->compute.dtype = tc->dtype;
    o->compute.bins = tc->levels;
    o->compute.range_lo = tc->levels ? tc->lo : 0;
    o->compute.range_hi = tc->levels ? tc->hi : 0;
    o->compute.has_nodata = tc->has_nodata;
    o->compute.nodata = tc->nodata;
    o->distance = tc->distance;
    o->angles = tc->angles;
    o->symmetric = tc->symmetric;
    o->nmeasures = WINENT_GLCM_MEASURE_COUNT;
    for (int m = 0; m < WINENT_GLCM_MEASURE_COUNT; m++)
        o->measures[m] = (winent_glcm_measure)m;
}

static void compare(const tcase *tc, const char *what, const std::vector<float> &got,
                    const std::vector<float> &ref)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); i++)
        if (memcmp(&got[i], &ref[i], sizeof(float)) != 0 && bad++ == 0)
            first = i;
    const size_t n = (size_t)tc->w * tc->h;
    CHECK(bad == 0, "%s (%s): %zu values differ, first plane %zu (%zu, %zu): %.9g vs cpu %.9g",
          tc->name, what, bad, first / n, first % n % (size_t)tc->w, first % n / (size_t)tc->w,
          got[first], ref[first]);
}

/* The kernel's loop on the host: chunks of chunk_rows, segments of seg. */
static std::vector<float> twin_map(const winent_glcm_plan *p, const tcase *tc, const void *in,
                                   int chunk_rows, int seg)
{
    const int W = tc->w, H = tc->h, nm = p->opts.nmeasures, L = p->levels;
    const size_t n = (size_t)W * H;
    std::vector<float> out(n * nm);
    std::vector<uint16_t> codes(n), hist((size_t)L * L);
    std::vector<uint32_t> marg(2 * (size_t)L);
    std::vector<double> sum((size_t)nm * seg);
    std::vector<int> cnt(seg);
    winent_glcm_levels(p, in, n, codes.data());
    winent_glcm_geom g;
    winent_glcm_geom_init(p, W, H, &g);
    winent_glcm_state st = {hist.data(), marg.data(), marg.data() + L, WINENT_GLCM_ACC_ZERO};
    for (int y0 = 0; y0 < H; y0 += chunk_rows) {
        int y1 = y0 + chunk_rows < H ? y0 + chunk_rows : H, in0, nin;
        winent_chunk_input_rows(y0, y1, p->ry, H, &in0, &nin);
        /* the chunk's levels only, as the device holds them */
        std::vector<uint16_t> band(codes.begin() + (size_t)in0 * W,
                                   codes.begin() + (size_t)(in0 + nin) * W);
        for (int y = y0; y < y1; y++)
            for (int xa = 0; xa < W; xa += seg) {
                int xb = xa + seg < W ? xa + seg : W;
                winent_glcm_segment(&g, &st, band.data(), in0, y, xa, xb, sum.data(), cnt.data(),
                                    seg, out.data() + (size_t)y * W + xa, n);
            }
    }
    for (size_t i = 0; i < hist.size(); i++)
        if (hist[i] != 0) {
            CHECK(0, "%s: the histogram is not left zero", tc->name);
            break;
        }
    return out;
}

static std::vector<float> cpu_map(const winent_glcm_plan *p, const tcase *tc, const void *in)
{
    const size_t n = (size_t)tc->w * tc->h;
    std::vector<float> out(n * p->opts.nmeasures);
    std::vector<float *> planes(p->opts.nmeasures);
    for (int k = 0; k < p->opts.nmeasures; k++)
        planes[k] = out.data() + (size_t)k * n;
    winent_err err;
    winent_err_clear(&err);
    winent_glcm_cpu *e = NULL;
    winent_chunk ch = {in, (size_t)tc->w * winent_dtype_size(tc->dtype), tc->w, tc->h, 0, tc->h,
                       0, tc->h};
    CHECK(winent_glcm_cpu_create(p, tc->w, 1, &e, &err) == WINENT_OK &&
              winent_glcm_cpu_compute(e, &ch, planes.data(), (size_t)tc->w, &err) == WINENT_OK,
          "%s: cpu: %s", tc->name, err.msg);
    winent_glcm_cpu_free(e);
    return out;
}

/* The device engine, where a GPU is usable. */
static void device_map(const winent_glcm_plan *p, const tcase *tc, const void *in,
                       const std::vector<float> &ref, int *skipped)
{
    const size_t n = (size_t)tc->w * tc->h;
    winent_err err;
    winent_err_clear(&err);
    winent_glcm_cuda *e = NULL;
    if (winent_glcm_cuda_create(p, 0, tc->w, tc->h, &e, &err) != WINENT_OK) {
        if (!*skipped)
            SKIP_PART("the device engine: %s", err.msg);
        *skipped = 1;
        return;
    }
    std::vector<float> out(n * p->opts.nmeasures);
    std::vector<float *> planes(p->opts.nmeasures);
    for (int k = 0; k < p->opts.nmeasures; k++)
        planes[k] = out.data() + (size_t)k * n;
    winent_chunk ch = {in, (size_t)tc->w * winent_dtype_size(tc->dtype), tc->w, tc->h, 0, tc->h,
                       0, tc->h};
    CHECK(winent_glcm_cuda_compute(e, &ch, planes.data(), (size_t)tc->w, &err) == WINENT_OK,
          "%s: gpu: %s", tc->name, err.msg);
    winent_glcm_cuda_free(e);
    compare(tc, "device", out, ref);
}

int main(void)
{
    int skipped = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const tcase *tc = &cases[i];
        void *in = make_input(tc);
        winent_glcm_opts o;
        opts_of(tc, &o);
        winent_glcm_plan *p = NULL;
        winent_err err;
        winent_err_clear(&err);
        CHECK(winent_glcm_plan_create(&o, &p, &err) == WINENT_OK, "%s: %s", tc->name, err.msg);
        if (p != NULL) {
            std::vector<float> ref = cpu_map(p, tc, in);
            static const int segs[] = {1, 3, 64, 1 << 20};
            for (int s = 0; s < 4; s++) {
                int chunk = s == 3 ? tc->h : 1 + 4 * s;
                char what[64];
                snprintf(what, sizeof what, "segments of %d, chunks of %d", segs[s], chunk);
                compare(tc, what, twin_map(p, tc, in, chunk, segs[s] < tc->w ? segs[s] : tc->w),
                        ref);
            }
            device_map(p, tc, in, ref, &skipped);
        }
        winent_glcm_plan_free(p);
        free(in);
    }
    /* The host twin is the test here; the device part needs a GPU. */
    int rc = harness_end();
    return rc == 77 ? 0 : rc;
}
