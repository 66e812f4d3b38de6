/*
 * engine_cuda_cmp.cuh - the compare kernel of the GPU engine: small square
 * windows (3x3 to 9x9) of many distinct codes (included by engine_cuda.cu
 * only, after engine_cuda_kernels.cuh).
 *
 * A window of K x K pixels holds at most 81 codes, so a thread can keep
 * them all in registers and count a code's copies by comparing it with
 * each of them: no histogram, no table, no memory traffic beyond the loads
 * of the codes and of du. One thread owns one output column and slides its
 * window down a segment of rows, as the other thread-per-window kernels do
 * (win_params, tile_rows). Each step removes the row that leaves and adds
 * the row that enters, one code at a time, and adds du[c] (or takes away
 * du[c - 1]) for the count c the code had just before: an exact int64 sum,
 * so the order of the updates does not change the bits.
 *
 * Counting without a histogram. When the code of column k of the leaving
 * row goes, the window still holds the other K - 1 rows and the columns
 * m >= k of the leaving row (those before k are gone already): its count c
 * is its copies among those. When the code of column k of the entering row
 * comes, the window holds the other K - 1 rows and the columns m < k of
 * the entering row. So each code is compared with (K - 1) K codes of the
 * rows that stay and with part of its own row: about 2 K^2 (K - 1)
 * comparisons per output pixel (200 at 5x5, 1296 at 9x9).
 *
 * Pixels that are not counted. Outside the image (columns beyond the edges,
 * rows above or below) nothing is loaded: which entries are absent follows
 * from x, the row and the image size alone, and absent entries hold the
 * plane's sentinel S = all ones. With a nodata sentinel in the plane (ND) S
 * also marks the pixels not counted, and no counted code equals S. Without
 * one, S can be an ordinary code (u16 65535 of a 16-bit plane): then a code
 * equal to S has the absent entries it was compared with taken off its
 * count (rare: only codes equal to S pay for it).
 *
 * The rows of the window live in a register array that shifts by one row
 * each step (K^2 register moves, against about 2 K^3 comparisons), so one
 * copy of the step's code serves every row.
 */
#ifndef WINENT_ENGINE_CUDA_CMP_CUH
#define WINENT_ENGINE_CUDA_CMP_CUH

#include <stdint.h>

/* Absent entries of a row before (or from) column k, for the correction of
 * codes equal to S: the whole row when it is outside the image, else the
 * columns outside [jlo, jhi]. */
KHD int cmp_absent_before(bool row_in, int k, int jlo, int jhi)
{
    if (!row_in)
        return k;
    return min(k, jlo) + max(0, k - 1 - jhi);
}
template <int K> KHD int cmp_absent_from(bool row_in, int k, int jlo, int jhi)
{
    return (K - k) - ((row_in ? max(0, min(K, jhi + 1) - max(k, jlo)) : 0));
}

template <typename C, bool ND, int K>
__device__ __forceinline__ void cmp_slide(const win_params &p, int x, int ya, int yb)
{
    constexpr int R = K / 2;
    const C *plane = (const C *)p.plane;
    const uint32_t S = (uint32_t)(C)~(C)0;
    const int W = p.W, H = p.H;
    /* Column j of the window is image column x - R + j: present for
     * j in [jlo, jhi]. */
    const int jlo = max(0, R - x), jhi = min(K - 1, W - 1 - x + R);
    const int col_absent = K - (jhi - jlo + 1);
    uint32_t w[K][K];
    bool row_in[K];   /* the ring row is inside the image */
    int absent = 0;   /* absent entries of the whole window */
#pragma unroll
    for (int q = 0; q < K; q++) {
        row_in[q] = false;
#pragma unroll
        for (int j = 0; j < K; j++)
            w[q][j] = S;
        absent += K;
    }
    long long s = 0;
    int n = 0;
    /* The rows ya - R .. ya + R come in through the same step, into a
     * window of absent rows; then output, slide, output, ... */
    int yin = ya - R;
    int y = ya - 2 * R - 1; /* the output row of the window, once full */
    for (;;) {
        /* ---- step: row 0 of the ring leaves, row yin enters ---- */
        const bool in_img = yin >= 0 && yin < H;
        uint32_t in[K];
        {
            const C *row = plane + (size_t)((in_img ? yin : p.in_y0) - p.in_y0) * W + (x - R);
#pragma unroll
            for (int j = 0; j < K; j++)
                in[j] = (in_img && j >= jlo && j <= jhi) ? load_code(row + j) : S;
        }
        const bool out_in = row_in[0];
        const int out_absent = out_in ? col_absent : K;
        const int in_absent = in_img ? col_absent : K;
        const int others_absent = absent - out_absent; /* rows 1 .. K-1 */
#pragma unroll
        for (int k = 0; k < K; k++) {
            const uint32_t v = w[0][k];
            if (!(out_in && k >= jlo && k <= jhi && (!ND || v != S)))
                continue;
            int c = 0;
#pragma unroll
            for (int m = k; m < K; m++)
                c += w[0][m] == v;
#pragma unroll
            for (int q = 1; q < K; q++)
#pragma unroll
                for (int j = 0; j < K; j++)
                    c += w[q][j] == v;
            if (!ND && v == S)
                c -= others_absent + cmp_absent_from<K>(out_in, k, jlo, jhi);
            s -= KLDG(p.du + c - 1);
            n--;
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            const uint32_t v = in[k];
            if (!(in_img && k >= jlo && k <= jhi && (!ND || v != S)))
                continue;
            int c = 0;
#pragma unroll
            for (int m = 0; m < k; m++)
                c += in[m] == v;
#pragma unroll
            for (int q = 1; q < K; q++)
#pragma unroll
                for (int j = 0; j < K; j++)
                    c += w[q][j] == v;
            if (!ND && v == S)
                c -= others_absent + cmp_absent_before(in_img, k, jlo, jhi);
            s += KLDG(p.du + c);
            n++;
        }
#pragma unroll
        for (int q = 0; q < K - 1; q++) {
            row_in[q] = row_in[q + 1];
#pragma unroll
            for (int j = 0; j < K; j++)
                w[q][j] = w[q + 1][j];
        }
        row_in[K - 1] = in_img;
#pragma unroll
        for (int j = 0; j < K; j++)
            w[K - 1][j] = in[j];
        absent += in_absent - out_absent;
        yin++;
        /* ---- output row y + 1 when the window is full ---- */
        if (++y < ya)
            continue;
        const uint32_t centre = w[R][R];
        p.out[(size_t)(y - p.y0) * W + x] =
            (ND && centre == S) ? nan_px() : finish_px(s, n, p.t);
        if (y + 1 >= yb)
            break;
    }
}

template <typename C, bool ND, int K>
__global__ void __launch_bounds__(128) cmp_kernel(const win_params p)
{
    for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        int x, ya, yb;
        tile_rows(p, tile, blockDim.x, threadIdx.x, &x, &ya, &yb);
        if (x >= p.W || ya >= yb)
            continue;
        cmp_slide<C, ND, K>(p, x, ya, yb);
    }
}

#endif
