/* SPDX-License-Identifier: BSD-3-Clause */
#include "mem.h"

#include <stdlib.h>
#include <sys/mman.h>

size_t winent_huge_round(size_t n)
{
    if (n < WINENT_HUGE_PAGE)
        return (n + 63) / 64 * 64;
    return (n + WINENT_HUGE_PAGE - 1) / WINENT_HUGE_PAGE * WINENT_HUGE_PAGE;
}

void *winent_huge_alloc(size_t n)
{
    void *b = NULL;
    size_t bytes = winent_huge_round(n ? n : 1);
    if (posix_memalign(&b, bytes >= WINENT_HUGE_PAGE ? WINENT_HUGE_PAGE : 64, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= WINENT_HUGE_PAGE)
        madvise(b, bytes, MADV_HUGEPAGE); /* a hint: without it, plain pages */
#endif
    return b;
}
