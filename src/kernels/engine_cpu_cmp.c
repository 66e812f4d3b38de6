/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_cmp.c - the compare kernel of the CPU engine (small windows of
 * 8-bit codes), see engine_cpu_cmp.h.
 *
 * Why it is exact: sum over pixels a of Lq[c_a], with c_a the count of a's
 * code in the window, is sum over codes v of c_v Lq[c_v] = sum T[c_v]: the
 * same int64 S as every other path. Lq[c] for c <= 25 is below 2^40 (base
 * 2: 4.65 * 2^32), so five byte planes hold it; a plane's bytes summed over
 * 25 offsets stay below 2^16. D = T[n] - S and n * 2^32 are integers below
 * 2^52, converted exactly; vdivpd and vcvtpd2ps round as winent_finish's
 * divsd and cvtsd2ss.
 */
#include "engine_cpu_cmp.h"

#include "entropy_rule.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define CMP_X86 1
#include <immintrin.h>
#else
#define CMP_X86 0
#endif

/* The pair loops are unrolled (one copy per window size, below), so that
 * the counts stay in registers. Instrumenting those copies takes clang
 * minutes under ASan and UBSan (this file alone, ASan + UBSan: over 4
 * minutes; 3 s rolled), the longest step of the checking builds: there
 * the loops stay rolled, the same loads and arithmetic checked. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CMP_SANITIZED 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__ /* GCC */
#define CMP_SANITIZED 1
#endif
#ifdef CMP_SANITIZED
#define CMP_UNROLL(n)
#else
#define CMP_PRAGMA(x) _Pragma(#x)
#define CMP_UNROLL(n) CMP_PRAGMA(GCC unroll n)
#endif

/* Byte planes of Lq[c], c <= WINENT_CMP_NMAX. */
#define CMP_PLANES 5

static inline int imax(int a, int b)
{
    return a > b ? a : b;
}
static inline int imin(int a, int b)
{
    return a < b ? a : b;
}

int winent_cmp_available(int kx, int ky)
{
    if (kx * ky > WINENT_CMP_NMAX || kx * ky < 2)
        return 0;
#if CMP_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vbmi");
#else
    return 0;
#endif
}

/* Nanoseconds per pixel on one core of the development machine (issue 32:
 * 3x3 about 1.0, 5x5 about 3.3): a part per pair of offsets compared and
 * one per offset looked up; the sliding engine about SLIDE_NS per update,
 * 2 Ky updates a pixel. */
#define CMP_NS_PER_PAIR 0.0026
#define CMP_NS_PER_OFFSET 0.1
#define SLIDE_NS 0.72

double winent_cmp_ratio(int kx, int ky)
{
    const int n = kx * ky;
    const double cmp = CMP_NS_PER_PAIR * n * (n - 1) / 2 + CMP_NS_PER_OFFSET * n;
    return cmp / (SLIDE_NS * 2.0 * ky);
}

#if CMP_X86

#define CMP_TARGET "avx512f,avx512bw,avx512dq,avx512vbmi"

/* 64 output pixels from their window's codes `v` (n vectors, one per
 * offset): D = T[n] - S as floats into o[0..63]. */
__attribute__((target(CMP_TARGET), always_inline)) static inline void
pixels64(const uint8_t *const *src, int n, const __m512i *tab, int64_t tn, __m512d den, float *o)
{
    const __m512i one = _mm512_set1_epi8(1);
    __m512i c[WINENT_CMP_NMAX];
    /* Per plane, the bytes of Lq[c_a] summed over a in 16-bit lanes. */
    __m512i acc[CMP_PLANES][2];
    for (int p = 0; p < CMP_PLANES; p++)
        acc[p][0] = acc[p][1] = _mm512_setzero_si512();
    CMP_UNROLL(25)
    for (int a = 0; a < WINENT_CMP_NMAX; a++)
        c[a] = one;
    /* Offset a's count is complete once it has met every b > a: its
     * lookups then, so that fewer counts are live at once. */
    CMP_UNROLL(25)
    for (int a = 0; a < n; a++) {
        const __m512i va = _mm512_loadu_si512(src[a]);
        CMP_UNROLL(25)
        for (int b = a + 1; b < n; b++) {
            const __mmask64 k = _mm512_cmpeq_epi8_mask(va, _mm512_loadu_si512(src[b]));
            c[a] = _mm512_mask_add_epi8(c[a], k, c[a], one);
            c[b] = _mm512_mask_add_epi8(c[b], k, c[b], one);
        }
        /* Two offsets' plane bytes at a time, interleaved and summed in
         * pairs (vpmaddubsw by ones) into 16-bit lanes: acc[p][0] holds
         * pixels 16 L + 0..7 of each 128-bit lane L, acc[p][1] 16 L + 8..15. */
        if (a % 2 == 1 || a == n - 1) {
            const __m512i c1 = a % 2 == 1 ? c[a] : _mm512_setzero_si512();
            const __m512i c0 = a % 2 == 1 ? c[a - 1] : c[a];
            CMP_UNROLL(5)
            for (int p = 0; p < CMP_PLANES; p++) {
                const __m512i e0 = _mm512_permutexvar_epi8(c0, tab[p]);
                /* A zero count (the pad of an odd n) looks up Lq[0] = 0. */
                const __m512i e1 = _mm512_permutexvar_epi8(c1, tab[p]);
                acc[p][0] = _mm512_add_epi16(
                    acc[p][0], _mm512_maddubs_epi16(_mm512_unpacklo_epi8(e0, e1), one));
                acc[p][1] = _mm512_add_epi16(
                    acc[p][1], _mm512_maddubs_epi16(_mm512_unpackhi_epi8(e0, e1), one));
            }
        }
    }
    const __m512i vtn = _mm512_set1_epi64(tn);
    for (int g = 0; g < 8; g++) {
        /* Pixels 8g .. 8g + 7: 128-bit lane g / 2 of acc[p][g % 2]. */
        __m512i s = _mm512_setzero_si512();
        for (int p = 0; p < CMP_PLANES; p++) {
            const __m512i h = acc[p][g % 2];
            const __m128i part = (g / 2) == 0   ? _mm512_castsi512_si128(h)
                                 : (g / 2) == 1 ? _mm512_extracti32x4_epi32(h, 1)
                                 : (g / 2) == 2 ? _mm512_extracti32x4_epi32(h, 2)
                                                : _mm512_extracti32x4_epi32(h, 3);
            __m512i w = _mm512_cvtepu16_epi64(part);
            switch (p) { /* shifts by an immediate */
            case 0: break;
            case 1: w = _mm512_slli_epi64(w, 8); break;
            case 2: w = _mm512_slli_epi64(w, 16); break;
            case 3: w = _mm512_slli_epi64(w, 24); break;
            default: w = _mm512_slli_epi64(w, 32); break;
            }
            s = _mm512_add_epi64(s, w);
        }
        const __m512d q = _mm512_div_pd(_mm512_cvtepi64_pd(_mm512_sub_epi64(vtn, s)), den);
        _mm256_storeu_ps(o + 8 * g, _mm512_cvtpd_ps(q));
    }
}

__attribute__((target(CMP_TARGET))) int winent_cmp_rows(const winent_few_job *j, const int64_t *lq,
                                                        int ya, int yb)
{
    const int W = j->W, H = j->H, rx = j->rx, ry = j->ry, kx = 2 * rx + 1, ky = 2 * ry + 1;
    const int n = kx * ky;
    const int ia = imax(ya, ry), ib = imin(yb, H - ry);
    const int xe = rx + (W - 2 * rx) / 64 * 64;
    if (ia >= ib || xe <= rx || n > WINENT_CMP_NMAX)
        return rx;
    uint8_t tb[CMP_PLANES][64];
    for (int p = 0; p < CMP_PLANES; p++)
        for (int c = 0; c < 64; c++)
            tb[p][c] = c <= n ? (uint8_t)((uint64_t)lq[c] >> (8 * p)) : 0;
    __m512i tab[CMP_PLANES];
    for (int p = 0; p < CMP_PLANES; p++)
        tab[p] = _mm512_loadu_si512(tb[p]);
    const int64_t tn = j->t[n];
    const __m512d den = _mm512_set1_pd((double)n * WINENT_LQ_SCALE);
    for (int y = ia; y < ib; y++) {
        float *o = j->out + (size_t)(y - j->out_y0) * j->out_stride;
        const uint8_t *src[WINENT_CMP_NMAX];
        for (int x0 = rx; x0 < xe; x0 += 64) {
            int a = 0;
            for (int dy = -ry; dy <= ry; dy++) {
                const uint8_t *r = j->base + (size_t)(y + dy - j->oy) * j->stride;
                for (int dx = -rx; dx <= rx; dx++)
                    src[a++] = r + x0 + dx;
            }
            /* One copy per window size, so the pair loops unroll. */
            switch (n) {
            case 3: pixels64(src, 3, tab, tn, den, o + x0); break;
            case 5: pixels64(src, 5, tab, tn, den, o + x0); break;
            case 9: pixels64(src, 9, tab, tn, den, o + x0); break;
            case 15: pixels64(src, 15, tab, tn, den, o + x0); break;
            case 21: pixels64(src, 21, tab, tn, den, o + x0); break;
            case 25: pixels64(src, 25, tab, tn, den, o + x0); break;
            default: pixels64(src, n, tab, tn, den, o + x0); break;
            }
        }
    }
    return xe;
}

#else

int winent_cmp_rows(const winent_few_job *j, const int64_t *lq, int ya, int yb)
{
    (void)lq, (void)ya, (void)yb;
    return j->rx;
}

#endif
