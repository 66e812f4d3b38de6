/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_diffmask.h - the bins where two columns of 8-bit counts
 * differ, as bit masks: bit v of m[v / 64] is set where a[v] != b[v].
 * The column paths of the histogram measures and of the majority slide a
 * window by adding one column of counts and removing another; only the
 * bins these masks mark change, so a step visits those alone. `bins` is
 * a multiple of 64.
 */
#ifndef WINENT_ENGINE_CPU_DIFFMASK_H
#define WINENT_ENGINE_CPU_DIFFMASK_H

#include <stdint.h>
#include <string.h>

/* Eight bins per 64-bit word: a nonzero byte of a ^ b per changed bin,
 * its high bit gathered in order by one multiply. */
static inline void winent_diff_mask_portable(const uint8_t *a, const uint8_t *b, const int bins,
                                             uint64_t *m)
{
    for (int w = 0; w < bins / 64; w++) {
        uint64_t bits = 0;
        for (int k = 0; k < 8; k++) {
            uint64_t x, y;
            memcpy(&x, a + 64 * w + 8 * k, 8);
            memcpy(&y, b + 64 * w + 8 * k, 8);
            x ^= y;
            x = ((x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | x;
            x &= 0x8080808080808080ull;
            bits |= ((x >> 7) * 0x0102040810204080ull >> 56) << (8 * k);
        }
        m[w] = bits;
    }
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

/* 32 bins per compare; callers are compiled for AVX2 themselves. */
__attribute__((target("avx2"), always_inline)) static inline void
winent_diff_mask_avx2(const uint8_t *a, const uint8_t *b, const int bins, uint64_t *m)
{
    for (int v = 0; v < bins; v += 64) {
        const __m256i e0 = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(a + v)),
                                             _mm256_loadu_si256((const __m256i *)(b + v)));
        const __m256i e1 = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(a + v + 32)),
                                             _mm256_loadu_si256((const __m256i *)(b + v + 32)));
        m[v / 64] = ~((uint64_t)(uint32_t)_mm256_movemask_epi8(e0) |
                      ((uint64_t)(uint32_t)_mm256_movemask_epi8(e1) << 32));
    }
}
#endif

#endif
