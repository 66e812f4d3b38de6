/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chunk.h - the kernel contract: the seam between the pipeline and the
 * arithmetic. Every engine (reference, CPU, CUDA) computes output rows
 * [y0, y1) of a band of rows from the input rows their windows need, and
 * all of them give the same bits.
 */
#ifndef WINENT_CHUNK_H
#define WINENT_CHUNK_H

#include <stddef.h>

typedef struct winent_chunk {
    const void *rows; /* borrowed: samples of input rows [in_y0, in_y0 + in_h),
                         one band, native byte order, plan's dtype */
    size_t row_bytes; /* bytes from one input row to the next */
    int width;        /* image width */
    int height;       /* image height */
    int in_y0, in_h;  /* rows held; must cover [y0 - ry, y1 + ry) clipped to the image */
    int y0, y1;       /* output rows to compute */
} winent_chunk;

/* First input row and row count a chunk of output rows [y0, y1) needs. */
static inline void winent_chunk_input_rows(int y0, int y1, int ry, int height, int *in_y0, int *in_h)
{
    int a = y0 - ry < 0 ? 0 : y0 - ry;
    int b = y1 + ry > height ? height : y1 + ry;
    *in_y0 = a;
    *in_h = b - a;
}

#endif
