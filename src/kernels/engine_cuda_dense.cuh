/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_dense.cuh - ranks dense within a chunk, for 16-bit code
 * planes (included by engine_cuda_launch.cu after engine_cuda_warp.cuh; the rank
 * arithmetic is host-and-device so tests/gpu/test_gpu_dense_twin.cu runs it in CI
 * without a GPU).
 *
 * A u16 plane may hold any of 65536 codes, so the plan sizes a warp's
 * direct histogram for 65536 (128 KB: one warp an SM) or takes the groups
 * kernel, whose cost follows how often codes repeat within a region. Real
 * imagery, and the benchmark's u16 of 4096 values, has far fewer distinct
 * codes in a chunk. Before the window kernels the engine finds them:
 *
 *   1. presence: a bitmap of the 65536 codes present in the chunk's input
 *      rows (each block marks its part in shared memory, then ORs its
 *      non-zero words into the slot's bitmap); the nodata sentinel 0xFFFF of
 *      a plane that has one is not a code and is left out;
 *   2. remap: each block turns the bitmap into the exclusive prefix of its
 *      words' popcounts (2048 words, one scan per block), so rank(v) =
 *      prefix[v / 32] + popcount(the bits of word v / 32 below v); block 0
 *      writes K, the number of codes present; when K is at most the largest
 *      dense table every block rewrites its part of the plane in place as
 *      ranks 0..K-1 (the sentinel stays the sentinel), else it does nothing.
 *
 * Ranks keep equal codes equal and different codes different, and entropy
 * depends only on the counts of each code, so a window's sum over its codes
 * of T[count] is the same integer and the bits are the same. The window
 * kernels launched after it read K on the device (win_params' gate): the
 * warp kernel with the smallest direct table that holds K runs, the others
 * return at once, and with K past every table the plan's kernel runs on the
 * plane as it was. No host round trip: the launches are queued together.
 */
#ifndef WINENT_ENGINE_CUDA_DENSE_CUH
#define WINENT_ENGINE_CUDA_DENSE_CUH

#include <stdint.h>

#include "engine_cuda_geom.cuh"

/* The remap kernel's block: two words of the bitmap a thread. */
#define DENSE_REMAP_THREADS 1024

#if defined(__CUDA_ARCH__)
#define DENSE_POPC(x) __popc(x)
#else
#define DENSE_POPC(x) __builtin_popcount(x)
#endif

/* The rank of present code v: present codes below it. */
KHD uint32_t dense_rank(const uint32_t *bits, const uint32_t *prefix, uint32_t v)
{
    const uint32_t w = v >> 5, below = (1u << (v & 31u)) - 1u;
    return prefix[w] + (uint32_t)DENSE_POPC(bits[w] & below);
}

/* The new code of v: its rank, or the sentinel unchanged when the plane
 * has one (ND). */
template <bool ND> KHD uint16_t dense_code(const uint32_t *bits, const uint32_t *prefix, uint32_t v)
{
    return ND && v == 0xFFFFu ? (uint16_t)0xFFFFu : (uint16_t)dense_rank(bits, prefix, v);
}

/* Host: the prefix of `bits`, and K (tests). */
static inline uint32_t dense_prefix_host(const uint32_t *bits, uint32_t *prefix)
{
    uint32_t run = 0;
    for (int i = 0; i < DENSE_WORDS; i++) {
        prefix[i] = run;
        run += (uint32_t)DENSE_POPC(bits[i]);
    }
    return run;
}

#if defined(__CUDACC__)
/* Mark code v in a shared bitmap; a bit already set costs a load only. */
template <bool ND> __device__ __forceinline__ void dense_mark(uint32_t *sb, uint32_t v)
{
    if (ND && v == 0xFFFFu)
        return;
    const uint32_t m = 1u << (v & 31u);
    if (!(sb[v >> 5] & m))
        atomicOr(sb + (v >> 5), m);
}

/* Step 1: the codes present in plane[0, count), ORed into `bits` (zeroed
 * before). */
template <bool ND>
__global__ void __launch_bounds__(256) dense_presence_kernel(const uint16_t *__restrict__ plane,
                                                             size_t count, uint32_t *bits)
{
    __shared__ uint32_t sb[DENSE_WORDS];
    for (int i = threadIdx.x; i < DENSE_WORDS; i += blockDim.x)
        sb[i] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t i0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint4 *v = (const uint4 *)plane; /* cudaMalloc'd: 16-byte aligned */
    const size_t nv = count / 8;
    for (size_t i = i0; i < nv; i += stride) {
        const uint4 q = __ldg(v + i);
        const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            dense_mark<ND>(sb, w[k] & 0xFFFFu);
            dense_mark<ND>(sb, w[k] >> 16);
        }
    }
    for (size_t i = nv * 8 + i0; i < count; i += stride)
        dense_mark<ND>(sb, plane[i]);
    __syncthreads();
    for (int i = threadIdx.x; i < DENSE_WORDS; i += blockDim.x)
        if (sb[i] != 0)
            atomicOr(bits + i, sb[i]);
}

/* Step 2: K into *nrank (block 0), and, when K <= most, plane[0, count)
 * rewritten in place as ranks. *small (block 0) is 0 when the ranks and the
 * sentinel fit codes < 16 (K <= 16, or K <= 15 with a sentinel, which
 * becomes code 15), else 16: the column-pack kernel's own test. Blocks of
 * DENSE_REMAP_THREADS. */
template <bool ND>
__global__ void __launch_bounds__(DENSE_REMAP_THREADS)
    dense_remap_kernel(uint16_t *plane, size_t count, const uint32_t *bits, unsigned *nrank,
                       unsigned most, unsigned *small)
{
    __shared__ uint32_t sb[DENSE_WORDS], sp[DENSE_WORDS], part[32];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const uint32_t a = bits[2 * t], b = bits[2 * t + 1];
    sb[2 * t] = a;
    sb[2 * t + 1] = b;
    const uint32_t ca = (uint32_t)__popc(a), c = ca + (uint32_t)__popc(b);
    uint32_t x = c; /* inclusive scan of c over the warp, then the warps */
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        const uint32_t y = __shfl_up_sync(0xFFFFFFFFu, x, o);
        if (lane >= o)
            x += y;
    }
    if (lane == 31)
        part[warp] = x;
    __syncthreads();
    if (warp == 0) {
        uint32_t y = part[lane];
#pragma unroll
        for (int o = 1; o < 32; o *= 2) {
            const uint32_t z = __shfl_up_sync(0xFFFFFFFFu, y, o);
            if (lane >= o)
                y += z;
        }
        part[lane] = y;
    }
    __syncthreads();
    const uint32_t excl = x - c + (warp > 0 ? part[warp - 1] : 0u);
    sp[2 * t] = excl;
    sp[2 * t + 1] = excl + ca;
    const uint32_t k = part[31];
    if (blockIdx.x == 0 && t == 0) {
        *nrank = k;
        *small = k <= (ND ? 15u : 16u) ? 0u : 16u;
    }
    if (k > most)
        return;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t i0 = (size_t)blockIdx.x * blockDim.x + t;
    uint4 *v = (uint4 *)plane;
    const size_t nv = count / 8;
    for (size_t i = i0; i < nv; i += stride) {
        uint4 q = v[i];
        uint32_t *w = (uint32_t *)&q;
#pragma unroll
        for (int j = 0; j < 4; j++)
            w[j] = (uint32_t)dense_code<ND>(sb, sp, w[j] & 0xFFFFu) |
                   ((uint32_t)dense_code<ND>(sb, sp, w[j] >> 16) << 16);
        v[i] = q;
    }
    for (size_t i = nv * 8 + i0; i < count; i += stride)
        plane[i] = dense_code<ND>(sb, sp, plane[i]);
}

/* Step 3, for chunks whose ranks fit codes < 16 (*small is 0): the ranks
 * as bytes, for the column-pack kernel; ND: the sentinel as 15. */
template <bool ND>
__global__ void __launch_bounds__(256) dense_narrow_kernel(const uint16_t *__restrict__ plane,
                                                           size_t count, uint8_t *out,
                                                           const unsigned *small)
{
    if (*small >= 16u)
        return;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t i0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint4 *v = (const uint4 *)plane; /* cudaMalloc'd: 16-byte aligned */
    uint2 *o = (uint2 *)out;
    const size_t nv = count / 8;
    for (size_t i = i0; i < nv; i += stride) {
        const uint4 q = __ldg(v + i);
        /* ranks < 16: the low byte of each 16-bit half (the sentinel's,
         * 0xFF, and with 0x0F) */
        uint2 r;
        r.x = __byte_perm(q.x, q.y, 0x6420);
        r.y = __byte_perm(q.z, q.w, 0x6420);
        if (ND) {
            r.x &= 0x0F0F0F0Fu;
            r.y &= 0x0F0F0F0Fu;
        }
        o[i] = r;
    }
    for (size_t i = nv * 8 + i0; i < count; i += stride)
        out[i] = (uint8_t)(plane[i] & (ND ? 0x0Fu : 0xFFu));
}

/* ---- 32-bit planes: ranks of the chunk through a hash table ---------------
 *
 * For 32-bit planes at windows no shared-memory table or the groups kernel
 * holds (255 x 255), before the block kernel with tables in global memory:
 *   1. insert: every code of the chunk into an open-addressing table of
 *      keys (2^bits slots, at least twice the chunk's pixels, all ones =
 *      empty), compare-and-swap, linear probing; the code equal to the
 *      empty key (an ordinary value when the plane has no sentinel) only
 *      sets a flag;
 *   2. number: each occupied slot a rank, from one counter (a warp's
 *      occupied slots take theirs with one atomic); any bijection will do,
 *      for the same reason as above;
 *   3. remap: each code its slot's rank, in place (the flagged code the
 *      last rank; the sentinel stays).
 * kinfo[0]: ranks given to keys; kinfo[1]: 1 when the flagged code is
 * present. The engine reads K = kinfo[0] + kinfo[1] back to size the
 * tables. */
#define RANK32_EMPTY 0xFFFFFFFFu

KHD uint32_t rank32_slot(uint32_t v, uint32_t mask)
{
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    v *= 0x846ca68bu;
    v ^= v >> 16;
    return v & mask;
}

template <bool ND>
__global__ void __launch_bounds__(256) rank32_insert_kernel(const uint32_t *__restrict__ plane,
                                                            size_t count, uint32_t *keys,
                                                            uint32_t mask, unsigned *kinfo)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    uint32_t last = RANK32_EMPTY;
    bool top = false;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const uint32_t v = __ldg(plane + i);
        if (v == RANK32_EMPTY) {
            top = !ND;
            continue;
        }
        if (v == last)
            continue;
        last = v;
        for (uint32_t h = rank32_slot(v, mask);; h = (h + 1) & mask) {
            uint32_t k = keys[h];
            if (k == RANK32_EMPTY) {
                k = atomicCAS(keys + h, RANK32_EMPTY, v);
                if (k == RANK32_EMPTY)
                    break;
            }
            if (k == v)
                break;
        }
    }
    if (top)
        kinfo[1] = 1;
}

__global__ void __launch_bounds__(256) rank32_number_kernel(const uint32_t *__restrict__ keys,
                                                            size_t slots, uint32_t *ranks,
                                                            unsigned *kinfo)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & 31;
    /* slots and the grid are multiples of 32: whole warps in every round */
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < slots; i += stride) {
        const bool used = keys[i] != RANK32_EMPTY;
        const unsigned ballot = __ballot_sync(0xFFFFFFFFu, used);
        unsigned base = 0;
        if (lane == 0 && ballot != 0)
            base = atomicAdd(kinfo, (unsigned)__popc(ballot));
        base = __shfl_sync(0xFFFFFFFFu, base, 0);
        if (used)
            ranks[i] = base + (unsigned)__popc(ballot & ((1u << lane) - 1u));
    }
}

template <bool ND>
__global__ void __launch_bounds__(256) rank32_remap_kernel(uint32_t *plane, size_t count,
                                                           const uint32_t *__restrict__ keys,
                                                           const uint32_t *__restrict__ ranks,
                                                           uint32_t mask, const unsigned *kinfo)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint32_t top_rank = kinfo[0];
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const uint32_t v = plane[i];
        if (v == RANK32_EMPTY) {
            if (!ND)
                plane[i] = top_rank;
            continue;
        }
        uint32_t h = rank32_slot(v, mask);
        while (__ldg(keys + h) != v)
            h = (h + 1) & mask;
        plane[i] = __ldg(ranks + h);
    }
}
#endif

#endif
