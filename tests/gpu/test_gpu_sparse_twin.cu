/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Equal-code cliques (src/kernels/engine_cuda_sparse.cuh) on the host: the
 * device's steps, a member and a pixel at a time, over chunks with halos
 * of i32 images whose codes seldom repeat (as the engine takes them: 32-bit
 * planes past 127 x 127) and of codes that repeat more (cliques of up to a
 * dozen pixels), with and without nodata, the all-ones code as an ordinary
 * value, square and oblong windows wider than the image. Each map must be
 * the CPU engine's bit for bit; codes that repeat too much must raise the
 * overflow flag (the engine then runs the block kernel). Needs no GPU;
 * test_gpu_identity checks the device's run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "entropy_rule.h"
#include "engine_cuda_kernels.cuh"
#include "engine_cuda_sparse.cuh"

extern "C" {
#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/entropy_plan.h"
}

typedef struct tcase {
    const char *name;
    uint32_t values; /* samples 0 .. values - 1 (then as below) */
    int minus_one;   /* about 1 sample in 400 is -1: the all-ones code */
    int nd;          /* 7 is nodata; about 1 sample in 20 is 7 */
    int kx, ky;
    int w, h;
    int chunk_rows;
    int overflow; /* 1: some chunk must overflow (then no map is compared) */
} tcase;

static const tcase cases[] = {
    {"1e6 values 31x31", 1000000, 0, 0, 31, 31, 120, 90, 40, 0},
    {"1e6 values nodata 15x31", 1000000, 0, 1, 15, 31, 110, 95, 30, 0},
    {"3000 values 31x31 (triples)", 3000, 0, 0, 31, 31, 140, 100, 33, 0},
    {"400 values 21x21 (cliques of many)", 400, 0, 0, 21, 21, 100, 80, 25, 0},
    {"400 values nodata 21x15", 400, 0, 1, 21, 15, 90, 70, 16, 0},
    {"2000 values and -1, 29x9", 2000, 1, 0, 29, 9, 90, 60, 20, 0},
    {"5000 values 255x255, image smaller than the window", 5000, 0, 0, 255, 255, 70, 60, 25, 0},
    {"1e6 values nodata 255x201, one chunk", 1000000, 0, 1, 255, 201, 160, 150, 150, 0},
    {"one row 1e6 values 31x31", 1000000, 0, 0, 31, 31, 200, 1, 1, 0},
    {"8 values 9x9 (overflow)", 8, 0, 0, 9, 9, 40, 40, 20, 1},
};

static unsigned long long seed = 0x5a17u;

static std::vector<int32_t> make_input(const tcase *tc)
{
    std::vector<int32_t> in((size_t)tc->w * tc->h);
    for (size_t i = 0; i < in.size(); i++) {
        int32_t v = (int32_t)(harness_rand(&seed) % tc->values);
        if (tc->nd && v == 7)
            v = 8;
        if (tc->nd && harness_rand(&seed) % 20 == 0)
            v = 7;
        if (tc->minus_one && harness_rand(&seed) % 400 == 0)
            v = -1;
        in[i] = v;
    }
    return in;
}

/* The chunk's output rows [y0, y1) by the device's steps; false when it
 * overflowed. */
template <bool ND>
static bool chunk_map(const tcase *tc, const winent_plan *p, const std::vector<int32_t> &in, int y0,
                      int y1, const long long *a, std::vector<float> &out)
{
    const int W = tc->w, H = tc->h, rx = p->rx, ry = p->ry;
    const int in_y0 = std::max(0, y0 - ry), in_y1 = std::min(H, y1 + ry);
    const size_t count = (size_t)W * (in_y1 - in_y0), rows = (size_t)(y1 - y0);
    std::vector<uint32_t> plane(count), keys(count), pos(count);
    for (size_t i = 0; i < count; i++) {
        int32_t v = in[(size_t)in_y0 * W + i];
        plane[i] = ND && v == 7 ? 0xFFFFFFFFu : (uint32_t)v;
        pos[i] = (uint32_t)i;
    }
    std::stable_sort(pos.begin(), pos.end(),
                     [&](uint32_t l, uint32_t r) { return plane[l] < plane[r]; });
    for (size_t i = 0; i < count; i++)
        keys[i] = plane[pos[i]];
    std::vector<unsigned long long> diff(rows * W, 0);
    std::vector<int> ndiff(rows * W, 0);
    unsigned overflow = 0;
    sparse_params sp;
    memset(&sp, 0, sizeof sp);
    sp.keys = keys.data();
    sp.pos = pos.data();
    sp.count = count;
    sp.diff = diff.data();
    sp.ndiff = ndiff.data();
    sp.a = a;
    sp.overflow = &overflow;
    sp.W = W;
    sp.H = H;
    sp.in_y0 = in_y0;
    sp.y0 = y0;
    sp.y1 = y1;
    sp.rx = rx;
    sp.ry = ry;
    for (size_t i = 0; i < count && !overflow; i++)
        sparse_member<ND>(sp, i);
    if (overflow)
        return false;
    const long long *t = (const long long *)p->t;
    std::vector<unsigned long long> col(W, 0);
    std::vector<int> ncol(W, 0);
    for (size_t r = 0; r < rows; r++) {
        unsigned long long s = 0;
        int n = 0;
        for (int x = 0; x < W; x++) {
            s += diff[r * W + x];
            n += ndiff[r * W + x];
            col[x] += s;
            ncol[x] += n;
            const int y = y0 + (int)r;
            const uint32_t centre = plane[(size_t)(y - in_y0) * W + x];
            out[(size_t)y * W + x] = sparse_finish_px<ND>(sp, t, win_measure(), x, y, col[x], ncol[x], centre);
        }
    }
    return true;
}

static void run_case(const tcase *tc)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = WINENT_I32;
    o.kx = tc->kx;
    o.ky = tc->ky;
    o.has_nodata = tc->nd;
    o.nodata = 7;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    winent_cpu_engine *cpu = NULL;
    const int W = tc->w, H = tc->h;
    std::vector<int32_t> in = make_input(tc);
    std::vector<float> ref((size_t)W * H), got((size_t)W * H);
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s: %s", tc->name, err.msg);
    if (p == NULL)
        return;
    CHECK(winent_cpu_engine_create(p, W, H, 2, &cpu, &err) == WINENT_OK, "%s: %s", tc->name,
          err.msg);
    if (cpu != NULL) {
        winent_chunk whole = {in.data(), (size_t)W * 4, W, H, 0, H, 0, H};
        CHECK(winent_cpu_engine_compute(cpu, &whole, ref.data(), (size_t)W, &err) == WINENT_OK,
              "%s: %s", tc->name, err.msg);
    }
    long long a[SPARSE_MAX_PARTNERS + 2];
    sparse_coefficients(p->t, p->nmax, a);
    int overflowed = 0;
    for (int y0 = 0; y0 < H; y0 += tc->chunk_rows) {
        int y1 = std::min(H, y0 + tc->chunk_rows);
        bool ok = tc->nd ? chunk_map<true>(tc, p, in, y0, y1, a, got)
                         : chunk_map<false>(tc, p, in, y0, y1, a, got);
        overflowed += !ok;
    }
    if (tc->overflow) {
        CHECK(overflowed > 0, "%s: no chunk overflowed", tc->name);
    } else {
        CHECK(overflowed == 0, "%s: %d chunks overflowed", tc->name, overflowed);
        size_t diffs = 0, first = 0;
        for (size_t i = 0; i < ref.size(); i++)
            if (memcmp(&ref[i], &got[i], sizeof(float)) != 0 && diffs++ == 0)
                first = i;
        CHECK(
            diffs == 0,
            "%s: %zu of %zu pixels differ from the CPU engine, first (%zu, %zu): %.9g against %.9g",
            tc->name, diffs, ref.size(), first % W, first / W, got[first], ref[first]);
        if (diffs == 0)
            printf("ok   %s\n", tc->name);
    }
    winent_cpu_engine_free(cpu);
    winent_plan_free(p);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    return harness_end();
}
