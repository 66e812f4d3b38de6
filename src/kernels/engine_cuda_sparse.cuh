/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_sparse.cuh - equal-code cliques: 32-bit planes whose codes
 * seldom repeat within a window (i32 of 10^6 values at 255 x 255, where a
 * window holds about 63000 distinct codes and no table per window fits
 * anywhere fast), included by engine_cuda_launch.cu after engine_cuda_colpack.cuh.
 *
 * No histogram at all. Binomial inversion, as the groups kernel uses it:
 * T[c] = sum over the subsets of two or more of a code's c members in a
 * window of a_|subset| (a_k = sum_j (-1)^(k-j) C(k, j) T[j]; a_0 = a_1 =
 * 0), so S = sum T[c] of a window is the sum of a_|s| over the sets s of
 * equal-code pixels that the window holds whole. The windows that hold a
 * set are the centres in the intersection of its members' rectangles
 * [x - rx, x + rx] x [y - ry, y + ry] (clipped to the chunk's output rows
 * and the image); a set of rectangles that meet pairwise meets as a whole
 * (intervals do, on each axis), so the sets to count are exactly the
 * subsets of a code's pixels whose rectangles still meet. Per chunk:
 *
 *   1. the chunk's codes sorted with their pixel indices (CUB's radix
 *      sort, stable: a code's pixels in raster order);
 *   2. a thread per sorted pixel ("member") finds the later pixels of its
 *      code whose rectangles meet its own (its partners, a few rows down
 *      at most) and walks, depth first in index order, every subset of
 *      them whose rectangles meet its own: each adds a_(size + 1) to the
 *      four corners of its intersection in a difference array of the
 *      output rows (64-bit atomics; every set is counted once, by its
 *      first member). A member with more than SPARSE_MAX_PARTNERS partners,
 *      or that looked at more than SPARSE_MAX_SCAN pixels of its code, sets
 *      the chunk's overflow flag and stops: codes that repeat that much
 *      are the plan's kernel's (the engine runs it for that chunk instead:
 *      the groups kernel to 127 x 127, chunk ranks and the block kernel
 *      past it);
 *   3. prefix sums of the difference array, along rows, then down columns
 *      in segments, give each output its S; nodata pixels (the sentinel's
 *      group) add 1 to a second difference array over their rectangles,
 *      so n = the clipped window's area less that count; D = T[n] - S,
 *      winent_finish.
 *
 * Every sum is exact int64 (mod 2^64: the result fits), so the bits are
 * the CPU engine's whatever the order. The per-member and per-pixel steps
 * are __host__ __device__ (tests/gpu/test_gpu_sparse_twin.cu runs them on the
 * host against the CPU engine).
 */
#ifndef WINENT_ENGINE_CUDA_SPARSE_CUH
#define WINENT_ENGINE_CUDA_SPARSE_CUH

#include <stdint.h>

#if defined(__CUDACC__)
/* Before engine_cuda_geom.cuh: CUB names template parameters BLOCK_THREADS. */
#include <cub/block/block_scan.cuh>
#endif

#include "engine_cuda_geom.cuh"

#define SPARSE_MAX_PARTNERS 12  /* a member's subsets: at most 2^12 */
#define SPARSE_MAX_SCAN     256 /* pixels of its code a member looks at */
#define SPARSE_SEG          64  /* rows a thread sums down a column */
/* One chunk's view. The difference arrays have the chunk's output rows
 * [y0, y1) and W columns; corners past them are left out (they would only
 * reach outputs past the chunk). */
struct sparse_params {
    const uint32_t *keys; /* sorted codes, `count` of them */
    const uint32_t *pos;  /* their pixel indices in rows [in_y0, ...), W apart */
    unsigned long long count;
    unsigned long long *diff; /* (y1 - y0) x W: corners of a_k */
    int *ndiff;               /* (y1 - y0) x W: corners of nodata pixels (ND) */
    const long long *a;       /* a_k, k <= SPARSE_MAX_PARTNERS + 1 */
    unsigned *overflow;       /* set when a member had too many partners */
    int W, H, in_y0, y0, y1, rx, ry;
};

/* a_k = sum_j (-1)^(k-j) C(k, j) T[j] mod 2^64 for k <= SPARSE_MAX_PARTNERS
 * + 1 (0 past nmax: no larger set of distinct pixels fits a window). */
static inline void sparse_coefficients(const int64_t *t, int nmax,
                                       long long a[SPARSE_MAX_PARTNERS + 2])
{
    for (int k = 0; k < SPARSE_MAX_PARTNERS + 2; k++) {
        unsigned long long acc = 0, binom = 1; /* C(k, j) */
        for (int j = 0; k <= nmax && j <= k; j++) {
            unsigned long long term = binom * (unsigned long long)t[j];
            acc = ((k - j) & 1) ? acc - term : acc + term;
            binom = binom * (unsigned long long)(k - j) / (unsigned long long)(j + 1);
        }
        a[k] = (long long)acc;
    }
}

struct sparse_rect {
    int x0, x1, y0, y1; /* inclusive */
};

/* The centres whose windows hold pixel index `p`, clipped to the chunk's
 * output rows; empty when x0 > x1 or y0 > y1. */
KHD sparse_rect sparse_rect_of(const sparse_params &sp, uint32_t p)
{
    const int x = (int)(p % (uint32_t)sp.W), y = sp.in_y0 + (int)(p / (uint32_t)sp.W);
    sparse_rect r;
    r.x0 = x - sp.rx < 0 ? 0 : x - sp.rx;
    r.x1 = x + sp.rx > sp.W - 1 ? sp.W - 1 : x + sp.rx;
    r.y0 = y - sp.ry < sp.y0 ? sp.y0 : y - sp.ry;
    r.y1 = y + sp.ry > sp.y1 - 1 ? sp.y1 - 1 : y + sp.ry;
    return r;
}

KHD bool sparse_meet(sparse_rect *r, const sparse_rect &o)
{
    r->x0 = r->x0 > o.x0 ? r->x0 : o.x0;
    r->x1 = r->x1 < o.x1 ? r->x1 : o.x1;
    r->y0 = r->y0 > o.y0 ? r->y0 : o.y0;
    r->y1 = r->y1 < o.y1 ? r->y1 : o.y1;
    return r->x0 <= r->x1 && r->y0 <= r->y1;
}

template <typename T> KHD void sparse_add(T *at, T v)
{
#if defined(__CUDA_ARCH__)
    atomicAdd(at, v);
#else
    *at += v;
#endif
}

/* `v` at the four corners of `r` in a difference array of the output rows. */
template <typename T>
KHD void sparse_corners(const sparse_params &sp, T *d, const sparse_rect &r, T v)
{
    const int rows = sp.y1 - sp.y0, W = sp.W;
    const int ya = r.y0 - sp.y0, yb = r.y1 + 1 - sp.y0, xb = r.x1 + 1;
    sparse_add<T>(d + (size_t)ya * W + r.x0, v);
    if (xb < W)
        sparse_add<T>(d + (size_t)ya * W + xb, (T)0 - v);
    if (yb < rows) {
        sparse_add<T>(d + (size_t)yb * W + r.x0, (T)0 - v);
        if (xb < W)
            sparse_add<T>(d + (size_t)yb * W + xb, v);
    }
}

/* Step 2 for sorted pixel i. ND: the all-ones code is nodata. */
template <bool ND> KHD void sparse_member(const sparse_params &sp, unsigned long long i)
{
    const uint32_t code = sp.keys[i], p = sp.pos[i];
    sparse_rect own = sparse_rect_of(sp, p);
    if (own.x0 > own.x1 || own.y0 > own.y1)
        return; /* a halo pixel no output of the chunk sees */
    if (ND && code == 0xFFFFFFFFu) {
        sparse_corners<int>(sp, sp.ndiff, own, 1);
        return;
    }
    const int reach = 2 * sp.ry;
    const int y = sp.in_y0 + (int)(p / (uint32_t)sp.W);
    sparse_rect part[SPARSE_MAX_PARTNERS];
    int np = 0, scanned = 0;
    for (unsigned long long j = i + 1; j < sp.count && sp.keys[j] == code; j++) {
        const uint32_t q = sp.pos[j];
        if (sp.in_y0 + (int)(q / (uint32_t)sp.W) - y > reach)
            break;
        if (++scanned > SPARSE_MAX_SCAN) {
            *sp.overflow = 1;
            return;
        }
        sparse_rect r = sparse_rect_of(sp, q);
        if (!sparse_meet(&r, own))
            continue;
        if (np == SPARSE_MAX_PARTNERS) {
            *sp.overflow = 1;
            return;
        }
        part[np++] = r;
    }
    /* Depth first: stack[d] is the intersection of the member and the d
     * partners chosen, next[d] the first partner to try after them. */
    sparse_rect stack[SPARSE_MAX_PARTNERS + 1];
    int next[SPARSE_MAX_PARTNERS + 1];
    int d = 0;
    stack[0] = own;
    next[0] = 0;
    while (d >= 0) {
        if (next[d] >= np) {
            d--;
            continue;
        }
        sparse_rect r = stack[d];
        const int k = next[d]++;
        if (!sparse_meet(&r, part[k]))
            continue;
        /* The set: the member, the d partners below, and partner k. */
        sparse_corners<unsigned long long>(sp, sp.diff, r, (unsigned long long)KLDG(sp.a + d + 2));
        stack[d + 1] = r;
        next[d + 1] = k + 1;
        d++;
    }
}

/* Step 3's cells: a column and a segment of SPARSE_SEG output rows each,
 * segment by segment (cell c: column c % W of segment c / W); rows [ra,
 * rb) of the chunk's output rows. */
KHD int sparse_segments(const sparse_params &sp)
{
    return (sp.y1 - sp.y0 + SPARSE_SEG - 1) / SPARSE_SEG;
}

struct sparse_cell {
    int x, ra, rb;
};

KHD sparse_cell sparse_cell_of(const sparse_params &sp, long long c)
{
    sparse_cell k;
    k.x = (int)(c % sp.W);
    k.ra = (int)(c / sp.W) * SPARSE_SEG;
    k.rb = k.ra + SPARSE_SEG < sp.y1 - sp.y0 ? k.ra + SPARSE_SEG : sp.y1 - sp.y0;
    return k;
}

/* The pixel's S and nodata count, once the difference arrays are summed,
 * to its value: n counted pixels in its clipped window. */
template <bool ND>
KHD float sparse_finish_px(const sparse_params &sp, const long long *t, const win_measure &m,
                           int x, int y, unsigned long long s, int nodata, uint32_t centre)
{
    if (ND && centre == 0xFFFFFFFFu)
        return nan_px();
    const int xa = x - sp.rx < 0 ? 0 : x - sp.rx, xb = x + sp.rx > sp.W - 1 ? sp.W - 1 : x + sp.rx;
    const int ya = y - sp.ry < 0 ? 0 : y - sp.ry, yb = y + sp.ry > sp.H - 1 ? sp.H - 1 : y + sp.ry;
    const int n = (xb - xa + 1) * (yb - ya + 1) - (ND ? nodata : 0);
    return finish_px((long long)s, n, t, m);
}

#if defined(__CUDACC__)

#include <cub/block/block_scan.cuh>

__global__ void __launch_bounds__(256) sparse_iota_kernel(uint32_t *pos, size_t count)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        pos[i] = (uint32_t)i;
}

template <bool ND>
__global__ void __launch_bounds__(256) sparse_member_kernel(const sparse_params sp)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < sp.count; i += stride) {
        if (*(volatile const unsigned *)sp.overflow != 0)
            return; /* the chunk goes to the block kernel */
        sparse_member<ND>(sp, i);
    }
}

/* Step 3a: each row of the difference arrays summed along it, in place
 * (a block a row, tiles of 256 x 4 columns). */
#define SPARSE_ROW_THREADS 256
template <bool ND>
__global__ void __launch_bounds__(SPARSE_ROW_THREADS) sparse_rows_kernel(const sparse_params sp)
{
    typedef cub::BlockScan<unsigned long long, SPARSE_ROW_THREADS> scan_t;
    typedef cub::BlockScan<int, SPARSE_ROW_THREADS> nscan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ typename nscan_t::TempStorage ntmp;
    const int rows = sp.y1 - sp.y0, W = sp.W;
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        unsigned long long *d = sp.diff + (size_t)r * W;
        int *nd = ND ? sp.ndiff + (size_t)r * W : NULL;
        unsigned long long carry = 0;
        int ncarry = 0;
        for (int x0 = 0; x0 < W; x0 += 4 * SPARSE_ROW_THREADS) {
            const int xa = x0 + 4 * threadIdx.x;
            unsigned long long v[4];
            int nv[4];
            unsigned long long sum = 0;
            int nsum = 0;
            for (int j = 0; j < 4; j++) {
                v[j] = xa + j < W ? d[xa + j] : 0;
                sum += v[j];
                if (ND) {
                    nv[j] = xa + j < W ? nd[xa + j] : 0;
                    nsum += nv[j];
                }
            }
            unsigned long long before, total;
            scan_t(tmp).ExclusiveSum(sum, before, total);
            int nbefore = 0, ntotal = 0;
            if (ND)
                nscan_t(ntmp).ExclusiveSum(nsum, nbefore, ntotal);
            unsigned long long acc = carry + before;
            int nacc = ncarry + nbefore;
            for (int j = 0; j < 4; j++) {
                acc += v[j];
                if (xa + j < W)
                    d[xa + j] = acc;
                if (ND) {
                    nacc += nv[j];
                    if (xa + j < W)
                        nd[xa + j] = nacc;
                }
            }
            carry += total;
            ncarry += ntotal;
            __syncthreads(); /* the scans' storage is used again */
        }
    }
}

/* Step 3b: a thread per (column, segment of SPARSE_SEG rows) sums its
 * segment into seg[segment][column] (and nseg). */
template <bool ND>
__global__ void __launch_bounds__(256)
    sparse_segsum_kernel(const sparse_params sp, unsigned long long *seg, int *nseg)
{
    const int W = sp.W;
    const long long cells = (long long)W * sparse_segments(sp);
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < cells;
         c += (long long)gridDim.x * blockDim.x) {
        const sparse_cell k = sparse_cell_of(sp, c);
        unsigned long long s = 0;
        int n = 0;
        for (int r = k.ra; r < k.rb; r++) {
            s += sp.diff[(size_t)r * W + k.x];
            if (ND)
                n += sp.ndiff[(size_t)r * W + k.x];
        }
        seg[c] = s;
        if (ND)
            nseg[c] = n;
    }
}

/* Step 3c: a thread per column turns the segments' sums into what comes
 * before each (exclusive, in place). */
template <bool ND>
__global__ void __launch_bounds__(256)
    sparse_segscan_kernel(const sparse_params sp, unsigned long long *seg, int *nseg)
{
    const int W = sp.W, nsegs = sparse_segments(sp);
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < W; x += gridDim.x * blockDim.x) {
        unsigned long long s = 0;
        int n = 0;
        for (int g = 0; g < nsegs; g++) {
            const size_t c = (size_t)g * W + x;
            const unsigned long long v = seg[c];
            seg[c] = s;
            s += v;
            if (ND) {
                const int m = nseg[c];
                nseg[c] = n;
                n += m;
            }
        }
    }
}

/* Step 3d: a thread per (column, segment) sums down its segment from what
 * came before it and finishes each pixel into out (W apart). */
template <bool ND>
__global__ void __launch_bounds__(256)
    sparse_finish_kernel(const sparse_params sp, const uint32_t *plane,
                         const unsigned long long *seg, const int *nseg, const long long *t,
                         const win_measure m, float *out)
{
    const int W = sp.W;
    const long long cells = (long long)W * sparse_segments(sp);
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < cells;
         c += (long long)gridDim.x * blockDim.x) {
        const sparse_cell k = sparse_cell_of(sp, c);
        unsigned long long s = seg[c];
        int n = ND ? nseg[c] : 0;
        for (int r = k.ra; r < k.rb; r++) {
            s += sp.diff[(size_t)r * W + k.x];
            if (ND)
                n += sp.ndiff[(size_t)r * W + k.x];
            const int y = sp.y0 + r;
            const uint32_t centre = ND ? __ldg(plane + (size_t)(y - sp.in_y0) * W + k.x) : 0;
            out[(size_t)r * W + k.x] = sparse_finish_px<ND>(sp, t, m, k.x, y, s, n, centre);
        }
    }
}

#endif /* __CUDACC__ */

#endif
