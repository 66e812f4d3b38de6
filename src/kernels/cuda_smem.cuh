/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda_smem.cuh - a kernel's dynamic shared memory allowance (CUDA only).
 *
 * cudaFuncAttributeMaxDynamicSharedMemorySize belongs to the function, for
 * the whole process, not to the engine that sets it: the engines of one
 * job (a map each, every one with its own need) share their kernels, so an
 * engine that set the allowance to its own smaller need made the launch of
 * another's larger one fail ("invalid argument"). The allowance is raised
 * once to all the device allows the function (its opt-in limit less the
 * function's static shared memory) and never lowered; the shared memory a
 * launch uses is still the size it asks for. */
#ifndef WINENT_CUDA_SMEM_CUH
#define WINENT_CUDA_SMEM_CUH

#include <cuda_runtime.h>
#include <stddef.h>

/* cudaSuccess when function `fn` may take `need` bytes of dynamic shared
 * memory on the current device. */
static inline cudaError_t winent_cuda_allow_smem(const void *fn, size_t need)
{
    int dev = 0, optin = 0;
    cudaFuncAttributes fa;
    cudaError_t st = cudaGetDevice(&dev);
    if (st == cudaSuccess)
        st = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (st == cudaSuccess)
        st = cudaFuncGetAttributes(&fa, fn);
    if (st != cudaSuccess)
        return st;
    const size_t most =
        (size_t)optin > fa.sharedSizeBytes ? (size_t)optin - fa.sharedSizeBytes : 0;
    if (need > most)
        return cudaErrorInvalidValue;
    if ((size_t)fa.maxDynamicSharedSizeBytes >= most)
        return cudaSuccess;
    return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most);
}

#endif
