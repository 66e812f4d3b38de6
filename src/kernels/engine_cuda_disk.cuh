/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_disk.cuh - circular windows (--disk R) on the GPU (included
 * by engine_cuda.cu only, after engine_cuda_kernels.cuh): the one kernel
 * family the engine runs for a plan whose window is a disk, whatever the
 * codes.
 *
 * As the thread-per-window kernels of engine_cuda_kernels.cuh: one thread
 * owns one output column x and slides its window down a segment of `th`
 * output rows, threads of a warp on adjacent columns (coalesced loads and
 * stores), a private histogram per thread: the same smem_hist (codes <
 * 256) and hash_table (any code) structures, so the exact int64 S and the
 * last step (finish_px: winent_finish) are those of every other kernel.
 *
 * The disk's column dx holds rows y - hh(dx) .. y + hh(dx), hh the plan's
 * half-widths (symmetric: hw of the plan read by column, p.hh on the
 * device). A step y -> y + 1 removes, in every column of the disk inside
 * the image, the code at row y - hh(dx) and adds the one at y + 1 + hh(dx):
 * 2 (2R + 1) updates a pixel, as the square of the same diameter. At
 * every step all the threads of a warp read one hh(dx) (a broadcast) and
 * one row of the plane at adjacent columns. Windows are cropped at the
 * image's borders: columns outside it are left out, rows outside it are
 * skipped as they come; n counts what the histogram holds.
 */
#ifndef WINENT_ENGINE_CUDA_DISK_CUH
#define WINENT_ENGINE_CUDA_DISK_CUH

#include <stdint.h>

#include <type_traits>

#include "engine_cuda_kernels.cuh"

/* Slide column x's disk down output rows [ya, yb) (Hist: add/remove, s, n;
 * engine_cuda_kernels.cuh). */
template <typename C, bool ND, typename Hist>
KHD void slide_column_disk(const win_params &p, Hist &h, int x, int ya, int yb)
{
    const C *plane = (const C *)p.plane;
    const uint32_t sent = (uint32_t)(C) ~(C)0;
    const int W = p.W, H = p.H, R = p.rx;
    const int dx0 = max(-R, -x), dx1 = min(R, W - 1 - x);
    for (int dx = dx0; dx <= dx1; dx++) {
        const int e = KLDG(p.hh + dx + R);
        const int y0 = max(0, ya - e), y1 = min(H - 1, ya + e);
        const C *col = plane + (x + dx);
        for (int yy = y0; yy <= y1; yy++) {
            uint32_t v = load_code(col + (size_t)(yy - p.in_y0) * W);
            if (!ND || v != sent)
                h.add(v);
        }
    }
    for (int y = ya;;) {
        uint32_t centre = load_code(plane + (size_t)(y - p.in_y0) * W + x);
        float r = (ND && centre == sent) ? nan_px() : finish_px(h.s, h.n, p.t);
        p.out[(size_t)(y - p.y0) * W + x] = r;
        if (++y >= yb)
            break;
        /* From row y - 1 to row y: each column's top row leaves, the row
         * below its bottom enters. */
        for (int dx = dx0; dx <= dx1; dx++) {
            const int e = KLDG(p.hh + dx + R);
            const int yout = y - 1 - e, yin = y + e;
            const C *col = plane + (x + dx);
            if (yout >= 0 && yin < H) {
                uint32_t o = load_code(col + (size_t)(yout - p.in_y0) * W);
                uint32_t i = load_code(col + (size_t)(yin - p.in_y0) * W);
                if (o == i)
                    continue;
                if (!ND || o != sent)
                    h.remove(o);
                if (!ND || i != sent)
                    h.add(i);
            } else if (yout >= 0) {
                uint32_t o = load_code(col + (size_t)(yout - p.in_y0) * W);
                if (!ND || o != sent)
                    h.remove(o);
            } else if (yin < H) {
                uint32_t i = load_code(col + (size_t)(yin - p.in_y0) * W);
                if (!ND || i != sent)
                    h.add(i);
            }
        }
    }
}

/* Codes < NC (256, or 16): a direct histogram per thread in shared memory,
 * as smem_kernel (8-bit counters for windows of at most 255 pixels, else
 * 16-bit). On 8-bit planes both are launched for a chunk and `maxcode`
 * (the chunk's largest code, maxcode_kernel on the same stream) says which
 * one works, the other returns at once, as the square windows' pair: a
 * 16-code histogram is 16 times smaller, so many more threads fit on an
 * SM. NULL: no gate (16-bit planes). */
template <typename C, bool ND, typename CNT, int NC>
__global__ void disk_smem_kernel(const win_params p, const unsigned *maxcode)
{
    extern __shared__ uint32_t sh_words[];
    constexpr int WORDS = NC / smem_hist<CNT>::PER;
    if (maxcode != NULL) {
        unsigned m = *maxcode;
        if (NC == 16 ? m >= 16u : m < 16u)
            return;
    }
    const int nt = blockDim.x;
    for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        int x, ya, yb;
        tile_rows(p, tile, nt, threadIdx.x, &x, &ya, &yb);
        if (x >= p.W || ya >= yb)
            continue;
#pragma unroll 4
        for (int i = 0; i < WORDS; i++)
            sh_words[i * nt + threadIdx.x] = 0;
        smem_hist<CNT> h = {sh_words + threadIdx.x, nt, p.du, 0, 0};
        slide_column_disk<C, ND>(p, h, x, ya, yb);
    }
}

/* Any code: an open-addressing table per thread, in shared memory when
 * small, else in the global workspace, as hash_kernel. */
template <typename C, bool ND, bool SHARED> __global__ void disk_hash_kernel(const win_params p)
{
    typedef typename std::conditional<sizeof(C) == 2, uint32_t, unsigned long long>::type E;
    extern __shared__ unsigned long long sh_entries[];
    const uint32_t size = 1u << p.bits;
    const int nt = blockDim.x;
    E *base;
    size_t stride;
    if (SHARED) {
        base = (E *)sh_entries + threadIdx.x;
        stride = blockDim.x;
    } else {
        base = (E *)p.ws + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        stride = (size_t)gridDim.x * blockDim.x;
    }
    for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        int x, ya, yb;
        tile_rows(p, tile, nt, threadIdx.x, &x, &ya, &yb);
        if (x >= p.W || ya >= yb)
            continue;
#pragma unroll 4
        for (uint32_t i = 0; i < size; i++)
            base[i * stride] = 0;
        hash_table<E> h = {base, stride, size - 1, p.bits, p.du, 0, 0};
        slide_column_disk<C, ND>(p, h, x, ya, yb);
    }
}

#endif
