/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_cmp.cuh - the compare kernel of the GPU engine: small square
 * windows (3x3 to 9x9) of many distinct codes (included by engine_cuda_launch.cu,
 * and by tests/gpu/test_gpu_cmp_twin.cu to run the slides on the host, after
 * engine_cuda_kernels.cuh).
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

/* The entering row's codes of the window at column x: the sentinel where
 * the row or a column is outside the image. */
template <typename C, int K>
KHD void cmp_load_row(const win_params &p, int x, int yin, bool in_img, int jlo, int jhi,
                      uint32_t (&in)[K])
{
    const C *row = (const C *)p.plane + (size_t)((in_img ? yin : p.in_y0) - p.in_y0) * p.W +
                   (x - K / 2);
KUNROLL
    for (int j = 0; j < K; j++)
        in[j] = (in_img && j >= jlo && j <= jhi) ? load_code(row + j) : (uint32_t)(C)~(C)0;
}

template <typename C, bool ND, int K>
KHD void cmp_slide(const win_params &p, int x, int ya, int yb)
{
    constexpr int R = K / 2;
    const uint32_t S = (uint32_t)(C)~(C)0;
    const int W = p.W, H = p.H;
    /* Column j of the window is image column x - R + j: present for
     * j in [jlo, jhi]. */
    const int jlo = max(0, R - x), jhi = min(K - 1, W - 1 - x + R);
    const int col_absent = K - (jhi - jlo + 1);
    uint32_t w[K][K];
    bool row_in[K];   /* the ring row is inside the image */
    int absent = 0;   /* absent entries of the whole window */
KUNROLL
    for (int q = 0; q < K; q++) {
        row_in[q] = false;
KUNROLL
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
        cmp_load_row<C, K>(p, x, yin, in_img, jlo, jhi, in);
        const bool out_in = row_in[0];
        const int out_absent = out_in ? col_absent : K;
        const int in_absent = in_img ? col_absent : K;
        const int others_absent = absent - out_absent; /* rows 1 .. K-1 */
KUNROLL
        for (int k = 0; k < K; k++) {
            const uint32_t v = w[0][k];
            if (!(out_in && k >= jlo && k <= jhi && (!ND || v != S)))
                continue;
            int c = 0;
KUNROLL
            for (int m = k; m < K; m++)
                c += w[0][m] == v;
KUNROLL
            for (int q = 1; q < K; q++)
KUNROLL
                for (int j = 0; j < K; j++)
                    c += w[q][j] == v;
            if (!ND && v == S)
                c -= others_absent + cmp_absent_from<K>(out_in, k, jlo, jhi);
            s -= KLDG(p.du + c - 1);
            n--;
        }
KUNROLL
        for (int k = 0; k < K; k++) {
            const uint32_t v = in[k];
            if (!(in_img && k >= jlo && k <= jhi && (!ND || v != S)))
                continue;
            int c = 0;
KUNROLL
            for (int m = 0; m < k; m++)
                c += in[m] == v;
KUNROLL
            for (int q = 1; q < K; q++)
KUNROLL
                for (int j = 0; j < K; j++)
                    c += w[q][j] == v;
            if (!ND && v == S)
                c -= others_absent + cmp_absent_before(in_img, k, jlo, jhi);
            s += KLDG(p.du + c);
            n++;
        }
KUNROLL
        for (int q = 0; q < K - 1; q++) {
            row_in[q] = row_in[q + 1];
KUNROLL
            for (int j = 0; j < K; j++)
                w[q][j] = w[q + 1][j];
        }
        row_in[K - 1] = in_img;
KUNROLL
        for (int j = 0; j < K; j++)
            w[K - 1][j] = in[j];
        absent += in_absent - out_absent;
        yin++;
        /* ---- output row y + 1 when the window is full ---- */
        if (++y < ya)
            continue;
        const uint32_t centre = w[R][R];
        p.out[(size_t)(y - p.y0) * W + x] =
            (ND && centre == S) ? nan_px() : finish_px(s, n, p.t, p.m);
        if (y + 1 >= yb)
            break;
    }
}

/* ---- 16-bit codes, two to a word ----------------------------------------
 *
 * The same counts with half the comparisons and two codes a compare. Each
 * pair of rows is compared once, when the later one enters: every code of
 * the entering row against the rows that stay. That gives the entering
 * code's copies in those rows, and also, for each code of a staying row,
 * how many codes of the rows after it differ from it (neq, summed as the
 * later rows come in). When a row leaves, the rows after it in the window
 * are exactly the K - 1 that entered since, so its code's copies there are
 * K (K - 1) - neq: no comparison is made again. Two codes share a 32-bit
 * word (column 2i in the low half, the odd row's last half the sentinel),
 * so one xor and one per-half minimum (a single instruction on sm_90)
 * compare a code with two, and the two halves of the result add to neq
 * and to the entering code's count at once. A row of 5 codes is 3 words:
 * at 5x5 a step makes 60 word compares and 25 single ones, against the
 * scalar kernel's 225 single ones.
 *
 * Absent entries, and codes equal to the sentinel S without a nodata
 * sentinel in the plane, are as above: S never matches a counted code;
 * where S is an ordinary code, a code equal to S has the absent entries
 * (and the pad halves, one a staying row) taken off its count.
 */

/* Each 16-bit half of x: 1 where it is not zero, else 0. */
KHD uint32_t halves_nonzero(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return __vminu2(x, 0x00010001u);
#else
    return (uint32_t)((x & 0xffffu) != 0) | ((uint32_t)((x >> 16) != 0) << 16);
#endif
}

/* The sum of the two 16-bit halves of x (each below 2^15). */
KHD uint32_t halves_sum(uint32_t x)
{
    return (x * 0x00010001u) >> 16;
}

template <int K> KHD uint32_t half_of(const uint32_t (&w)[(K + 1) / 2], int k)
{
    return (w[k >> 1] >> (16 * (k & 1))) & 0xffffu;
}

template <bool ND, int K> KHD void cmp16_slide(const win_params &p, int x, int ya, int yb)
{
    constexpr int R = K / 2, P = (K + 1) / 2;
    const uint32_t S = 0xffffu;
    const int W = p.W, H = p.H;
    const int jlo = max(0, R - x), jhi = min(K - 1, W - 1 - x + R);
    const int col_absent = K - (jhi - jlo + 1);
    uint32_t w[K][P];   /* the ring's codes, two a word */
    uint32_t neq[K][P]; /* per code: codes of the later rows that differ */
    bool row_in[K];
    int absent = 0;
KUNROLL
    for (int q = 0; q < K; q++) {
        row_in[q] = false;
KUNROLL
        for (int i = 0; i < P; i++) {
            w[q][i] = 0xffffffffu;
            neq[q][i] = 0;
        }
        absent += K;
    }
    long long s = 0;
    int n = 0;
    int yin = ya - R;
    int y = ya - 2 * R - 1;
    for (;;) {
        const bool in_img = yin >= 0 && yin < H;
        uint32_t in[K];
        cmp_load_row<uint16_t, K>(p, x, yin, in_img, jlo, jhi, in);
        const bool out_in = row_in[0];
        const int out_absent = out_in ? col_absent : K;
        const int in_absent = in_img ? col_absent : K;
        const int others_absent = absent - out_absent;
        /* The leaving row: its codes' copies in the later rows are known. */
KUNROLL
        for (int k = 0; k < K; k++) {
            const uint32_t v = half_of<K>(w[0], k);
            if (!(out_in && k >= jlo && k <= jhi && (!ND || v != S)))
                continue;
            int c = K * (K - 1) - (int)half_of<K>(neq[0], k);
KUNROLL
            for (int m = k; m < K; m++)
                c += half_of<K>(w[0], m) == v;
            if (!ND && v == S)
                c -= others_absent + cmp_absent_from<K>(out_in, k, jlo, jhi);
            s -= KLDG(p.du + c - 1);
            n--;
        }
        /* The entering row against the rows that stay. */
KUNROLL
        for (int k = 0; k < K; k++) {
            const uint32_t v = in[k], vv = v * 0x00010001u;
            uint32_t diff = 0;
KUNROLL
            for (int q = 1; q < K; q++)
KUNROLL
                for (int i = 0; i < P; i++) {
                    const uint32_t d = halves_nonzero(w[q][i] ^ vv);
                    neq[q][i] += d;
                    diff += d;
                }
            if (!(in_img && k >= jlo && k <= jhi && (!ND || v != S)))
                continue;
            int c = 2 * P * (K - 1) - (int)halves_sum(diff);
KUNROLL
            for (int m = 0; m < k; m++)
                c += in[m] == v;
            if (!ND && v == S)
                c -= others_absent + (2 * P - K) * (K - 1) + cmp_absent_before(in_img, k, jlo, jhi);
            s += KLDG(p.du + c);
            n++;
        }
KUNROLL
        for (int q = 0; q < K - 1; q++) {
            row_in[q] = row_in[q + 1];
KUNROLL
            for (int i = 0; i < P; i++) {
                w[q][i] = w[q + 1][i];
                neq[q][i] = neq[q + 1][i];
            }
        }
        row_in[K - 1] = in_img;
KUNROLL
        for (int i = 0; i < P; i++) {
            w[K - 1][i] = in[2 * i] | ((2 * i + 1 < K ? in[min(2 * i + 1, K - 1)] : S) << 16);
            neq[K - 1][i] = 0;
        }
        absent += in_absent - out_absent;
        yin++;
        if (++y < ya)
            continue;
        const uint32_t centre = half_of<K>(w[R], R);
        p.out[(size_t)(y - p.y0) * W + x] =
            (ND && centre == S) ? nan_px() : finish_px(s, n, p.t, p.m);
        if (y + 1 >= yb)
            break;
    }
}

/* PACKED: 16-bit codes two to a word (cmp16_slide). */
template <typename C, bool ND, int K, bool PACKED>
__global__ void __launch_bounds__(128) cmp_kernel(const win_params p)
{
    for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        int x, ya, yb;
        tile_rows(p, tile, blockDim.x, threadIdx.x, &x, &ya, &yb);
        if (x >= p.W || ya >= yb)
            continue;
        if (PACKED)
            cmp16_slide<ND, K>(p, x, ya, yb);
        else
            cmp_slide<C, ND, K>(p, x, ya, yb);
    }
}

#endif
