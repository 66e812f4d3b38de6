/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda_visible.h - the CUDA_VISIBLE_DEVICES that makes a process see only
 * the host's GPUs it names (winent_cuda_limit_devices); plain C, no CUDA,
 * so a CPU build tests it. */
#ifndef WINENT_CUDA_VISIBLE_H
#define WINENT_CUDA_VISIBLE_H

#include <stddef.h>

#define WINENT_CUDA_MAX_LIMIT 64

/* The value for GPUs `gpus` (n of them, the host's numbers; repeats and
 * order do not matter) within `given`, the CUDA_VISIBLE_DEVICES the
 * process has (NULL: none, the host's GPUs themselves): the host's GPU g
 * is given's g-th entry. Writes the list to `list` (NUL-terminated) and
 * the GPUs ascending, once each, to host[] (CUDA's ordinal k is host[k]).
 * Returns how many; 0 when it cannot (none named, a negative number, more
 * than WINENT_CUDA_MAX_LIMIT, a GPU past given's entries, an entry empty
 * or too long, `list` too short). */
int winent_cuda_visible_list(const char *given, const int *gpus, int n, int *host, char *list,
                             size_t list_n);

#endif
