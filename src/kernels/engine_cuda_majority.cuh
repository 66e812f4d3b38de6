/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_majority.cuh - the majority (the most frequent value of each
 * window, ties to the smallest; SPEC) on the GPU: a warp per output pixel
 * (included by engine_cuda_launch.cu only).
 *
 * The majority keeps no running sum for the other kernels to finish, so
 * it has a kernel of its own. The 32 lanes of a warp count the window's
 * pixels into one table of the warp's, lane l taking the window's pixels
 * l, l + 32, ... from a list of offsets (row by row, so that neighbouring
 * lanes read neighbouring codes): a rectangle, a disk and a footprint are
 * the same loop. Each count is an atomic add, whose old value says the
 * count the pixel made: a value whose final count is the window's largest
 * count c reaches c in exactly one lane's add, so each lane keeps the
 * largest count it made and the smallest key that made it, and two warp
 * reductions (the largest count, then the smallest key at that count) give
 * the mode by its definition, whatever the order of the adds: the bits of
 * the CPU engine (engine_cpu_majority.c), which counts the same keys
 * (winent_code_order: values' order, so "smallest" is the smallest value)
 * and maps the mode back to its value the same way (winent_code_value).
 *
 * Tables are never cleared between windows: each entry carries a 16-bit
 * window tag (the warp's window count) and an entry of another tag counts
 * as empty; the table is cleared once every 65535 windows, before the tag
 * wraps. DIRECT: keys below `nkeys` index 32-bit entries (tag << 16 |
 * count). Else an open-addressing table of 64-bit entries (tag << 48 |
 * key << 16 | count), linear probing, at least twice the window's pixels.
 * Counts fit 16 bits: a window holds at most 255 x 255 pixels.
 */
#ifndef WINENT_ENGINE_CUDA_MAJORITY_CUH
#define WINENT_ENGINE_CUDA_MAJORITY_CUH

#include <stdint.h>

#include "cuda_warp_reduce.cuh"
#include "entropy_rule.h"

/* The launch's parameters, by value. */
struct maj_params {
    const uint32_t *plane; /* codes of input rows [in_y0, ...), W apart; ~0: nodata */
    float *out;            /* output rows [y0, y1), W apart */
    int W, H, in_y0, y0, y1;
    const int *off; /* the window's pixels: (dy << 16) | (dx & 0xFFFF), row-major */
    int noff;
    unsigned words; /* 32-bit words of one warp's table */
    int bits;       /* hash: log2 of the slots */
    unsigned *ws;   /* the warps' tables in global memory, or NULL: shared memory */
    winent_code_rule rule;
};

#define MAJ_TAG_MAX 0xFFFFu
/* Pixels a lane loads before it counts them (direct tables): the loads'
 * latency overlapped. */
#define MAJ_BATCH 8

/* Count `key` in a direct table; the count it made. */
__device__ __forceinline__ unsigned maj_count_direct(unsigned *tab, uint32_t key, unsigned tag)
{
    unsigned *e = tab + key;
    for (;;) {
        const unsigned u = *(volatile unsigned *)e;
        if ((u >> 16) == tag)
            return (atomicAdd(e, 1u) & 0xFFFFu) + 1u;
        if (atomicCAS(e, u, (tag << 16) | 1u) == u)
            return 1u;
    }
}

/* Count `key` in a hash table of 2^bits 64-bit entries; the count it made. */
__device__ __forceinline__ unsigned maj_count_hash(unsigned long long *tab, uint32_t key,
                                                   unsigned tag, int bits)
{
    const unsigned mask = (1u << bits) - 1u;
    unsigned s = (key * 0x9E3779B1u) >> (32 - bits);
    const unsigned long long mine = ((unsigned long long)tag << 48) |
                                    ((unsigned long long)key << 16);
    for (;;) {
        unsigned long long *e = tab + s;
        const unsigned long long u = *(volatile unsigned long long *)e;
        if ((unsigned)(u >> 48) != tag) { /* empty for this window: claim it */
            if (atomicCAS(e, u, mine | 1ull) == u)
                return 1u;
            continue; /* another lane took it first: look again */
        }
        if ((uint32_t)(u >> 16) == key)
            return ((unsigned)atomicAdd(e, 1ull) & 0xFFFFu) + 1u;
        s = (s + 1u) & mask;
    }
}

template <bool ND, bool DIRECT> __global__ void majority_kernel(maj_params p)
{
    extern __shared__ unsigned maj_smem[];
    const int lane = (int)(threadIdx.x & 31u), wib = (int)(threadIdx.x >> 5);
    const long long warp = (long long)blockIdx.x * (blockDim.x >> 5) + wib;
    const long long nwarps = (long long)gridDim.x * (blockDim.x >> 5);
    unsigned *tab = p.ws != NULL ? p.ws + (size_t)warp * p.words : maj_smem + (size_t)wib * p.words;
    for (unsigned k = (unsigned)lane; k < p.words; k += 32)
        tab[k] = 0;
    __syncwarp();
    unsigned tag = 0;
    const long long npix = (long long)(p.y1 - p.y0) * p.W;
    for (long long i = warp; i < npix; i += nwarps) {
        const int x = (int)(i % p.W), y = p.y0 + (int)(i / p.W);
        const uint32_t centre = __ldg(p.plane + (size_t)(y - p.in_y0) * p.W + x);
        float *o = p.out + (size_t)(y - p.y0) * p.W + x;
        if (ND && centre == WINENT_NODATA_CODE) {
            if (lane == 0)
                *o = __int_as_float(0x7fc00000);
            continue;
        }
        if (++tag > MAJ_TAG_MAX) { /* the tag would wrap: start afresh */
            __syncwarp();
            for (unsigned k = (unsigned)lane; k < p.words; k += 32)
                tab[k] = 0;
            __syncwarp();
            tag = 1;
        }
        unsigned best = 0;
        uint32_t best_key = 0xFFFFFFFFu;
        /* NB pixels' loads in flight at once, then their counts: direct
         * tables only (an H200's hashed windows ran slower so). */
        constexpr int NB = DIRECT ? MAJ_BATCH : 1;
        for (int k0 = lane; k0 < p.noff; k0 += 32 * NB) {
            uint32_t code[NB];
            bool use[NB];
#pragma unroll
            for (int b = 0; b < NB; b++) {
                const int k = k0 + 32 * b;
                use[b] = false;
                code[b] = 0;
                if (k < p.noff) {
                    const int of = __ldg(p.off + k);
                    const int xx = x + (int)(short)(of & 0xFFFF), yy = y + (of >> 16);
                    if ((unsigned)xx < (unsigned)p.W && (unsigned)yy < (unsigned)p.H) {
                        code[b] = __ldg(p.plane + (size_t)(yy - p.in_y0) * p.W + xx);
                        use[b] = !(ND && code[b] == WINENT_NODATA_CODE);
                    }
                }
            }
#pragma unroll
            for (int b = 0; b < NB; b++) {
                if (!use[b])
                    continue;
                const uint32_t key = winent_code_order(&p.rule, code[b]);
                const unsigned c = DIRECT ? maj_count_direct(tab, key, tag)
                                          : maj_count_hash((unsigned long long *)tab, key, tag,
                                                           p.bits);
                if (c > best || (c == best && key < best_key)) {
                    best = c;
                    best_key = key;
                }
            }
        }
        const unsigned top = warp_max_u32(best);
        const uint32_t key = warp_min_u32(best == top ? best_key : 0xFFFFFFFFu);
        if (lane == 0)
            *o = top == 0 ? __int_as_float(0x7fc00000)
                          : winent_code_value(&p.rule, winent_order_code(&p.rule, key));
    }
}

#endif
