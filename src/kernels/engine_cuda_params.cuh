/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_params.cuh - the parameters of a window kernel launch
 * (win_params): a plain struct the host fills per chunk
 * (engine_cuda.cu, engine_cuda_launch.cu) and the kernels read by value
 * (engine_cuda_*.cuh); no kernels, no macros, so the engine's files
 * include it without the kernels.
 */
#ifndef WINENT_ENGINE_CUDA_PARAMS_CUH
#define WINENT_ENGINE_CUDA_PARAMS_CUH

#include <stddef.h>

/* Everything a window kernel needs, by value. */
struct win_params {
    const void *plane;       /* codes of input rows [in_y0, in_y0 + in_h), W apart */
    float *out;              /* output rows [y0, y1), W apart */
    const long long *du;     /* du[c] = T[c + 1] - T[c] */
    const long long *t;      /* T[c] = c * Lq[c] */
    int W, H, in_y0, y0, y1; /* image width and height; chunk rows */
    int th;                  /* output rows per thread segment */
    int rx, ry;              /* window radii */
    int tiles_x, tiles;      /* tile grid: blockDim.x columns x th rows */
    unsigned long long *ws;  /* hash-global: the tables */
    int bits;                /* hash: log2 of the table size */
    /* Kernels queued side by side for one chunk, each for some chunks: the
     * warp and groups kernels run only when *gate (a measure of the chunk
     * found on the device before them: its largest code, its number of
     * codes) is in [gate_lo, gate_hi); no gate: always. */
    const unsigned *gate;
    unsigned gate_lo, gate_hi;
    int nd15; /* column-pack kernel: code 15 is nodata (dense ranks of a plane
                 with a sentinel) */
    /* Shaped kernels (engine_cuda_disk.cuh: a disk or a footprint): column
     * c of the window (dx = c - rx) holds the runs [cf[c], cf[c + 1]) of
     * cr, each its first and last dy (the plan's col_first, col_run); kx
     * columns. */
    const int *cf;
    const short *cr;
    int kx;
};

#endif
