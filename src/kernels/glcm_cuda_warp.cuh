/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm_cuda_warp.cuh - the co-occurrence slide with a warp per segment of
 * an output row (included by glcm_cuda.cu only).
 *
 * The thread-per-segment kernel (glcm_slide.h) updates its histogram one
 * pair after another, each update waiting on the last: its speed is the
 * latency of a chain of loads. Here the 32 lanes of a warp share one
 * histogram in shared memory and update the pairs of a step at once. With
 * WIDE counts (32 bits, where L^2 of them fit: few levels) a step of one
 * column entering and one leaving is one pass, lane l taking item l
 * (+ 32 k) of the entering rows then the leaving ones; a count may go to
 * -1 for a moment, which shares of T[-1] = T[0] make harmless. With 16-bit
 * counts two to a word, lane l takes the pair of anchor row rlo + l
 * (+ 32 k): first the pairs entering, then (after __syncwarp) the pairs
 * leaving, so that no count goes below zero (nor borrows from its
 * neighbour in the word). Each update's share of
 * the window's sums (glcm_rule.h, winent_glcm_acc) is T[c + 1] - T[c] for
 * the count c it saw (atomicAdd's old value): in whatever order the
 * updates of a step land, their shares telescope to the step's change of
 * sum T[u], exactly; the warp sums the lanes' shares per step (integer
 * reductions, exact) into the window's sums, which every lane holds.
 * Lane (x - xa) mod 32 keeps the sums of pixel x, and every 32 pixels the
 * lanes compute their pixels' measures at once (winent_glcm_value), added
 * per angle in angle order into a per-warp scratch, as the CPU does. The
 * same integers, the same divisions: the CPU engine's bits.
 */
#ifndef WINENT_GLCM_CUDA_WARP_CUH
#define WINENT_GLCM_CUDA_WARP_CUH

#include <stdint.h>

#include "cuda_warp_reduce.cuh"
#include "glcm_slide.h"

/* Columns of a warp's segment. */
#define GLCM_WSEG 256

/* What a kernel instance sums (template NEED): the pair histogram's, the
 * marginals', the moments'. */
#define GLCM_NEED_HIST 1
#define GLCM_NEED_MARG 2
#define GLCM_NEED_MOM 4
/* ... and the sums of squared counts (the angular second moment, energy). */
#define GLCM_NEED_Q 8

/* The share T[c + 1] - T[c] of a count c (du), or 0 for c = -1: with WIDE
 * counts a pair may leave before a pair of the same cell enters within a
 * step, taking a count to -1 for a moment; T[-1] = T[0] keeps every share
 * telescoping to the step's change of sum T[u]. */
__device__ __forceinline__ int64_t glcm_du(const winent_glcm_geom &g, int c)
{
    return c >= 0 ? (int64_t)__ldg((const long long *)g.du + c) : 0;
}

/* One count up (sign 1) or down (-1): the count the share is taken at (the
 * old count going up, the new one going down). Packed counts (16 bits, two
 * to a word) never go below zero (the pairs entering are counted first);
 * WIDE (32-bit) counts may, for a moment. */
template <bool WIDE>
__device__ __forceinline__ int glcm_bump(uint32_t *h, unsigned k, int sign)
{
    if (WIDE) {
        const int old = sign > 0 ? atomicAdd((int *)h + k, 1) : atomicSub((int *)h + k, 1);
        return sign > 0 ? old : old - 1;
    }
    const unsigned sh = (k & 1u) * 16u, one = 1u << sh;
    const unsigned old = sign > 0 ? atomicAdd(&h[k >> 1], one) : atomicSub(&h[k >> 1], one);
    return sign > 0 ? (int)((old >> sh) & 0xFFFFu) : (int)((old >> sh) & 0xFFFFu) - 1;
}

/* One lane's pair (i, j) entering (sign 1) or leaving (-1) the warp's
 * histogram `h` (marginals mi, mj), its share added to `d`: the steps of
 * winent_glcm_pair, with the count an atomic saw. */
template <int NEED, bool WIDE>
__device__ __forceinline__ void glcm_warp_pair(const winent_glcm_geom &g, uint32_t *h,
                                               uint32_t *mi, uint32_t *mj, unsigned i,
                                               unsigned j, int sign, winent_glcm_acc &d)
{
    d.n += sign;
    if (NEED & GLCM_NEED_HIST) {
        unsigned lo = i, hi = j;
        if (g.symmetric && i > j) {
            lo = j;
            hi = i;
        }
        const int c = glcm_bump<WIDE>(h, lo * (unsigned)g.L + hi, sign);
        const int64_t u = glcm_du(g, c);
        const int on_diag = i == j;
        d.tsum += sign > 0 ? u : -u;
        d.diag += sign * on_diag;
        if (NEED & GLCM_NEED_Q) {
            const int64_t dq = 2 * (int64_t)c + 1;
            d.q += sign * dq;
            d.qdiag += on_diag ? sign * dq : 0;
        }
        if (NEED & GLCM_NEED_MARG) {
            uint32_t *m2 = g.symmetric ? mi : mj;
            const int ci = glcm_bump<true>(mi, i, sign);
            const int64_t ui = glcm_du(g, ci);
            d.mi += sign > 0 ? ui : -ui;
            const int cj = glcm_bump<true>(m2, j, sign);
            const int64_t uj = glcm_du(g, cj), sj = sign > 0 ? uj : -uj;
            if (g.symmetric)
                d.mi += sj;
            else
                d.mj += sj;
        }
    }
    if (NEED & GLCM_NEED_MOM) {
        const int64_t I = i, J = j, sg = sign;
        const int64_t dd = I > J ? I - J : J - I, t = I + J, t2 = t * t;
        d.si += sg * I;
        d.sj += sg * J;
        d.sii += sg * I * I;
        d.sjj += sg * J * J;
        d.sij += sg * I * J;
        d.sad += sg * dd;
        d.sh += sg * __ldg((const long long *)g.hw + dd);
        d.s3 += sg * t2 * t;
        d.s4 += sg * t2 * t2;
    }
}

/* The lanes' pairs anchored in column x, rows [rlo, rhi], lane l taking
 * rows rlo + l + 32 k. */
template <int NEED, bool WIDE>
__device__ __forceinline__ void glcm_warp_column(const winent_glcm_geom &g, uint32_t *h,
                                                 uint32_t *mi, uint32_t *mj,
                                                 const uint16_t *codes, int y0, int dx, int dy,
                                                 int rlo, int rhi, int x, int sign, int lane,
                                                 winent_glcm_acc &d)
{
    const ptrdiff_t off = (ptrdiff_t)dy * g.W + dx;
    for (int b = rlo + lane; b <= rhi; b += 32) {
        const uint16_t *p = codes + (size_t)(b - y0) * (size_t)g.W + (size_t)x;
        const unsigned i = __ldg(p), j = __ldg(p + off);
        if (i == WINENT_GLCM_SENT || j == WINENT_GLCM_SENT)
            continue;
        glcm_warp_pair<NEED, WIDE>(g, h, mi, mj, i, j, sign, d);
    }
}

/* WIDE counts, a step of at most one column entering (ce) and one leaving
 * (cl; -1: none) in one pass: lane l takes item l (+ 32 k) of the entering
 * rows [rlo, rhi] and then the leaving ones, so a 15-row step keeps 30
 * lanes busy once instead of 15 lanes twice. */
template <int NEED>
__device__ __forceinline__ void glcm_warp_step(const winent_glcm_geom &g, uint32_t *h,
                                               uint32_t *mi, uint32_t *mj,
                                               const uint16_t *codes, int y0, int dx, int dy,
                                               int rlo, int rhi, int ce, int cl, int lane,
                                               winent_glcm_acc &d)
{
    const ptrdiff_t off = (ptrdiff_t)dy * g.W + dx;
    const int R = rhi - rlo + 1, ne = ce >= 0 ? R : 0, nall = ne + (cl >= 0 ? R : 0);
    for (int t = lane; t < nall; t += 32) {
        const bool in = t < ne;
        const int b = rlo + (in ? t : t - ne), x = in ? ce : cl;
        const uint16_t *p = codes + (size_t)(b - y0) * (size_t)g.W + (size_t)x;
        const unsigned i = __ldg(p), j = __ldg(p + off);
        if (i == WINENT_GLCM_SENT || j == WINENT_GLCM_SENT)
            continue;
        glcm_warp_pair<NEED, true>(g, h, mi, mj, i, j, in ? 1 : -1, d);
    }
}

/* The lanes' shares of a step, summed into the window's sums `a`. The
 * table sums (tsum, mi, mj) take warp_sum_ll: a lane makes fewer than 2^11
 * updates a step, each below T[c + 1] - T[c] < 2^37 (base 2, the largest
 * table; kx, ky <= 255), so the warp's shares stay below 2^53. */
template <int NEED>
__device__ __forceinline__ void glcm_warp_add(winent_glcm_acc &a, const winent_glcm_acc &d)
{
    a.n += warp_sum<int>((int)d.n);
    if (NEED & GLCM_NEED_HIST) {
        a.tsum += warp_sum_ll(d.tsum);
        a.diag += warp_sum<int>((int)d.diag);
    }
    if ((NEED & GLCM_NEED_HIST) && (NEED & GLCM_NEED_Q)) {
        a.q += warp_sum_i64(d.q);
        a.qdiag += warp_sum_i64(d.qdiag);
    }
    if (NEED & GLCM_NEED_MARG) {
        a.mi += warp_sum_ll(d.mi);
        a.mj += warp_sum_ll(d.mj);
    }
    if (NEED & GLCM_NEED_MOM) {
        a.si += warp_sum_i64(d.si);
        a.sj += warp_sum_i64(d.sj);
        a.sii += warp_sum_i64(d.sii);
        a.sjj += warp_sum_i64(d.sjj);
        a.sij += warp_sum_i64(d.sij);
        a.sad += warp_sum_i64(d.sad);
        a.sh += warp_sum_i64(d.sh);
        a.s3 += warp_sum_i64(d.s3);
        a.s4 += warp_sum_i64(d.s4);
    }
}

/* Each lane's kept pixel (if any) into the warp's scratch: its measures
 * added to sum[k * GLCM_WSEG + px], its angle counted in cnt[px]. */
__device__ __forceinline__ void glcm_warp_flush(const winent_glcm_geom &g,
                                                const winent_glcm_tabs &tabs,
                                                const winent_glcm_acc &kept, int px, double *sum,
                                                int *cnt)
{
    if (px < 0)
        return;
    for (int k = 0; k < g.nm; k++)
        sum[(size_t)k * GLCM_WSEG + px] += winent_glcm_value(g.measures[k], &kept, &tabs);
    cnt[px]++;
}

/* Angle `ang` along output row y over columns [xa, xb), the warp's
 * marginals mi, mj and histogram h (its `words` words of shared memory,
 * from mi: zero on entry and on return). */
template <int NEED, bool WIDE>
__device__ void glcm_warp_slide(const winent_glcm_geom &g, uint32_t *h, uint32_t *mi,
                                uint32_t *mj, unsigned words, const uint16_t *codes, int y0,
                                int ang, int y, int xa, int xb, double *sum, int *cnt, int lane)
{
    const int dx = g.dx[ang], dy = g.dy[ang], rx = g.rx, W = g.W;
    const int rlo = max(0, y - g.ry) + max(0, -dy);
    const int rhi = min(g.H - 1, y + g.ry) - max(0, dy);
    if (rlo > rhi)
        return;
    const winent_glcm_tabs tabs = {g.lq, g.symmetric};
    winent_glcm_acc a = WINENT_GLCM_ACC_ZERO, kept = WINENT_GLCM_ACC_ZERO;
    int px = -1; /* the pixel this lane keeps, from xa */
    int lo = 0, hi = -1;
    for (int x = xa; x < xb; x++) {
        const int nlo = max(0, x - rx) + max(0, -dx);
        const int nhi = min(W - 1, x + rx) - max(0, dx);
        if (x == xa)
            lo = nlo, hi = nlo - 1;
        winent_glcm_acc d = WINENT_GLCM_ACC_ZERO;
        const int ea = max(nlo, hi + 1), eb = nhi, la = lo, lb = min(hi, nlo - 1);
        if (WIDE && eb - ea <= 0 && lb - la <= 0) {
            /* The steady step: no barrier, the reductions below order the
             * steps. */
            glcm_warp_step<NEED>(g, h, mi, mj, codes, y0, dx, dy, rlo, rhi, ea <= eb ? ea : -1,
                                 la <= lb ? la : -1, lane, d);
        } else {
            for (int c = ea; c <= eb; c++)
                glcm_warp_column<NEED, WIDE>(g, h, mi, mj, codes, y0, dx, dy, rlo, rhi, c, 1,
                                             lane, d);
            __syncwarp();
            for (int c = la; c <= lb; c++)
                glcm_warp_column<NEED, WIDE>(g, h, mi, mj, codes, y0, dx, dy, rlo, rhi, c, -1,
                                             lane, d);
            __syncwarp();
        }
        lo = nlo;
        hi = nhi;
        glcm_warp_add<NEED>(a, d);
        if (a.n != 0 && ((x - xa) & 31) == lane) {
            kept = a;
            px = x - xa;
        }
        if (((x - xa) & 31) == 31 || x + 1 == xb) {
            glcm_warp_flush(g, tabs, kept, px, sum, cnt);
            px = -1;
        }
    }
    /* Empty the histogram and marginals for the next angle or segment. */
    __syncwarp();
    for (unsigned k = (unsigned)lane; k < words; k += 32)
        mi[k] = 0;
    __syncwarp();
}

/* A warp per segment of GLCM_WSEG columns of an output row, grid-stride
 * over the segments; `words` 32-bit words of shared memory a warp
 * (marginals 2 L, then the histogram), sum and cnt the warps' scratch. */
template <int NEED, bool WIDE>
__global__ void glcm_warp_kernel(winent_glcm_geom g, const uint16_t *codes, int code_y0, int ya,
                                 int yb, double *sum, int *cnt, float *out, unsigned words)
{
    extern __shared__ uint32_t glcm_wsmem[];
    const int lane = (int)(threadIdx.x & 31u), wib = (int)(threadIdx.x >> 5);
    const long long warp = (long long)blockIdx.x * (blockDim.x >> 5) + wib;
    const long long nwarps = (long long)gridDim.x * (blockDim.x >> 5);
    const int nseg = (g.W + GLCM_WSEG - 1) / GLCM_WSEG;
    const long long ntasks = (long long)(yb - ya) * nseg;
    const unsigned L = (unsigned)g.L, mwords = (NEED & GLCM_NEED_MARG) ? 2 * L : 0;
    uint32_t *mi = glcm_wsmem + (size_t)wib * words, *mj = mi + L, *h = mi + mwords;
    for (unsigned k = (unsigned)lane; k < words; k += 32)
        mi[k] = 0;
    __syncwarp();
    double *s = sum + (size_t)warp * g.nm * GLCM_WSEG;
    int *c = cnt + (size_t)warp * GLCM_WSEG;
    const size_t plane = (size_t)(yb - ya) * (size_t)g.W;
    for (long long t = warp; t < ntasks; t += nwarps) {
        const int y = ya + (int)(t / nseg), xa = (int)(t % nseg) * GLCM_WSEG;
        const int xb = min(xa + GLCM_WSEG, g.W);
        for (int x = lane; x < xb - xa; x += 32) {
            c[x] = 0;
            for (int k = 0; k < g.nm; k++)
                s[(size_t)k * GLCM_WSEG + x] = 0.0;
        }
        for (int a = 0; a < g.nangles; a++)
            glcm_warp_slide<NEED, WIDE>(g, h, mi, mj, words, codes, code_y0, a, y, xa, xb, s,
                                        c, lane);
        const uint16_t *centre = codes + (size_t)(y - code_y0) * (size_t)g.W;
        for (int x = lane; x < xb - xa; x += 32)
            for (int k = 0; k < g.nm; k++)
                out[(size_t)k * plane + (size_t)(y - ya) * g.W + xa + x] = winent_glcm_out(
                    centre[xa + x], s[(size_t)k * GLCM_WSEG + x], c[x]);
    }
}

#endif
