/* SPDX-License-Identifier: BSD-3-Clause */
/* The names of a job's temporary files (tempnames.h). */
#include "tempnames.h"

#include <string.h>
#include <unistd.h>

int winent_tempnames_add(winent_tempnames *t, const char *path)
{
    size_t n = strlen(path);
    if (t == NULL || n >= PATH_MAX)
        return -1;
    for (int i = 0; i < WINENT_TEMPNAMES_MAX; i++) {
        int free_slot = 0;
        if (!__atomic_compare_exchange_n(&t->state[i], &free_slot, 1, 0, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;
        memcpy(t->path[i], path, n + 1);
        __atomic_store_n(&t->state[i], 2, __ATOMIC_RELEASE);
        return i;
    }
    return -1;
}

void winent_tempnames_forget(winent_tempnames *t, int slot)
{
    if (t == NULL || slot < 0 || slot >= WINENT_TEMPNAMES_MAX)
        return;
    __atomic_store_n(&t->state[slot], 0, __ATOMIC_RELEASE);
}

void winent_tempnames_unlink_all(winent_tempnames *t)
{
    if (t == NULL)
        return;
    for (int i = 0; i < WINENT_TEMPNAMES_MAX; i++)
        if (__atomic_load_n(&t->state[i], __ATOMIC_ACQUIRE) == 2)
            unlink(t->path[i]);
}
