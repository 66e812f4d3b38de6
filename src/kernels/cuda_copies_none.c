/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda_copies_none.c - the build without CUDA: no copy engines to time. */
#include "cuda_copies.h"

winent_status winent_cuda_time_copies(const winent_copy_part *parts, int nparts, size_t piece,
                                      double *seconds, winent_err *err)
{
    (void)parts, (void)nparts, (void)piece;
    *seconds = 0;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

int winent_cuda_host_pinned(const void *p, size_t bytes)
{
    (void)p, (void)bytes;
    return 0;
}
