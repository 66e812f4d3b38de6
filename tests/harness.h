/*
 * harness.h - a tiny unit-test harness: CHECK records a pass or a failure,
 * harness_end prints "N passed, N failed" and returns the exit code
 * (77 = skipped, for ctest's SKIP_RETURN_CODE).
 */
#ifndef WINENT_TEST_HARNESS_H
#define WINENT_TEST_HARNESS_H

#include <stdio.h>

static int harness_passed, harness_failed;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) {                                                        \
            harness_passed++;                                              \
        } else {                                                           \
            harness_failed++;                                              \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static inline int harness_end(void)
{
    printf("%d passed, %d failed\n", harness_passed, harness_failed);
    return harness_failed ? 1 : 0;
}

/* A small deterministic generator (splitmix64) for test inputs. */
static inline unsigned long long harness_rand(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
