/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compare kernels (src/kernels/engine_cuda_cmp.cuh) run on the host, a
 * thread's column at a time, against the CPU engine, bit for bit: the
 * scalar slide (16- and 32-bit codes) and the slide of 16-bit codes two to
 * a word, at 3x3 to 9x9; with and without a nodata sentinel, u16 65535 as
 * an ordinary value (the sentinel's own code), codes that rarely repeat and
 * codes that repeat a lot, images narrower and shorter than the window,
 * segments and chunks cut anywhere. Needs no GPU: it checks the algorithm
 * where CI runs, and test_gpu_identity checks the device's run of it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "entropy_rule.h"
#include "engine_cuda_kernels.cuh"
#include "engine_cuda_cmp.cuh"

extern "C" {
#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/entropy_plan.h"
}
#include "gpu_twin.h"

typedef struct tcase {
    const char *name;
    winent_dtype dtype;
    int k;           /* window side */
    uint64_t values; /* samples vmin .. vmin + values - 1 */
    int64_t vmin;
    int has_nodata;
    double nodata;
    int w, h, chunk_rows, seg_rows;
} tcase;

static unsigned long long seed = 0x51c3u;

static void *make_input(const tcase *tc)
{
    size_t n = (size_t)tc->w * tc->h;
    void *buf = malloc(n * winent_dtype_size(tc->dtype));
    for (size_t i = 0; i < n; i++) {
        int64_t v = (int64_t)(harness_rand(&seed) % tc->values) + tc->vmin;
        if (tc->has_nodata && harness_rand(&seed) % 13 == 0)
            v = (int64_t)tc->nodata;
        harness_put_sample(buf, tc->dtype, i, v, 0);
    }
    return buf;
}

/* One slide: the scalar kernel, or 16-bit codes two to a word. */
template <typename C, bool ND, int K, bool PACKED>
static void slide(const win_params &wp, int x, int ya, int yb)
{
    if (PACKED)
        cmp16_slide<ND, K>(wp, x, ya, yb);
    else
        cmp_slide<C, ND, K>(wp, x, ya, yb);
}

template <typename C, bool ND, int K, bool PACKED>
static void run_twin(const tcase *tc, const winent_plan *p, const void *in, const float *ref)
{
    const int W = tc->w, H = tc->h;
    std::vector<C> plane = twin_plane_of<C>(p, in, (size_t)W * H);
    std::vector<float> got((size_t)W * H);
    memset(got.data(), 0xEE, got.size() * sizeof(float));
    for (int y0 = 0; y0 < H; y0 += tc->chunk_rows) {
        int y1 = y0 + tc->chunk_rows < H ? y0 + tc->chunk_rows : H, a, h;
        winent_chunk_input_rows(y0, y1, p->ry, H, &a, &h);
        win_params wp;
        memset(&wp, 0, sizeof wp);
        wp.plane = plane.data() + (size_t)a * W;
        wp.out = got.data() + (size_t)y0 * W;
        wp.du = (const long long *)p->du;
        wp.t = (const long long *)p->t;
        wp.W = W;
        wp.H = H;
        wp.in_y0 = a;
        wp.y0 = y0;
        wp.y1 = y1;
        wp.rx = p->rx;
        wp.ry = p->ry;
        for (int ya = y0; ya < y1; ya += tc->seg_rows) {
            int yb = ya + tc->seg_rows < y1 ? ya + tc->seg_rows : y1;
            for (int x = 0; x < W; x++)
                slide<C, ND, K, PACKED>(wp, x, ya, yb);
        }
    }
    int bad = 0, first = -1;
    for (size_t i = 0; i < got.size(); i++)
        if (memcmp(&got[i], &ref[i], 4) != 0) {
            bad++;
            if (first < 0)
                first = (int)i;
        }
    CHECK(bad == 0, "%s (%s, code%d): %d of %d pixels differ; first (%d, %d): cpu %.9g twin %.9g",
          tc->name, PACKED ? "two a word" : "scalar", (int)(8 * sizeof(C)), bad, W * H, first % W,
          first / W, ref[first < 0 ? 0 : first], got[first < 0 ? 0 : first]);
    printf("  %-40s %s code%d %s: %s\n", tc->name, ND ? "nd" : "--", (int)(8 * sizeof(C)),
           PACKED ? "two a word" : "scalar    ", bad ? "DIFFERS" : "identical");
}

template <typename C, bool ND, int K>
static void run_kernels(const tcase *tc, const winent_plan *p, const void *in, const float *ref)
{
    run_twin<C, ND, K, false>(tc, p, in, ref);
    if (sizeof(C) == 2)
        run_twin<C, ND, K, true>(tc, p, in, ref);
}

template <typename C, bool ND>
static void run_k(const tcase *tc, const winent_plan *p, const void *in, const float *ref)
{
    switch (tc->k) {
    case 3: run_kernels<C, ND, 3>(tc, p, in, ref); break;
    case 5: run_kernels<C, ND, 5>(tc, p, in, ref); break;
    case 7: run_kernels<C, ND, 7>(tc, p, in, ref); break;
    default: run_kernels<C, ND, 9>(tc, p, in, ref); break;
    }
}

static void run_case(const tcase *tc)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = tc->dtype;
    o.kx = o.ky = tc->k;
    o.has_nodata = tc->has_nodata;
    o.nodata = tc->nodata;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    void *in = make_input(tc);
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s: %s", tc->name, err.msg);
    if (p == NULL) {
        free(in);
        return;
    }
    std::vector<float> ref = twin_cpu_map(p, in, tc->dtype, tc->w, tc->h, tc->name);
    const int nd = p->can_skip;
    if (twin_wide_plane(p))
        nd ? run_k<uint32_t, true>(tc, p, in, ref.data())
           : run_k<uint32_t, false>(tc, p, in, ref.data());
    else
        nd ? run_k<uint16_t, true>(tc, p, in, ref.data())
           : run_k<uint16_t, false>(tc, p, in, ref.data());
    winent_plan_free(p);
    free(in);
}

static const tcase cases[] = {
    /* name                                 dtype  k  values vmin nd nodata w h chunk seg */
    {"u16 4096 values 5x5", WINENT_U16, 5, 4096, 0, 0, 0, 67, 61, 23, 9},
    {"u16 30 values 5x5 (many repeats)", WINENT_U16, 5, 30, 0, 0, 0, 45, 40, 40, 40},
    {"u16 3 values 9x9", WINENT_U16, 9, 3, 100, 0, 0, 40, 37, 11, 5},
    {"u16 65536 values 3x3", WINENT_U16, 3, 65536, 0, 0, 0, 50, 33, 17, 4},
    {"u16 top 3 values 7x7, 65535 counted", WINENT_U16, 7, 3, 65533, 0, 0, 39, 35, 13, 6},
    {"u16 top 2 values 5x5, 65535 counted", WINENT_U16, 5, 2, 65534, 0, 0, 30, 28, 28, 7},
    {"u16 nodata 7, 5x5", WINENT_U16, 5, 20, 0, 1, 7, 44, 41, 19, 8},
    {"u16 nodata 65535, 9x9", WINENT_U16, 9, 12, 65530, 1, 65535, 33, 30, 30, 30},
    {"u16 narrow 3 x 40, 9x9", WINENT_U16, 9, 5, 0, 0, 0, 3, 40, 13, 5},
    {"u16 short 30 x 2, 7x7", WINENT_U16, 7, 4, 0, 0, 0, 30, 2, 2, 1},
    {"i16 all values 5x5", WINENT_I16, 5, 65536, -32768, 0, 0, 35, 30, 30, 11},
    {"i32 1e6 values 5x5", WINENT_I32, 5, 1000000, -5, 0, 0, 40, 30, 30, 8},
    {"u32 top values 3x3 (all-ones counted)", WINENT_U32, 3, 3, 4294967293LL, 0, 0, 25, 20, 9, 4},
    {"i32 nodata -1, 7x7", WINENT_I32, 7, 9, -4, 1, -1, 33, 29, 29, 13},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    return harness_end();
}
