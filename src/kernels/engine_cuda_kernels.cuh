/*
 * engine_cuda_kernels.cuh - the CUDA kernels of the GPU engine (included by
 * engine_cuda.cu only).
 *
 * Every kernel gives the bits of the CPU engine: codes come from the shared
 * rule (entropy_rule.h), each window's D = T[n] - sum_v T[c_v] is an exact
 * int64 sum (so the order of the updates does not matter), and the last
 * step is winent_finish with IEEE division and no FMA.
 *
 * Work split (all paths): one thread owns one output column x and slides
 * its window down a segment of `th` output rows: each step removes the row
 * leaving the window and adds the row entering it (2 * kx updates per
 * pixel). Threads of a warp own adjacent columns, so their loads of the code
 * plane and their stores of the output are coalesced. Each thread's
 * histogram is private: no barriers, no atomics.
 *
 *   smem:  codes < 256. A direct histogram per thread in shared memory,
 *          8-bit counters (windows of at most 255 pixels) or 16-bit ones,
 *          packed into 32-bit words laid out [word][thread] so the 32 lanes
 *          of a warp always hit 32 different banks.
 *          Planes of 8-bit codes whose largest code is below 16 (found on
 *          the device per chunk) use a 16-code histogram.
 *   hash:  any code. An open-addressing table per thread (linear probing,
 *          load <= 1/2, backward-shift deletion), entries (count, key) in
 *          one 32- or 64-bit word, laid out [slot][thread]; in shared memory
 *          when small, else in a global workspace with a grid-stride loop.
 */
#ifndef WINENT_ENGINE_CUDA_KERNELS_CUH
#define WINENT_ENGINE_CUDA_KERNELS_CUH

#include <stdint.h>

#include <type_traits>

#include "entropy_rule.h"

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
};

/* The sliding code is host-and-device so that it can also be run on a
 * host (a debugging twin of the grid); the kernels themselves are device
 * code. */
#define KHD __host__ __device__ __forceinline__
#if defined(__CUDA_ARCH__)
#define KLDG(p) __ldg(p)
#else
#define KLDG(p) (*(p))
#endif

/* The bits the CPU engine writes for a pixel whose centre is not counted
 * (glibc's NAN). */
#define WINENT_GPU_NAN_BITS 0x7fc00000

/* ---- Codes: samples -> code plane --------------------------------------- */

template <typename S> __device__ __forceinline__ uint32_t code_of(const winent_code_rule *r, S v)
{
    return winent_code_int(r, (int64_t)v);
}
template <> __device__ __forceinline__ uint32_t code_of<float>(const winent_code_rule *r, float v)
{
    return winent_code_f32(r, v);
}
template <> __device__ __forceinline__ uint32_t code_of<double>(const winent_code_rule *r, double v)
{
    return winent_code_f64(r, v);
}

/* C is the plane's type; the NODATA code becomes its all-ones sentinel. A
 * plane narrower than 32 bits is only chosen when every code and the
 * sentinel fit (engine_cuda.cu, choose_layout). */
template <typename S, typename C>
__global__ void codes_kernel(const S *__restrict__ in, C *__restrict__ out, size_t count,
                             winent_code_rule r)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        uint32_t c = code_of<S>(&r, in[i]);
        out[i] = c == WINENT_NODATA_CODE ? (C)~(C)0 : (C)c;
    }
}

/* ---- Shared pieces of the sliding window -------------------------------- */

template <typename C> KHD uint32_t load_code(const C *p)
{
    return (uint32_t)KLDG(p);
}

KHD float finish_px(long long s, int n, const long long *t)
{
    return winent_finish((int64_t)(KLDG(t + n) - s), n);
}

KHD float nan_px()
{
#if defined(__CUDA_ARCH__)
    return __int_as_float(WINENT_GPU_NAN_BITS);
#else
    union { uint32_t u; float f; } v = {WINENT_GPU_NAN_BITS};
    return v.f;
#endif
}

/* Geometry of one tile: columns [nt * cx, ...), rows [ya, yb). */
KHD void tile_rows(const win_params &p, int tile, int nt, int tid, int *x, int *ya, int *yb)
{
    int cx = tile % p.tiles_x, seg = tile / p.tiles_x;
    *x = cx * nt + tid;
    *ya = p.y0 + seg * p.th;
    *yb = min(p.y1, *ya + p.th);
}

/* The slide, generic over the histogram (H provides add/remove and the
 * running s, n). */
template <typename C, bool ND, typename Hist>
KHD void slide_column(const win_params &p, Hist &h, int x, int ya, int yb)
{
    const C *plane = (const C *)p.plane;
    const uint32_t sent = (uint32_t)(C)~(C)0;
    const int W = p.W, H = p.H;
    const int x0 = max(0, x - p.rx), x1 = min(W - 1, x + p.rx);
    const int wy0 = max(0, ya - p.ry), wy1 = min(H - 1, ya + p.ry);
    for (int yy = wy0; yy <= wy1; yy++) {
        const C *row = plane + (size_t)(yy - p.in_y0) * W;
        for (int xx = x0; xx <= x1; xx++) {
            uint32_t v = load_code(row + xx);
            if (!ND || v != sent)
                h.add(v);
        }
    }
    for (int y = ya;;) {
        uint32_t centre = load_code(plane + (size_t)(y - p.in_y0) * W + x);
        float r = (ND && centre == sent) ? nan_px() : finish_px(h.s, h.n, p.t);
        p.out[(size_t)(y - p.y0) * W + x] = r;
        if (++y >= yb)
            break;
        int yout = y - p.ry - 1, yin = y + p.ry;
        const C *ro = plane + (size_t)(yout - p.in_y0) * W;
        const C *ri = plane + (size_t)(yin - p.in_y0) * W;
        if (yout >= 0 && yin < H) {
            for (int xx = x0; xx <= x1; xx++) {
                uint32_t o = load_code(ro + xx), i = load_code(ri + xx);
                if (o == i)
                    continue;
                if (!ND || o != sent)
                    h.remove(o);
                if (!ND || i != sent)
                    h.add(i);
            }
        } else if (yout >= 0) {
            for (int xx = x0; xx <= x1; xx++) {
                uint32_t o = load_code(ro + xx);
                if (!ND || o != sent)
                    h.remove(o);
            }
        } else if (yin < H) {
            for (int xx = x0; xx <= x1; xx++) {
                uint32_t i = load_code(ri + xx);
                if (!ND || i != sent)
                    h.add(i);
            }
        }
    }
}

/* ---- smem: direct histograms of codes < 256 ------------------------------ */

template <typename CNT> struct smem_hist {
    static constexpr int PER = 4 / (int)sizeof(CNT);       /* counters per word */
    static constexpr int SHIFT = PER == 4 ? 2 : 1;
    static constexpr uint32_t MASK = (1u << (8 * sizeof(CNT))) - 1u;
    uint32_t *w; /* this thread's column of words: w[i * stride] */
    int stride;
    const long long *du;
    long long s;
    int n;

    KHD void add(uint32_t v)
    {
        uint32_t *pw = w + (v >> SHIFT) * stride;
        uint32_t sh = (v & (PER - 1)) * 8 * sizeof(CNT);
        uint32_t word = *pw;
        *pw = word + (1u << sh);
        s += KLDG(du + ((word >> sh) & MASK));
        n++;
    }
    KHD void remove(uint32_t v)
    {
        uint32_t *pw = w + (v >> SHIFT) * stride;
        uint32_t sh = (v & (PER - 1)) * 8 * sizeof(CNT);
        uint32_t word = *pw;
        *pw = word - (1u << sh);
        s -= KLDG(du + ((word >> sh) & MASK) - 1);
        n--;
    }
};

/* NC: how many codes the histogram holds (16 or 256). Both variants are
 * launched for a chunk whose plane is 8-bit; `maxcode` (written by
 * maxcode_kernel on the same stream) says which one works, the other
 * returns at once. A 16-code histogram is 16x smaller, so many more
 * threads fit on an SM (the 256-code one is limited by shared memory). */
template <typename C, bool ND, typename CNT, int NC>
__global__ void smem_kernel(const win_params p, const unsigned *maxcode)
{
    extern __shared__ uint32_t sh_words[];
    constexpr int WORDS = NC / smem_hist<CNT>::PER;
    if (maxcode != NULL) {
        unsigned m = *maxcode;
        if (NC == 16 ? m >= 16u : m < 16u)
            return;
    }
    const int nt = blockDim.x;
    for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        int x, ya, yb;
        tile_rows(p, tile, nt, threadIdx.x, &x, &ya, &yb);
        if (x >= p.W || ya >= yb)
            continue;
#pragma unroll 4
        for (int i = 0; i < WORDS; i++)
            sh_words[i * nt + threadIdx.x] = 0;
        smem_hist<CNT> h = {sh_words + threadIdx.x, nt, p.du, 0, 0};
        slide_column<C, ND>(p, h, x, ya, yb);
    }
}

/* ---- pack16: codes < 16, windows of at most 31 pixels ------------------- */

/* Register-packed counts, no per-pixel histogram updates. Each lane of a
 * warp owns one input column x and slides down; its column pack C holds the
 * counts of the ky codes of column x in the window rows as 16 nibbles
 * (C = sum 16^v c_v, exact as a 64-bit integer, every nibble <= ky <= 15).
 * Per row C gets +16^in - 16^out (two 64-bit shifts), then is split into
 * byte lanes, bins in pairs (2k, 2k+1):
 *     A byte k = 8 * (c_2k + c_2k+1),   O byte k = c_2k+1,
 * and the window's bytes are the sums of kx neighbouring lanes' A and O
 * (warp shuffles; every sum <= 8 * kx * ky <= 248, no carries). Bytes
 * (A_k, O_k) side by side read as a 16-bit number 8 * (e + 33 o): the byte
 * offset of pt[e + 33 o] = T[e] + T[o], so each pair of bins costs one PRMT,
 * one extract and one 64-bit shared load (the 33 spreads nearby (e, o) over
 * the banks). S = sum over 8 pairs, D = T[n] - S: the same exact int64 as
 * any other counting, then winent_finish. A warp of 32 lanes writes the
 * 32 - 2 rx middle ones. */
#define PACK16_PT 1024 /* e + 33 o < 1024 for e + o <= 31 */

KHD uint32_t pack16_pair(uint32_t a, uint32_t o, uint32_t sel)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(a, o, sel);
#else
    uint64_t x = (uint64_t)a | ((uint64_t)o << 32);
    uint32_t r = 0;
    for (int i = 0; i < 4; i++)
        r |= (uint32_t)((x >> (8 * ((sel >> (4 * i)) & 7))) & 0xFF) << (8 * i);
    return r;
#endif
}

/* Column pack -> (A, O) words of the low or high 32 bits. */
KHD void pack16_split(uint32_t c, uint32_t *a, uint32_t *o)
{
    uint32_t od = (c >> 4) & 0x0F0F0F0Fu, ev = c & 0x0F0F0F0Fu;
    *o = od;
    *a = (ev + od) << 3;
}

/* S = sum over the 8 pairs of T[e] + T[o], from the window's A and O words. */
KHD long long pack16_sum(const long long *pt, uint32_t alo, uint32_t olo, uint32_t ahi,
                         uint32_t ohi)
{
    const char *b = (const char *)pt;
    uint32_t l0 = pack16_pair(alo, olo, 0x5140), l1 = pack16_pair(alo, olo, 0x7362);
    uint32_t l2 = pack16_pair(ahi, ohi, 0x5140), l3 = pack16_pair(ahi, ohi, 0x7362);
    long long s0 = *(const long long *)(b + (l0 & 0xFFFFu)) + *(const long long *)(b + (l0 >> 16));
    long long s1 = *(const long long *)(b + (l1 & 0xFFFFu)) + *(const long long *)(b + (l1 >> 16));
    long long s2 = *(const long long *)(b + (l2 & 0xFFFFu)) + *(const long long *)(b + (l2 >> 16));
    long long s3 = *(const long long *)(b + (l3 & 0xFFFFu)) + *(const long long *)(b + (l3 >> 16));
    return (s0 + s1) + (s2 + s3);
}

/* pt[e + 33 o] = T[e] + T[o] where e + o <= nmax, else 0 (never read). */
KHD long long pack16_pt_entry(const long long *t, int nmax, int i)
{
    int e = i % 33, o = i / 33;
    return e + o <= nmax ? t[e] + t[o] : 0;
}

/* Launched (with the 256-code smem kernel) for 8-bit planes when
 * kx * ky <= 31, ky <= 15, kx <= 15; returns at once unless the chunk's
 * largest code is below 16. Tiles are per warp: tiles_x strips of
 * 32 - 2 RX output columns times segments of th rows. */
template <int RX>
__global__ void __launch_bounds__(128) pack16_kernel(const win_params p, const unsigned *maxcode)
{
    __shared__ long long pt[PACK16_PT];
    __shared__ long long tn[32];
    if (*maxcode >= 16u)
        return;
    const int ry = p.ry, nmax = (2 * RX + 1) * (2 * ry + 1);
    for (int i = threadIdx.x; i < PACK16_PT; i += blockDim.x)
        pt[i] = pack16_pt_entry(p.t, nmax, i);
    if (threadIdx.x < 32)
        tn[threadIdx.x] = (int)threadIdx.x <= nmax ? p.t[threadIdx.x] : 0;
    __syncthreads();
    constexpr int OW = 32 - 2 * RX;
    const int lane = threadIdx.x & 31;
    const int nwarps = (gridDim.x * blockDim.x) >> 5;
    const int W = p.W, H = p.H;
    const uint8_t *plane = (const uint8_t *)p.plane;
    for (int tile = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; tile < p.tiles;
         tile += nwarps) {
        const int cx = tile % p.tiles_x, seg = tile / p.tiles_x;
        const int x = cx * OW - RX + lane;
        const int ya = p.y0 + seg * p.th, yb = min(p.y1, ya + p.th);
        const bool colok = x >= 0 && x < W;
        const bool outlane = colok && lane >= RX && lane < 32 - RX;
        const uint8_t *col = plane + (colok ? x : 0);
        unsigned long long C = 0;
        if (colok) {
            const int wy0 = max(0, ya - ry), wy1 = min(H - 1, ya + ry);
            for (int yy = wy0; yy <= wy1; yy++)
                C += 1ull << (4 * __ldg(col + (size_t)(yy - p.in_y0) * W));
        }
        const int ncols = min(W - 1, x + RX) - max(0, x - RX) + 1;
        for (int y = ya;;) {
            uint32_t alo, olo, ahi, ohi;
            pack16_split((uint32_t)C, &alo, &olo);
            pack16_split((uint32_t)(C >> 32), &ahi, &ohi);
            uint32_t sa = alo, so = olo, ta = ahi, to = ohi;
#pragma unroll
            for (int d = 1; d <= RX; d++) {
                sa += __shfl_down_sync(0xFFFFFFFFu, alo, d) + __shfl_up_sync(0xFFFFFFFFu, alo, d);
                so += __shfl_down_sync(0xFFFFFFFFu, olo, d) + __shfl_up_sync(0xFFFFFFFFu, olo, d);
                ta += __shfl_down_sync(0xFFFFFFFFu, ahi, d) + __shfl_up_sync(0xFFFFFFFFu, ahi, d);
                to += __shfl_down_sync(0xFFFFFFFFu, ohi, d) + __shfl_up_sync(0xFFFFFFFFu, ohi, d);
            }
            if (outlane) {
                long long s = pack16_sum(pt, sa, so, ta, to);
                int n = ncols * (min(H - 1, y + ry) - max(0, y - ry) + 1);
                p.out[(size_t)(y - p.y0) * W + x] = winent_finish((int64_t)(tn[n] - s), n);
            }
            if (++y >= yb)
                break;
            if (colok) {
                const int yout = y - ry - 1, yin = y + ry;
                if (yin < H)
                    C += 1ull << (4 * __ldg(col + (size_t)(yin - p.in_y0) * W));
                if (yout >= 0)
                    C -= 1ull << (4 * __ldg(col + (size_t)(yout - p.in_y0) * W));
            }
        }
    }
}

/* The largest byte of an 8-bit code plane, into *out (zeroed before). */
__global__ void maxcode_kernel(const uint8_t *__restrict__ plane, size_t count, unsigned *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = 0;
    const uint4 *v = (const uint4 *)plane; /* cudaMalloc'd: 16-byte aligned */
    size_t nv = count / 16;
    for (size_t i = i0; i < nv; i += stride) {
        uint4 q = __ldg(v + i);
        m = __vmaxu4(m, __vmaxu4(__vmaxu4(q.x, q.y), __vmaxu4(q.z, q.w)));
    }
    for (size_t i = nv * 16 + i0; i < count; i += stride)
        m = max(m, (unsigned)plane[i]);
    m = max(max(m & 0xFFu, (m >> 8) & 0xFFu), max((m >> 16) & 0xFFu, m >> 24));
    for (int o = 16; o > 0; o >>= 1)
        m = max(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    if ((threadIdx.x & 31) == 0)
        atomicMax(out, m);
}

/* ---- hash: per-thread open addressing ------------------------------------ */

/* An entry is (count << KEYBITS) | key; count 0 means empty (a key is
 * deleted when its count drops to 0), so an all-zero table is empty.
 * 16-bit code planes use 32-bit entries (half the shared memory, twice the
 * threads per SM); wider ones 64-bit entries. */
template <typename E> struct hash_table {
    static constexpr int KEYBITS = sizeof(E) == 4 ? 16 : 32;
    static constexpr E KEYMASK = (E)((((E)1) << KEYBITS) - 1);
    E *e; /* entry of slot i at e[i * stride] */
    size_t stride;
    uint32_t mask;
    int bits;
    const long long *du;
    long long s;
    int n;

    KHD uint32_t home(uint32_t key) const
    {
        return (key * 2654435761u) >> (32 - bits);
    }
    KHD void add(uint32_t v)
    {
        uint32_t i = home(v);
        for (;;) {
            E x = e[i * stride];
            uint32_t c = (uint32_t)(x >> KEYBITS);
            if (c == 0) {
                e[i * stride] = (((E)1) << KEYBITS) | (E)v;
                s += KLDG(du);
                break;
            }
            if ((uint32_t)(x & KEYMASK) == v) {
                e[i * stride] = x + (((E)1) << KEYBITS);
                s += KLDG(du + c);
                break;
            }
            i = (i + 1) & mask;
        }
        n++;
    }
    KHD void remove(uint32_t v)
    {
        uint32_t i = home(v);
        E x;
        for (;;) { /* the key is present: it was added before */
            x = e[i * stride];
            if ((uint32_t)(x & KEYMASK) == v && (x >> KEYBITS) != 0)
                break;
            i = (i + 1) & mask;
        }
        uint32_t c = (uint32_t)(x >> KEYBITS);
        s -= KLDG(du + c - 1);
        n--;
        if (c > 1) {
            e[i * stride] = x - (((E)1) << KEYBITS);
            return;
        }
        /* Backward-shift deletion keeps every probe chain unbroken without
         * tombstones, so the table never fills up as values pass by. */
        uint32_t j = i;
        for (;;) {
            j = (j + 1) & mask;
            E y = e[j * stride];
            if ((y >> KEYBITS) == 0)
                break;
            uint32_t hk = home((uint32_t)(y & KEYMASK));
            bool stays = i <= j ? (i < hk && hk <= j) : (i < hk || hk <= j);
            if (!stays) {
                e[i * stride] = y;
                i = j;
            }
        }
        e[i * stride] = 0;
    }
};

template <typename C, bool ND, bool SHARED>
__global__ void hash_kernel(const win_params p)
{
    typedef typename std::conditional<sizeof(C) == 2, uint32_t, unsigned long long>::type E;
    extern __shared__ unsigned long long sh_entries[];
    const uint32_t size = 1u << p.bits;
    const int nt = blockDim.x;
    E *base;
    size_t stride;
    if (SHARED) {
        base = (E *)sh_entries + threadIdx.x;
        stride = blockDim.x;
    } else {
        base = (E *)p.ws + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        stride = (size_t)gridDim.x * blockDim.x;
    }
    for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        int x, ya, yb;
        tile_rows(p, tile, nt, threadIdx.x, &x, &ya, &yb);
        if (x >= p.W || ya >= yb)
            continue;
#pragma unroll 4
        for (uint32_t i = 0; i < size; i++)
            base[i * stride] = 0;
        hash_table<E> h = {base, stride, size - 1, p.bits, p.du, 0, 0};
        slide_column<C, ND>(p, h, x, ya, yb);
    }
}

#endif
