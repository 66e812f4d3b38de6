/* SPDX-License-Identifier: BSD-3-Clause */
/* The pipeline's one door to CUDA (devices.h). */
#include "devices.h"
#include "kernels/cuda_copies.h"
#include "kernels/engine_cuda.h"
#include "winent.h"

int winent_gpu_count(void)
{
    return winent_cuda_device_count();
}

winent_status winent_devices_pick(const winent_device_list *l, int release_gpus, int *ids, int *n,
                                  winent_err *err)
{
    *n = 0;
    /* A process that is this job's alone (the CLI) starts only the GPUs
     * named: CUDA would start every one it sees at its first call (four
     * H200s took 1.0 s, one 0.3 s; docs/PERFORMANCE.md). */
    if (release_gpus && !l->all_gpus)
        winent_cuda_limit_devices(l->gpus, l->ngpus);
    int count = winent_cuda_device_count(), runtime;
    const char *archs;
    const int cuda = winent_devices_build_info(&runtime, &archs);
    if (l->all_gpus) {
        if (count == 0)
            return WINENT_ERR(err, WINENT_ERR_DEVICE, "--device gpu: no usable GPU (%s)",
                              cuda ? "no CUDA device or driver" : "this build has no CUDA engine");
        for (int i = 0; i < count && i < WINENT_MAX_GPUS; i++)
            ids[(*n)++] = winent_cuda_host_device(i);
        return WINENT_OK;
    }
    for (int i = 0; i < l->ngpus; i++) {
        /* One message whichever door named the GPU: where CUDA was shown
         * only the GPUs named (the CLI), how many the host has is not
         * known, so no door says it. */
        if (!winent_cuda_device_usable(l->gpus[i]))
            return WINENT_ERR(err, WINENT_ERR_DEVICE, "--device: GPU %d is not usable (%s)",
                              l->gpus[i],
                              cuda ? "no such GPU on this host, or no driver"
                                   : "this build has no CUDA engine");
        ids[(*n)++] = l->gpus[i];
    }
    return WINENT_OK;
}

int winent_devices_count(void)
{
    return winent_cuda_device_count();
}

int winent_devices_host_id(int i)
{
    return winent_cuda_host_device(i);
}

int winent_devices_pin(void *ptr, size_t bytes)
{
    return winent_cuda_host_register(ptr, bytes);
}

int winent_devices_first_only(void)
{
    const int first = 0;
    return winent_cuda_limit_devices(&first, 1);
}

int winent_devices_pinned(const void *ptr, size_t bytes)
{
    return winent_cuda_host_pinned(ptr, bytes);
}

void winent_devices_unpin(void *ptr)
{
    winent_cuda_host_unregister(ptr);
}

void winent_devices_release(int device)
{
    winent_cuda_device_release(device);
}

int winent_devices_build_info(int *runtime, const char **archs)
{
    return winent_cuda_build_info(runtime, archs);
}
