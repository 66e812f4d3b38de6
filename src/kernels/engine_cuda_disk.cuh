/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_disk.cuh - shaped windows (--disk R, and any footprint) on
 * the GPU (included by engine_cuda_launch.cu only, after
 * engine_cuda_kernels.cuh): the one kernel family the engine runs for a
 * plan whose window is a disk or a footprint, whatever the codes.
 *
 * The thread-per-window kernels of engine_cuda_kernels.cuh (smem_kernel,
 * hash_kernel) with the shape's slide (slide_disk, below): one thread
 * owns one output column x and slides its window down a segment of `th`
 * output rows, threads of a warp on adjacent columns (coalesced loads and
 * stores), a private histogram per thread: the same smem_hist (codes <
 * 256) and hash_table (any code) structures, so the exact int64 S and the
 * last step (finish_px: winent_finish) are those of every other kernel.
 *
 * Column c of the window (dx = c - rx) is a list of runs of rows, each
 * y + a .. y + b (the plan's column runs, p.cf and p.cr on the device; a
 * disk is one run a column, -hh(dx) .. hh(dx)). A step y -> y + 1
 * removes, in every run of every column inside the image, the code at row
 * y + a and adds the one at y + b + 1: two updates a run (a disk: 2 (2R +
 * 1) a pixel, as the square of the same diameter). At every step all the
 * threads of a warp read one run (a broadcast) and one row of the plane
 * at adjacent columns. Windows are cropped at the image's borders:
 * columns outside it are left out, rows outside it are skipped as they
 * come; n counts what the histogram holds, and a footprint without its
 * centre that counts nothing gives 0, as the CPU's.
 */
#ifndef WINENT_ENGINE_CUDA_DISK_CUH
#define WINENT_ENGINE_CUDA_DISK_CUH

#include <stdint.h>

#include "engine_cuda_kernels.cuh"

/* Slide column x's window down output rows [ya, yb) (Hist: add/remove, s,
 * n; engine_cuda_kernels.cuh). */
template <typename C, bool ND, typename Hist>
KHD void slide_column_disk(const win_params &p, Hist &h, int x, int ya, int yb)
{
    const C *plane = (const C *)p.plane;
    const uint32_t sent = (uint32_t)(C) ~(C)0;
    const int W = p.W, H = p.H, RX = p.rx;
    /* The window's columns c with x + c - RX inside the image. */
    const int c0 = max(0, RX - x), c1 = min(p.kx - 1, W - 1 - x + RX);
    for (int c = c0; c <= c1; c++) {
        const C *col = plane + (x + c - RX);
        for (int q = KLDG(p.cf + c), qe = KLDG(p.cf + c + 1); q < qe; q++) {
            const int a = KLDG(p.cr + 2 * q), b = KLDG(p.cr + 2 * q + 1);
            const int y0 = max(0, ya + a), y1 = min(H - 1, ya + b);
            for (int yy = y0; yy <= y1; yy++) {
                uint32_t v = load_code(col + (size_t)(yy - p.in_y0) * W);
                if (!ND || v != sent)
                    h.add(v);
            }
        }
    }
    for (int y = ya;;) {
        uint32_t centre = load_code(plane + (size_t)(y - p.in_y0) * W + x);
        float r = (ND && centre == sent) ? nan_px()
                  : h.n > 0                ? finish_px(h.s, h.n, p.t, p.m)
                                           : 0.0f;
        p.out[(size_t)(y - p.y0) * W + x] = r;
        if (++y >= yb)
            break;
        /* From row y - 1 to row y: each run's top row leaves, the row
         * below its bottom enters. */
        for (int c = c0; c <= c1; c++) {
            const C *col = plane + (x + c - RX);
            for (int q = KLDG(p.cf + c), qe = KLDG(p.cf + c + 1); q < qe; q++) {
                const int yout = y - 1 + KLDG(p.cr + 2 * q), yin = y + KLDG(p.cr + 2 * q + 1);
                const bool out_in = (unsigned)yout < (unsigned)H, in_in = (unsigned)yin < (unsigned)H;
                if (out_in && in_in) {
                    uint32_t o = load_code(col + (size_t)(yout - p.in_y0) * W);
                    uint32_t i = load_code(col + (size_t)(yin - p.in_y0) * W);
                    if (o == i)
                        continue;
                    if (!ND || o != sent)
                        h.remove(o);
                    if (!ND || i != sent)
                        h.add(i);
                } else if (out_in) {
                    uint32_t o = load_code(col + (size_t)(yout - p.in_y0) * W);
                    if (!ND || o != sent)
                        h.remove(o);
                } else if (in_in) {
                    uint32_t i = load_code(col + (size_t)(yin - p.in_y0) * W);
                    if (!ND || i != sent)
                        h.add(i);
                }
            }
        }
    }
}

/* A disk or footprint as the thread kernels' shape (slide_square's twin): the
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
