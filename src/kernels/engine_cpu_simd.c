/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_simd.c - the few-values path of the CPU engine (codes < 16).
 *
 * Why columns: with 16 bins a pixel's whole histogram is 16 counters, so it
 * is cheaper to keep one per column (one row in and one row out per output
 * row) and add Kx of them per pixel in vector registers than to walk 2 * Ky
 * scattered histogram updates per pixel as the sliding engine does.
 *
 * Why byte planes: for n <= 63 a count indexes a 64-entry table, which is
 * one vpermb (or four vpshufb) per byte of T[c]. T[63] < 2^41, so six byte
 * planes hold every T[c]; vpsadbw adds a pixel's 16 looked-up bytes, and
 * sum_p (plane sum p) << 8p is the exact int64 S. Nothing is rounded before
 * the shared division, so the bits are the reference's.
 *
 * Why the division in vectors is the same: D and n * 2^32 are integers
 * below 2^52, converted exactly to double (vcvtqq2pd, or the 2^52 bias
 * trick on AVX2); vdivpd and vcvtpd2ps round to nearest like the scalar
 * divsd and cvtsd2ss of winent_finish. No FMA anywhere.
 */
#include "engine_cpu_simd.h"

#include <math.h>
#include <string.h>

#include "entropy_rule.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FEW_X86 1
#include <immintrin.h>
#else
#define FEW_X86 0
#endif

/* Byte planes of T[c] (c <= 63): the entropy's T[63] base 2 is about
 * 1.6e12 < 2^48 (6 planes); the other measures' tables reach 2^62 (8).
 * Planes shifted past 2^64 wrap, but S itself is below 2^63, so the
 * wrapped int64 sum is S exactly. */
#define PLANES 8
/* Spare columns after the last, so vector loads past W read zeros. */
#define PAD_COLS 8

static inline int imax(int a, int b)
{
    return a > b ? a : b;
}
static inline int imin(int a, int b)
{
    return a < b ? a : b;
}

size_t winent_few_scratch_bytes(int max_width, int rx)
{
    size_t cols = (size_t)max_width + 2 * (size_t)rx + PAD_COLS;
    /* 16-bit column histograms (the larger layout), then the widths. */
    return (cols * 32 + 63) / 64 * 64 + ((size_t)max_width + PAD_COLS) * sizeof(int32_t);
}

int winent_few_scan(const uint8_t *codes, size_t stride, int w, int h)
{
    const uint64_t high = 0xF0F0F0F0F0F0F0F0ull;
    uint64_t any = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *r = codes + (size_t)y * stride;
        int x = 0;
        for (; x + 8 <= w; x += 8) {
            uint64_t v;
            memcpy(&v, r + x, 8);
            any |= v;
        }
        for (; x < w; x++)
            any |= r[x];
        if (any & high)
            return 0;
    }
    return 1;
}

/* Window widths per column (cropped at the borders), 1 in the spare
 * columns so that n stays a valid table index there. */
static int32_t *column_widths(const winent_few_job *j, void *scratch)
{
    size_t cols = (size_t)j->W + 2 * (size_t)j->rx + PAD_COLS;
    int32_t *kw = (int32_t *)((uint8_t *)scratch + (cols * 32 + 63) / 64 * 64);
    for (int x = 0; x < j->W; x++)
        kw[x] = imin(j->W - 1, x + j->rx) - imax(0, x - j->rx) + 1;
    for (int x = j->W; x < j->W + PAD_COLS; x++)
        kw[x] = 1;
    return kw;
}

static inline const uint8_t *code_row(const winent_few_job *j, int y)
{
    return j->base + (size_t)(y - j->oy) * j->stride;
}

/* A measure other than the entropy: the values of `count` pixels from
 * their S (`sb`) and n (`nb`), NaN where the centre is nodata. */
static void finish_lanes(const winent_few_job *j, const int64_t *sb, const int64_t *nb,
                         const uint8_t *centre, int count, float *o)
{
    for (int i = 0; i < count; i++)
        o[i] = j->sent >= 0 && centre[i] == j->sent
                   ? NAN
                   : winent_measure_finish(j->m, sb[i], (int)nb[i], j->t);
}

/* The row loop of winent_few_finish for one measure kind, a constant, so
 * that winent_measure_finish's switch folds away. */
#define FINISH_KIND(K)                                                                             \
    do {                                                                                           \
        const winent_measure_rule r_ = {(K), m->renyi_den};                                        \
        for (int i = 0; i < count; i++)                                                            \
            o[i] = winent_measure_finish(&r_, t[nn[i]] - num[i], (int)nn[i], t);                   \
    } while (0)

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>

/* Renyi's last step 4 pixels at a time: winent_ln's operations, in its
 * order, each rounded once (AVX2 without FMA: nothing fused), so the bits
 * of winent_measure_finish. Lanes whose ratio is not a positive normal
 * number (a window of no pixel, overwritten by NaN) take the scalar one. */
__attribute__((target("avx2"))) static void renyi_avx2(const winent_measure_rule *m,
                                                       const int64_t *t, const int64_t *num,
                                                       const int64_t *nn, int count, float *o)
{
    const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0);
    const __m256d rt = _mm256_set1_pd(0.70710678118654752440);
    const __m256d den = _mm256_set1_pd(m->renyi_den), zero = _mm256_setzero_pd();
    const __m256i mant = _mm256_set1_epi64x(0x000FFFFFFFFFFFFFll);
    const __m256i half = _mm256_set1_epi64x(0x3FE0000000000000ll); /* exponent of [0.5, 1) */
    int i = 0;
    for (; i + 4 <= count; i += 4) {
        double a[4], b[4];
        int ok = 1;
        for (int k = 0; k < 4; k++) {
            a[k] = (double)(t[nn[i + k]] - num[i + k]);
            b[k] = (double)t[nn[i + k]];
        }
        const __m256d r = _mm256_div_pd(_mm256_loadu_pd(a), _mm256_loadu_pd(b));
        const __m256i bits = _mm256_castpd_si256(r);
        int64_t ex[4];
        _mm256_storeu_si256((__m256i *)ex, _mm256_srli_epi64(bits, 52));
        for (int k = 0; k < 4; k++)
            ok &= ex[k] > 0 && ex[k] < 0x7FF; /* positive, normal, finite */
        if (!ok) {
            for (int k = 0; k < 4; k++)
                o[i + k] = winent_measure_finish(m, t[nn[i + k]] - num[i + k], (int)nn[i + k], t);
            continue;
        }
        /* frexp: r = mm 2^e, mm in [0.5, 1). */
        __m256d mm = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, mant), half));
        __m128i e = _mm_setr_epi32((int)ex[0] - 1022, (int)ex[1] - 1022, (int)ex[2] - 1022,
                                   (int)ex[3] - 1022);
        const __m256d lo = _mm256_cmp_pd(mm, rt, _CMP_LT_OQ);
        mm = _mm256_blendv_pd(mm, _mm256_mul_pd(mm, two), lo);
        /* lo lanes are all ones (-1 as 32-bit after the pack): e - 1. */
        const __m256i lo64 = _mm256_castpd_si256(lo);
        const __m128i lo32 = _mm_castps_si128(_mm_shuffle_ps(
            _mm_castsi128_ps(_mm256_castsi256_si128(lo64)),
            _mm_castsi128_ps(_mm256_extracti128_si256(lo64, 1)), _MM_SHUFFLE(2, 0, 2, 0)));
        e = _mm_add_epi32(e, lo32);
        const __m256d f = _mm256_div_pd(_mm256_sub_pd(mm, one), _mm256_add_pd(mm, one));
        const __m256d f2 = _mm256_mul_pd(f, f);
        __m256d sum = _mm256_set1_pd(1.0 / 25.0);
        for (int k = 11; k >= 0; k--)
            sum = _mm256_add_pd(_mm256_mul_pd(sum, f2), _mm256_set1_pd(1.0 / (double)(2 * k + 1)));
        const __m256d lm = _mm256_mul_pd(_mm256_mul_pd(two, f), sum);
        const __m256d de = _mm256_cvtepi32_pd(e);
        const __m256d ln = _mm256_add_pd(
            _mm256_mul_pd(de, _mm256_set1_pd(6.93147180369123816490e-01)),
            _mm256_add_pd(_mm256_mul_pd(de, _mm256_set1_pd(1.90821492927058770002e-10)), lm));
        _mm_storeu_ps(o + i, _mm256_cvtpd_ps(_mm256_add_pd(_mm256_div_pd(ln, den), zero)));
    }
    for (; i < count; i++)
        o[i] = winent_measure_finish(m, t[nn[i]] - num[i], (int)nn[i], t);
}
#define FINISH_RENYI_AVX2 1
#else
#define FINISH_RENYI_AVX2 0
#endif

void winent_few_finish(const winent_measure_rule *m, const int64_t *t, const int64_t *num,
                       const int64_t *nn, int count, float *o)
{
    switch (m->kind) {
    case 1: /* renyi: its logarithm 4 at a time where the CPU can */
#if FINISH_RENYI_AVX2
        if (__builtin_cpu_supports("avx2")) {
            renyi_avx2(m, t, num, nn, count, o);
            break;
        }
#endif
        FINISH_KIND(1);
        break;
    case 2: FINISH_KIND(2); break; /* simpson */
    case 3: FINISH_KIND(3); break; /* richness */
    case 4: FINISH_KIND(4); break; /* evenness */
    default: FINISH_KIND(m->kind); break;
    }
}

/* --- Portable: 16-bit column histograms, 16 scalar lookups per pixel. --- */

static void rows_portable(const winent_few_job *j, int ya, int yb, void *scratch)
{
    const int W = j->W, H = j->H, rx = j->rx, ry = j->ry, sent = j->sent;
    const int ent = winent_few_is_entropy(j);
    const int64_t *t = j->t;
    const size_t cols = (size_t)W + 2 * (size_t)rx + 1;
    uint16_t(*ch)[WINENT_FEW_BINS] = scratch; /* column x at ch[x + rx] */
    const int32_t *kw = column_widths(j, scratch);
    for (int y = ya; y < yb; y++) {
        const int wy0 = imax(0, y - ry), wy1 = imin(H - 1, y + ry), kh = wy1 - wy0 + 1;
        if (y == ya) {
            memset(ch, 0, cols * sizeof *ch);
            for (int r = wy0; r <= wy1; r++) {
                const uint8_t *p = code_row(j, r);
                for (int x = 0; x < W; x++)
                    ch[x + rx][p[x]]++;
            }
        } else {
            if (y - 1 - ry >= 0) {
                const uint8_t *p = code_row(j, y - 1 - ry);
                for (int x = 0; x < W; x++)
                    ch[x + rx][p[x]]--;
            }
            if (y + ry < H) {
                const uint8_t *p = code_row(j, y + ry);
                for (int x = 0; x < W; x++)
                    ch[x + rx][p[x]]++;
            }
        }
        const uint8_t *centre = code_row(j, y);
        float *o = j->out + (size_t)(y - j->out_y0) * j->out_stride;
        uint16_t win[WINENT_FEW_BINS] = {0};
        for (int d = 0; d < 2 * rx; d++)
            for (int v = 0; v < WINENT_FEW_BINS; v++)
                win[v] = (uint16_t)(win[v] + ch[d][v]);
        for (int x = 0; x < W; x++) {
            /* Window of x: padded columns x .. x + 2rx (zeros outside). */
            for (int v = 0; v < WINENT_FEW_BINS; v++)
                win[v] = (uint16_t)(win[v] + ch[x + 2 * rx][v]);
            int64_t s = 0;
            for (int v = 0; v < WINENT_FEW_BINS; v++)
                s += t[win[v]];
            int cs = 0;
            if (sent >= 0) {
                cs = win[sent];
                s -= t[cs];
            }
            int n = kh * kw[x] - cs;
            o[x] = sent >= 0 && centre[x] == sent ? NAN
                   : ent                          ? winent_finish(t[n] - s, n)
                                                  : winent_measure_finish(j->m, s, n, t);
            for (int v = 0; v < WINENT_FEW_BINS; v++)
                win[v] = (uint16_t)(win[v] - ch[x][v]);
        }
    }
}

#if FEW_X86

/* Byte plane p of T[c] for c = 0..63 (0 past the window's n); returns the
 * number of planes that hold a nonzero byte (T grows with c: T[nmax]'s). */
static int plane_tables(const int64_t *t, int nmax, uint8_t tab[PLANES][64])
{
    int np = 1;
    while (np < PLANES && ((uint64_t)t[nmax] >> (8 * np)) != 0)
        np++;
    for (int p = 0; p < PLANES; p++)
        for (int c = 0; c < 64; c++)
            tab[p][c] = c <= nmax ? (uint8_t)((uint64_t)t[c] >> (8 * p)) : 0;
    return np;
}

/* --- AVX-512 VBMI: 4 pixels of 16 byte bins per register. --- */

#define AVX512_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi"

/* Add the one-hot bins of row `pin` and remove those of row `pout` (either
 * may be NULL) to the byte column histograms, 4 columns per step. */
__attribute__((target(AVX512_TARGET))) static void
columns_avx512(uint8_t *ch, int W, const uint8_t *pin, const uint8_t *pout)
{
    const __m512i iota =
        _mm512_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11,
                        10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4,
                        3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    /* Byte i of the result takes code i / 16: column i / 16's code. */
    const __m512i spread =
        _mm512_set_epi8(3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2,
                        2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0,
                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i one = _mm512_set1_epi8(1);
    int x = 0;
    for (; x + 4 <= W; x += 4) {
        __m512i h = _mm512_loadu_si512(ch + (size_t)x * 16);
        uint32_t w;
        if (pin) {
            memcpy(&w, pin + x, 4);
            __m512i c = _mm512_permutexvar_epi8(spread, _mm512_set1_epi32((int)w));
            h = _mm512_mask_add_epi8(h, _mm512_cmpeq_epi8_mask(c, iota), h, one);
        }
        if (pout) {
            memcpy(&w, pout + x, 4);
            __m512i c = _mm512_permutexvar_epi8(spread, _mm512_set1_epi32((int)w));
            h = _mm512_mask_sub_epi8(h, _mm512_cmpeq_epi8_mask(c, iota), h, one);
        }
        _mm512_storeu_si512(ch + (size_t)x * 16, h);
    }
    for (; x < W; x++) {
        if (pin)
            ch[(size_t)x * 16 + pin[x]]++;
        if (pout)
            ch[(size_t)x * 16 + pout[x]]--;
    }
}

/* S (the sum of T over the 16 bins) of 4 pixels, as 8 qwords holding two
 * halves per pixel; the caller adds the halves. */
__attribute__((target(AVX512_TARGET))) static inline __m512i
planes_avx512(__m512i h, const __m512i *tab, int np)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i s = _mm512_sad_epu8(_mm512_permutexvar_epi8(h, tab[0]), z);
    /* Planes past the top byte of T[n] are all zero: skipped (the branch
     * goes the same way for the whole band). */
#define PLANE(p)                                                                                   \
    if (np > (p))                                                                                  \
    s = _mm512_add_epi64(                                                                          \
        s, _mm512_slli_epi64(_mm512_sad_epu8(_mm512_permutexvar_epi8(h, tab[p]), z), 8 * (p)))
    PLANE(1);
    PLANE(2);
    PLANE(3);
    PLANE(4);
    PLANE(5);
    PLANE(6);
    PLANE(7);
#undef PLANE
    return s;
}

__attribute__((target(AVX512_TARGET))) static void rows_avx512(const winent_few_job *j, int ya,
                                                               int yb, void *scratch)
{
    const int W = j->W, H = j->H, rx = j->rx, ry = j->ry, kx = 2 * rx + 1;
    const int nmax = kx * (2 * ry + 1), sent = j->sent, ent = winent_few_is_entropy(j);
    const size_t cols = (size_t)W + 2 * (size_t)rx + PAD_COLS;
    uint8_t *ch = scratch; /* column x at ch + (x + rx) * 16 */
    const int32_t *kw = column_widths(j, scratch);
    uint8_t tb[PLANES][64];
    const int np = plane_tables(j->t, nmax, tb);
    __m512i tab[PLANES];
    for (int p = 0; p < PLANES; p++)
        tab[p] = _mm512_loadu_si512(tb[p]);
    /* 0xFF at the nodata bin of each pixel's 16 bytes. */
    uint8_t sm[64] = {0};
    for (int i = 0; sent >= 0 && i < 4; i++)
        sm[i * 16 + sent] = 0xFF;
    const __m512i smask = _mm512_loadu_si512(sm);
    const __m512i z = _mm512_setzero_si512();
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    const __m512d nan = _mm512_set1_pd(NAN);
    const __m128i vsent = _mm_set1_epi8((char)sent);

    for (int y = ya; y < yb; y++) {
        const int wy0 = imax(0, y - ry), wy1 = imin(H - 1, y + ry), kh = wy1 - wy0 + 1;
        if (y == ya) {
            memset(ch, 0, cols * 16);
            for (int r = wy0; r <= wy1; r++)
                columns_avx512(ch + (size_t)rx * 16, W, code_row(j, r), NULL);
        } else {
            columns_avx512(ch + (size_t)rx * 16, W, y + ry < H ? code_row(j, y + ry) : NULL,
                           y - 1 - ry >= 0 ? code_row(j, y - 1 - ry) : NULL);
        }
        const uint8_t *centre = code_row(j, y);
        float *o = j->out + (size_t)(y - j->out_y0) * j->out_stride;
        const __m512i vkh = _mm512_set1_epi64(kh);
        for (int x = 0; x < W; x += 8) {
            /* Pixels x .. x + 7: padded columns x + d, d = 0 .. 2rx. */
            const uint8_t *c0 = ch + (size_t)x * 16;
            __m512i h0 = _mm512_loadu_si512(c0), h1 = _mm512_loadu_si512(c0 + 64);
            for (int d = 1; d < kx; d++) {
                h0 = _mm512_add_epi8(h0, _mm512_loadu_si512(c0 + d * 16));
                h1 = _mm512_add_epi8(h1, _mm512_loadu_si512(c0 + 64 + d * 16));
            }
            __m512i cs = z;
            if (sent >= 0) {
                __m512i q0 = _mm512_sad_epu8(_mm512_and_si512(h0, smask), z);
                __m512i q1 = _mm512_sad_epu8(_mm512_and_si512(h1, smask), z);
                cs = _mm512_add_epi64(_mm512_permutex2var_epi64(q0, even, q1),
                                      _mm512_permutex2var_epi64(q0, odd, q1));
                h0 = _mm512_andnot_si512(smask, h0);
                h1 = _mm512_andnot_si512(smask, h1);
            }
            __m512i s0 = planes_avx512(h0, tab, np), s1 = planes_avx512(h1, tab, np);
            __m512i s = _mm512_add_epi64(_mm512_permutex2var_epi64(s0, even, s1),
                                         _mm512_permutex2var_epi64(s0, odd, s1));
            __m512i area = _mm512_mul_epu32(
                _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(kw + x))), vkh);
            __m512i n = _mm512_max_epi64(_mm512_sub_epi64(area, cs), z);
            if (!ent) {
                int64_t sb[8], nb[8];
                _mm512_storeu_si512(sb, s);
                _mm512_storeu_si512(nb, n);
                finish_lanes(j, sb, nb, centre + x, imin(8, W - x), o + x);
                continue;
            }
            __m512i tn = _mm512_i64gather_epi64(n, (const void *)j->t, 8);
            __m512d num = _mm512_cvtepi64_pd(_mm512_sub_epi64(tn, s));
            __m512d den = _mm512_cvtepi64_pd(_mm512_slli_epi64(n, 32));
            __m512d q = _mm512_div_pd(num, den);
            const int left = W - x;
            const __mmask8 live = left >= 8 ? 0xFF : (__mmask8)((1u << left) - 1u);
            if (sent >= 0) {
                __m128i cc = _mm_maskz_loadu_epi8(live, centre + x);
                q = _mm512_mask_blend_pd(_mm_cmpeq_epi8_mask(cc, vsent), q, nan);
            }
            __m256 f = _mm512_cvtpd_ps(q);
            if (left >= 8)
                _mm256_storeu_ps(o + x, f);
            else
                _mm256_mask_storeu_ps(o + x, live, f);
        }
    }
}

/* --- AVX2: 2 pixels of 16 byte bins per register. --- */

#define AVX2_TARGET "avx2"

__attribute__((target(AVX2_TARGET))) static void
columns_avx2(uint8_t *ch, int W, const uint8_t *pin, const uint8_t *pout)
{
    const __m256i iota = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0,
                                          1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    /* vpshufb stays in each 128-bit half: the low half takes byte 0 (column
     * x's code), the high half byte 1 (column x + 1's). */
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1,
                                            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    int x = 0;
    for (; x + 2 <= W; x += 2) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(ch + (size_t)x * 16));
        uint16_t w;
        if (pin) {
            memcpy(&w, pin + x, 2);
            __m256i c = _mm256_shuffle_epi8(_mm256_set1_epi16((short)w), spread);
            h = _mm256_sub_epi8(h, _mm256_cmpeq_epi8(c, iota)); /* -(-1) */
        }
        if (pout) {
            memcpy(&w, pout + x, 2);
            __m256i c = _mm256_shuffle_epi8(_mm256_set1_epi16((short)w), spread);
            h = _mm256_add_epi8(h, _mm256_cmpeq_epi8(c, iota));
        }
        _mm256_storeu_si256((__m256i *)(ch + (size_t)x * 16), h);
    }
    for (; x < W; x++) {
        if (pin)
            ch[(size_t)x * 16 + pin[x]]++;
        if (pout)
            ch[(size_t)x * 16 + pout[x]]--;
    }
}

/* 64-entry byte lookups with vpshufb (16 entries, zero when bit 7 of the
 * index is set): index c + 0x70 - 16k (saturating) is in 0x70..0x7F for
 * the k-th block of 16 counts, below for earlier blocks and >= 0x80 (zero)
 * for later ones (k < j for a count in block j); the others read
 * A_k[c & 15], so with tables A_k = T_k ^ T_(k+1) (T_nb = 0) the XOR over
 * k >= j telescopes to T_j[c & 15]. Counts never exceed n, so
 * only nb = n / 16 + 1 blocks are looked up, and np planes (as AVX-512). */
__attribute__((target(AVX2_TARGET), always_inline)) static inline __m256i
planes_avx2(__m256i h, const __m256i (*tab)[4], const int nb, int np)
{
    const __m256i z = _mm256_setzero_si256();
    __m256i i[4];
    for (int k = 0; k < nb; k++)
        i[k] = _mm256_adds_epu8(h, _mm256_set1_epi8((char)(0x70 - 16 * k)));
    __m256i s = z;
    for (int p = 0; p < PLANES; p++) {
        if (p >= np)
            break;
        __m256i r = _mm256_shuffle_epi8(tab[p][0], i[0]);
        for (int k = 1; k < nb; k++)
            r = _mm256_xor_si256(r, _mm256_shuffle_epi8(tab[p][k], i[k]));
        __m256i q = _mm256_sad_epu8(r, z);
        switch (p) { /* shifts by an immediate */
        case 0: break;
        case 1: q = _mm256_slli_epi64(q, 8); break;
        case 2: q = _mm256_slli_epi64(q, 16); break;
        case 3: q = _mm256_slli_epi64(q, 24); break;
        case 4: q = _mm256_slli_epi64(q, 32); break;
        case 5: q = _mm256_slli_epi64(q, 40); break;
        case 6: q = _mm256_slli_epi64(q, 48); break;
        default: q = _mm256_slli_epi64(q, 56); break;
        }
        s = _mm256_add_epi64(s, q);
    }
    return s;
}

/* Halves of pixels (a0 a1 b0 b1 | ...) in two registers to pixel sums in
 * order: [a0+a1, b0+b1, c0+c1, d0+d1] for a, b in `lo` and c, d in `hi`. */
__attribute__((target(AVX2_TARGET))) static inline __m256i pairs_avx2(__m256i lo, __m256i hi)
{
    __m256i s = _mm256_add_epi64(_mm256_unpacklo_epi64(lo, hi), _mm256_unpackhi_epi64(lo, hi));
    return _mm256_permute4x64_epi64(s, _MM_SHUFFLE(3, 1, 2, 0));
}

__attribute__((target(AVX2_TARGET), always_inline)) static inline void
rows_avx2_nb(const winent_few_job *j, int ya, int yb, void *scratch, const int nb)
{
    const int W = j->W, H = j->H, rx = j->rx, ry = j->ry, kx = 2 * rx + 1;
    const int nmax = kx * (2 * ry + 1), sent = j->sent, ent = winent_few_is_entropy(j);
    const size_t cols = (size_t)W + 2 * (size_t)rx + PAD_COLS;
    uint8_t *ch = scratch;
    const int32_t *kw = column_widths(j, scratch);
    uint8_t tb[PLANES][64];
    const int np = plane_tables(j->t, nmax, tb);
    __m256i tab[PLANES][4];
    for (int p = 0; p < PLANES; p++)
        for (int k = 0; k < 4; k++) {
            uint8_t a[16];
            for (int i = 0; i < 16; i++) {
                a[i] = k < nb ? tb[p][16 * k + i] : 0;
                if (k + 1 < nb)
                    a[i] ^= tb[p][16 * (k + 1) + i];
            }
            tab[p][k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a));
        }
    uint8_t sm[32] = {0};
    for (int i = 0; sent >= 0 && i < 2; i++)
        sm[i * 16 + sent] = 0xFF;
    const __m256i smask = _mm256_loadu_si256((const __m256i *)sm);
    const __m256i z = _mm256_setzero_si256();
    const __m256i bias = _mm256_set1_epi64x(0x4330000000000000ll); /* 2^52 */
    const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
    const __m128 nan = _mm_set1_ps(NAN);
    const __m128i vsent = _mm_set1_epi32(sent);

    for (int y = ya; y < yb; y++) {
        const int wy0 = imax(0, y - ry), wy1 = imin(H - 1, y + ry), kh = wy1 - wy0 + 1;
        if (y == ya) {
            memset(ch, 0, cols * 16);
            for (int r = wy0; r <= wy1; r++)
                columns_avx2(ch + (size_t)rx * 16, W, code_row(j, r), NULL);
        } else {
            columns_avx2(ch + (size_t)rx * 16, W, y + ry < H ? code_row(j, y + ry) : NULL,
                         y - 1 - ry >= 0 ? code_row(j, y - 1 - ry) : NULL);
        }
        const uint8_t *centre = code_row(j, y);
        float *o = j->out + (size_t)(y - j->out_y0) * j->out_stride;
        const __m256i vkh = _mm256_set1_epi64x(kh);
        for (int x = 0; x < W; x += 4) {
            const uint8_t *c0 = ch + (size_t)x * 16;
            __m256i h0 = _mm256_loadu_si256((const __m256i *)c0);
            __m256i h1 = _mm256_loadu_si256((const __m256i *)(c0 + 32));
            for (int d = 1; d < kx; d++) {
                h0 = _mm256_add_epi8(h0, _mm256_loadu_si256((const __m256i *)(c0 + d * 16)));
                h1 = _mm256_add_epi8(h1, _mm256_loadu_si256((const __m256i *)(c0 + 32 + d * 16)));
            }
            __m256i cs = z;
            if (sent >= 0) {
                cs = pairs_avx2(_mm256_sad_epu8(_mm256_and_si256(h0, smask), z),
                                _mm256_sad_epu8(_mm256_and_si256(h1, smask), z));
                h0 = _mm256_andnot_si256(smask, h0);
                h1 = _mm256_andnot_si256(smask, h1);
            }
            __m256i s = pairs_avx2(planes_avx2(h0, tab, nb, np), planes_avx2(h1, tab, nb, np));
            __m256i area = _mm256_mul_epu32(
                _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(kw + x))), vkh);
            __m256i n = _mm256_sub_epi64(area, cs);
            n = _mm256_andnot_si256(_mm256_cmpgt_epi64(z, n), n); /* spare columns: >= 0 */
            if (!ent) {
                int64_t sb[4], nb[4];
                _mm256_storeu_si256((__m256i *)sb, s);
                _mm256_storeu_si256((__m256i *)nb, n);
                finish_lanes(j, sb, nb, centre + x, imin(4, W - x), o + x);
                continue;
            }
            __m256i tn = _mm256_i64gather_epi64((const long long *)j->t, n, 8);
            /* D and n * 2^32 are below 2^52 (D >= 0 on live pixels): exact. */
            __m256d num = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_or_si256(_mm256_sub_epi64(tn, s), bias)), two52);
            __m256d den = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_or_si256(_mm256_slli_epi64(n, 32), bias)), two52);
            __m128 f = _mm256_cvtpd_ps(_mm256_div_pd(num, den));
            const int left = W - x;
            if (sent >= 0) {
                uint8_t cb[4] = {0, 0, 0, 0};
                uint32_t cw;
                memcpy(cb, centre + x, left >= 4 ? 4 : (size_t)left);
                memcpy(&cw, cb, 4);
                __m128i cc = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)cw));
                f = _mm_blendv_ps(f, nan, _mm_castsi128_ps(_mm_cmpeq_epi32(cc, vsent)));
            }
            if (left >= 4) {
                _mm_storeu_ps(o + x, f);
            } else {
                float tmp[4];
                _mm_storeu_ps(tmp, f);
                memcpy(o + x, tmp, sizeof(float) * (size_t)left);
            }
        }
    }
}

/* One copy per block count, so the lookups unroll. */
__attribute__((target(AVX2_TARGET))) static void rows_avx2(const winent_few_job *j, int ya, int yb,
                                                           void *scratch)
{
    switch (((2 * j->rx + 1) * (2 * j->ry + 1)) / 16) {
    case 0: rows_avx2_nb(j, ya, yb, scratch, 1); break;
    case 1: rows_avx2_nb(j, ya, yb, scratch, 2); break;
    case 2: rows_avx2_nb(j, ya, yb, scratch, 3); break;
    default: rows_avx2_nb(j, ya, yb, scratch, 4); break;
    }
}

/* --- AVX2, windows over 63 pixels: 16-bit counts of the window in one
 * register, slid by one column in and one out per pixel; S from 16 scalar
 * lookups (the counts outgrow byte tables); four divisions in one vdivpd,
 * since a lone divsd per pixel is what limits the portable kernel. --- */

__attribute__((target(AVX2_TARGET))) static void rows_wide_avx2(const winent_few_job *j, int ya,
                                                                int yb, void *scratch)
{
    const int W = j->W, H = j->H, rx = j->rx, ry = j->ry, sent = j->sent;
    const int ent = winent_few_is_entropy(j);
    const int64_t *t = j->t;
    const size_t cols = (size_t)W + 2 * (size_t)rx + 1;
    uint16_t(*ch)[WINENT_FEW_BINS] = scratch; /* column x at ch[x + rx] */
    const int32_t *kw = column_widths(j, scratch);
    for (int y = ya; y < yb; y++) {
        const int wy0 = imax(0, y - ry), wy1 = imin(H - 1, y + ry), kh = wy1 - wy0 + 1;
        if (y == ya) {
            memset(ch, 0, cols * sizeof *ch);
            for (int r = wy0; r <= wy1; r++) {
                const uint8_t *p = code_row(j, r);
                for (int x = 0; x < W; x++)
                    ch[x + rx][p[x]]++;
            }
        } else {
            const uint8_t *pout = y - 1 - ry >= 0 ? code_row(j, y - 1 - ry) : NULL;
            const uint8_t *pin = y + ry < H ? code_row(j, y + ry) : NULL;
            for (int x = 0; pout && x < W; x++)
                ch[x + rx][pout[x]]--;
            for (int x = 0; pin && x < W; x++)
                ch[x + rx][pin[x]]++;
        }
        const uint8_t *centre = code_row(j, y);
        float *o = j->out + (size_t)(y - j->out_y0) * j->out_stride;
        __m256i win = _mm256_setzero_si256();
        for (int d = 0; d < 2 * rx; d++)
            win = _mm256_add_epi16(win, _mm256_loadu_si256((const __m256i *)ch[d]));
        for (int x = 0; x < W; x += 4) {
            double num[4] = {0, 0, 0, 0}, den[4] = {1, 1, 1, 1};
            float fm[4] = {0, 0, 0, 0};
            const int m = imin(4, W - x);
            for (int i = 0; i < m; i++) {
                const int xi = x + i;
                win = _mm256_add_epi16(win, _mm256_loadu_si256((const __m256i *)ch[xi + 2 * rx]));
                uint16_t b[WINENT_FEW_BINS] __attribute__((aligned(32)));
                _mm256_store_si256((__m256i *)b, win);
                int64_t s0 = t[b[0]] + t[b[1]] + t[b[2]] + t[b[3]];
                int64_t s1 = t[b[4]] + t[b[5]] + t[b[6]] + t[b[7]];
                int64_t s2 = t[b[8]] + t[b[9]] + t[b[10]] + t[b[11]];
                int64_t s3 = t[b[12]] + t[b[13]] + t[b[14]] + t[b[15]];
                int64_t s = (s0 + s1) + (s2 + s3);
                int cs = 0;
                if (sent >= 0) {
                    cs = b[sent];
                    s -= t[cs];
                }
                const int n = kh * kw[xi] - cs;
                /* As winent_finish: exact conversions, then one division;
                 * the other measures their own last step. */
                num[i] = (double)(t[n] - s);
                den[i] = (double)n * WINENT_LQ_SCALE;
                if (!ent)
                    fm[i] = n > 0 ? winent_measure_finish(j->m, s, n, t) : 0.0f;
                win = _mm256_sub_epi16(win, _mm256_loadu_si256((const __m256i *)ch[xi]));
            }
            float f[4];
            _mm_storeu_ps(
                f, _mm256_cvtpd_ps(_mm256_div_pd(_mm256_loadu_pd(num), _mm256_loadu_pd(den))));
            if (!ent)
                memcpy(f, fm, sizeof f);
            for (int i = 0; i < m; i++)
                o[x + i] = sent >= 0 && centre[x + i] == sent ? NAN : f[i];
        }
    }
}

#endif /* FEW_X86 */

winent_few_path winent_few_choose(int kx, int ky, const char *request)
{
    const int nmax = kx * ky;
    int forced = 0, want = WINENT_FEW_AVX512; /* the fastest the CPU and window allow */
    if (request != NULL && *request != '\0') {
        if (!strcmp(request, "slide"))
            return WINENT_FEW_NONE;
        forced = 1;
        if (!strcmp(request, "portable"))
            want = WINENT_FEW_PORTABLE;
        else if (!strcmp(request, "avx2"))
            want = WINENT_FEW_AVX2;
    }
    if (nmax > 65535) /* 16-bit counts */
        return WINENT_FEW_NONE;
    int got = WINENT_FEW_PORTABLE;
#if FEW_X86
    __builtin_cpu_init();
    /* Windows over 63 pixels have only the AVX2 wide kernel. */
    if (nmax > WINENT_FEW_SIMD_NMAX && want > WINENT_FEW_AVX2)
        want = WINENT_FEW_AVX2;
    if (want >= WINENT_FEW_AVX512 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi"))
        got = WINENT_FEW_AVX512;
    else if (want >= WINENT_FEW_AVX2 && __builtin_cpu_supports("avx2"))
        got = WINENT_FEW_AVX2;
#endif
    if (forced)
        return (winent_few_path)got;
    /* Left to itself, the column kernels cost about the same whatever the
     * window (measured: portable ~50 cycles a pixel, wide AVX2 ~25), the
     * sliding engine about 2 * Ky histogram updates (~5 cycles each):
     * short windows stay with the sliding engine. */
    if (got == WINENT_FEW_PORTABLE && ky < 9)
        return WINENT_FEW_NONE;
    if (got == WINENT_FEW_AVX2 && nmax > WINENT_FEW_SIMD_NMAX && ky < 5)
        return WINENT_FEW_NONE;
    return (winent_few_path)got;
}

void winent_few_rows(const winent_few_job *j, winent_few_path path, int ya, int yb, void *scratch)
{
    switch (path) {
#if FEW_X86
    case WINENT_FEW_AVX512: rows_avx512(j, ya, yb, scratch); break;
    case WINENT_FEW_AVX2:
        if ((2 * j->rx + 1) * (2 * j->ry + 1) > WINENT_FEW_SIMD_NMAX)
            rows_wide_avx2(j, ya, yb, scratch);
        else
            rows_avx2(j, ya, yb, scratch);
        break;
#endif
    default: rows_portable(j, ya, yb, scratch); break;
    }
}
