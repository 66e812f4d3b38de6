/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * harness.h - a tiny unit-test harness: CHECK records a pass or a failure,
 * SKIP_PART records a part that cannot run here, harness_end prints
 * "N passed, N failed" and returns the exit code (77 = skipped, for
 * ctest's SKIP_RETURN_CODE).
 */
#ifndef WINENT_TEST_HARNESS_H
#define WINENT_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "winent.h"

static int harness_passed, harness_failed, harness_skipped;

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

/* A part of the test that cannot run here (a tool or module missing):
 * said at once; harness_end then returns 77 unless a check failed. */
#define SKIP_PART(...)                                                     \
    do {                                                                   \
        harness_skipped++;                                                 \
        printf("SKIP: ");                                                  \
        printf(__VA_ARGS__);                                               \
        putchar('\n');                                                     \
    } while (0)

static inline int harness_end(void)
{
    printf("%d passed, %d failed\n", harness_passed, harness_failed);
    if (harness_failed)
        return 1;
    return harness_skipped ? 77 : 0;
}

/* Store sample i of `buf` as type t: the integer `iv` for integer types,
 * `dv` for float types, native byte order. memcpy, since tests put 16-bit
 * samples at odd addresses too (a cast store there is undefined). */
static inline void harness_put_sample(void *buf, winent_dtype t, size_t i, int64_t iv, double dv)
{
    uint8_t *p = (uint8_t *)buf + i * winent_dtype_size(t);
    union {
        uint8_t u8;
        int8_t i8;
        uint16_t u16;
        int16_t i16;
        uint32_t u32;
        int32_t i32;
        float f32;
        double f64;
    } v;
    switch (t) {
    case WINENT_U8: v.u8 = (uint8_t)iv; break;
    case WINENT_I8: v.i8 = (int8_t)iv; break;
    case WINENT_U16: v.u16 = (uint16_t)iv; break;
    case WINENT_I16: v.i16 = (int16_t)iv; break;
    case WINENT_U32: v.u32 = (uint32_t)iv; break;
    case WINENT_I32: v.i32 = (int32_t)iv; break;
    case WINENT_F32: v.f32 = (float)dv; break;
    case WINENT_F64: v.f64 = dv; break;
    default: return;
    }
    memcpy(p, &v, winent_dtype_size(t));
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
