/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_disk.cuh - circular windows (--disk R) on the GPU (included
 * by engine_cuda_launch.cu only, after engine_cuda_kernels.cuh): the one kernel
 * family the engine runs for a plan whose window is a disk, whatever the
 * codes.
 *
 * The thread-per-window kernels of engine_cuda_kernels.cuh (smem_kernel,
 * hash_kernel) with the disk's slide (slide_disk, below): one thread
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
        float r = (ND && centre == sent) ? nan_px() : finish_px(h.s, h.n, p.t, p.m);
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

/* The disk as the thread kernels' shape (slide_square's twin): the
 * engine runs smem_kernel and hash_kernel (engine_cuda_kernels.cuh) with
 * it. On 8-bit planes smem_kernel's 16-code histogram takes the chunks of
 * codes < 16, as for squares (`maxcode`, found on the device). */
struct slide_disk {
    template <typename C, bool ND, typename Hist>
    static KHD void run(const win_params &p, Hist &h, int x, int ya, int yb)
    {
        slide_column_disk<C, ND>(p, h, x, ya, yb);
    }
};

#endif
