/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cuda_warp_reduce.cuh - a full warp's exact integer sums, largest and
 * smallest, returned in every lane. The kernels keep their window sums in
 * integers so that every engine gives the same bits; these reductions
 * keep them exact. On sm_80 and later the hardware's 32-bit reductions do
 * the work, a 64-bit value split into pieces whose sums cannot overflow.
 */
#ifndef WINENT_CUDA_WARP_REDUCE_CUH
#define WINENT_CUDA_WARP_REDUCE_CUH

#include <stdint.h>

#define WARP_FULL 0xFFFFFFFFu

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define WARP_HAS_REDUCE 1
#else
#define WARP_HAS_REDUCE 0
#endif

/* Sum of an int or unsigned over the warp. */
template <typename T> __device__ __forceinline__ T warp_sum(T v)
{
#if WARP_HAS_REDUCE
    return __reduce_add_sync(WARP_FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(WARP_FULL, v, o);
    return v;
#endif
}

/* Sum of a 64-bit integer over the warp, exact while the lanes' |v| add
 * up to less than 2^54: 24 low bits and the rest, two reductions. */
__device__ __forceinline__ long long warp_sum_ll(long long v)
{
#if WARP_HAS_REDUCE
    const unsigned lo = __reduce_add_sync(WARP_FULL, (unsigned)(v & 0xFFFFFF));
    const int hi = __reduce_add_sync(WARP_FULL, (int)(v >> 24));
    return (long long)hi * 16777216ll + (long long)lo;
#else
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(WARP_FULL, v, o);
    return v;
#endif
}

/* Sum of any 64-bit integer over the warp, exact (modulo 2^64): three
 * 24-bit pieces, each below 2^29 summed over 32 lanes, the top signed. */
__device__ __forceinline__ int64_t warp_sum_i64(int64_t v)
{
#if WARP_HAS_REDUCE
    const unsigned a = (unsigned)((uint64_t)v & 0xFFFFFFu);
    const unsigned b = (unsigned)(((uint64_t)v >> 24) & 0xFFFFFFu);
    const int c = (int)(v >> 48);
    const uint64_t sa = __reduce_add_sync(WARP_FULL, a);
    const uint64_t sb = __reduce_add_sync(WARP_FULL, b);
    const int64_t sc = __reduce_add_sync(WARP_FULL, c);
    return (int64_t)(sa + (sb << 24) + ((uint64_t)sc << 48));
#else
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(WARP_FULL, v, o);
    return v;
#endif
}

/* The largest and the smallest unsigned of the warp. */
__device__ __forceinline__ unsigned warp_max_u32(unsigned v)
{
#if WARP_HAS_REDUCE
    return __reduce_max_sync(WARP_FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1)
        v = max(v, __shfl_xor_sync(WARP_FULL, v, o));
    return v;
#endif
}

__device__ __forceinline__ unsigned warp_min_u32(unsigned v)
{
#if WARP_HAS_REDUCE
    return __reduce_min_sync(WARP_FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1)
        v = min(v, __shfl_xor_sync(WARP_FULL, v, o));
    return v;
#endif
}

#endif
