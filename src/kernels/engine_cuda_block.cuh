/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_block.cuh - a block per window: 16-bit code planes with more
 * codes than a warp's table holds, windows the groups kernel cannot take
 * (255 x 255: its region needs more than 16-bit indices), included by
 * engine_cuda_launch.cu after engine_cuda_warp.cuh.
 *
 * A direct table of 65536 16-bit counters is 128 KB: one per SM. The warp
 * kernel gives that table to one warp, which then waits on its own shared
 * atomics and loads with nothing to hide them (0.025 Gpixel/s on the H100
 * for u16 of 65536 values at 255 x 255). Here a block of BLOCK_THREADS
 * threads shares the table and one window column: at each step down, thread
 * j takes the j-th of the 2 kx codes leaving and entering (one each for 255
 * columns), adds its change of D = T[n] - sum T[c] (du of the count its
 * atomic saw, the same exact update as the warp kernels, whose sum
 * telescopes whatever the order), the warps sum theirs, and warp 0 adds
 * the block's (the others go on to the next step meanwhile) and finishes
 * its pixels 32 rows at a time, as the warp kernels do. One __syncthreads
 * a step: the warps' sums go to one of two shared slots by the step's
 * parity, so a slot is written again only after warp 0 has read it. The
 * next step's codes are loaded one step ahead. Same bits as every other
 * kernel.
 *
 * 32-bit planes past 127 x 127 take the same kernel after their chunk's
 * codes became ranks 0..K-1 (rank32, engine_cuda_dense.cuh): each block's
 * table is then K counters in global memory (i32 of 10^6 values at 255 x
 * 255: 0.026 Gpixel/s, bound by global atomics, against 0.0015 for warp
 * hash tables).
 */
#ifndef WINENT_ENGINE_CUDA_BLOCK_CUH
#define WINENT_ENGINE_CUDA_BLOCK_CUH

#include <stdint.h>

#include "engine_cuda_geom.cuh"

/* C: uint16_t (a 16-bit plane, the table of BLOCK_WORDS words in shared
 * memory) or uint32_t (a 32-bit plane of chunk ranks, rank32 below: each
 * block's table of `words` words in global memory, p.ws). ND: the plane has
 * the sentinel, all ones. Tiles: (column, segment of p.th rows), a block
 * each in turn; windows up to 2 BLOCK_THREADS - 2 columns wide would do,
 * the engine takes it from kx > 127 only. */
template <typename C, bool ND>
__global__ void __launch_bounds__(BLOCK_THREADS) block_kernel(const win_params p, int words)
{
    extern __shared__ uint32_t sh_block[]; /* 16-bit planes: BLOCK_WORDS */
    __shared__ long long red_s[2][BLOCK_WARPS];
    __shared__ int red_n[2][BLOCK_WARPS];
    if (gate_closed(p))
        return;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    uint32_t *table = sizeof(C) == 2 ? sh_block : (uint32_t *)p.ws + (size_t)blockIdx.x * words;
    warp_direct hd = {table};
    const C *plane = (const C *)p.plane;
    const uint32_t sent = (uint32_t)(C)~(C)0;
    const int W = p.W, H = p.H;
    const long long nseg = (long long)((p.y1 - p.y0 + p.th - 1) / p.th);
    const long long tiles = (long long)W * nseg;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int x = (int)(tile % W);
        const int ya = p.y0 + (int)(tile / W) * p.th, yb = min(p.y1, ya + p.th);
        const int x0 = max(0, x - p.rx), x1 = min(W - 1, x + p.rx), ncols = x1 - x0 + 1;
        for (int i = tid; i < words; i += BLOCK_THREADS)
            table[i] = 0;
        __syncthreads();
        /* The first window, every thread a share of its pixels. */
        long long s = 0;
        int n = 0, par = 0;
        {
            const int wy0 = max(0, ya - p.ry), wy1 = min(H - 1, ya + p.ry);
            const int count = (wy1 - wy0 + 1) * ncols;
            long long d = 0;
            int dn = 0;
            for (int i = tid; i < count; i += BLOCK_THREADS) {
                const int yy = wy0 + i / ncols, xx = x0 + i % ncols;
                const uint32_t v = load_code(plane + (size_t)(yy - p.in_y0) * W + xx);
                if (!ND || v != sent) {
                    d += KLDG(p.du + hd.update(v, 1));
                    dn++;
                }
            }
            d = warp_sum_ll(d);
            dn = warp_sum<int>(dn);
            if (lane == 0) {
                red_s[par][warp] = d;
                red_n[par][warp] = dn;
            }
        }
        /* Thread j < ncols takes column x0 + j of the leaving row, ncols <=
         * j < 2 ncols the same column of the entering row. */
        const bool leaving = tid < ncols, mine = tid < 2 * ncols;
        const int col = x0 + (leaving ? tid : tid - ncols);
        uint32_t v_next = 0;
        bool has_next = false;
        if (ya + 1 < yb && mine) {
            const int r = leaving ? ya - p.ry : ya + 1 + p.ry;
            has_next = leaving ? r >= 0 : r < H;
            if (has_next)
                v_next = load_code(plane + (size_t)(r - p.in_y0) * W + col);
        }
        warp_rows pend = {0, 0, 0, 0};
        for (int y = ya;;) {
            __syncthreads();
            if (warp == 0) {
                long long d = lane < BLOCK_WARPS ? red_s[par][lane] : 0;
                int dn = lane < BLOCK_WARPS ? red_n[par][lane] : 0;
                s += warp_sum_ll(d);
                if (ND)
                    n += warp_sum<int>(dn);
                else
                    n = ncols * (min(H - 1, y + p.ry) - max(0, y - p.ry) + 1);
                pend.keep(lane, s, n, y);
                if (pend.full() || y + 1 >= yb)
                    pend.flush<C, ND>(p, x, lane);
            }
            if (++y >= yb)
                break;
            par ^= 1;
            const uint32_t v = v_next;
            const bool has = has_next;
            /* The step after this one, loaded now. */
            has_next = false;
            if (y + 1 < yb && mine) {
                const int r = leaving ? y - p.ry : y + 1 + p.ry;
                has_next = leaving ? r >= 0 : r < H;
                if (has_next)
                    v_next = load_code(plane + (size_t)(r - p.in_y0) * W + col);
            }
            long long d = 0;
            int dn = 0;
            if (has && (!ND || v != sent)) {
                if (leaving) {
                    d = -KLDG(p.du + hd.update(v, -1) - 1);
                    dn = -1;
                } else {
                    d = KLDG(p.du + hd.update(v, 1));
                    dn = 1;
                }
            }
            d = warp_sum_ll(d);
            if (ND)
                dn = warp_sum<int>(dn);
            if (lane == 0) {
                red_s[par][warp] = d;
                red_n[par][warp] = dn;
            }
        }
        __syncthreads(); /* the table is cleared for the next tile */
    }
}

#endif
