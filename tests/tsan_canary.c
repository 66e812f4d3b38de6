/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tsan_canary - proof that the TSan build's settings (Archer for OpenMP,
 * ignore_noninstrumented_modules, tests/tsan.supp) still catch a race.
 *
 *   tsan_canary race    threads add to one int with no synchronisation:
 *                       TSan must report a data race in canary_racy_sum
 *   tsan_canary clean   the same work the way the engines do it (each
 *                       thread its own slot, read after the region's
 *                       barrier): no report
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

static int racy_total;

__attribute__((noinline)) static void canary_racy_sum(int n)
{
#pragma omp parallel for num_threads(2)
    for (int i = 0; i < n; i++)
        racy_total += i & 1; /* unsynchronised read-modify-write */
}

__attribute__((noinline)) static int canary_clean_sum(int n)
{
    int part[2] = {0, 0};
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
#pragma omp for
        for (int i = 0; i < n; i++)
            part[t] += i & 1;
    }
    return part[0] + part[1];
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "race") == 0) {
        canary_racy_sum(100000);
        printf("racy total %d\n", racy_total);
    } else {
        printf("clean total %d\n", canary_clean_sum(100000));
    }
    return 0;
}
