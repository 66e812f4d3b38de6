/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_launch.cu - the GPU kernel families' launches (gpu_launch_*,
 * which the table gpu_families of engine_cuda_choose.cu points at), the
 * codes pass and the largest-code prepass, and what the kernels need from
 * the device (the groups layout's occupancy, the kernels' shared memory,
 * the equal-code cliques' buffers): every kernel's template instance is
 * here, the kernels in engine_cuda_*.cuh. engine_cuda.cu, the engine,
 * calls these; nothing here calls the engine or the choice.
 */
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdint.h>
#include <string.h>

#include "entropy_rule.h"
#include "engine_cuda_kernels.cuh"
#include "engine_cuda_warp.cuh"
#include "engine_cuda_dense.cuh"
#include "engine_cuda_block.cuh"
#include "engine_cuda_cmp.cuh"
#include "engine_cuda_groups.cuh"
#include "engine_cuda_colpack.cuh"
#include "engine_cuda_sparse.cuh"
#include "engine_cuda_disk.cuh"
#include "engine_cuda_majority.cuh"
#include "engine_cuda_internal.cuh"
#include "cuda_smem.cuh"

/* ---- Kernel dispatch ------------------------------------------------------ */

template <typename C>
static const void *codes_fn_for(winent_dtype t)
{
    switch (t) {
    case WINENT_U8: return (const void *)codes_kernel<uint8_t, C>;
    case WINENT_I8: return (const void *)codes_kernel<int8_t, C>;
    case WINENT_U16: return (const void *)codes_kernel<uint16_t, C>;
    case WINENT_I16: return (const void *)codes_kernel<int16_t, C>;
    case WINENT_U32: return (const void *)codes_kernel<uint32_t, C>;
    case WINENT_I32: return (const void *)codes_kernel<int32_t, C>;
    case WINENT_F32: return (const void *)codes_kernel<float, C>;
    case WINENT_F64: return (const void *)codes_kernel<double, C>;
    default: return NULL;
    }
}

static const void *codes_fn(const winent_gpu_engine *e)
{
    winent_dtype t = e->plan->opts.dtype;
    switch (e->plane_bytes) {
    case 1: return codes_fn_for<uint8_t>(t);
    case 2: return codes_fn_for<uint16_t>(t);
    default: return codes_fn_for<uint32_t>(t);
    }
}

/* The 16-code smem kernel of 8-bit planes (the small family FAM_SMEM16),
 * with counters of `cnt_bytes`; a disk's own. */
static const void *smem16_fn(int cnt_bytes, bool disk)
{
    if (disk)
        return cnt_bytes == 1 ? (const void *)smem_kernel<uint8_t, false, uint8_t, 16, slide_disk>
                              : (const void *)smem_kernel<uint8_t, false, uint16_t, 16, slide_disk>;
    return cnt_bytes == 1 ? (const void *)smem_kernel<uint8_t, false, uint8_t, 16>
                          : (const void *)smem_kernel<uint8_t, false, uint16_t, 16>;
}

template <typename C, bool ND, bool PACKED> static const void *cmp_fn_c(int k)
{
    switch (k) {
    case 3: return (const void *)cmp_kernel<C, ND, 3, PACKED>;
    case 5: return (const void *)cmp_kernel<C, ND, 5, PACKED>;
    case 7: return (const void *)cmp_kernel<C, ND, 7, PACKED>;
    default: return (const void *)cmp_kernel<C, ND, 9, PACKED>;
    }
}

/* The compare kernel of a square window of side 3, 5, 7 or 9 (cmp_fits):
 * 16-bit codes two to a word where the engine chose it (cmp_packed). */
static const void *cmp_fn(const winent_gpu_engine *e)
{
    int k = e->plan->kx;
    if (e->cmp_packed) /* 16-bit planes only */
        return e->nd ? cmp_fn_c<uint16_t, true, true>(k) : cmp_fn_c<uint16_t, false, true>(k);
    if (e->plane_bytes == 2)
        return e->nd ? cmp_fn_c<uint16_t, true, false>(k) : cmp_fn_c<uint16_t, false, false>(k);
    return e->nd ? cmp_fn_c<uint32_t, true, false>(k) : cmp_fn_c<uint32_t, false, false>(k);
}

/* The groups kernel of the plane. */
static const void *groups_fn(const winent_gpu_engine *e)
{
    if (e->plane_bytes == 2)
        return e->nd ? (const void *)groups_kernel<uint16_t, true>
                     : (const void *)groups_kernel<uint16_t, false>;
    return e->nd ? (const void *)groups_kernel<uint32_t, true>
                 : (const void *)groups_kernel<uint32_t, false>;
}

/* The thread-per-window kernel of the path for the window's shape
 * (slide_square or slide_disk: engine_cuda_disk.cuh). */
template <typename SLIDE> static const void *thread_fn(const winent_gpu_engine *e)
{
    if (e->path == PATH_SMEM) {
        if (e->plane_bytes == 1)
            return e->cnt_bytes == 1
                       ? (const void *)smem_kernel<uint8_t, false, uint8_t, 256, SLIDE>
                       : (const void *)smem_kernel<uint8_t, false, uint16_t, 256, SLIDE>;
        return e->cnt_bytes == 1 ? (const void *)smem_kernel<uint16_t, true, uint8_t, 256, SLIDE>
                                 : (const void *)smem_kernel<uint16_t, true, uint16_t, 256, SLIDE>;
    }
    bool sh = e->path == PATH_HASH_SHARED;
    if (e->plane_bytes == 2) {
        if (e->nd)
            return sh ? (const void *)hash_kernel<uint16_t, true, true, SLIDE>
                      : (const void *)hash_kernel<uint16_t, true, false, SLIDE>;
        return sh ? (const void *)hash_kernel<uint16_t, false, true, SLIDE>
                  : (const void *)hash_kernel<uint16_t, false, false, SLIDE>;
    }
    if (e->nd)
        return sh ? (const void *)hash_kernel<uint32_t, true, true, SLIDE>
                  : (const void *)hash_kernel<uint32_t, true, false, SLIDE>;
    return sh ? (const void *)hash_kernel<uint32_t, false, true, SLIDE>
              : (const void *)hash_kernel<uint32_t, false, false, SLIDE>;
}

/* The window kernel of the path: the thread-per-window kernel of the
 * window's shape, or the groups, block or compare kernel. */
static const void *window_fn(const winent_gpu_engine *e)
{
    if (e->plan->shaped)
        return thread_fn<slide_disk>(e);
    if (e->path == PATH_BLOCK && e->plane_bytes == 4)
        return e->nd ? (const void *)block_kernel<uint32_t, true>
                     : (const void *)block_kernel<uint32_t, false>;
    if (e->path == PATH_BLOCK)
        return e->nd ? (const void *)block_kernel<uint16_t, true>
                     : (const void *)block_kernel<uint16_t, false>;
    if (e->path == PATH_GROUPS)
        return groups_fn(e);
    if (e->path == PATH_CMP)
        return cmp_fn(e);
    return thread_fn<slide_square>(e);
}

/* Columns per lane of the warp kernels: ceil(kx / 32), rounded up to 1, 2,
 * 4 or 8 (kx <= 255). */
static int warp_cols(int kx)
{
    int m = (kx + 31) / 32;
    return m <= 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : 8;
}

template <int M> static const void *warp_fn_m(const winent_gpu_engine *e)
{
    bool direct = e->path == PATH_WARP_DIRECT;
    switch (e->plane_bytes) {
    case 1: return (const void *)warp_kernel<uint8_t, false, 0, M>;
    case 2:
        if (direct)
            return e->nd ? (const void *)warp_kernel<uint16_t, true, 0, M>
                         : (const void *)warp_kernel<uint16_t, false, 0, M>;
        return e->nd ? (const void *)warp_kernel<uint16_t, true, 1, M>
                     : (const void *)warp_kernel<uint16_t, false, 1, M>;
    default:
        return e->nd ? (const void *)warp_kernel<uint32_t, true, 2, M>
                     : (const void *)warp_kernel<uint32_t, false, 2, M>;
    }
}

/* The warp-per-window kernel of a warp path. */
static const void *warp_fn(const winent_gpu_engine *e)
{
    switch (warp_cols(e->plan->kx)) {
    case 1: return warp_fn_m<1>(e);
    case 2: return warp_fn_m<2>(e);
    case 4: return warp_fn_m<4>(e);
    default: return warp_fn_m<8>(e);
    }
}

/* The direct warp kernel of a 16-bit plane's dense ranks. */
static const void *dense_fn(const winent_gpu_engine *e)
{
    switch (warp_cols(e->plan->kx)) {
    case 1: return e->nd ? (const void *)warp_kernel<uint16_t, true, 0, 1>
                         : (const void *)warp_kernel<uint16_t, false, 0, 1>;
    case 2: return e->nd ? (const void *)warp_kernel<uint16_t, true, 0, 2>
                         : (const void *)warp_kernel<uint16_t, false, 0, 2>;
    case 4: return e->nd ? (const void *)warp_kernel<uint16_t, true, 0, 4>
                         : (const void *)warp_kernel<uint16_t, false, 0, 4>;
    default: return e->nd ? (const void *)warp_kernel<uint16_t, true, 0, 8>
                          : (const void *)warp_kernel<uint16_t, false, 0, 8>;
    }
}

static const void *few_fn(int kx)
{
    switch (warp_cols(kx)) {
    case 1: return (const void *)few_kernel<1>;
    case 2: return (const void *)few_kernel<2>;
    case 4: return (const void *)few_kernel<4>;
    default: return (const void *)few_kernel<8>;
    }
}

/* The column-pack kernel of a window of radius rx <= 127: slots of 32
 * columns a lane, (32 + 2 rx) / 32 rounded up. */
template <bool TS> static const void *colpack_fn_ts(int rx)
{
    switch ((32 + 2 * rx + 31) / 32) {
    case 1: return (const void *)colpack_kernel<1, TS>;
    case 2: return (const void *)colpack_kernel<2, TS>;
    case 3: return (const void *)colpack_kernel<3, TS>;
    case 4: return (const void *)colpack_kernel<4, TS>;
    case 5: return (const void *)colpack_kernel<5, TS>;
    case 6: return (const void *)colpack_kernel<6, TS>;
    case 7: return (const void *)colpack_kernel<7, TS>;
    case 8: return (const void *)colpack_kernel<8, TS>;
    default: return (const void *)colpack_kernel<9, TS>;
    }
}

/* The column-pack kernel for the plan's window: by column pairs where they
 * fit (H100, 16 values: 31x31 39.0 -> 50.9 Gpixel/s, 13x13 42.0 -> 54.8),
 * else by slots of 32 columns; ts: with T in shared memory. */
static const void *colpack_fn(const winent_plan *p, bool ts)
{
    if (colpack_pairs(p))
        return ts ? (const void *)colpair_kernel<true> : (const void *)colpair_kernel<false>;
    return ts ? colpack_fn_ts<true>(p->rx) : colpack_fn_ts<false>(p->rx);
}

static const void *pack16_fn(int rx)
{
    switch (rx) {
    case 0: return (const void *)pack16x2_kernel<0>;
    case 1: return (const void *)pack16x2_kernel<1>;
    case 2: return (const void *)pack16x2_kernel<2>;
    case 3: return (const void *)pack16x2_kernel<3>;
    case 4: return (const void *)pack16x2_kernel<4>;
    case 5: return (const void *)pack16x2_kernel<5>;
    case 6: return (const void *)pack16x2_kernel<6>;
    default: return (const void *)pack16x2_kernel<7>;
    }
}

/* The groups kernel's layout: of the candidates with the tallest tile that
 * fits, the one that keeps the most threads on an SM (shared memory and
 * registers, as the occupancy calculator counts them); on a tie the first
 * (32-bit slots, then the emptier table). */
groups_geom gpu_groups_layout(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    const void *fn = groups_fn(e);
    if (winent_cuda_allow_smem(fn, 0) != cudaSuccess)
        (void)cudaGetLastError();
    groups_geom best = groups_geom_for(p->rx, p->ry, e->plane_bytes, e->smem_optin);
    int most = -1;
    for (int k = 0; k < GROUPS_CANDIDATES; k++) {
        groups_geom g = groups_geom_candidate(p->rx, p->ry, e->plane_bytes, e->smem_optin, k);
        if (g.th != best.th)
            continue;
        int blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, g.threads, (size_t)g.bytes) !=
            cudaSuccess) {
            (void)cudaGetLastError();
            blocks = 1;
        }
        if (blocks * g.threads > most) {
            most = blocks * g.threads;
            best = g;
        }
    }
    return best;
}

/* Rows per thread segment: long enough that building the first window
 * (kx * ky updates) costs little against sliding (2 * kx per row), short
 * enough to give the GPU enough blocks of `threads` columns. */
static int segment_rows(const winent_gpu_engine *e, int W, int rows, int threads)
{
    int ky = e->plan->ky;
    int th = std::max(64, 4 * ky);
    int cols = (W + threads - 1) / threads;
    int want_blocks = 4 * e->sms;
    while (th > 16 && th > ky && (long)cols * ((rows + th - 1) / th) < want_blocks)
        th /= 2;
    return std::max(1, th);
}

/* Rows per warp segment (at most `most`): as above, with a warp per column
 * and at least 32 warps per SM to hide latency. */
static int warp_segment_rows(const winent_gpu_engine *e, int W, int rows, int most)
{
    int th = std::max(1, std::min(most, rows));
    long want = 32L * e->sms;
    while (th > 16 && (long)W * ((rows + th - 1) / th) < want)
        th /= 2;
    return th;
}

/* Launch `fn` with its arguments on the slot's stream; on failure return
 * CUDA's words for it. */
#define LAUNCH(fn, grid, block, smem, ...)                                                     \
    do {                                                                                       \
        void *args_[] = {__VA_ARGS__};                                                         \
        cudaError_t ce_ = cudaLaunchKernel((fn), dim3(grid), dim3(block), args_, (smem),       \
                                           s->stream);                                         \
        if (ce_ == cudaSuccess)                                                                \
            ce_ = cudaGetLastError();                                                          \
        if (ce_ != cudaSuccess)                                                                \
            return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: launch of %s: %s", e->device,  \
                              #fn, cudaGetErrorString(ce_));                                   \
    } while (0)

/* The column-pack kernel over the chunk's rows of an 8-bit plane; it
 * returns at once unless *maxcode < 16. */
static winent_status launch_colpack(winent_gpu_engine *e, gpu_slot *s, const win_params &wp,
                                    const void *plane, const unsigned *maxcode, winent_err *err)
{
    /* Strips of 32 columns; segments short enough for 16 warps an SM (a
     * segment's first window costs only column updates), from 128 rows for
     * windows 63 or more rows tall, whose first windows weigh more (H100,
     * 16 values: 24.8 -> 27.6 Gpixel/s at 63x63, 7.9 -> 9.1 at 255x255;
     * 64 rows stay better at 13x13 and 31x31). */
    const int W = wp.W, rows = wp.y1 - wp.y0;
    win_params cp = wp;
    cp.plane = plane;
    cp.gate = NULL;
    long strips = (W + 31) / 32;
    cp.th = e->plan->ky >= 63 ? 128 : 64;
    while (cp.th > 16 && strips * ((rows + cp.th - 1) / cp.th) < 16L * e->sms)
        cp.th /= 2;
    long tiles = strips * ((rows + cp.th - 1) / cp.th);
    int cgrid = (int)std::min<long>((tiles + 3) / 4, (long)e->sms * 32);
    /* T in shared memory where it fits without asking (48 KB: windows of
     * up to 6143 pixels): H100, 16 values, +4 % at 31x31, +18 % at 63x63
     * against T through the read-only cache (docs/GPU-NOTES.md). */
    size_t tbytes = sizeof(long long) * (size_t)(e->plan->nmax + 1);
    bool ts = tbytes <= ((size_t)48 << 10);
    LAUNCH(colpack_fn(e->plan, ts), cgrid, 128, ts ? tbytes : 0, &cp, &maxcode);
    return WINENT_OK;
}

/* A warp kernel over the chunk's rows: tables of layout g, segments of at
 * most `most` rows. */
static winent_status launch_warp(winent_gpu_engine *e, gpu_slot *s, const win_params &wp,
                                 const void *fn, warp_geom g, size_t smem, int most,
                                 winent_err *err)
{
    const int W = wp.W, rows = wp.y1 - wp.y0;
    win_params wq = wp;
    wq.th = warp_segment_rows(e, W, rows, most);
    long tiles = (long)W * ((rows + wq.th - 1) / wq.th);
    long blocks = (tiles + g.per_block - 1) / g.per_block;
    long cap = g.global ? e->ws_warps : (long)e->sms * 32;
    int grid = (int)std::max<long>(1, std::min(blocks, cap));
    LAUNCH(fn, grid, 32 * g.per_block, smem, &wq, &g);
    return WINENT_OK;
}

/* Dense ranks of the chunk's 16-bit plane (engine_cuda_dense.cuh), in
 * place, and a direct warp kernel per tier, each gated on the number of
 * codes (before them, for at most 16 codes, the ranks as bytes and the
 * column-pack kernel); *main_gate gets the plan's kernel the chunks of
 * more codes. */
static winent_status launch_dense(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                  const win_params &wp, win_params *main_gate, winent_err *err)
{
    uint16_t *plane = (uint16_t *)wp.plane; /* the slot's own d_in or d_codes */
    size_t count = (size_t)c->width * (size_t)c->in_h;
    uint32_t *bits = s->d_bits;
    unsigned *nrank = s->d_nrank, *small = s->d_small;
    unsigned most = dense_tier_codes[DENSE_TIERS - 1];
    cudaError_t ce = cudaMemsetAsync(bits, 0, DENSE_WORDS * sizeof *bits, s->stream);
    if (ce != cudaSuccess)
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: cudaMemsetAsync: %s", e->device,
                          cudaGetErrorString(ce));
    int pblocks = (int)std::min<size_t>((count / 8 + 255) / 256 + 1, (size_t)e->sms * 4);
    int rblocks = (int)std::min<size_t>((count / 8 + DENSE_REMAP_THREADS - 1) /
                                            DENSE_REMAP_THREADS + 1, (size_t)e->sms * 2);
    if (e->nd) {
        LAUNCH((const void *)dense_presence_kernel<true>, pblocks, 256, 0, &plane, &count, &bits);
        LAUNCH((const void *)dense_remap_kernel<true>, rblocks, DENSE_REMAP_THREADS, 0, &plane,
               &count, &bits, &nrank, &most, &small);
    } else {
        LAUNCH((const void *)dense_presence_kernel<false>, pblocks, 256, 0, &plane, &count, &bits);
        LAUNCH((const void *)dense_remap_kernel<false>, rblocks, DENSE_REMAP_THREADS, 0, &plane,
               &count, &bits, &nrank, &most, &small);
    }
    if (e->dense_small) {
        uint8_t *out8 = s->d_rank8;
        int nblocks = (int)std::min<size_t>((count / 8 + 255) / 256 + 1, (size_t)e->sms * 8);
        if (e->nd)
            LAUNCH((const void *)dense_narrow_kernel<true>, nblocks, 256, 0, &plane, &count, &out8,
                   &small);
        else
            LAUNCH((const void *)dense_narrow_kernel<false>, nblocks, 256, 0, &plane, &count,
                   &out8, &small);
        win_params cw = wp;
        cw.nd15 = e->nd;
        WINENT_TRY(launch_colpack(e, s, cw, s->d_rank8, small, err));
    }
    const int seg = std::max(32, WARP_SEG_MULT * e->plan->ky);
    for (int t = 0; t < DENSE_TIERS; t++) {
        win_params wt = wp;
        wt.gate = nrank;
        wt.gate_lo = t > 0 ? dense_tier_codes[t - 1] + 1 : !e->dense_small ? 0u : e->nd ? 16u : 17u;
        wt.gate_hi = dense_tier_codes[t] + 1;
        WINENT_TRY(launch_warp(e, s, wt, dense_fn(e), e->dense_wg[t], e->dense_smem[t], seg, err));
    }
    main_gate->gate = nrank;
    main_gate->gate_lo = most + 1;
    main_gate->gate_hi = ~0u;
    return WINENT_OK;
}

/* Ranks of a 32-bit plane's chunk, in place (engine_cuda_dense.cuh), and
 * their number into *k: a round trip to the host, for the tables' size. */
static winent_status launch_rank32(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                   uint32_t *plane, unsigned *k, winent_err *err)
{
    size_t count = (size_t)c->width * (size_t)c->in_h;
    size_t slots = (size_t)1 << e->rank32_bits;
    uint32_t mask = (uint32_t)(slots - 1);
    uint32_t *keys = s->d_keys, *ranks = s->d_ranks;
    unsigned *kinfo = s->d_kinfo, h[2] = {0, 0};
    int ib = (int)std::min<size_t>((count + 255) / 256, (size_t)e->sms * 8);
    int nb = (int)std::min<size_t>(slots / 256, (size_t)e->sms * 8);
    cudaError_t ce = cudaMemsetAsync(keys, 0xFF, slots * sizeof *keys, s->stream);
    if (ce == cudaSuccess)
        ce = cudaMemsetAsync(kinfo, 0, 2 * sizeof *kinfo, s->stream);
    if (ce != cudaSuccess)
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: cudaMemsetAsync: %s", e->device,
                          cudaGetErrorString(ce));
    if (e->nd)
        LAUNCH((const void *)rank32_insert_kernel<true>, ib, 256, 0, &plane, &count, &keys, &mask,
               &kinfo);
    else
        LAUNCH((const void *)rank32_insert_kernel<false>, ib, 256, 0, &plane, &count, &keys, &mask,
               &kinfo);
    LAUNCH((const void *)rank32_number_kernel, std::max(1, nb), 256, 0, &keys, &slots, &ranks,
           &kinfo);
    if (e->nd)
        LAUNCH((const void *)rank32_remap_kernel<true>, ib, 256, 0, &plane, &count, &keys, &ranks,
               &mask, &kinfo);
    else
        LAUNCH((const void *)rank32_remap_kernel<false>, ib, 256, 0, &plane, &count, &keys, &ranks,
               &mask, &kinfo);
    ce = cudaMemcpyAsync(h, kinfo, sizeof h, cudaMemcpyDeviceToHost, s->stream);
    if (ce == cudaSuccess)
        ce = cudaStreamSynchronize(s->stream);
    if (ce != cudaSuccess)
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: chunk ranks: %s", e->device,
                          cudaGetErrorString(ce));
    *k = h[0] + h[1];
    return WINENT_OK;
}

/* Equal-code cliques (engine_cuda_sparse.cuh) of the chunk's 32-bit plane
 * into the slot's d_out; *done false (nothing written) when the chunk's
 * codes repeat too much for them, which costs one round trip. */
static winent_status launch_sparse(winent_gpu_engine *e, gpu_slot *s, const win_params &wp,
                                   int in_h, bool *done, winent_err *err)
{
    const int W = wp.W, rows = wp.y1 - wp.y0;
    const size_t count = (size_t)W * (size_t)in_h, cells = (size_t)W * (size_t)rows;
    sparse_params sp;
    memset(&sp, 0, sizeof sp);
    sp.keys = s->d_skeys;
    sp.pos = s->d_spos;
    sp.count = count;
    sp.diff = s->d_diff;
    sp.ndiff = s->d_ndiff;
    sp.a = e->d_a;
    sp.overflow = s->d_sovf;
    sp.W = W;
    sp.H = wp.H;
    sp.in_y0 = wp.in_y0;
    sp.y0 = wp.y0;
    sp.y1 = wp.y1;
    sp.rx = wp.rx;
    sp.ry = wp.ry;
    const int nsegs = sparse_segments(sp);
    unsigned overflow = 0;
    size_t sort_bytes = s->sort_bytes;
    cudaError_t ce =
        cub::DeviceRadixSort::SortPairs(s->d_sort, sort_bytes, (const uint32_t *)wp.plane,
                                        s->d_skeys, e->d_iota, s->d_spos, (int)count, 0, 32,
                                        s->stream);
    if (ce == cudaSuccess)
        ce = cudaMemsetAsync(s->d_diff, 0, cells * sizeof *s->d_diff, s->stream);
    if (ce == cudaSuccess && e->nd)
        ce = cudaMemsetAsync(s->d_ndiff, 0, cells * sizeof *s->d_ndiff, s->stream);
    if (ce == cudaSuccess)
        ce = cudaMemsetAsync(s->d_sovf, 0, sizeof *s->d_sovf, s->stream);
    if (ce != cudaSuccess)
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: cliques: %s", e->device,
                          cudaGetErrorString(ce));
    int mb = (int)std::min<size_t>((count + 255) / 256, (size_t)e->sms * 16);
    if (e->nd)
        LAUNCH((const void *)sparse_member_kernel<true>, mb, 256, 0, &sp);
    else
        LAUNCH((const void *)sparse_member_kernel<false>, mb, 256, 0, &sp);
    ce = cudaMemcpyAsync(&overflow, s->d_sovf, sizeof overflow, cudaMemcpyDeviceToHost, s->stream);
    if (ce == cudaSuccess)
        ce = cudaStreamSynchronize(s->stream);
    if (ce != cudaSuccess)
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: cliques: %s", e->device,
                          cudaGetErrorString(ce));
    *done = overflow == 0;
    if (!*done)
        return WINENT_OK;
    unsigned long long *seg = s->d_seg;
    int *nseg = s->d_nseg;
    const uint32_t *plane = (const uint32_t *)wp.plane;
    const long long *t = e->d_t;
    win_measure m = wp.m;
    float *out = s->d_out;
    int rb = std::max(1, std::min(rows, e->sms * 8));
    int cb = (int)std::max<size_t>(1, std::min<size_t>(((size_t)W * nsegs + 255) / 256,
                                                       (size_t)e->sms * 16));
    int xb = std::max(1, (W + 255) / 256);
    if (e->nd) {
        LAUNCH((const void *)sparse_rows_kernel<true>, rb, SPARSE_ROW_THREADS, 0, &sp);
        LAUNCH((const void *)sparse_segsum_kernel<true>, cb, 256, 0, &sp, &seg, &nseg);
        LAUNCH((const void *)sparse_segscan_kernel<true>, xb, 256, 0, &sp, &seg, &nseg);
        LAUNCH((const void *)sparse_finish_kernel<true>, cb, 256, 0, &sp, &plane, &seg, &nseg, &t,
               &m, &out);
    } else {
        LAUNCH((const void *)sparse_rows_kernel<false>, rb, SPARSE_ROW_THREADS, 0, &sp);
        LAUNCH((const void *)sparse_segsum_kernel<false>, cb, 256, 0, &sp, &seg, &nseg);
        LAUNCH((const void *)sparse_segscan_kernel<false>, xb, 256, 0, &sp, &seg, &nseg);
        LAUNCH((const void *)sparse_finish_kernel<false>, cb, 256, 0, &sp, &plane, &seg, &nseg, &t,
               &m, &out);
    }
    return WINENT_OK;
}

/* ---- Before the families ------------------------------------------------------ */

/* The codes pass: the slot's samples (d_in) into its code plane (d_codes),
 * unless the samples are the codes; *plane gets the one the families read. */
winent_status gpu_launch_codes(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                               const void **plane, winent_err *err)
{
    const winent_plan *p = e->plan;
    const int W = c->width;
    *plane = s->d_in;
    if (!e->zero_copy) {
        size_t count = (size_t)W * (size_t)c->in_h;
        int blocks = (int)std::min<size_t>((count + 255) / 256, (size_t)e->sms * 16);
        winent_code_rule rule = p->rule;
        void *in = s->d_in;
        void *out = s->d_codes;
        LAUNCH(codes_fn(e), blocks, 256, 0, &in, &out, &count, &rule);
        *plane = s->d_codes;
    }
    return WINENT_OK;
}

/* PREP_MAXCODE: the chunk's largest code into the slot's d_max, so the
 * small-code kernel and the window kernel after it each take the chunks
 * they fit (the other returns at once). */
winent_status gpu_launch_maxcode(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                 gpu_run *r, winent_err *err)
{
    size_t count = (size_t)c->width * (size_t)c->in_h;
    const uint8_t *pl = (const uint8_t *)r->wp.plane;
    unsigned *m = s->d_max;
    int blocks = (int)std::min<size_t>((count / 16 + 255) / 256 + 1, (size_t)e->sms * 8);
    cudaError_t ce = cudaMemsetAsync(m, 0, sizeof *m, s->stream);
    if (ce != cudaSuccess)
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: cudaMemsetAsync: %s", e->device,
                          cudaGetErrorString(ce));
    LAUNCH((const void *)maxcode_kernel, blocks, 256, 0, &pl, &count, &m);
    r->d_max = s->d_max;
    return WINENT_OK;
}

/* ---- The majority ------------------------------------------------------------ */

static const void *majority_fn(const winent_gpu_engine *e)
{
    if (e->maj_direct)
        return e->nd ? (const void *)majority_kernel<true, true>
                     : (const void *)majority_kernel<false, true>;
    return e->nd ? (const void *)majority_kernel<true, false>
                 : (const void *)majority_kernel<false, false>;
}

winent_status gpu_majority_smem(winent_gpu_engine *e, winent_err *err)
{
    if (e->maj_warps > 0)
        return WINENT_OK;
    const cudaError_t ce =
        winent_cuda_allow_smem(majority_fn(e), (size_t)e->maj_words * 4 * (size_t)e->maj_wpb);
    if (ce != cudaSuccess)
        return WINENT_ERR(err, WINENT_ERR_DEVICE,
                          "GPU %d: the majority kernel's shared memory: %s", e->device,
                          cudaGetErrorString(ce));
    return WINENT_OK;
}

winent_status gpu_launch_majority(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                  const void *plane, winent_err *err)
{
    const winent_plan *pl = e->plan;
    maj_params p;
    p.plane = (const uint32_t *)plane;
    p.out = s->d_out;
    p.W = c->width;
    p.H = c->height;
    p.in_y0 = c->in_y0;
    p.y0 = c->y0;
    p.y1 = c->y1;
    p.off = e->d_off;
    p.noff = e->maj_noff;
    p.words = e->maj_words;
    p.bits = e->maj_bits;
    p.ws = e->maj_warps > 0 ? (unsigned *)s->d_ws : NULL;
    p.rule = pl->rule;
    const long long npix = (long long)(c->y1 - c->y0) * c->width;
    const int wpb = e->maj_wpb;
    long long blocks;
    size_t smem = 0;
    if (e->maj_warps > 0) {
        blocks = e->maj_warps / wpb; /* one table a warp: never more warps */
    } else {
        blocks = std::min<long long>((npix + wpb - 1) / wpb, (long long)e->sms * 64);
        smem = (size_t)e->maj_words * 4 * (size_t)wpb;
    }
    if (blocks < 1)
        blocks = 1;
    LAUNCH(majority_fn(e), (unsigned)blocks, 32 * wpb, smem, &p);
    return WINENT_OK;
}

/* ---- The families' launches (gpu_families) ----------------------------------- */

winent_status gpu_launch_pack16(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err)
{
    /* Warp tiles: strips of 64 - 2 rx output columns. */
    const winent_plan *p = e->plan;
    const int W = c->width, rows = c->y1 - c->y0;
    const unsigned *d_max = r->d_max;
    win_params pp = r->wp;
    int ow = 64 - 2 * p->rx;
    pp.th = segment_rows(e, W, rows, 128);
    pp.tiles_x = (W + ow - 1) / ow;
    pp.tiles = pp.tiles_x * ((rows + pp.th - 1) / pp.th);
    int pgrid = (int)std::min<long>(((long)pp.tiles + 3) / 4, (long)e->sms * 16);
    size_t pt_bytes = (size_t)(PACK16_K * p->nmax + 1) * 8;
    LAUNCH(pack16_fn(p->rx), pgrid, 128, pt_bytes, &pp, &d_max);
    return WINENT_OK;
}

winent_status gpu_launch_colpack(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                 gpu_run *r, winent_err *err)
{
    (void)c;
    return launch_colpack(e, s, r->wp, r->wp.plane, r->d_max, err);
}

winent_status gpu_launch_few(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c, gpu_run *r,
                             winent_err *err)
{
    const winent_plan *p = e->plan;
    const int W = c->width, rows = c->y1 - c->y0;
    const unsigned *d_max = r->d_max;
    win_params fp = r->wp;
    fp.th = warp_segment_rows(e, W, rows, std::max(64, WARP_SEG_MULT * p->ky));
    long tiles = (long)W * ((rows + fp.th - 1) / fp.th);
    int fgrid = (int)std::min<long>((tiles + 7) / 8, (long)e->sms * 32);
    LAUNCH(few_fn(p->kx), fgrid, 256, 0, &fp, &d_max);
    return WINENT_OK;
}

winent_status gpu_launch_smem16(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err)
{
    /* The 16-code smem kernel, with the counters thread_layout chose
     * (8-bit planes always get one), whatever the main path. */
    const int W = c->width, rows = c->y1 - c->y0;
    const unsigned *d_max = r->d_max;
    win_params sp = r->wp;
    int threads = 128;
    sp.th = segment_rows(e, W, rows, threads);
    sp.tiles_x = (W + threads - 1) / threads;
    sp.tiles = sp.tiles_x * ((rows + sp.th - 1) / sp.th);
    LAUNCH(smem16_fn(e->cnt_bytes, e->plan->shaped != 0), sp.tiles, threads,
           (size_t)16 * e->cnt_bytes * threads, &sp, &d_max);
    return WINENT_OK;
}

winent_status gpu_launch_dense(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                               gpu_run *r, winent_err *err)
{
    return launch_dense(e, s, c, r->wp, &r->wp, err);
}

winent_status gpu_launch_sparse(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err)
{
    /* After a chunk the cliques could not take, the next few go straight
     * to the path's kernel. */
    if (e->sparse_skip > 0) {
        e->sparse_skip--;
        return WINENT_OK;
    }
    bool done = false;
    WINENT_TRY(launch_sparse(e, s, r->wp, c->in_h, &done, err));
    if (done)
        r->done = true;
    else
        e->sparse_skip = SPARSE_SKIP_AFTER_MISS;
    return WINENT_OK;
}

winent_status gpu_launch_block(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                               gpu_run *r, winent_err *err)
{
    /* A block a window column: segments as long as the chunk while there
     * are columns enough for every SM. */
    const int W = c->width, rows = c->y1 - c->y0;
    win_params bp = r->wp;
    bp.th = std::max(1, rows);
    while (bp.th > 64 && (long)W * ((rows + bp.th - 1) / bp.th) < 2L * e->sms)
        bp.th /= 2;
    long tiles = (long)W * ((rows + bp.th - 1) / bp.th);
    int grid = (int)std::max<long>(1, std::min(tiles, (long)e->sms * 64));
    int words = BLOCK_WORDS;
    if (e->rank32) {
        unsigned k = 0;
        WINENT_TRY(launch_rank32(e, s, c, (uint32_t *)r->wp.plane, &k, err));
        words = (int)std::max<unsigned>(1u, (k + 1) / 2);
        size_t fit = e->rank32_ws / ((size_t)words * 4);
        grid = (int)std::max<long>(1, std::min({tiles, (long)e->sms * 4, (long)fit}));
        bp.ws = (unsigned long long *)s->d_ws;
    }
    LAUNCH(window_fn(e), grid, BLOCK_THREADS, e->smem, &bp, &words);
    return WINENT_OK;
}

winent_status gpu_launch_groups(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err)
{
    const int W = c->width, rows = c->y1 - c->y0;
    win_params gp = r->wp;
    gp.tiles_x = (W + GROUPS_TW - 1) / GROUPS_TW;
    gp.tiles = gp.tiles_x * ((rows + e->gg.th - 1) / e->gg.th);
    int grid = std::max(1, std::min(gp.tiles, e->sms * 8));
    groups_geom g = e->gg;
    LAUNCH(groups_fn(e), grid, g.threads, e->smem, &gp, &g);
    return WINENT_OK;
}

winent_status gpu_launch_warp(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                              gpu_run *r, winent_err *err)
{
    (void)c;
    win_params wq = r->wp;
    if (r->d_max != NULL) {
        /* The small-code kernel before it takes chunks of codes < 16. */
        wq.gate = r->d_max;
        wq.gate_lo = 16;
        wq.gate_hi = ~0u;
    }
    return launch_warp(e, s, wq, warp_fn(e), e->wg, e->smem, e->warp_th, err);
}

/* A thread per window column segment, `threads` a block. */
static void thread_tiles(const winent_gpu_engine *e, const winent_chunk *c, win_params *wp)
{
    const int W = c->width, rows = c->y1 - c->y0;
    wp->th = segment_rows(e, W, rows, e->threads);
    wp->tiles_x = (W + e->threads - 1) / e->threads;
    wp->tiles = wp->tiles_x * ((rows + wp->th - 1) / wp->th);
}

winent_status gpu_launch_cmp(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c, gpu_run *r,
                             winent_err *err)
{
    win_params wp = r->wp;
    thread_tiles(e, c, &wp);
    LAUNCH(window_fn(e), wp.tiles, e->threads, e->smem, &wp);
    return WINENT_OK;
}

winent_status gpu_launch_thread(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err)
{
    const unsigned *d_max = r->d_max;
    win_params wp = r->wp;
    thread_tiles(e, c, &wp);
    int grid = wp.tiles;
    if (e->path == PATH_HASH_GLOBAL)
        grid = std::min(grid, e->ws_threads / e->threads);
    if (e->path == PATH_SMEM)
        LAUNCH(window_fn(e), grid, e->threads, e->smem, &wp, &d_max);
    else
        LAUNCH(window_fn(e), grid, e->threads, e->smem, &wp);
    return WINENT_OK;
}

/* ---- What the kernels need from the device --------------------------------- */

/* The equal-code cliques' buffers (every slot's, and the a_k and 0, 1,
 * 2, ... the engine shares). Best effort, after every buffer the engine
 * cannot go without: on a device short of memory the chunks take the
 * plan's kernel (the engine's sparse_off). */
void gpu_sparse_free(winent_gpu_engine *e)
{
    for (int i = 0; i < e->nslots; i++) {
        gpu_slot *s = &e->slot[i];
        cudaFree(s->d_skeys);
        cudaFree(s->d_spos);
        cudaFree(s->d_sort);
        cudaFree(s->d_diff);
        cudaFree(s->d_ndiff);
        cudaFree(s->d_seg);
        cudaFree(s->d_nseg);
        cudaFree(s->d_sovf);
        s->d_skeys = s->d_spos = NULL;
        s->d_sort = NULL;
        s->d_diff = s->d_seg = NULL;
        s->d_ndiff = s->d_nseg = NULL;
        s->d_sovf = NULL;
    }
    cudaFree(e->d_iota);
    cudaFree(e->d_a);
    e->d_iota = NULL;
    e->d_a = NULL;
}

bool gpu_sparse_alloc(winent_gpu_engine *e, size_t npix)
{
    long long a[SPARSE_MAX_PARTNERS + 2];
    sparse_coefficients((const int64_t *)e->h_t, e->plan->nmax, a);
    bool ok = cudaMalloc((void **)&e->d_a, sizeof a) == cudaSuccess &&
              cudaMemcpy(e->d_a, a, sizeof a, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMalloc((void **)&e->d_iota, npix * sizeof(uint32_t)) == cudaSuccess;
    if (ok) {
        int grid = std::max(1, std::min(e->sms * 8, (int)((npix + 255) / 256)));
        sparse_iota_kernel<<<grid, 256>>>(e->d_iota, npix);
        ok = cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    }
    const size_t segs = ((size_t)e->max_in_rows / SPARSE_SEG + 1) * (size_t)e->max_width;
    for (int i = 0; ok && i < e->nslots; i++) {
        gpu_slot *s = &e->slot[i];
        ok = cub::DeviceRadixSort::SortPairs(NULL, s->sort_bytes, (const uint32_t *)NULL,
                                             (uint32_t *)NULL, (const uint32_t *)NULL,
                                             (uint32_t *)NULL, (int)npix, 0, 32) == cudaSuccess &&
             cudaMalloc(&s->d_sort, s->sort_bytes) == cudaSuccess &&
             cudaMalloc((void **)&s->d_skeys, npix * sizeof(uint32_t)) == cudaSuccess &&
             cudaMalloc((void **)&s->d_spos, npix * sizeof(uint32_t)) == cudaSuccess &&
             cudaMalloc((void **)&s->d_diff, npix * sizeof(unsigned long long)) == cudaSuccess &&
             cudaMalloc((void **)&s->d_seg, segs * sizeof(unsigned long long)) == cudaSuccess &&
             cudaMalloc((void **)&s->d_sovf, sizeof(unsigned)) == cudaSuccess &&
             (!e->nd || (cudaMalloc((void **)&s->d_ndiff, npix * sizeof(int)) == cudaSuccess &&
                         cudaMalloc((void **)&s->d_nseg, segs * sizeof(int)) == cudaSuccess));
    }
    return ok;
}

/* The dynamic shared memory the window (or warp) kernel and the dense
 * ranks' warp kernel ask for, above the default 48 KB. */
winent_status gpu_kernels_smem(winent_gpu_engine *e, winent_err *err)
{
    winent_status st = WINENT_OK;
    const int device = e->device;
    if (e->smem > 0)
        CUDA_TRY(device,
                 winent_cuda_allow_smem(warp_path(e->path) ? warp_fn(e) : window_fn(e), e->smem));
    if (e->use[FAM_DENSE]) {
        /* The plan's warp kernel may be the same function: the larger ask. */
        size_t most = warp_path(e->path) && dense_fn(e) == warp_fn(e) ? e->smem : 0;
        for (int t = 0; t < DENSE_TIERS; t++)
            most = std::max(most, e->dense_smem[t]);
        CUDA_TRY(device, winent_cuda_allow_smem(dense_fn(e), most));
    }
fail:
    return st;
}
