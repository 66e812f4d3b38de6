/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The groups kernel's steps (src/kernels/engine_cuda_groups.cuh) run on
 * the host, a thread and a lane at a time in the block's order, against
 * the CPU engine, bit for bit: u16 and u32 planes with and without a
 * nodata sentinel (u16 65535 as an ordinary value too), codes that rarely
 * repeat and codes that repeat in large groups, square and flat windows,
 * tiles cut by the image's edges and by the chunk's rows. Needs no GPU:
 * it checks the algorithm where CI runs, and test_gpu_identity checks the
 * device's run of it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "entropy_rule.h"
#include "engine_cuda_kernels.cuh"
#include "engine_cuda_groups.cuh"

extern "C" {
#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/entropy_plan.h"
}
#include "gpu_twin.h"

typedef struct tcase {
    const char *name;
    winent_dtype dtype;
    int kx, ky;
    uint64_t values; /* samples 0..values-1 (plus vmin) */
    int64_t vmin;
    int smooth;      /* a smooth surface: codes repeat in large groups */
    int has_nodata;
    double nodata;
    int w, h, chunk_rows;
} tcase;

static unsigned long long seed = 0x9e37u;
/* The measure of the cases run (main): the entropy, then the others, whose
 * groups count T' (T'[1] = 0) and whose finish adds n T[1] back. */
static winent_measure the_measure = WINENT_MEASURE_ENTROPY;
static double the_q = 0.0;

static void *make_input(const tcase *tc)
{
    size_t n = (size_t)tc->w * tc->h;
    void *buf = malloc(n * winent_dtype_size(tc->dtype));
    for (int y = 0; y < tc->h; y++)
        for (int x = 0; x < tc->w; x++) {
            size_t i = (size_t)y * tc->w + x;
            int64_t v;
            if (tc->smooth) {
                double u = 0.5 + 0.3 * sin(0.07 * x + 0.3) * cos(0.05 * y) + 0.1 * sin(0.011 * x * y);
                v = (int64_t)(u * (double)tc->values) + (int64_t)(harness_rand(&seed) % 3);
                if (v >= (int64_t)tc->values)
                    v = (int64_t)tc->values - 1;
                if (v < 0)
                    v = 0;
            } else {
                v = (int64_t)(harness_rand(&seed) % tc->values);
            }
            v += tc->vmin;
            if (tc->has_nodata && harness_rand(&seed) % 23 == 0)
                v = (int64_t)tc->nodata;
            harness_put_sample(buf, tc->dtype, i, v, 0);
        }
    return buf;
}

template <typename C, bool ND>
static int run_twin(const tcase *tc, const winent_plan *p, const void *in, const float *ref,
                    int candidate)
{
    const int W = tc->w, H = tc->h;
    std::vector<C> plane = twin_plane_of<C>(p, in, (size_t)W * H);
    std::vector<float> got((size_t)W * H);
    memset(got.data(), 0xEE, got.size() * sizeof(float));
    /* Layouts as on an H100 (227 KB of shared memory a block): the
     * candidate asked for, where it fits. */
    groups_geom g = groups_geom_candidate(p->rx, p->ry, (int)sizeof(C), (size_t)227 << 10,
                                          candidate);
    if (g.th == 0)
        return 0;
    std::vector<unsigned long long> smem((size_t)g.bytes / 8 + 1);
    twin_tables tt;
    twin_tables_of(p, &tt);
    for (int y0 = 0; y0 < H; y0 += tc->chunk_rows) {
        int y1 = y0 + tc->chunk_rows < H ? y0 + tc->chunk_rows : H, a, h;
        winent_chunk_input_rows(y0, y1, p->ry, H, &a, &h);
        win_params wp;
        memset(&wp, 0, sizeof wp);
        wp.plane = plane.data() + (size_t)a * W;
        wp.out = got.data() + (size_t)y0 * W;
        wp.du = tt.du.data();
        wp.t = tt.t.data();
        wp.m = tt.m;
        wp.W = W;
        wp.H = H;
        wp.in_y0 = a;
        wp.y0 = y0;
        wp.y1 = y1;
        wp.rx = p->rx;
        wp.ry = p->ry;
        wp.tiles_x = (W + GROUPS_TW - 1) / GROUPS_TW;
        wp.tiles = wp.tiles_x * ((y1 - y0 + g.th - 1) / g.th);
        /* Shared memory poisoned for each block, whose tiles then share
         * it: every step must set what it reads, and step 6 must leave the
         * fields clear for the next tile. Blocks of 1, 2 and 5 tiles. */
        for (int t = 0, b = 0; t < wp.tiles; b++) {
            int t1 = t + (b % 3 == 0 ? 1 : b % 3 == 1 ? 2 : 5);
            if (t1 > wp.tiles)
                t1 = wp.tiles;
            memset(smem.data(), 0xA5, smem.size() * 8);
            groups_block_host<C, ND>(wp, g, (char *)smem.data(), t, t1);
            t = t1;
        }
    }
    int bad = 0, first = -1;
    for (size_t i = 0; i < got.size(); i++)
        if (memcmp(&got[i], &ref[i], 4) != 0) {
            bad++;
            if (first < 0)
                first = (int)i;
        }
    CHECK(bad == 0, "%s: %d of %d pixels differ; first (%d, %d): cpu %.9g twin %.9g", tc->name,
          bad, W * H, first % W, first / W, ref[first < 0 ? 0 : first], got[first < 0 ? 0 : first]);
    printf("  %-44s %s/code%d slots %dx%d tile 32x%d region %dx%d, %d B: %s\n", tc->name,
           ND ? "nd" : "--", (int)(8 * sizeof(C)), 1 << g.bits, 8 * g.slot_bytes, g.th, g.rw,
           g.rh, g.bytes, bad ? "DIFFERS" : "identical");
    return bad;
}

static void run_case(const tcase *tc)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.measure = the_measure;
    o.renyi_q = the_q;
    o.dtype = tc->dtype;
    o.kx = tc->kx;
    o.ky = tc->ky;
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
    const bool wide = twin_wide_plane(p);
    /* Every layout that fits: 32- and 16-bit slots, each table load; the
     * first tile height that fits (the others are the same code). */
    groups_geom first = groups_geom_for(p->rx, p->ry, wide ? 4 : 2, (size_t)227 << 10);
    CHECK(first.th > 0, "%s: the groups kernel does not fit", tc->name);
    int runs = 0;
    for (int k = 0; k < GROUPS_CANDIDATES; k++) {
        if (groups_geom_candidate(p->rx, p->ry, wide ? 4 : 2, (size_t)227 << 10, k).th !=
            first.th)
            continue;
        runs++;
        if (wide)
            nd ? run_twin<uint32_t, true>(tc, p, in, ref.data(), k)
               : run_twin<uint32_t, false>(tc, p, in, ref.data(), k);
        else
            nd ? run_twin<uint16_t, true>(tc, p, in, ref.data(), k)
               : run_twin<uint16_t, false>(tc, p, in, ref.data(), k);
    }
    CHECK(runs > 0, "%s: no layout ran", tc->name);
    winent_plan_free(p);
    free(in);
}

static const tcase cases[] = {
    /* name                                  dtype   kx  ky  values  vmin smooth nd nodata w h R */
    {"u16 65536 values 31x31", WINENT_U16, 31, 31, 65536, 0, 0, 0, 0, 100, 90, 37},
    {"u16 4 top values 9x9, 65535 counted", WINENT_U16, 9, 9, 4, 65532, 0, 0, 0, 77, 70, 33},
    {"u16 smooth 3000 values 15x15", WINENT_U16, 15, 15, 3000, 0, 1, 0, 0, 90, 75, 40},
    {"u16 smooth 40 values 31x31 (large groups)", WINENT_U16, 31, 31, 40, 0, 1, 0, 0, 80, 70, 64},
    {"u16 nodata 7, 9x9", WINENT_U16, 9, 9, 20, 0, 0, 1, 7, 70, 66, 19},
    {"u16 4096 values 63x63", WINENT_U16, 63, 63, 4096, 0, 0, 0, 0, 110, 100, 50},
    {"i16 9x3 flat", WINENT_I16, 9, 3, 65536, -32768, 0, 0, 0, 75, 60, 21},
    {"u16 3x15 tall", WINENT_U16, 3, 15, 300, 0, 0, 0, 0, 70, 64, 30},
    {"u32 1e6 values 15x15", WINENT_U32, 15, 15, 1000000, 0, 0, 0, 0, 100, 80, 45},
    {"i32 1e6 values nodata -1 11x11", WINENT_I32, 11, 11, 1000000, -3, 0, 1, -1, 70, 50, 16},
    {"i32 smooth 500 values 21x21", WINENT_I32, 21, 21, 500, -250, 1, 0, 0, 70, 69, 69},
    {"u32 top values 9x9 (all-ones counted)", WINENT_U32, 9, 9, 3, 4294967293LL, 0, 0, 0, 50, 40, 17},
    /* Large windows: tiles of 16 rows (16-bit codes) and 8 (32-bit). */
    {"u16 65536 values 127x127", WINENT_U16, 127, 127, 65536, 0, 0, 0, 0, 150, 140, 70},
    {"u16 smooth 2000 values nodata 5 127x101", WINENT_U16, 127, 101, 2000, 0, 1, 1, 5, 140, 120, 53},
    {"u32 1e6 values 127x127", WINENT_U32, 127, 127, 1000000, 0, 0, 0, 0, 140, 130, 61},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    /* The other measures of the histogram on a few cases: large groups,
     * nodata, 32-bit codes. */
    static const winent_measure ms[] = {WINENT_MEASURE_SIMPSON, WINENT_MEASURE_RICHNESS,
                                        WINENT_MEASURE_EVENNESS, WINENT_MEASURE_RENYI,
                                        WINENT_MEASURE_RENYI};
    static const double qs[] = {0.0, 0.0, 0.0, 2.0, 0.5};
    static const int some[] = {3, 4, 9, 10};
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        the_measure = ms[k];
        the_q = qs[k];
        printf("measure %s%s\n", winent_measure_name(ms[k]),
               ms[k] == WINENT_MEASURE_RENYI ? (qs[k] == 2.0 ? ":2" : ":0.5") : "");
        for (size_t i = 0; i < sizeof some / sizeof some[0]; i++)
            run_case(&cases[some[i]]);
    }
    return harness_end();
}
