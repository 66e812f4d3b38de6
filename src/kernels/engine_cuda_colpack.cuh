/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_colpack.cuh - the column-pack kernel of the GPU engine: 8-bit
 * planes whose codes are all below 16 (found on the device per chunk, as
 * for the other small-code kernels), windows past 5 x 5 up to 255 x 255
 * (included by engine_cuda_launch.cu only, after engine_cuda_warp.cuh). Two
 * layouts of the same counts: slots (below) for any window, and column
 * pairs (colpair_kernel, at the end) where they fit, rx <= 15 and ky <=
 * 127, which save a prefix sum a step (H100, 16 values: 31x31 39.0 -> 50.9
 * Gpixel/s, 13x13 42.0 -> 54.8).
 *
 * A warp owns a strip of 32 output columns and slides down a segment of
 * rows. Lane l keeps, for the columns x0 - rx + l + 32 m of the strip's
 * windows (m < M, M = ceil((32 + 2 rx) / 32)), the counts of the 16 codes
 * in the column's ky window rows as 16 bytes in four 32-bit words (a column
 * count is at most ky <= 255): a step adds the entering row's code and
 * takes away the leaving row's, as exact integer arithmetic (no count
 * leaves its byte, so no borrow crosses one), through one shared table of
 * the four words' changes for each pair of codes (entering x leaving, 17
 * x 17 with "none"): one 16-byte load and four adds a column, where the
 * two byte increments took two sets of compares and selects (H100, 16
 * values: 35.8-36.0 -> 38.3-38.7 Gpixel/s at 31x31, 5.24 -> 5.66 at 255 x
 * 255; the first window's rows through the same table, 5.66 -> 7.9).
 *
 * The window of output column x0 + l is the sum of the column packs l to
 * l + 2 rx. The warp takes their inclusive prefix sums over the strip's
 * columns (shuffles within each slot m, the running total carried from slot
 * to slot): the first B steps on the byte packs themselves (four words a
 * step; B steps add 2^B columns, and 2^B ky <= 255 keeps each byte;
 * strips of one or two slots only), the
 * rest on 16-bit fields (eight words: a window count is at most 255 x 255 <
 * 65536). Lane l's window is then P(l + 2 rx) - P(l - 1), word by word:
 * P(l - 1) is slot 0's prefix less the lane's own pack, and P(l + 2 rx) one
 * shuffle, from slot s0 or s0 + 1 as the sending lane picks (each lane is
 * read by exactly one other). At 31 x 31 a step is 72 shuffles, not 120.
 * The prefix words may wrap past 32
 * bits, but each word of a window is below 2^32 with both its fields below
 * 2^16, so the differences mod 2^32 are exact. Then D = T[n] - sum over
 * the 16 codes of T[count], the same exact int64 as every other kernel,
 * and winent_finish: the CPU engine's bits.
 *
 * A step costs each lane M column updates (table loads) and M scans of
 * eight words, and 16 lookups of T: no histogram in memory, no atomics, and a cost that
 * grows with the window's width in steps of 32 columns only. TS: the
 * block first copies T (windows of up to 6143 pixels) into shared memory,
 * where the lookups' random addresses cost less than through the
 * read-only cache (H100: +4 % at 31 x 31, +18 % at 63 x 63). (Before the
 * byte steps, 90-123 registers; held to 64 it spilled and was 4 % slower
 * at 31 x 31 on the H100; now strips of up to two slots are held to 64.)
 */
#ifndef WINENT_ENGINE_CUDA_COLPACK_CUH
#define WINENT_ENGINE_CUDA_COLPACK_CUH

#include <stdint.h>

#include "engine_cuda_geom.cuh"

/* A row step's change of a column pack when code `in` enters and `out`
 * leaves (16: no code), word by word mod 2^32: the same words as adding
 * one and taking the other away. */
#define COLPACK_DELTAS (17 * 17)
__device__ __forceinline__ uint4 colpack_delta_of(unsigned in, unsigned out)
{
    uint32_t w[4] = {0, 0, 0, 0};
    if (in < 16)
        w[in >> 2] += 1u << (8 * (in & 3));
    if (out < 16)
        w[out >> 2] -= 1u << (8 * (out & 3));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* The 16 byte counts of a pack as eight words of two 16-bit fields: codes
 * 4q and 4q + 1 in word 2q, 4q + 2 and 4q + 3 in word 2q + 1. */
__device__ __forceinline__ void colpack_widen(const uint32_t (&b4)[4], uint32_t (&v)[8])
{
#pragma unroll
    for (int q = 0; q < 4; q++) {
        v[2 * q] = __byte_perm(b4[q], 0, 0x4140);
        v[2 * q + 1] = __byte_perm(b4[q], 0, 0x4342);
    }
}

/* The block's shared tables, both layouts: T (TS: windows of up to 6143
 * pixels) and a row step's change of a pack, code entering x code leaving
 * (16: none), as four words. */
template <bool TS>
__device__ __forceinline__ void colpack_tables(const win_params &p, long long *t, uint4 *delta)
{
    if (TS) {
        const int nmax = (2 * p.rx + 1) * (2 * p.ry + 1);
        for (int i = threadIdx.x; i <= nmax; i += blockDim.x)
            t[i] = KLDG(p.t + i);
    }
    for (int i = threadIdx.x; i < COLPACK_DELTAS; i += blockDim.x)
        delta[i] = colpack_delta_of((unsigned)i / 17u, (unsigned)i % 17u);
    __syncthreads();
}

/* Add change d to the four words of a pack. */
__device__ __forceinline__ void colpack_add(uint32_t (&pk)[4], uint4 d)
{
    pk[0] += d.x;
    pk[1] += d.y;
    pk[2] += d.z;
    pk[3] += d.w;
}

/* The packs of a segment's first window: rows r0 to r1 entering. */
template <int M>
__device__ __forceinline__ void colpack_first(const win_params &p, const uint4 *delta, int r0,
                                              int r1, const int (&col)[M], uint32_t (&pk)[M][4])
{
    const uint8_t *plane = (const uint8_t *)p.plane;
    for (int r = r0; r <= r1; r++) {
        const uint8_t *row = plane + (size_t)(r - p.in_y0) * p.W;
#pragma unroll
        for (int m = 0; m < M; m++)
            if (col[m] >= 0)
                colpack_add(pk[m], delta[KLDG(row + col[m]) * 17u + 16u]);
    }
}

/* A row step: row ri's codes enter (hin), row ro's leave (hout), one table
 * lookup a column for both. */
template <int M>
__device__ __forceinline__ void colpack_step(const uint4 *delta, const uint8_t *ri, bool hin,
                                             const uint8_t *ro, bool hout, const int (&col)[M],
                                             uint32_t (&pk)[M][4])
{
#pragma unroll
    for (int m = 0; m < M; m++)
        if (col[m] >= 0) {
            const unsigned ci = hin ? KLDG(ri + col[m]) : 16u;
            const unsigned co = hout ? KLDG(ro + col[m]) : 16u;
            colpack_add(pk[m], delta[ci * 17u + co]);
        }
}

/* The inclusive prefix sum over the warp's lanes of the byte packs b4:
 * the first B steps on the bytes themselves (four words a step), the rest
 * on 16-bit fields (v, eight words a step). */
__device__ __forceinline__ void colpack_scan(uint32_t (&b4)[4], int B, int lane, uint32_t (&v)[8])
{
#pragma unroll
    for (int st = 0; st < 5; st++) {
        if (st < B) {
            const int o = 1 << st;
#pragma unroll
            for (int q = 0; q < 4; q++) {
                uint32_t t = __shfl_up_sync(WARP_FULL, b4[q], o);
                if (lane >= o)
                    b4[q] += t;
            }
        }
    }
    colpack_widen(b4, v);
#pragma unroll
    for (int st = 0; st < 5; st++) {
        if (st >= B) {
            const int o = 1 << st;
#pragma unroll
            for (int k = 0; k < 8; k++) {
                uint32_t t = __shfl_up_sync(WARP_FULL, v[k], o);
                if (lane >= o)
                    v[k] += t;
            }
        }
    }
}

/* Output (x, y) from its window's 16 counts, two 16-bit fields a word of
 * w: D = T[n] - sum of T[count] and winent_finish; code 15 is nodata when
 * p.nd15 (not counted, NaN at its centres). wx: the window's columns. */
template <bool TS>
__device__ __forceinline__ void colpack_store(const win_params &p, const long long *t,
                                              const uint32_t (&w)[8], int x, int y, int wx)
{
    long long s = 0;
#pragma unroll
    for (int k = 0; k < 8; k++) {
        if (TS)
            s += t[w[k] & 0xFFFFu] + t[w[k] >> 16];
        else
            s += KLDG(p.t + (w[k] & 0xFFFFu)) + KLDG(p.t + (w[k] >> 16));
    }
    int n = wx * (min(p.H - 1, y + p.ry) - max(0, y - p.ry) + 1);
    float r;
    if (p.nd15) {
        const uint32_t c15 = w[7] >> 16;
        s -= KLDG(p.t + c15);
        n -= (int)c15;
        const uint8_t *plane = (const uint8_t *)p.plane;
        r = KLDG(plane + (size_t)(y - p.in_y0) * p.W + x) == 15 ? nan_px() : finish_px(s, n, p.t, p.m);
    } else {
        r = finish_px(s, n, p.t, p.m);
    }
    p.out[(size_t)(y - p.y0) * p.W + x] = r;
}

/* M: slots a lane holds, (32 + 2 rx) / 32 rounded up (1 to 9 for rx <= 127).
 * Strips of one or two slots are held to 64 registers (eight blocks an SM):
 * with the byte steps they do not spill, +1-2 % at 13x13 to 31x31 on the
 * H100 (docs/GPU-NOTES.md, colpack). */
template <int M, bool TS>
__global__ void __launch_bounds__(128, M <= 2 ? 8 : 1) colpack_kernel(const win_params p,
                                                                      const unsigned *maxcode)
{
    extern __shared__ long long colpack_t[]; /* TS: T[0..nmax] */
    /* DT: a row step's change of a column pack, code entering x code
     * leaving (16: none), as four words. */
    __shared__ uint4 colpack_delta[COLPACK_DELTAS];
    if (*maxcode >= 16u)
        return;
    colpack_tables<TS>(p, colpack_t, colpack_delta);
    const int lane = threadIdx.x & 31, wpb = blockDim.x >> 5;
    const int W = p.W, H = p.H, rx = p.rx, ry = p.ry, ky = 2 * ry + 1;
    const uint8_t *plane = (const uint8_t *)p.plane;
    const int span = 32 + 2 * rx;
    const int strips = (W + 31) / 32;
    const long long nseg = (long long)((p.y1 - p.y0 + p.th - 1) / p.th);
    const long long tiles = (long long)strips * nseg;
    /* Lane l's window ends at strip column l + 2 rx: lane (l + 2 rx) & 31
     * of slot s0, or of s0 + 1 when l + rot passes 32. */
    const int end_lane = (lane + 2 * rx) & 31, s0 = (2 * rx) >> 5, rot = (2 * rx) & 31;
    /* Prefix steps on bytes: B steps sum 2^B columns of at most ky each.
     * Only for strips of one or two slots (windows to 33 columns): with
     * more slots the steps' branches cost more than the shuffles they save
     * (H100: +4 % at 13x13 to 31x31, -9 % at 63x63, -37 % at 127x127). */
    int B = 0;
    while (M <= 2 && B < 5 && (ky << (B + 1)) <= 255)
        B++;
    for (long long tile = (long long)blockIdx.x * wpb + (threadIdx.x >> 5); tile < tiles;
         tile += (long long)gridDim.x * wpb) {
        const int x0 = (int)(tile % strips) * 32;
        const int ya = p.y0 + (int)(tile / strips) * p.th, yb = min(p.y1, ya + p.th);
        uint32_t pk[M][4];
        int col[M];
#pragma unroll
        for (int m = 0; m < M; m++) {
            const int j = lane + 32 * m, cx = x0 - rx + j;
            col[m] = (j < span && cx >= 0 && cx < W) ? cx : -1;
            pk[m][0] = pk[m][1] = pk[m][2] = pk[m][3] = 0;
        }
        /* The first window's rows. */
        colpack_first<M>(p, colpack_delta, max(0, ya - ry), min(H - 1, ya + ry), col, pk);
        const int x = x0 + lane;
        /* The entering and leaving rows' offsets in the plane, a row on
         * each step. */
        long long oin = (long long)(ya + ry - p.in_y0) * W, oout = (long long)(ya - ry - 1 - p.in_y0) * W;
        const int wx = min(W - 1, x + rx) - max(0, x - rx) + 1;
        for (int y = ya; y < yb; y++) {
            if (y > ya) {
                /* One table lookup a column: both rows' codes at once. */
                const int rin = y + ry, rout = y - ry - 1;
                const bool hin = rin < H, hout = rout >= 0;
                oin += W;
                oout += W;
                colpack_step<M>(colpack_delta, plane + oin, hin, plane + oout, hout, col, pk);
            }
            /* Prefix sums over the strip's columns: the first B steps on
             * the byte packs (four words), the rest on 16-bit fields
             * (eight); P(l - 1) is slot 0's prefix less the lane's own
             * pack, and P(l + 2 rx) one shuffle from slot s0 or s0 + 1. */
            uint32_t carry[8], keep[8], hi[8], lo[8];
#pragma unroll
            for (int k = 0; k < 8; k++)
                carry[k] = keep[k] = hi[k] = lo[k] = 0;
#pragma unroll
            for (int m = 0; m < M; m++) {
                uint32_t b4[4] = {pk[m][0], pk[m][1], pk[m][2], pk[m][3]};
                uint32_t v[8];
                colpack_scan(b4, B, lane, v);
                if (m > 0) {
#pragma unroll
                    for (int k = 0; k < 8; k++)
                        v[k] += carry[k];
                }
                if (m + 1 < M) {
#pragma unroll
                    for (int k = 0; k < 8; k++)
                        carry[k] = __shfl_sync(WARP_FULL, v[k], 31);
                }
                if (m == 0) {
                    uint32_t own[8];
                    colpack_widen(pk[0], own);
#pragma unroll
                    for (int k = 0; k < 8; k++)
                        lo[k] = v[k] - own[k];
                }
                if (m == s0) {
#pragma unroll
                    for (int k = 0; k < 8; k++)
                        keep[k] = v[k];
                }
                if (m == s0 + (rot != 0)) {
                    /* Lane j is read by lane j - 2 rx (mod 32) alone, whose
                     * window ends in slot s0 when j >= rot, else in s0 + 1. */
#pragma unroll
                    for (int k = 0; k < 8; k++)
                        hi[k] = __shfl_sync(WARP_FULL, lane >= rot ? keep[k] : v[k], end_lane);
                }
            }
            if (x < W) {
                uint32_t w[8];
#pragma unroll
                for (int k = 0; k < 8; k++)
                    w[k] = hi[k] - lo[k];
                colpack_store<TS>(p, colpack_t, w, x, y, wx);
            }
        }
    }
}


/* Column pairs: strips whose span fits 63 columns (rx <= 15) and whose two
 * columns' counts fit a byte (2 ky <= 255). Lane l holds the strip's
 * columns 2l and 2l + 1, counted from x0 - rx - 1, so that column 0 is
 * always empty: one prefix sum over the lanes of the pairs' packs, Q(l) =
 * P(2l + 1) and P(2l) = Q(l) - pack(2l + 1), where the slots took two sums
 * and a carry. Output lane t's window is the columns t + 1 to t + 1 + 2 rx,
 * P(t + 1 + 2 rx) - P(t): Q of lanes a = (t + 1 + 2 rx) / 2 and b = t / 2,
 * less lane a's odd column when t is odd, plus lane b's when t is even (one
 * shuffle of four byte words from the lane the parity picks). At 31x31 a
 * step is 52 shuffles, not 72. The pair's bytes take the first prefix steps
 * while 2^B 2 ky <= 255; the sums stay below 64 x 127 in every 16-bit
 * field, so nothing wraps: the engine gives it windows up to
 * COLPAIR_RX_MAX and COLPAIR_KY_MAX (engine_cuda_geom.cuh). */
template <bool TS>
__global__ void __launch_bounds__(128, 8) colpair_kernel(const win_params p, const unsigned *maxcode)
{
    extern __shared__ long long colpack_t[]; /* TS: T[0..nmax] */
    __shared__ uint4 colpack_delta[COLPACK_DELTAS];
    if (*maxcode >= 16u)
        return;
    colpack_tables<TS>(p, colpack_t, colpack_delta);
    const int lane = threadIdx.x & 31, wpb = blockDim.x >> 5;
    const int W = p.W, H = p.H, rx = p.rx, ry = p.ry, ky = 2 * ry + 1;
    const uint8_t *plane = (const uint8_t *)p.plane;
    const int span = 32 + 2 * rx;
    const int strips = (W + 31) / 32;
    const long long nseg = (long long)((p.y1 - p.y0 + p.th - 1) / p.th);
    const long long tiles = (long long)strips * nseg;
    const int la = (lane + 1 + 2 * rx) >> 1, lb = lane >> 1;
    const bool odd = (lane & 1) != 0;
    /* The odd column that corrects: lane a's taken away (t odd), lane b's
     * added back (t even), as a multiplier of -1 or 1. */
    const int lc = odd ? la : lb;
    const uint32_t sgn = odd ? 0xFFFFFFFFu : 1u;
    int B = 0;
    while (B < 5 && ((2 * ky) << (B + 1)) <= 255)
        B++;
    for (long long tile = (long long)blockIdx.x * wpb + (threadIdx.x >> 5); tile < tiles;
         tile += (long long)gridDim.x * wpb) {
        const int x0 = (int)(tile % strips) * 32;
        const int ya = p.y0 + (int)(tile / strips) * p.th, yb = min(p.y1, ya + p.th);
        uint32_t pk[2][4];
        int col[2];
#pragma unroll
        for (int m = 0; m < 2; m++) {
            const int j = 2 * lane + m, cx = x0 - rx - 1 + j;
            col[m] = (j >= 1 && j <= span && cx >= 0 && cx < W) ? cx : -1;
            pk[m][0] = pk[m][1] = pk[m][2] = pk[m][3] = 0;
        }
        colpack_first<2>(p, colpack_delta, max(0, ya - ry), min(H - 1, ya + ry), col, pk);
        const int x = x0 + lane;
        long long oin = (long long)(ya + ry - p.in_y0) * W, oout = (long long)(ya - ry - 1 - p.in_y0) * W;
        const int wx = min(W - 1, x + rx) - max(0, x - rx) + 1;
        for (int y = ya; y < yb; y++) {
            if (y > ya) {
                const int rin = y + ry, rout = y - ry - 1;
                const bool hin = rin < H, hout = rout >= 0;
                oin += W;
                oout += W;
                colpack_step<2>(colpack_delta, plane + oin, hin, plane + oout, hout, col, pk);
            }
            /* Q: the inclusive prefix of the pairs over the lanes. */
            uint32_t b4[4];
#pragma unroll
            for (int q = 0; q < 4; q++)
                b4[q] = pk[0][q] + pk[1][q];
            uint32_t v[8];
            colpack_scan(b4, B, lane, v);
            uint32_t f4[4], f[8], w[8];
#pragma unroll
            for (int q = 0; q < 4; q++)
                f4[q] = __shfl_sync(WARP_FULL, pk[1][q], lc);
            colpack_widen(f4, f);
#pragma unroll
            for (int k = 0; k < 8; k++)
                w[k] = __shfl_sync(WARP_FULL, v[k], la) - __shfl_sync(WARP_FULL, v[k], lb) +
                       f[k] * sgn;
            if (x < W)
                colpack_store<TS>(p, colpack_t, w, x, y, wx);
        }
    }
}

#endif
