/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem.h - buffers whose first touch is cheap: from 2 MiB on, made of whole
 * transparent huge pages, so touching one costs a page fault per 2 MiB
 * rather than 512 of them (12 us each on the 2-core VM; docs/PERFORMANCE.md).
 */
#ifndef WINENT_MEM_H
#define WINENT_MEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The huge page: buffers from this size on are made of them. */
#define WINENT_HUGE_PAGE ((size_t)2 << 20)

/* `n` rounded up: to whole huge pages from WINENT_HUGE_PAGE on, else to 64
 * bytes. */
size_t winent_huge_round(size_t n);

/* A buffer of at least `n` bytes, 64-byte aligned; from WINENT_HUGE_PAGE
 * on, winent_huge_round(n) bytes aligned to a huge page and marked for
 * transparent huge pages (madvise, a hint: where the kernel does not take
 * it, plain pages). Free with free(). NULL when out of memory. */
void *winent_huge_alloc(size_t n);

#ifdef __cplusplus
}
#endif

#endif
