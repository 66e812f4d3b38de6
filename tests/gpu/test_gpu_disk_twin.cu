/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The disk kernels' slide (src/kernels/engine_cuda_disk.cuh) run on the
 * host, a thread's column at a time, against the CPU engine, bit for bit:
 * both histograms the engine gives it (the direct shared-memory one of
 * codes < 256, or < 16 for chunks of such codes, with 8- and 16-bit
 * counters, and the per-thread hash table with 32- and 64-bit entries), each code plane (8, 16 and 32 bits, with
 * and without the nodata sentinel), radii 0 to 20, images narrower and
 * shorter than the disk, segments and chunks cut anywhere. Needs no GPU:
 * it checks the algorithm where CI runs, and test_gpu_identity checks the
 * device's run of it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "entropy_rule.h"
#include "engine_cuda_kernels.cuh"
#include "engine_cuda_disk.cuh"

extern "C" {
#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/entropy_plan.h"
}
#include "gpu_twin.h"
#include "footprints.h"

typedef struct tcase {
    const char *name;
    winent_dtype dtype;
    int r;           /* disk radius */
    uint32_t bins;   /* floats: --bins over 0:1 */
    uint64_t values; /* integers: vmin .. vmin + values - 1 */
    int64_t vmin;
    int has_nodata;
    double nodata;
    int w, h, chunk_rows, seg_rows;
    int fp, fa, fb; /* 0: the disk of radius r; else footprints.h's shape fp - 1 (fa, fb) */
} tcase;

static unsigned long long seed = 0xd15c7u;

static void *make_input(const tcase *tc)
{
    size_t n = (size_t)tc->w * tc->h;
    void *buf = malloc(n * winent_dtype_size(tc->dtype) + 8);
    for (size_t i = 0; i < n; i++) {
        if (winent_dtype_is_float(tc->dtype)) {
            double v = (double)(harness_rand(&seed) % 100000) / 100000.0;
            if (harness_rand(&seed) % 17 == 0)
                v = NAN;
            harness_put_sample(buf, tc->dtype, i, 0, v);
            continue;
        }
        int64_t v = (int64_t)(harness_rand(&seed) % tc->values) + tc->vmin;
        if (tc->has_nodata && harness_rand(&seed) % 13 == 0)
            v = (int64_t)tc->nodata;
        harness_put_sample(buf, tc->dtype, i, v, 0);
    }
    return buf;
}

/* One histogram for a thread's segment, zeroed, as the kernels make it. */
template <typename CNT, int NC = 256> struct smem_twin {
    std::vector<uint32_t> words;
    smem_hist<CNT> make(const long long *du)
    {
        words.assign(NC / smem_hist<CNT>::PER, 0);
        smem_hist<CNT> h = {words.data(), 1, du, 0, 0};
        return h;
    }
};

template <typename E> struct hash_twin {
    std::vector<E> slots;
    int bits;
    hash_table<E> make(const long long *du)
    {
        slots.assign((size_t)1 << bits, 0);
        hash_table<E> h = {slots.data(), 1, (1u << bits) - 1, bits, du, 0, 0};
        return h;
    }
};

/* The whole map through the slide, chunk by chunk, each column in
 * segments of seg_rows, against the CPU engine's. */
template <typename C, bool ND, typename Twin>
static void run_twin(const tcase *tc, const winent_plan *p, const void *in,
                     const std::vector<float> &ref, Twin &twin, const char *hist)
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
        wp.cf = p->col_first;
        wp.cr = p->col_run;
        wp.kx = p->kx;
        for (int x = 0; x < W; x++)
            for (int ya = y0; ya < y1; ya += tc->seg_rows) {
                int yb = ya + tc->seg_rows < y1 ? ya + tc->seg_rows : y1;
                auto hh = twin.make(wp.du);
                slide_column_disk<C, ND>(wp, hh, x, ya, yb);
            }
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); i++)
        if (memcmp(&got[i], &ref[i], sizeof(float)) != 0 && bad++ == 0)
            first = i;
    CHECK(bad == 0,
          "%s (%s, %d-bit plane%s): %zu pixels differ, first (%zu, %zu): twin %.9g, "
          "cpu %.9g",
          tc->name, hist, 8 * (int)sizeof(C), ND ? ", sentinel" : "", bad, first % (size_t)W,
          first / (size_t)W, got[first], ref[first]);
}

/* Hash tables as the engine sizes them: twice the window's pixels (a
 * disk's area). */
template <typename C, bool ND>
static void run_hash(const tcase *tc, const winent_plan *p, const void *in,
                     const std::vector<float> &ref)
{
    typedef typename std::conditional<sizeof(C) == 2, uint32_t, unsigned long long>::type E;
    hash_twin<E> t;
    t.bits = 4;
    while ((1 << t.bits) < 2 * p->area)
        t.bits++;
    run_twin<C, ND>(tc, p, in, ref, t, sizeof(E) == 4 ? "hash e32" : "hash e64");
}

static void run_case(const tcase *tc)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = tc->dtype;
    o.kx = o.ky = 2 * tc->r + 1;
    o.disk = 1;
    static unsigned char mask[255 * 255];
    if (tc->fp > 0) {
        fp_make(tc->fp - 1, tc->fa, tc->fb, &o.kx, &o.ky, mask);
        o.disk = 0;
        o.footprint = mask;
    }
    o.base = (winent_base)(tc->r % 3);
    if (tc->bins) {
        o.bins = tc->bins;
        o.range_lo = 0;
        o.range_hi = 1;
    }
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
    /* The plane the engine picks (engine_cuda.cu, choose_layout), and the
     * histograms of that plane (thread_layout: direct below 256 codes). */
    const bool nd = p->can_skip;
    if (!nd && p->ncodes <= 256) {
        smem_twin<uint8_t> s8;
        smem_twin<uint16_t> s16;
        if (p->area <= 255) /* a byte holds every count */
            run_twin<uint8_t, false>(tc, p, in, ref, s8, "smem cnt8");
        if (p->area > 255 || p->kx < 17) /* the counters the engine would pick, and 16 anyway */
            run_twin<uint8_t, false>(tc, p, in, ref, s16, "smem cnt16");
        if (tc->values <= 16 && tc->vmin == 0 && !tc->bins) {
            /* Chunks of codes < 16: the 16-code kernel's histograms. */
            smem_twin<uint8_t, 16> f8;
            smem_twin<uint16_t, 16> f16;
            if (p->area <= 255)
                run_twin<uint8_t, false>(tc, p, in, ref, f8, "smem16 cnt8");
            run_twin<uint8_t, false>(tc, p, in, ref, f16, "smem16 cnt16");
        }
        run_hash<uint32_t, false>(tc, p, in, ref);
    } else if (twin_wide_plane(p)) {
        if (nd)
            run_hash<uint32_t, true>(tc, p, in, ref);
        else
            run_hash<uint32_t, false>(tc, p, in, ref);
    } else if (nd) {
        if (p->ncodes <= 256) {
            smem_twin<uint8_t> s8;
            smem_twin<uint16_t> s16;
            if (p->area <= 255)
                run_twin<uint16_t, true>(tc, p, in, ref, s8, "smem cnt8");
            run_twin<uint16_t, true>(tc, p, in, ref, s16, "smem cnt16");
        }
        run_hash<uint16_t, true>(tc, p, in, ref);
    } else {
        run_hash<uint16_t, false>(tc, p, in, ref);
    }
    winent_plan_free(p);
    free(in);
}

static const tcase cases[] = {
    /* name                           dtype  r bins values vmin nd nodata  w   h  chunk seg */
    {"u8 256 values disk 0", WINENT_U8, 0, 0, 256, 0, 0, 0, 31, 17, 7, 5},
    {"u8 256 values disk 1", WINENT_U8, 1, 0, 256, 0, 0, 0, 40, 33, 9, 4},
    {"u8 12 values disk 3", WINENT_U8, 3, 0, 12, 0, 0, 0, 61, 45, 13, 6},
    {"u8 16 values disk 12 (smem16, cnt16)", WINENT_U8, 12, 0, 16, 0, 0, 0, 50, 40, 11, 7},
    {"u8 256 values disk 7 (cnt8: 149 pixels)", WINENT_U8, 7, 0, 256, 0, 0, 0, 70, 50, 17, 11},
    {"u8 256 values disk 10 (cnt16: 317 pixels)", WINENT_U8, 10, 0, 256, 0, 0, 0, 60, 45, 13, 9},
    {"u8 nodata 5 disk 2", WINENT_U8, 2, 0, 20, 0, 1, 5, 50, 40, 11, 3},
    {"u8 narrower than the disk", WINENT_U8, 6, 0, 64, 0, 0, 0, 5, 40, 9, 7},
    {"u8 shorter than the disk", WINENT_U8, 9, 0, 200, 0, 0, 0, 60, 4, 4, 2},
    {"i8 nodata -1 disk 4", WINENT_I8, 4, 0, 256, -128, 1, -1, 45, 38, 10, 9},
    {"u16 3000 values disk 5", WINENT_U16, 5, 0, 3000, 0, 0, 0, 57, 43, 12, 8},
    {"u16 nodata 7 disk 3", WINENT_U16, 3, 0, 40, 0, 1, 7, 50, 35, 9, 5},
    {"i16 full range disk 2", WINENT_I16, 2, 0, 65536, -32768, 0, 0, 44, 30, 8, 6},
    {"u32 100k values nodata disk 4", WINENT_U32, 4, 0, 100000, 0, 1, 9, 48, 36, 10, 7},
    {"i32 6 values disk 20", WINENT_I32, 20, 0, 6, -3, 0, 0, 70, 60, 25, 13},
    {"f32 bins 200 NaN disk 3", WINENT_F32, 3, 200, 0, 0, 0, 0, 53, 41, 11, 6},
    {"f64 bins 70000 NaN disk 2", WINENT_F64, 2, 70000, 0, 0, 0, 0, 40, 30, 7, 4},
    /* Footprints: several runs a column, even sides, centres left out. */
    {"u8 256 values diamond 4", WINENT_U8, 0, 0, 256, 0, 0, 0, 47, 39, 11, 6, 1 + FP_DIAMOND, 4, 0},
    {"u8 12 values ring 5/2", WINENT_U8, 0, 0, 12, 0, 0, 0, 50, 41, 9, 5, 1 + FP_RING, 5, 2},
    {"u8 16 values ones 16x16 (smem16)", WINENT_U8, 0, 0, 16, 0, 0, 0, 45, 40, 13, 7, 1 + FP_ONES, 16, 16},
    {"u8 nodata 5 comb 7x4", WINENT_U8, 0, 0, 20, 0, 1, 5, 44, 33, 8, 3, 1 + FP_COMB, 7, 4},
    {"u8 ring 3/2 on a 3-pixel-wide image", WINENT_U8, 0, 0, 64, 0, 0, 0, 3, 30, 9, 7, 1 + FP_RING, 3, 2},
    {"u16 3000 values random 9x6", WINENT_U16, 0, 0, 3000, 0, 0, 0, 52, 37, 10, 6, 1 + FP_RANDOM, 9, 6},
    {"u16 nodata 7 ones 4x2", WINENT_U16, 0, 0, 40, 0, 1, 7, 40, 31, 7, 4, 1 + FP_ONES, 4, 2},
    {"u32 100k values nodata ring 4/1", WINENT_U32, 0, 0, 100000, 0, 1, 9, 41, 30, 10, 7, 1 + FP_RING, 4, 1},
    {"f32 bins 200 NaN comb 10x9", WINENT_F32, 0, 200, 0, 0, 0, 0, 38, 33, 11, 6, 1 + FP_COMB, 10, 9},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    return harness_end();
}
