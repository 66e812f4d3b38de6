/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_groups.cuh - the groups kernel of the GPU engine: windows of
 * 5x5 to 63x63 (127x127 for 32-bit codes) over many distinct codes (16- and
 * 32-bit planes), where a histogram per window is too large for shared
 * memory (included by engine_cuda_launch.cu only, after engine_cuda_kernels.cuh).
 *
 * A block computes a tile of 32 x th output pixels (th = 32, or 16 or 8
 * where 32 rows do not fit). Their windows read a region of (32 + 2 rx) x
 * (th + 2 ry) input pixels, and every code counted
 * in any of the windows is a code of the region. So instead of keeping a
 * histogram per window, the block finds the region's groups of equal codes
 * once, and adds each group's share to every window of the tile:
 *
 *   S(w) = sum over codes v of T[c_v(w)],  D(w) = T[n(w)] - S(w)
 *
 * with c_v(w) the copies of v inside window w. A code that occurs once in
 * the region adds T[1] = 0 everywhere, so only codes that repeat cost
 * anything. On the images this kernel is chosen for, codes rarely repeat
 * within a region (u16 of 65536 values: ~110 pairs in a 62 x 62 region;
 * i32 of 10^6 values at 15x15: ~2), so a tile costs little more than
 * reading its region once.
 *
 * Steps of a tile (barriers between them; a block takes tiles in turn,
 * 256 threads, or 512 when its region is past 64 x 64 and it has an SM to
 * itself):
 *   1. load the region's codes; pixels outside the image or the chunk's
 *      rows are absent by position, nodata pixels by their code (ND);
 *   2. a shared hash table of region pixel indices, keyed by their codes
 *      (linear probing, compare-and-swap): each counted pixel finds the
 *      first pixel of its code, the group's representative;
 *   3. each pixel links itself into its representative's list;
 *   4. a thread per group of g >= 2 members. The windows that hold a
 *      member at (mx, my) are a rectangle of the tile, and the windows that
 *      hold all of a set of members are the intersection of theirs. By
 *      binomial inversion, T[c] = sum over the non-empty subsets of the c
 *      members in a window of a_|subset|, a_k = sum_j (-1)^(k-j) C(k, j)
 *      T[j], and a_1 = T[1] - T[0] = 0. So for g <= GROUPS_GMOB the group
 *      adds a_|s| to the intersection rectangle of each subset s of two or
 *      more members (at most 57 for g = 6), as four corners of a 2-D
 *      difference array. Larger groups go to a list. Nodata pixels of the
 *      image add 1 to a second difference array over their windows;
 *   5. prefix sums of both difference arrays: S of the small groups, and
 *      the nodata count of each window;
 *   6. a warp per large group: the member count of every window of the
 *      tile, as a difference array of the members' rectangles and its
 *      prefix sums, then T[count] added to S where the count is 2 or more
 *      (its field cleared behind it, so fields are cleared once a block);
 *   7. per pixel: n = the window's pixels in the image minus its nodata
 *      count, D = T[n] - S, winent_finish.
 * Every addition is exact integer arithmetic (mod 2^64, and the final sum
 * fits), so the order of the additions, and which way a group was counted,
 * never changes the bits: they are the CPU engine's.
 *
 * The steps are functions of (thread, threads) and (lane) over a context
 * of shared-memory pointers, written for both host and device, so that the
 * host can run a tile as a twin of the block (tests/gpu/test_gpu_groups_twin.cu).
 */
#ifndef WINENT_ENGINE_CUDA_GROUPS_CUH
#define WINENT_ENGINE_CUDA_GROUPS_CUH

#include <stddef.h>
#include <stdint.h>

#include "engine_cuda_geom.cuh"

/* Atomics of shared memory on the device; plain operations in the host
 * twin, which runs one thread at a time. CUDA has a 16-bit atomicCAS
 * (compute capability 7.0 on) but no 16-bit atomicExch. */
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ unsigned short groups_exch16(unsigned short *q, unsigned short v)
{
    unsigned short old = *(volatile unsigned short *)q, seen;
    do {
        seen = old;
        old = atomicCAS(q, seen, v);
    } while (old != seen);
    return old;
}
#define G_ADD(p, v) atomicAdd((p), (v))
#else
template <typename T> static inline T g_add_host(T *p, T v)
{
    T o = *p;
    *p = o + v;
    return o;
}
#define G_ADD(p, v) g_add_host((p), (v))
#endif

/* One tile's view of the block's shared memory. */
template <typename C> struct groups_ctx {
    const win_params *p;
    int rx, ry;
    int tx0, ty0;          /* image position of the tile's output (0, 0) */
    int rw, rh, region, bits;
    int ylo, yhi;          /* image rows in use: [ylo, yhi) */
    unsigned long long *s; /* S: difference array, then per window */
    long long *a;          /* a_k, k <= GROUPS_GMOB */
    int *v;                /* nodata count: difference array, then per window */
    int *fields;           /* `nfields` member-count arrays */
    int nfields;
    groups_idx *link;      /* representative, then next member */
    void *slots;           /* hash table of pixel indices (16- or 32-bit), then
                              list heads; every entry < GROUPS_EMPTY or it */
    bool slot32;
    groups_idx *big;       /* representatives of the larger groups */
    unsigned *nbig;
    int th, dcells;        /* tile height, difference array cells */
    C *codes;
};

/* The slots, by their width (uniform over the block, so no divergence). */
template <typename C> KHD unsigned groups_slot(const groups_ctx<C> &c, unsigned i)
{
    return c.slot32 ? ((const uint32_t *)c.slots)[i] : ((const uint16_t *)c.slots)[i];
}
template <typename C> KHD void groups_slot_set(groups_ctx<C> &c, unsigned i, unsigned v)
{
    if (c.slot32)
        ((uint32_t *)c.slots)[i] = v;
    else
        ((uint16_t *)c.slots)[i] = (uint16_t)v;
}
/* Compare-and-swap and exchange of slot i: atomic on the device; the host
 * twin runs one thread at a time. */
template <typename C> KHD unsigned groups_slot_cas(groups_ctx<C> &c, unsigned i, unsigned cmp,
                                                   unsigned v)
{
#if defined(__CUDA_ARCH__)
    if (c.slot32)
        return atomicCAS((unsigned *)c.slots + i, cmp, v);
    return atomicCAS((unsigned short *)c.slots + i, (unsigned short)cmp, (unsigned short)v);
#else
    unsigned o = groups_slot(c, i);
    if (o == cmp)
        groups_slot_set(c, i, v);
    return o;
#endif
}
template <typename C> KHD unsigned groups_slot_exch(groups_ctx<C> &c, unsigned i, unsigned v)
{
#if defined(__CUDA_ARCH__)
    if (c.slot32)
        return atomicExch((unsigned *)c.slots + i, v);
    return groups_exch16((unsigned short *)c.slots + i, (unsigned short)v);
#else
    unsigned o = groups_slot(c, i);
    groups_slot_set(c, i, v);
    return o;
#endif
}

/* Is region pixel i in the image and in the chunk's rows? */
template <typename C> KHD bool groups_present(const groups_ctx<C> &c, int i)
{
    int x = c.tx0 - c.rx + i % c.rw, y = c.ty0 - c.ry + i / c.rw;
    return x >= 0 && x < c.p->W && y >= c.ylo && y < c.yhi;
}

template <typename C, bool ND> KHD bool groups_counted(const groups_ctx<C> &c, int i)
{
    const uint32_t sent = (uint32_t)(C)~(C)0;
    return groups_present(c, i) && (!ND || (uint32_t)c.codes[i] != sent);
}

KHD uint32_t groups_hash(uint32_t code, int bits)
{
    return (code * 0x9E3779B1u) >> (32 - bits);
}

/* Add `val` to the windows [x0, x1] x [y0, y1] of a difference array (T:
 * unsigned long long for S, int for the counts).
 * Corners past the tile's last column or row are never summed, so they
 * are left out; and the corner (0, 0), which every rectangle of a large
 * window starts at (the rectangles are clipped to the tile), goes to the
 * caller's register `at00`, which it adds once at the end: thousands of
 * atomics on one address would queue behind each other. */
template <typename T>
KHD void groups_rect(T *d, int th, int x0, int x1, int y0, int y1, T val, T *at00)
{
    if (x0 == 0 && y0 == 0)
        *at00 += val;
    else
        G_ADD(d + y0 * GROUPS_DW + x0, val);
    if (x1 + 1 < GROUPS_TW)
        G_ADD(d + y0 * GROUPS_DW + x1 + 1, (T)0 - val);
    if (y1 + 1 < th) {
        G_ADD(d + (y1 + 1) * GROUPS_DW + x0, (T)0 - val);
        if (x1 + 1 < GROUPS_TW)
            G_ADD(d + (y1 + 1) * GROUPS_DW + x1 + 1, val);
    }
}

/* The tile's windows holding region pixel i: [x0, x1] x [y0, y1], clipped
 * to the tile; false when none. */
template <typename C>
KHD bool groups_windows_of(const groups_ctx<C> &c, int i, int *x0, int *x1, int *y0, int *y1)
{
    int mx = i % c.rw, my = i / c.rw;
    *x0 = max(0, mx - 2 * c.rx);
    *x1 = min(GROUPS_TW - 1, mx);
    *y0 = max(0, my - 2 * c.ry);
    *y1 = min(c.th - 1, my);
    return *x0 <= *x1 && *y0 <= *y1;
}

/* Once per block: the fields cleared (step 6 clears behind itself) and
 * a_k, which depend on the window alone. */
template <typename C> KHD void groups_step_init(groups_ctx<C> &c, int tid, int nt)
{
    for (int i = tid; i < c.nfields * c.dcells; i += nt)
        c.fields[i] = 0;
    /* a_k = sum_j (-1)^(k-j) C(k, j) T[j]; only k <= nmax is ever used (a
     * larger set of distinct pixels fits no window). */
    if (tid <= GROUPS_GMOB) {
        const int k = tid, nmax = (2 * c.rx + 1) * (2 * c.ry + 1);
        long long acc = 0;
        if (k <= nmax) {
            long long binom = 1; /* C(k, j) */
            for (int j = 0; j <= k; j++) {
                long long term = binom * KLDG(c.p->t + j);
                acc = ((k - j) & 1) ? (long long)((unsigned long long)acc - (unsigned long long)term)
                                    : (long long)((unsigned long long)acc + (unsigned long long)term);
                binom = binom * (k - j) / (j + 1);
            }
        }
        c.a[k] = acc;
    }
}

/* Step 1: the region's codes; the hash table and the difference arrays
 * (the nodata one for ND planes only) cleared. */
template <typename C, bool ND> KHD void groups_step_load(groups_ctx<C> &c, int tid, int nt)
{
    const C *plane = (const C *)c.p->plane;
    const int W = c.p->W;
    for (int i = tid; i < c.region; i += nt) {
        int x = c.tx0 - c.rx + i % c.rw, y = c.ty0 - c.ry + i / c.rw;
        c.codes[i] = groups_present(c, i) ? (C)load_code(plane + (size_t)(y - c.p->in_y0) * W + x)
                                          : (C)~(C)0;
    }
    for (int i = tid; i < (1 << c.bits); i += nt)
        groups_slot_set(c, (unsigned)i, GROUPS_EMPTY);
    for (int i = tid; i < c.dcells; i += nt) {
        c.s[i] = 0;
        if (ND)
            c.v[i] = 0;
    }
    if (tid == 0)
        *c.nbig = 0;
}

/* Step 2: each counted pixel finds its group's representative. */
template <typename C, bool ND> KHD void groups_step_insert(groups_ctx<C> &c, int tid, int nt)
{
    const unsigned mask = (1u << c.bits) - 1;
    for (int i = tid; i < c.region; i += nt) {
        if (!groups_counted<C, ND>(c, i)) {
            c.link[i] = GROUPS_EMPTY;
            continue;
        }
        const uint32_t code = (uint32_t)c.codes[i];
        unsigned h = groups_hash(code, c.bits);
        groups_idx rep;
        for (;;) {
            groups_idx old = (groups_idx)groups_slot_cas(c, h, GROUPS_EMPTY, (unsigned)i);
            if (old == GROUPS_EMPTY) {
                rep = (groups_idx)i;
                break;
            }
            if ((uint32_t)c.codes[old] == code) {
                rep = old;
                break;
            }
            h = (h + 1) & mask;
        }
        c.link[i] = rep;
    }
}

/* Step 3a: the table becomes the list heads (indexed by representative). */
template <typename C> KHD void groups_step_heads(groups_ctx<C> &c, int tid, int nt)
{
    for (int i = tid; i < c.region; i += nt)
        groups_slot_set(c, (unsigned)i, GROUPS_EMPTY);
}

/* Step 3b: each counted pixel links itself in. */
template <typename C> KHD void groups_step_link(groups_ctx<C> &c, int tid, int nt)
{
    for (int i = tid; i < c.region; i += nt) {
        groups_idx rep = c.link[i];
        if (rep != GROUPS_EMPTY)
            c.link[i] = (groups_idx)groups_slot_exch(c, rep, (unsigned)i);
    }
}

/* Step 4: the small groups by subsets, the large ones listed; nodata
 * pixels counted over their windows. */
template <typename C, bool ND> KHD void groups_step_small(groups_ctx<C> &c, int tid, int nt)
{
    const uint32_t sent = (uint32_t)(C)~(C)0;
    unsigned long long at00 = 0; /* this thread's share of S's corner (0, 0) */
    int at00v = 0;               /* and of the nodata counts' */
    for (int i = tid; i < c.region; i += nt) {
        int x0, x1, y0, y1;
        if (ND && groups_present(c, i) && (uint32_t)c.codes[i] == sent) {
            if (groups_windows_of(c, i, &x0, &x1, &y0, &y1))
                groups_rect<int>(c.v, c.th, x0, x1, y0, y1, 1, &at00v);
            continue;
        }
        unsigned m = groups_slot(c, (unsigned)i);
        if (m == GROUPS_EMPTY || c.link[m] == GROUPS_EMPTY)
            continue; /* not a representative, or a group of one */
        int mx[GROUPS_GMOB], my[GROUPS_GMOB], g = 0;
        while (m != GROUPS_EMPTY && g <= GROUPS_GMOB) {
            if (g < GROUPS_GMOB) {
                mx[g] = (int)(m % (unsigned)c.rw);
                my[g] = (int)(m / (unsigned)c.rw);
            }
            g++;
            m = c.link[m];
        }
        if (g > GROUPS_GMOB) {
            unsigned k = G_ADD(c.nbig, 1u);
            c.big[k] = (groups_idx)i;
            continue;
        }
        const int nmax = (2 * c.rx + 1) * (2 * c.ry + 1);
        for (unsigned set = 3; set < (1u << g); set++) {
            int k = 0, hx = 0, lx = 1 << 30, hy = 0, ly = 1 << 30;
            for (int j = 0; j < g; j++)
                if (set >> j & 1) {
                    k++;
                    hx = max(hx, mx[j]);
                    lx = min(lx, mx[j]);
                    hy = max(hy, my[j]);
                    ly = min(ly, my[j]);
                }
            if (k < 2 || k > nmax)
                continue;
            x0 = max(0, hx - 2 * c.rx);
            x1 = min(GROUPS_TW - 1, lx);
            y0 = max(0, hy - 2 * c.ry);
            y1 = min(c.th - 1, ly);
            if (x0 <= x1 && y0 <= y1)
                groups_rect<unsigned long long>(c.s, c.th, x0, x1, y0, y1,
                                                (unsigned long long)c.a[k], &at00);
        }
    }
    if (at00 != 0)
        G_ADD(c.s, at00);
    if (at00v != 0)
        G_ADD(c.v, at00v);
}

/* Step 5: prefix sums of S and (ND) of the nodata counts, along rows,
 * then down columns, a thread a line (threads 0-31 S, 32-63 the counts).
 * Scanning each line with a warp's shuffles instead was 8-12 % slower on
 * the H100 (the kernel then kept step 4's member arrays on the stack). */
template <typename T> KHD void groups_scan(T *d, int step, int count)
{
    T acc = 0;
    for (int k = 0; k < count; k++)
        d[k * step] = acc += d[k * step];
}
template <typename C, bool ND> KHD void groups_step_rows(groups_ctx<C> &c, int line)
{
    if (line < c.th)
        groups_scan<unsigned long long>(c.s + line * GROUPS_DW, 1, GROUPS_TW);
    else if (ND && line < 2 * c.th)
        groups_scan<int>(c.v + (line - c.th) * GROUPS_DW, 1, GROUPS_TW);
}
template <typename C, bool ND> KHD void groups_step_cols(groups_ctx<C> &c, int line)
{
    if (line < GROUPS_TW)
        groups_scan<unsigned long long>(c.s + line, GROUPS_DW, c.th);
    else if (ND && line < 2 * GROUPS_TW)
        groups_scan<int>(c.v + (line - GROUPS_TW), GROUPS_DW, c.th);
}

/* Step 6, for large group number `gi`, by one warp (field f): (a) the
 * members' rectangles into the field, (b) prefix sums along rows (lane =
 * row), (c) down columns (lane = column), adding T[count] to S where the
 * count is 2 or more, and clearing the field behind. */
template <typename C> KHD void groups_big_rects(groups_ctx<C> &c, int f, unsigned gi, int lane)
{
    int *d = c.fields + f * c.dcells;
    int j = 0, at00 = 0;
    for (unsigned m = groups_slot(c, c.big[gi]); m != GROUPS_EMPTY; m = c.link[m], j++) {
        int x0, x1, y0, y1;
        if ((j & 31) == lane && groups_windows_of(c, (int)m, &x0, &x1, &y0, &y1))
            groups_rect<int>(d, c.th, x0, x1, y0, y1, 1, &at00);
    }
    if (at00 != 0)
        G_ADD(d, at00);
}
template <typename C> KHD void groups_big_rows(groups_ctx<C> &c, int f, int lane)
{
    if (lane < c.th)
        groups_scan<int>(c.fields + f * c.dcells + lane * GROUPS_DW, 1, GROUPS_TW);
}
template <typename C> KHD void groups_big_cols(groups_ctx<C> &c, int f, int lane)
{
    int *d = c.fields + f * c.dcells, acc = 0;
    for (int y = 0; y < c.th; y++) {
        acc += d[y * GROUPS_DW + lane];
        d[y * GROUPS_DW + lane] = 0;
        if (acc >= 2)
            G_ADD(c.s + y * GROUPS_DW + lane, (unsigned long long)KLDG(c.p->t + acc));
    }
}

/* Step 7: the tile's output pixels. */
template <typename C, bool ND> KHD void groups_step_out(groups_ctx<C> &c, int tid, int nt)
{
    const win_params &p = *c.p;
    for (int i = tid; i < GROUPS_TW * c.th; i += nt) {
        const int ox = i % GROUPS_TW, oy = i / GROUPS_TW;
        const int x = c.tx0 + ox, y = c.ty0 + oy;
        if (x >= p.W || y >= p.y1)
            continue;
        float v;
        if (!groups_counted<C, ND>(c, (oy + c.ry) * c.rw + ox + c.rx)) {
            v = nan_px();
        } else {
            int w = min(p.W - 1, x + c.rx) - max(0, x - c.rx) + 1;
            int h = min(p.H - 1, y + c.ry) - max(0, y - c.ry) + 1;
            int n = w * h - (ND ? c.v[oy * GROUPS_DW + ox] : 0);
            v = finish_px((long long)c.s[oy * GROUPS_DW + ox], n, p.t, p.m);
        }
        p.out[(size_t)(y - p.y0) * p.W + x] = v;
    }
}

/* The tile's view of shared memory at `base` (layout g). */
template <typename C>
KHD void groups_bind(groups_ctx<C> &c, const win_params &p, const groups_geom &g, char *base,
                     unsigned *nbig, int tile)
{
    c.p = &p;
    c.rx = p.rx;
    c.ry = p.ry;
    c.tx0 = (tile % p.tiles_x) * GROUPS_TW;
    c.ty0 = p.y0 + (tile / p.tiles_x) * g.th;
    c.th = g.th;
    c.dcells = g.dcells;
    c.rw = g.rw;
    c.rh = g.rh;
    c.region = g.region;
    c.bits = g.bits;
    /* Rows the stored outputs' windows need (the chunk holds them); rows
     * past them only reach outputs that are not stored. */
    c.ylo = max(0, p.y0 - p.ry);
    c.yhi = min(p.H, p.y1 + p.ry);
    c.s = (unsigned long long *)(base + g.off_s);
    c.a = (long long *)(base + g.off_a);
    c.v = (int *)(base + g.off_v);
    c.fields = (int *)(base + g.off_fields);
    c.nfields = g.fields;
    c.link = (groups_idx *)(base + g.off_link);
    c.slots = (void *)(base + g.off_slots);
    c.slot32 = g.slot_bytes == 4;
    c.big = (groups_idx *)(base + g.off_big);
    c.nbig = nbig;
    c.codes = (C *)(base + g.off_codes);
}

#if defined(__CUDACC__)
template <typename C, bool ND>
__global__ void __launch_bounds__(GROUPS_THREADS_MAX) groups_kernel(const win_params p,
                                                                const groups_geom g)
{
    extern __shared__ unsigned long long groups_smem[];
    __shared__ unsigned nbig;
    if (gate_closed(p))
        return;
    const int tid = threadIdx.x, nt = blockDim.x, warp = tid / 32, lane = tid % 32;
    {
        groups_ctx<C> c;
        groups_bind<C>(c, p, g, (char *)groups_smem, &nbig, blockIdx.x);
        groups_step_init<C>(c, tid, nt);
    }
    for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        groups_ctx<C> c;
        groups_bind<C>(c, p, g, (char *)groups_smem, &nbig, tile);
        groups_step_load<C, ND>(c, tid, nt);
        __syncthreads();
        groups_step_insert<C, ND>(c, tid, nt);
        __syncthreads();
        groups_step_heads<C>(c, tid, nt);
        __syncthreads();
        groups_step_link<C>(c, tid, nt);
        __syncthreads();
        groups_step_small<C, ND>(c, tid, nt);
        __syncthreads();
        if (tid < 2 * g.th)
            groups_step_rows<C, ND>(c, tid);
        __syncthreads();
        if (tid < 2 * GROUPS_TW)
            groups_step_cols<C, ND>(c, tid);
        __syncthreads();
        if (warp < g.fields) {
            const unsigned nb = nbig;
            for (unsigned gi = warp; gi < nb; gi += g.fields) {
                groups_big_rects<C>(c, warp, gi, lane);
                __syncwarp();
                groups_big_rows<C>(c, warp, lane);
                __syncwarp();
                groups_big_cols<C>(c, warp, lane);
                __syncwarp();
            }
        }
        __syncthreads();
        groups_step_out<C, ND>(c, tid, nt);
        __syncthreads();
    }
}
#endif

/* The host twin of a block: every step for each thread in turn, in the
 * block's order, over the tiles [t0, t1) the block would take in turn.
 * `base` holds g.bytes. */
template <typename C, bool ND>
static inline void groups_block_host(const win_params &p, const groups_geom &g, char *base, int t0,
                                     int t1)
{
    unsigned nbig = 0;
    const int nt = g.threads;
    groups_ctx<C> c;
    groups_bind<C>(c, p, g, base, &nbig, t0);
    for (int t = 0; t < nt; t++)
        groups_step_init<C>(c, t, nt);
    for (int tile = t0; tile < t1; tile++) {
        groups_bind<C>(c, p, g, base, &nbig, tile);
        for (int t = 0; t < nt; t++)
            groups_step_load<C, ND>(c, t, nt);
        for (int t = 0; t < nt; t++)
            groups_step_insert<C, ND>(c, t, nt);
        for (int t = 0; t < nt; t++)
            groups_step_heads<C>(c, t, nt);
        for (int t = 0; t < nt; t++)
            groups_step_link<C>(c, t, nt);
        for (int t = 0; t < nt; t++)
            groups_step_small<C, ND>(c, t, nt);
        for (int l = 0; l < 2 * g.th; l++)
            groups_step_rows<C, ND>(c, l);
        for (int l = 0; l < 2 * GROUPS_TW; l++)
            groups_step_cols<C, ND>(c, l);
        for (int w = 0; w < g.fields; w++)
            for (unsigned gi = w; gi < nbig; gi += g.fields) {
                for (int l = 0; l < 32; l++)
                    groups_big_rects<C>(c, w, gi, l);
                for (int l = 0; l < 32; l++)
                    groups_big_rows<C>(c, w, l);
                for (int l = 0; l < 32; l++)
                    groups_big_cols<C>(c, w, l);
            }
        for (int t = 0; t < nt; t++)
            groups_step_out<C, ND>(c, t, nt);
    }
}

#endif
