/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_kernels.cuh - the CUDA kernels of the GPU engine (included by
 * engine_cuda_launch.cu only).
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
 *   pack16: 8-bit planes with codes < 16 (same device-side choice) and
 *          windows of at most 31 pixels: register column packs, warp
 *          shuffles and a pair table; each lane owns two columns (below).
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
#include "engine_cuda_params.cuh"

/* A kernel whose gate is closed for this chunk returns at once. */
__device__ __forceinline__ bool gate_closed(const win_params &p)
{
    if (p.gate == NULL)
        return false;
    const unsigned v = *p.gate;
    return v < p.gate_lo || v >= p.gate_hi;
}

/* The sliding code is host-and-device so that it can also be run on a
 * host (a debugging twin of the grid); the kernels themselves are device
 * code. */
#define KHD __host__ __device__ __forceinline__
#if defined(__CUDA_ARCH__)
#define KLDG(p) __ldg(p)
#define KUNROLL _Pragma("unroll")
#else
#define KLDG(p) (*(p))
#define KUNROLL /* the host compiler unrolls what it likes */
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
 * sentinel fit (engine_cuda_choose.cu, gpu_choose). */
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

/* A measure other than the entropy, from S' = sum T'[c] (win_measure): out
 * of line, so that its logarithm and divisions cost the entropy's kernels
 * no registers. */
#if defined(__CUDA_ARCH__)
__noinline__
#endif
static __host__ __device__ float measure_px(long long s, int n, const win_measure &m)
{
    const winent_measure_rule r = {m.kind, m.renyi_den};
    return winent_measure_finish(&r, (int64_t)(s + (long long)n * m.t1), n,
                                 (const int64_t *)m.t0);
}

/* The pixel's value from the window's S (of the kernels' table t = T') and
 * n counted pixels: every kernel's last step, templated on nothing: the
 * measure is one uniform branch per pixel. */
KHD float finish_px(long long s, int n, const long long *t, const win_measure &m)
{
    if (m.kind == 0)
        return winent_finish((int64_t)(KLDG(t + n) - s), n);
    return measure_px(s, n, m);
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
        float r = (ND && centre == sent) ? nan_px() : finish_px(h.s, h.n, p.t, p.m);
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

/* The window's shape, as a type the thread kernels (smem_kernel,
 * hash_kernel) take: how one thread slides its column's window down a
 * segment. The square's is slide_column; the disk's, slide_disk, is in
 * engine_cuda_disk.cuh. A template argument, so each shape's kernel is
 * compiled on its own with no branch on the shape. */
struct slide_square {
    template <typename C, bool ND, typename Hist>
    static KHD void run(const win_params &p, Hist &h, int x, int ya, int yb)
    {
        slide_column<C, ND>(p, h, x, ya, yb);
    }
};

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
template <typename C, bool ND, typename CNT, int NC, typename SLIDE = slide_square>
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
        SLIDE::template run<C, ND>(p, h, x, ya, yb);
    }
}

/* ---- pack16: codes < 16, windows of at most 31 pixels ------------------- */

/* Register-packed counts, no per-pixel histogram updates. Each lane of a
 * warp owns one input column x and slides down; its column pack C holds the
 * counts of the ky codes of column x in the window rows as 16 nibbles
 * (C = sum 16^v c_v, exact as a 64-bit integer, every nibble <= ky <= 15).
 * Per row C gets +16^in - 16^out (two 64-bit shifts), then is split into
 * byte lanes, bins in pairs (2k, 2k+1):
 *     E byte k = 8 c_2k,   O byte k = c_2k+1,
 * and the window's bytes are the sums of kx neighbouring lanes' E and O
 * (warp shuffles; every sum <= 8 * kx * ky <= 248, no carries). Spread to
 * 16-bit halves (PRMT), 8 e + 8 PACK16_K o (one IMAD per two pairs) is the
 * byte offset of pt[e + PACK16_K o] = T[e] + T[o], so each pair of bins
 * costs one 64-bit shared load. S = sum over 8 pairs, D = T[n] - S: the
 * same exact int64 as any other counting, then the value of winent_finish
 * (pack16_finish). The kernel (pack16x2, below) gives each lane two
 * columns. */
/* Pair index e + 36 o: unique for e <= 31, and its bank pair (e + 4 o) mod 16
 * differs for any two (e, o) less than 4 apart in both, so the small counts
 * of nearby windows spread over the 16 bank pairs (with e + 33 o, i.e.
 * (e + o) mod 16, ncu counted 5.5-way conflicts; e + 37 o gave 3.3-way and
 * 147 Gpixel/s, e + 36 o 150). */
#define PACK16_K 36

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

/* Column pack -> (E, O) words of the low or high 32 bits: byte k of E is
 * 8 c_2k, byte k of O is c_2k+1. */
KHD void pack16_split(uint32_t c, uint32_t *a, uint32_t *o)
{
    *o = (c >> 4) & 0x0F0F0F0Fu;
    *a = (c << 3) & 0x78787878u;
}

/* Two pairs' table byte offsets 8 (e + PACK16_K o), one per 16-bit half,
 * from the E and O words and a byte selector (0x4140: pairs 0 and 1,
 * 0x4342: pairs 2 and 3). */
KHD uint32_t pack16_two(uint32_t ew, uint32_t ow, uint32_t sel)
{
    return pack16_pair(ow, 0, sel) * (8u * PACK16_K) + pack16_pair(ew, 0, sel);
}

/* S = sum over the 8 pairs of T[e] + T[o], from the window's E and O words. */
KHD long long pack16_sum(const long long *pt, uint32_t elo, uint32_t olo, uint32_t ehi,
                         uint32_t ohi)
{
    const char *b = (const char *)pt;
    uint32_t l0 = pack16_two(elo, olo, 0x4140), l1 = pack16_two(elo, olo, 0x4342);
    uint32_t l2 = pack16_two(ehi, ohi, 0x4140), l3 = pack16_two(ehi, ohi, 0x4342);
    long long s0 = *(const long long *)(b + (l0 & 0xFFFFu)) + *(const long long *)(b + (l0 >> 16));
    long long s1 = *(const long long *)(b + (l1 & 0xFFFFu)) + *(const long long *)(b + (l1 >> 16));
    long long s2 = *(const long long *)(b + (l2 & 0xFFFFu)) + *(const long long *)(b + (l2 >> 16));
    long long s3 = *(const long long *)(b + (l3 & 0xFFFFu)) + *(const long long *)(b + (l3 >> 16));
    return (s0 + s1) + (s2 + s3);
}

/* pt[e + PACK16_K o] = T[e] + T[o] where e + o <= nmax, else 0 (never
 * read); e <= 31 < PACK16_K keeps the index unique. */
KHD long long pack16_pt_entry(const long long *t, int nmax, int i)
{
    int e = i % PACK16_K, o = i / PACK16_K;
    return e + o <= nmax ? t[e] + t[o] : 0;
}

/* winent_finish(D, n) by another exact route: with b = n * 2^32 (exact),
 * y = RN(1/b), q = RN(D * y), r = D - q * b (one FMA, exact) and
 * q' = RN(q + r * y) (one FMA), q' = RN(D / b), the IEEE quotient that
 * winent_finish rounds to float. Proof for 0 <= D < 2^53 and 1 <= n <= 2^20
 * (scaling by 2^32 changes no rounding here, so take b = n, x = D / n):
 * - |D y - x| <= x 2^-53 < u = ulp(x), and rounding adds at most u, so
 *   |q - x| < 2u.
 * - r = D - q n: D is an integer and q n a multiple of min(1, ulp(q)) >= u/2,
 *   |r| = n |x - q| < 2 n u, so r has at most 22 significant bits: the FMA
 *   computes it exactly.
 * - z = q + r y = x + (x - q) d with y = (1 + d) / n, |d| <= 2^-53, so
 *   |z - x| < 2u 2^-53 = u 2^-52.
 * - x is never a midpoint between doubles (a/n with a finite binary
 *   expansion has at most 53 significant bits when a < 2^53), and a midpoint
 *   m is a multiple of u/4, so D - n m is a non-zero multiple of u/4 and
 *   |x - m| >= u / (4 n) > u 2^-52. So z and x round alike: RN(z) = RN(x).
 * Three FP64 instructions and two table reads instead of the division's
 * reciprocal iteration and slow-path test. */
KHD float pack16_finish(long long d, double b, double y)
{
    double a = (double)d;
#if defined(__CUDA_ARCH__)
    double q = __dmul_rn(a, y);
    double r = __fma_rn(-q, b, a);
    return __double2float_rn(__fma_rn(r, y, q));
#else
    double q = a * y;
    double r = __builtin_fma(-q, b, a);
    return (float)__builtin_fma(r, y, q);
#endif
}

/* pack16x2: as pack16, each lane owning two adjacent columns xa = 2L + b,
 * xb = xa + 1 of a 64-column strip (b = strip base). With P = the pair's
 * summed packs, both windows share the P of the lanes between, so a row
 * costs 2 rx + 2 shuffled words per pixel instead of 4 rx, and the strip
 * writes 64 - 2 rx columns instead of 32 - 2 rx. */
struct pack16_q {
    uint32_t w[4]; /* E lo, O lo, E hi, O hi */
};

template <int OFF> __device__ __forceinline__ pack16_q pack16_shfl(const pack16_q &v)
{
    pack16_q r;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if (OFF > 0)
            r.w[i] = __shfl_down_sync(0xFFFFFFFFu, v.w[i], OFF > 0 ? OFF : 0);
        else if (OFF < 0)
            r.w[i] = __shfl_up_sync(0xFFFFFFFFu, v.w[i], OFF < 0 ? -OFF : 0);
        else
            r.w[i] = v.w[i];
    }
    return r;
}

__device__ __forceinline__ void pack16_acc(pack16_q &s, const pack16_q &v)
{
#pragma unroll
    for (int i = 0; i < 4; i++)
        s.w[i] += v.w[i];
}

/* Sum of P at lane offsets K..KE (compile time), into s. */
template <int K, int KE> struct pack16_prange {
    static __device__ __forceinline__ void add(pack16_q &s, const pack16_q &p)
    {
        if constexpr (K <= KE) {
            pack16_acc(s, pack16_shfl<K>(p));
            pack16_prange<K + 1, KE>::add(s, p);
        }
    }
};

__device__ __forceinline__ pack16_q pack16_of(unsigned long long c)
{
    pack16_q q;
    pack16_split((uint32_t)c, &q.w[0], &q.w[1]);
    pack16_split((uint32_t)(c >> 32), &q.w[2], &q.w[3]);
    return q;
}

template <int RX>
__global__ void __launch_bounds__(128) pack16x2_kernel(const win_params p, const unsigned *maxcode)
{
    extern __shared__ long long pt[]; /* PACK16_K nmax + 1 entries */
    __shared__ long long tn[32];
    __shared__ double ty[32];
    if (*maxcode >= 16u)
        return;
    const int ry = p.ry, nmax = (2 * RX + 1) * (2 * ry + 1);
    for (int i = threadIdx.x; i <= PACK16_K * nmax; i += blockDim.x)
        pt[i] = pack16_pt_entry(p.t, nmax, i);
    if (threadIdx.x < 32) {
        tn[threadIdx.x] = (int)threadIdx.x <= nmax ? p.t[threadIdx.x] : 0;
        ty[threadIdx.x] = __drcp_rn(__dmul_rn((double)max(1, (int)threadIdx.x), WINENT_LQ_SCALE));
    }
    __syncthreads();
    /* Interior windows (n = nmax) take T[n], b and y from registers. */
    const long long tmax = p.t[nmax];
    const double bmax = __dmul_rn((double)nmax, WINENT_LQ_SCALE), ymax = __drcp_rn(bmax);
    constexpr int OW = 64 - 2 * RX, M = RX / 2;
    const int lane = threadIdx.x & 31;
    const int nwarps = (gridDim.x * blockDim.x) >> 5;
    const int W = p.W, H = p.H;
    const uint8_t *plane = (const uint8_t *)p.plane;
    for (int tile = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; tile < p.tiles;
         tile += nwarps) {
        const int cx = tile % p.tiles_x, seg = tile / p.tiles_x;
        const int xa = cx * OW - RX + 2 * lane, xb = xa + 1;
        const int ya = p.y0 + seg * p.th, yb = min(p.y1, ya + p.th);
        const bool oka = xa >= 0 && xa < W, okb = xb >= 0 && xb < W;
        const bool outa = oka && 2 * lane >= RX && 2 * lane <= 63 - RX;
        const bool outb = okb && 2 * lane + 1 >= RX && 2 * lane + 1 <= 63 - RX;
        unsigned long long Ca = 0, Cb = 0;
        {
            const int wy0 = max(0, ya - ry), wy1 = min(H - 1, ya + ry);
            const uint8_t *c = plane + (long long)(wy0 - p.in_y0) * W + xa;
            for (int yy = wy0; yy <= wy1; yy++, c += W) {
                if (oka)
                    Ca += 1ull << (4 * __ldg(c));
                if (okb)
                    Cb += 1ull << (4 * __ldg(c + 1));
            }
        }
        /* Codes entering (row y + ry + 1) and leaving (row y - ry) the
         * column packs as y steps; read only inside the image. */
        const uint8_t *pin = plane + (long long)(ya + ry + 1 - p.in_y0) * W + xa;
        const uint8_t *pout = plane + (long long)(ya - ry - p.in_y0) * W + xa;
        const int na = min(W - 1, xa + RX) - max(0, xa - RX) + 1;
        const int nb = min(W - 1, xb + RX) - max(0, xb - RX) + 1;
        float *orow = p.out + (size_t)(ya - p.y0) * W;
        for (int y = ya;;) {
            pack16_q a = pack16_of(Ca), b = pack16_of(Cb), P = a;
            pack16_acc(P, b);
            pack16_q sa, sb;
            if constexpr ((RX & 1) == 0) {
                /* xa: P[-M..M-1] + a[M]; xb: b[-M] + P[-M+1..M] */
                sa = pack16_shfl<M>(a);
                sb = pack16_shfl<-M>(b);
                pack16_q q = {{0, 0, 0, 0}};
                pack16_prange<-M + 1, M - 1>::add(q, P);
                pack16_acc(sa, q);
                pack16_acc(sb, q);
                if constexpr (M > 0) {
                    pack16_acc(sa, pack16_shfl<-M>(P));
                    pack16_acc(sb, pack16_shfl<M>(P));
                }
            } else {
                /* xa: b[-M-1] + P[-M..M]; xb: P[-M..M] + a[M+1] */
                sa = pack16_shfl<-M - 1>(b);
                sb = pack16_shfl<M + 1>(a);
                pack16_q q = {{0, 0, 0, 0}};
                pack16_prange<-M, M>::add(q, P);
                pack16_acc(sa, q);
                pack16_acc(sb, q);
            }
            const int nr = min(H - 1, y + ry) - max(0, y - ry) + 1;
            if (outa) {
                long long s = pack16_sum(pt, sa.w[0], sa.w[1], sa.w[2], sa.w[3]);
                int n = na * nr;
                bool in = n == nmax;
                long long tv = in ? tmax : tn[n];
                double bv = in ? bmax : __dmul_rn((double)n, WINENT_LQ_SCALE);
                double yv = in ? ymax : ty[n];
                orow[xa] = pack16_finish(tv - s, bv, yv);
            }
            if (outb) {
                long long s = pack16_sum(pt, sb.w[0], sb.w[1], sb.w[2], sb.w[3]);
                int n = nb * nr;
                bool in = n == nmax;
                long long tv = in ? tmax : tn[n];
                double bv = in ? bmax : __dmul_rn((double)n, WINENT_LQ_SCALE);
                double yv = in ? ymax : ty[n];
                orow[xb] = pack16_finish(tv - s, bv, yv);
            }
            if (++y >= yb)
                break;
            orow += W;
            const int yout = y - ry - 1, yin = y + ry;
            if (yin < H) {
                if (oka)
                    Ca += 1ull << (4 * __ldg(pin));
                if (okb)
                    Cb += 1ull << (4 * __ldg(pin + 1));
            }
            if (yout >= 0) {
                if (oka)
                    Ca -= 1ull << (4 * __ldg(pout));
                if (okb)
                    Cb -= 1ull << (4 * __ldg(pout + 1));
            }
            pin += W;
            pout += W;
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

/* Any code, any shape (SLIDE): an open-addressing table per thread, in
 * shared memory when small (SHARED), else in the global workspace p.ws. */
template <typename C, bool ND, bool SHARED, typename SLIDE = slide_square>
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
        SLIDE::template run<C, ND>(p, h, x, ya, yb);
    }
}

#endif
