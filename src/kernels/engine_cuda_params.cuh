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
#include <stdint.h>

/* The measure of the window's histogram a kernel finishes (entropy_rule.h,
 * winent_measure_finish). The kernels sum a table T' with T'[1] = 0
 * (T'[c] = T[c] - c T[1]: the equal-code families count the pixels of a
 * code seen once as nothing), so the finish adds n T[1] back to S and
 * reads the measure's own table t0. The entropy's T[1] is 0: T' = T. */
struct win_measure {
    int kind;            /* winent_measure; 0: the entropy (t0 unused) */
    double renyi_den;    /* renyi: (1 - Q) ln(base) */
    long long t1;        /* T[1] */
    const long long *t0; /* T itself, [0 .. nmax] (device) */
};

/* The kernels' tables from the measure's T[0 .. nmax]: ts = T' (above) and
 * du[c] = T'[c + 1] - T'[c] (du[nmax] = 0), mod 2^64 (every sum of them is
 * exact); returns T[1]. Host code: the engine and the host twins. */
static inline long long win_shifted_tables(const int64_t *t, int nmax, long long *ts,
                                           long long *du)
{
    const unsigned long long t1 = nmax >= 1 ? (unsigned long long)t[1] : 0;
    for (int c = 0; c <= nmax; c++)
        ts[c] = (long long)((unsigned long long)t[c] - (unsigned long long)c * t1);
    for (int c = 0; c <= nmax; c++)
        du[c] = c < nmax ? (long long)((unsigned long long)ts[c + 1] - (unsigned long long)ts[c])
                         : 0;
    return (long long)t1;
}

/* Everything a window kernel needs, by value. */
struct win_params {
    const void *plane;       /* codes of input rows [in_y0, in_y0 + in_h), W apart */
    float *out;              /* output rows [y0, y1), W apart */
    const long long *du;     /* du[c] = T[c + 1] - T[c] */
    const long long *t;      /* T'[c] (win_measure), the entropy's c * Lq[c] */
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
    win_measure m;   /* the measure finished from S (finish_px) */
};

#endif
