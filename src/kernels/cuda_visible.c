/* SPDX-License-Identifier: BSD-3-Clause */
#include "cuda_visible.h"

#include <stdio.h>
#include <string.h>

int winent_cuda_visible_list(const char *given, const int *gpus, int n, int *host, char *list,
                             size_t list_n)
{
    int k = 0;
    if (n < 1 || n > WINENT_CUDA_MAX_LIMIT || list_n == 0)
        return 0;
    for (int i = 0; i < n; i++) { /* ascending, once each */
        int j = k;
        if (gpus[i] < 0)
            return 0;
        while (j > 0 && host[j - 1] > gpus[i])
            j--;
        if (j > 0 && host[j - 1] == gpus[i])
            continue;
        memmove(host + j + 1, host + j, sizeof *host * (size_t)(k - j));
        host[j] = gpus[i];
        k++;
    }
    list[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < k; i++) {
        char num[16];
        const char *t = num;
        size_t len;
        if (given != NULL) {
            /* Entry host[i] of the list given. */
            const char *s = given;
            for (int e = 0; e < host[i] && s != NULL; e++) {
                s = strchr(s, ',');
                s = s ? s + 1 : NULL;
            }
            if (s == NULL || *s == '\0')
                return 0; /* not one of the process's GPUs */
            t = s;
            len = strcspn(s, ",");
            if (len == 0)
                return 0;
        } else {
            snprintf(num, sizeof num, "%d", host[i]);
            len = strlen(num);
        }
        if (used + len + (i ? 1 : 0) + 1 > list_n)
            return 0;
        if (i)
            list[used++] = ',';
        memcpy(list + used, t, len);
        used += len;
        list[used] = '\0';
    }
    return k;
}
