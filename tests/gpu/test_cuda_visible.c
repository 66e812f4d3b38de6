/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cuda_visible: the CUDA_VISIBLE_DEVICES a process sets to start only
 * the GPUs its --device list names (kernels/cuda_visible.c), as a table:
 * the list given to the process (or none), the GPUs named, the value and
 * the host's GPU of each CUDA ordinal; or a refusal (0).
 */
#include <string.h>

#include "harness.h"
#include "kernels/cuda_visible.h"

typedef struct row {
    const char *given; /* the process's CUDA_VISIBLE_DEVICES, NULL: none */
    int gpus[4];
    int n;
    const char *want; /* NULL: refused */
    int host[4];      /* CUDA's ordinal k is the host's GPU host[k] */
} row;

static const row rows[] = {
    {NULL, {0}, 1, "0", {0}},
    {NULL, {2}, 1, "2", {2}},
    {NULL, {3, 1}, 2, "1,3", {1, 3}},
    {NULL, {1, 3, 1}, 3, "1,3", {1, 3}}, /* named twice: once */
    {NULL, {12, 0, 7, 3}, 4, "0,3,7,12", {0, 3, 7, 12}},
    {"4,5,6,7", {0}, 1, "4", {0}}, /* within the process's list */
    {"4,5,6,7", {3, 1}, 2, "5,7", {1, 3}},
    {"GPU-aaaa,GPU-bbbb", {1}, 1, "GPU-bbbb", {1}}, /* UUIDs kept as given */
    {"4,5", {2}, 1, NULL, {0}},                     /* past the process's list */
    {"", {0}, 1, NULL, {0}},                        /* the process sees none */
    {"4,,6", {1}, 1, NULL, {0}},                    /* an empty entry */
    {NULL, {-1}, 1, NULL, {0}},
    {NULL, {0}, 0, NULL, {0}}, /* none named */
};

int main(void)
{
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const row *w = &rows[r];
        int host[WINENT_CUDA_MAX_LIMIT];
        char list[256];
        int k = winent_cuda_visible_list(w->given, w->gpus, w->n, host, list, sizeof list);
        if (w->want == NULL) {
            CHECK(k == 0, "row %zu: refused, got %d (%s)", r, k, k ? list : "");
            continue;
        }
        CHECK(k > 0 && strcmp(list, w->want) == 0, "row %zu: '%s', want '%s'", r,
              k ? list : "(refused)", w->want);
        for (int i = 0; i < k && i < 4; i++)
            CHECK(host[i] == w->host[i], "row %zu: ordinal %d is host GPU %d, want %d", r, i,
                  host[i], w->host[i]);
    }
    /* A list too short for the value: refused, not cut. */
    int host[WINENT_CUDA_MAX_LIMIT];
    char small[4];
    const int g[] = {10, 11};
    CHECK(winent_cuda_visible_list(NULL, g, 2, host, small, sizeof small) == 0, "short list");
    return harness_end();
}
