/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_warp.cuh - the window kernels where one warp owns one window
 * (included by engine_cuda_launch.cu after engine_cuda_kernels.cuh): large windows
 * and many distinct values, where a histogram per thread no longer fits on
 * chip or a thread's 2 * kx updates per row are too many.
 *
 * Work split: a warp owns output column x and slides its window down a
 * segment of rows. At each step the 32 lanes share the row leaving the
 * window and the row entering it (lane j takes columns x - rx + j, + 32,
 * ...: coalesced loads), so one step costs about 2 kx / 32 updates per lane.
 * D = T[n] - sum T[c] is kept exact in int64: each lane adds the change of
 * its own updates (T[c + 1] - T[c] from the count the update saw) and the
 * warp sums them; since the sum telescopes, the order in which the lanes'
 * updates land does not change it. Same bits as every other kernel.
 *
 *   warp-direct: a histogram per warp in shared memory, 16-bit counters
 *       (windows hold at most 255 x 255 < 65536 pixels) two to a word,
 *       updated with shared atomics. Codes below WARP_DIRECT_CODES.
 *   warp-hash: an open-addressing table per warp (linear probing). An
 *       entry is (count, key) in one word; a key whose count drops to 0
 *       stays as a tombstone, so a key's slot never moves and lanes can
 *       insert and update concurrently with atomicCAS/atomicAdd alone. The
 *       table restarts with each segment and is sized for every key the
 *       segment can meet (nmax + rows * kx), so it never fills. The one code
 *       equal to the empty key (an ordinary value when nothing is skipped)
 *       has a counter of its own.
 *   few: 8-bit planes whose codes are all below 16 (the device-side check
 *       of the smem kernels), any window: no histogram in memory. Each lane
 *       counts its columns' entering and leaving codes in a 64-bit pack of
 *       16 nibbles, the warp sums the packs (as bytes, with __reduce_add),
 *       and lane v keeps the window's count of code v: one T lookup per
 *       code per row, whatever the window.
 */
#ifndef WINENT_ENGINE_CUDA_WARP_CUH
#define WINENT_ENGINE_CUDA_WARP_CUH

#include <stdint.h>

#include "cuda_warp_reduce.cuh"
#include "engine_cuda_geom.cuh"

/* ---- Warp histograms: count(v) += d (d = +1 or -1), returning the count
 * before. Any lanes at once, any codes. ------------------------------------ */

struct warp_direct {
    uint32_t *w; /* (ncodes + 1) / 2 words: code v in half (v & 1) of word v / 2 */
    __device__ __forceinline__ void clear(int words, int lane)
    {
        for (int i = lane; i < words; i += 32)
            w[i] = 0;
    }
    __device__ __forceinline__ uint32_t update(uint32_t v, int d)
    {
        uint32_t sh = (v & 1u) * 16u;
        /* -1 << 16 adds 2^32 - 2^16: the high half drops by one; a count
         * being lowered is at least 1, so no borrow crosses the halves. */
        uint32_t old = atomicAdd(w + (v >> 1), (uint32_t)d << sh);
        return (old >> sh) & 0xFFFFu;
    }
};

/* E: uint32_t (16-bit keys, 16-bit counts above them) or unsigned long long
 * (32-bit keys, 32-bit counts above them). */
template <typename E> struct warp_hash {
    static constexpr int KEYBITS = sizeof(E) == 4 ? 16 : 32;
    static constexpr E KEYMASK = (E)((((E)1) << KEYBITS) - 1);
    static constexpr E EMPTY = KEYMASK; /* key all ones, count 0 */
    E *e;
    uint32_t *special; /* the count of the code equal to EMPTY's key */
    uint32_t mask;
    int bits;
    __device__ __forceinline__ void clear(int slots, int lane)
    {
        for (int i = lane; i < slots; i += 32)
            e[i] = EMPTY;
        if (lane == 0)
            *special = 0;
    }
    __device__ __forceinline__ uint32_t update(uint32_t v, int d)
    {
        if ((E)v == KEYMASK)
            return atomicAdd(special, (uint32_t)d);
        uint32_t i = (v * 2654435761u) >> (32 - bits);
        const E inc = (E)(long long)d << KEYBITS;
        for (;;) {
            E x = *(volatile E *)(e + i);
            if ((x & KEYMASK) == (E)v)
                return (uint32_t)(atomicAdd(e + i, inc) >> KEYBITS);
            if (x == EMPTY) {
                /* Only an add gets here: a code being removed is in the
                 * table from an earlier row, and keys never move. */
                E prev = atomicCAS(e + i, EMPTY, (((E)1) << KEYBITS) | (E)v);
                if (prev == EMPTY)
                    return 0;
                continue; /* taken meanwhile: look at the slot again */
            }
            i = (i + 1) & mask;
        }
    }
};

/* ---- Output: a warp finishes 32 rows at once ---------------------------- */

/* The window sums of up to 32 rows of a warp's column, lane k holding row
 * `y` = the k-th of them: after each row the warp calls keep(), and every
 * 32 rows (and at the end) flush() turns all of them into pixels in one
 * pass, so the division costs each row 1/32 of a warp's time. */
struct warp_rows {
    long long s;
    int n, y, k;
    __device__ __forceinline__ void keep(int lane, long long s_, int n_, int y_)
    {
        if (lane == (k & 31)) {
            s = s_;
            n = n_;
            y = y_;
        }
        k++;
    }
    __device__ __forceinline__ bool full() const { return (k & 31) == 0; }
    template <typename C, bool ND>
    __device__ __forceinline__ void flush(const win_params &p, int x, int lane)
    {
        int have = ((k - 1) & 31) + 1; /* rows kept since the last flush */
        if (lane < have) {
            float r;
            if (ND && load_code((const C *)p.plane + (size_t)(y - p.in_y0) * p.W + x) ==
                          (uint32_t)(C)~(C)0)
                r = nan_px();
            else
                r = finish_px(s, n, p.t, p.m);
            p.out[(size_t)(y - p.y0) * p.W + x] = r;
        }
        k = 0;
    }
};

/* ---- warp-direct / warp-hash ------------------------------------------------ */

/* A step's codes: the row leaving the window and the row entering it when
 * the window moves down to row `y`, this lane's columns x0 + lane + 32 j
 * (j < M), into registers, so that a step's loads are issued together and
 * one step ahead of their use. Codes outside the image or the window read
 * as absent (has_o / has_i false, or ok[j] false). */
template <typename C, int M> struct warp_step {
    uint32_t o[M], i[M];
    bool has_o, has_i;
    __device__ __forceinline__ void fetch(const win_params &p, int y, int x0, int x1, int lane)
    {
        const int yout = y - p.ry - 1, yin = y + p.ry;
        has_o = yout >= 0;
        has_i = yin < p.H;
        const C *ro = (const C *)p.plane + (long long)(yout - p.in_y0) * p.W + x0 + lane;
        const C *ri = (const C *)p.plane + (long long)(yin - p.in_y0) * p.W + x0 + lane;
#pragma unroll
        for (int j = 0; j < M; j++) {
            bool ok = lane + 32 * j <= x1 - x0;
            o[j] = has_o && ok ? load_code(ro + 32 * j) : 0u;
            i[j] = has_i && ok ? load_code(ri + 32 * j) : 0u;
        }
    }
};

/* KIND: 0 direct, 1 hash with 32-bit entries (16-bit planes), 2 hash with
 * 64-bit entries (32-bit planes). M: columns per lane, ceil(kx / 32) or
 * more. The gate (win_params) leaves some chunks to kernels launched beside
 * it: on 8-bit planes those whose largest code is below 16 (the small-code
 * kernels), on 16-bit ones those whose codes another direct table holds
 * (ranks dense within the chunk, engine_cuda_dense.cuh). Tiles: (column,
 * segment of p.th rows), column fastest, so neighbouring warps read
 * neighbouring bytes. With g.du_shared the block keeps du in shared memory
 * after the tables. */
template <typename C, bool ND, int KIND, int M>
__global__ void __launch_bounds__(256) warp_kernel(const win_params p, const warp_geom g)
{
    extern __shared__ uint32_t sh_warp[];
    if (gate_closed(p))
        return;
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const size_t region = (size_t)g.words + 2;
    uint32_t *mine = g.global ? (uint32_t *)p.ws + ((size_t)blockIdx.x * g.per_block + wib) * region
                              : sh_warp + (size_t)wib * region;
    uint32_t *special = mine + g.words;
    typedef typename std::conditional<KIND == 2, unsigned long long, uint32_t>::type E;
    warp_direct hd = {mine};
    warp_hash<E> hh = {(E *)mine, special, (1u << g.bits) - 1u, g.bits};
    const long long *du = p.du;
    if (g.du_shared) {
        long long *sdu = (long long *)(sh_warp + g.du_off);
        const int nmax = (2 * p.rx + 1) * (2 * p.ry + 1);
        for (int i = threadIdx.x; i <= nmax; i += blockDim.x)
            sdu[i] = p.du[i];
        __syncthreads();
        du = sdu;
    }

    const C *plane = (const C *)p.plane;
    const uint32_t sent = (uint32_t)(C)~(C)0;
    const int W = p.W, H = p.H;
    const long long nseg = (long long)((p.y1 - p.y0 + p.th - 1) / p.th);
    const long long tiles = (long long)W * nseg;
    for (long long tile = (long long)blockIdx.x * g.per_block + wib; tile < tiles;
         tile += (long long)gridDim.x * g.per_block) {
        const int x = (int)(tile % W);
        const int ya = p.y0 + (int)(tile / W) * p.th, yb = min(p.y1, ya + p.th);
        const int x0 = max(0, x - p.rx), x1 = min(W - 1, x + p.rx);
        if (KIND == 0)
            hd.clear(g.words, lane);
        else
            hh.clear(KIND == 1 ? g.words : g.words / 2, lane);
        __syncwarp();
        long long s = 0;
        int n = 0;
        {
            const int wy0 = max(0, ya - p.ry), wy1 = min(H - 1, ya + p.ry);
            long long d = 0;
            int dn = 0;
            for (int yy = wy0; yy <= wy1; yy++) {
                const C *row = plane + (size_t)(yy - p.in_y0) * W;
                for (int xx = x0 + lane; xx <= x1; xx += 32) {
                    uint32_t v = load_code(row + xx);
                    if (!ND || v != sent) {
                        uint32_t c = KIND == 0 ? hd.update(v, 1) : hh.update(v, 1);
                        d += du[c];
                        dn++;
                    }
                }
            }
            s = warp_sum_ll(d);
            n = warp_sum<int>(dn);
        }
        warp_rows pend = {0, 0, 0, 0};
        warp_step<C, M> cur, nxt;
        if (ya + 1 < yb)
            cur.fetch(p, ya + 1, x0, x1, lane);
        for (int y = ya;;) {
            pend.keep(lane, s, n, y);
            if (pend.full() || y + 1 >= yb)
                pend.flush<C, ND>(p, x, lane);
            if (++y >= yb)
                break;
            if (y + 1 < yb)
                nxt.fetch(p, y + 1, x0, x1, lane);
            long long d = 0;
            int dn = 0;
#pragma unroll
            for (int j = 0; j < M; j++) {
                if (lane + 32 * j > x1 - x0)
                    break;
                const uint32_t o = cur.o[j], i = cur.i[j];
                if (cur.has_o && cur.has_i && o == i)
                    continue;
                if (cur.has_o && (!ND || o != sent)) {
                    uint32_t c = KIND == 0 ? hd.update(o, -1) : hh.update(o, -1);
                    d -= du[c - 1];
                    dn--;
                }
                if (cur.has_i && (!ND || i != sent)) {
                    uint32_t c = KIND == 0 ? hd.update(i, 1) : hh.update(i, 1);
                    d += du[c];
                    dn++;
                }
            }
            s += warp_sum_ll(d);
            if (ND)
                n += warp_sum<int>(dn);
            else
                n = (x1 - x0 + 1) * (min(H - 1, y + p.ry) - max(0, y - p.ry) + 1);
            cur = nxt;
        }
        __syncwarp();
    }
}

/* ---- few: codes below 16, any window ------------------------------------------ */

/* Nibbles 4k .. 4k + 3 of a 16-nibble pack, as the four bytes of a word. */
__device__ __forceinline__ uint32_t few_bytes(unsigned long long pack, int k)
{
    uint32_t x = (uint32_t)(pack >> (16 * k)) & 0xFFFFu;
    x = (x & 0xFFu) | ((x & 0xFF00u) << 8);
    return (x & 0x000F000Fu) | ((x & 0x00F000F0u) << 4);
}

/* Byte v & 3 of word v >> 2 of the four. */
__device__ __forceinline__ int few_pick(const uint32_t w[4], int v)
{
    uint32_t x = (v >> 2) == 0 ? w[0] : (v >> 2) == 1 ? w[1] : (v >> 2) == 2 ? w[2] : w[3];
    return (int)((x >> (8 * (v & 3))) & 0xFFu);
}

/* One row's codes in this lane's columns x0 + lane + 32 j (j < M), 16 when
 * absent: a pack of 16 nibbles ignores them (1 << 64 is never added). */
template <int M> struct few_codes {
    uint32_t v[M];
    __device__ __forceinline__ void fetch(const win_params &p, int row, int x0, int x1, int lane)
    {
        const bool in = row >= 0 && row < p.H;
        const uint8_t *r = (const uint8_t *)p.plane + (long long)(row - p.in_y0) * p.W + x0 + lane;
#pragma unroll
        for (int j = 0; j < M; j++)
            v[j] = in && lane + 32 * j <= x1 - x0 ? (uint32_t)__ldg(r + 32 * j) : 16u;
    }
    /* The warp's counts of each code in the row: four words of four bytes
     * (each count <= kx <= 255). */
    __device__ __forceinline__ void counts(uint32_t sum[4]) const
    {
        unsigned long long pack = 0;
#pragma unroll
        for (int j = 0; j < M; j++)
            if (v[j] < 16u)
                pack += 1ull << (4 * v[j]); /* <= 8 per nibble: kx <= 255 */
#pragma unroll
        for (int k = 0; k < 4; k++)
            sum[k] = warp_sum<unsigned>(few_bytes(pack, k));
    }
};

/* `maxcode`: the chunk's largest code; the kernel returns unless it is
 * below 16 (the 256-code kernel launched beside it takes the chunk). M:
 * columns per lane, ceil(kx / 32) or more. Rows are read one step ahead. */
template <int M>
__global__ void __launch_bounds__(256) few_kernel(const win_params p, const unsigned *maxcode)
{
    if (*maxcode >= 16u)
        return;
    const int lane = threadIdx.x & 31, wpb = blockDim.x >> 5;
    const int W = p.W, H = p.H;
    const long long nseg = (long long)((p.y1 - p.y0 + p.th - 1) / p.th);
    const long long tiles = (long long)W * nseg;
    for (long long tile = (long long)blockIdx.x * wpb + (threadIdx.x >> 5); tile < tiles;
         tile += (long long)gridDim.x * wpb) {
        const int x = (int)(tile % W);
        const int ya = p.y0 + (int)(tile / W) * p.th, yb = min(p.y1, ya + p.th);
        const int x0 = max(0, x - p.rx), x1 = min(W - 1, x + p.rx);
        /* Lane v < 16 holds the window's count of code v and T of it. */
        int cnt = 0;
        long long tc = 0, s = 0;
        const int wy0 = max(0, ya - p.ry), wy1 = min(H - 1, ya + p.ry);
        few_codes<M> a, b;
        a.fetch(p, wy0, x0, x1, lane);
        for (int yy = wy0; yy <= wy1; yy++) {
            if (yy + 1 <= wy1)
                b.fetch(p, yy + 1, x0, x1, lane);
            uint32_t in[4];
            a.counts(in);
            long long d = 0;
            if (lane < 16) {
                int c = cnt + few_pick(in, lane);
                if (c != cnt) {
                    long long tn = KLDG(p.t + c);
                    d = tn - tc;
                    tc = tn;
                    cnt = c;
                }
            }
            s += warp_sum_ll(d);
            a = b;
        }
        warp_rows pend = {0, 0, 0, 0};
        few_codes<M> ci, co, ni, no;
        if (ya + 1 < yb) {
            ci.fetch(p, ya + 1 + p.ry, x0, x1, lane);
            co.fetch(p, ya - p.ry, x0, x1, lane);
        }
        for (int y = ya;;) {
            pend.keep(lane, s, (x1 - x0 + 1) * (min(H - 1, y + p.ry) - max(0, y - p.ry) + 1), y);
            if (pend.full() || y + 1 >= yb)
                pend.flush<uint8_t, false>(p, x, lane);
            if (++y >= yb)
                break;
            /* The window moves to row y: row y + ry enters, y - ry - 1 leaves. */
            if (y + 1 < yb) {
                ni.fetch(p, y + 1 + p.ry, x0, x1, lane);
                no.fetch(p, y - p.ry, x0, x1, lane);
            }
            uint32_t in[4], out[4];
            ci.counts(in);
            co.counts(out);
            long long d = 0;
            if (lane < 16) {
                int c = cnt + few_pick(in, lane) - few_pick(out, lane);
                if (c != cnt) {
                    long long tn = KLDG(p.t + c);
                    d = tn - tc;
                    tc = tn;
                    cnt = c;
                }
            }
            s += warp_sum_ll(d);
            ci = ni;
            co = no;
        }
    }
}

#endif
