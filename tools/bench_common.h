/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_common.h - the small pieces every part of winent-bench uses: a
 * monotonic clock, a double comparison for qsort (medians), and the
 * xorshift generator of the synthetic images.
 */
#ifndef WINENT_BENCH_COMMON_H
#define WINENT_BENCH_COMMON_H

#include <stdint.h>
#include <time.h>

/* Seconds on a monotonic clock. */
static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* qsort order of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The next xorshift64 value of the generator `*state` (never 0). */
static inline uint64_t xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
