/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_cols.c - the column paths of the CPU engine (codes < 64 and
 * codes < 256), see engine_cpu_cols.h.
 *
 * Why columns: the sliding engine pays 2 * Ky scattered histogram updates
 * per pixel whatever the data. Column histograms move down with one row in
 * and one row out per output row (2 updates per pixel), and the window's
 * step along the row is the difference of two column histograms: a SIMD
 * compare of 64 or 256 byte counts says which bins change, and only those
 * touch the window's counts and S. Correlated data change few bins.
 *
 * Why strips: the column histograms of a whole row are bins x W bytes (2 MiB
 * for 256 bins on an 8192-wide image); strips of about 512 KiB keep them in
 * the core's L2 while the row sweeps, at the cost of 2 rx halo columns per
 * strip.
 *
 * Why the same bits: S is an exact int64 sum of T[count] whatever the order
 * of its updates; D = T[n] - S and n * 2^32 are integers below 2^52 (at most
 * 256 bins: H <= 8 bits), converted exactly to double; vdivpd and vcvtpd2ps
 * round to nearest like the scalar divsd and cvtsd2ss of winent_finish. No
 * FMA anywhere. The other measures' S (below 2^62, exact in int64 the same
 * way) is finished per pixel by winent_measure_finish (winent_few_finish).
 */
#include "engine_cpu_cols.h"
#include "engine_cpu_diffmask.h"

#include <math.h>
#include <string.h>

#include "entropy_rule.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define COLS_X86 1
#include <immintrin.h>
#else
#define COLS_X86 0
#endif

/* Bytes of column histograms per strip: inside a core's L2 (1-2 MiB on
 * current x86 server cores); 512 KiB measured 5-11 % faster than 256 KiB
 * on 256 bins at 15x15 and 31x31, the same on 64. */
#define STRIP_BYTES (512 * 1024)
/* The narrowest strip, whatever the window. */
#define STRIP_MIN 64
/* Spare entries after a strip's row buffers, for whole vectors. */
#define PAD 8

static inline int imax(int a, int b)
{
    return a > b ? a : b;
}
static inline int imin(int a, int b)
{
    return a < b ? a : b;
}
static inline size_t align64(size_t b)
{
    return (b + 63) / 64 * 64;
}

/* Output columns per strip for `bins` bins. */
static int strip_width(int bins, int rx)
{
    return imax(STRIP_MIN, STRIP_BYTES / bins - 2 * rx);
}

/* The scratch of one strip: column histograms, the window, a row's D and n. */
typedef struct cols_scratch {
    uint8_t *col;      /* (sw + 2 rx) columns of `bins` byte counts */
    uint16_t *win;     /* the window's counts */
    uint16_t *po, *pn; /* bins + 32 each: packed counts of a step's changed bins */
    int64_t *num;      /* per output column of the strip: D = T[n] - S */
    int64_t *nn;       /* per output column: n */
} cols_scratch;

static cols_scratch carve(void *scratch, int sw, int rx, int bins)
{
    cols_scratch c;
    uint8_t *p = scratch;
    c.col = p;
    p += align64((size_t)(sw + 2 * rx) * (size_t)bins);
    c.win = (uint16_t *)p;
    p += align64((size_t)bins * sizeof(uint16_t));
    c.po = (uint16_t *)p;
    p += align64((size_t)(bins + 32) * sizeof(uint16_t));
    c.pn = (uint16_t *)p;
    p += align64((size_t)(bins + 32) * sizeof(uint16_t));
    c.num = (int64_t *)p;
    p += align64((size_t)(sw + PAD) * sizeof(int64_t));
    c.nn = (int64_t *)p;
    return c;
}

static size_t scratch_bytes(int max_width, int rx, int bins)
{
    int sw = imin(strip_width(bins, rx), imax(max_width, 1));
    return align64((size_t)(sw + 2 * rx) * (size_t)bins) +
           align64((size_t)bins * sizeof(uint16_t)) +
           2 * align64((size_t)(bins + 32) * sizeof(uint16_t)) +
           2 * align64((size_t)(sw + PAD) * 8);
}

size_t winent_cols_scratch_bytes(int max_width, int rx)
{
    /* 64 bins: wider strips, so longer rows of D and n. */
    size_t small = scratch_bytes(max_width, rx, WINENT_COLS_BINS_SMALL);
    size_t large = scratch_bytes(max_width, rx, WINENT_COLS_BINS_LARGE);
    return small > large ? small : large;
}

int winent_cols_max_code(const uint8_t *codes, size_t stride, int w, int h)
{
    uint8_t m = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *r = codes + (size_t)y * stride;
        uint8_t rm = 0;
        for (int x = 0; x < w; x++) /* vectorized: a max over bytes */
            rm = r[x] > rm ? r[x] : rm;
        m = rm > m ? rm : m;
        if (m == 255)
            break;
    }
    return m;
}

static inline const uint8_t *code_row(const winent_few_job *j, int y)
{
    return j->base + (size_t)(y - j->oy) * j->stride;
}

/* One strip row's sweep: the window of x = xs in `win` (S = s), then for
 * each x its D = T[n] - S_valid and n into num and nn. */
typedef struct sweep_job {
    const uint8_t *col; /* strip column 0: image column xs - rx */
    uint16_t *win;
    uint16_t *po, *pn; /* AVX-512: a step's packed old and new counts */
    const int64_t *t;
    int64_t *num, *nn;
    int xs, xe, rx, W, kh, sent;
} sweep_job;

/* The emit and step loop over x, the window's counts in memory (`win`),
 * each step by STEP(cin, cout, win, t, s, bins). */
#define SWEEP_LOOP(STEP)                                                                           \
    do {                                                                                           \
        const int xs = sj->xs, xe = sj->xe, rx = sj->rx, W = sj->W, kh = sj->kh, sent = sj->sent;  \
        const int64_t *t = sj->t;                                                                  \
        uint16_t *const win = sj->win;                                                             \
        for (int x = xs;; x++) {                                                                   \
            const int kw = imin(W - 1, x + rx) - imax(0, x - rx) + 1;                              \
            const int cnt = sent >= 0 ? win[sent] : 0;                                             \
            const int n = kh * kw - cnt;                                                           \
            sj->num[x - xs] = t[n] - (s - t[cnt]);                                                 \
            sj->nn[x - xs] = n;                                                                    \
            if (x + 1 >= xe)                                                                       \
                break;                                                                             \
            const uint8_t *cin = sj->col + (size_t)(x - xs + 2 * rx + 1) * bins;                   \
            const uint8_t *cout = sj->col + (size_t)(x - xs) * bins;                               \
            s = STEP(cin, cout, win, t, s, bins);                                                  \
        }                                                                                          \
    } while (0)

/* The changed bins of masks `m` (bit v: bin v changes), one at a time:
 * window count c -> c + cin[v] - cout[v], S += T[new] - T[old]. */
static inline __attribute__((always_inline)) int64_t
apply_bits(const uint64_t *m, const uint8_t *cin, const uint8_t *cout, uint16_t *win,
           const int64_t *t, int64_t s, const int bins)
{
    for (int w = 0; w < bins / 64; w++)
        for (uint64_t b = m[w]; b; b &= b - 1) {
            const int v = 64 * w + __builtin_ctzll(b);
            const unsigned c = win[v], n = c + cin[v] - cout[v];
            win[v] = (uint16_t)n;
            s += t[n] - t[c];
        }
    return s;
}

/* --- Portable: bins compared 8 at a time in 64-bit words. --- */

static inline int64_t step_portable(const uint8_t *cin, const uint8_t *cout, uint16_t *win,
                                    const int64_t *t, int64_t s, const int bins)
{
    uint64_t m[WINENT_COLS_BINS_LARGE / 64];
    winent_diff_mask_portable(cin, cout, bins, m);
    return apply_bits(m, cin, cout, win, t, s, bins);
}

static inline __attribute__((always_inline)) void sweep_portable(const sweep_job *sj, int64_t s,
                                                                 const int bins)
{
    SWEEP_LOOP(step_portable);
}

static void finish_portable(const int64_t *num, const int64_t *nn, int count, float *o)
{
    for (int i = 0; i < count; i++)
        o[i] = winent_finish(num[i], (int)nn[i]);
}

/* The body of every ISA's rows: strips of columns, rows within a strip.
 * SWEEP(job, s, bins) slides the window along a strip row;
 * FINISH(num, nn, count, o) writes a strip row's floats. */
#define COLS_ROWS_BODY(SWEEP, FINISH)                                                              \
    do {                                                                                           \
        const int W = j->W, H = j->H, rx = j->rx, ry = j->ry, sent = j->sent;                      \
        const int ent_ = winent_few_is_entropy(j);                                                 \
        const int64_t *t = j->t;                                                                   \
        const int sw = imin(strip_width(bins, rx), W);                                             \
        const cols_scratch cs_ = carve(scratch, sw, rx, bins);                                     \
        uint8_t *const col = cs_.col;                                                              \
        uint16_t *const win = cs_.win;                                                             \
        for (int xs = 0; xs < W; xs += sw) {                                                       \
            const int xe = imin(W, xs + sw);                                                       \
            /* Image column c is column c - xs + rx of the strip; those outside the image stay     \
             * zero. */                                                                            \
            const int ca = imax(0, xs - rx), cb = imin(W, xe + rx);                                \
            const ptrdiff_t off = rx - xs; /* strip column of image column 0 */                    \
            for (int y = ya; y < yb; y++) {                                                        \
                const int wy0 = imax(0, y - ry), wy1 = imin(H - 1, y + ry), kh = wy1 - wy0 + 1;    \
                if (y == ya) {                                                                     \
                    memset(col, 0, (size_t)(xe - xs + 2 * rx) * (size_t)bins);                     \
                    for (int r = wy0; r <= wy1; r++) {                                             \
                        const uint8_t *p = code_row(j, r);                                         \
                        for (int c = ca; c < cb; c++)                                              \
                            col[(size_t)(c + off) * bins + p[c]]++;                                \
                    }                                                                              \
                } else {                                                                           \
                    const uint8_t *pout = y - 1 - ry >= 0 ? code_row(j, y - 1 - ry) : NULL;        \
                    const uint8_t *pin = y + ry < H ? code_row(j, y + ry) : NULL;                  \
                    if (pout && pin)                                                               \
                        for (int c = ca; c < cb; c++) {                                            \
                            col[(size_t)(c + off) * bins + pout[c]]--;                             \
                            col[(size_t)(c + off) * bins + pin[c]]++;                              \
                        }                                                                          \
                    else if (pout)                                                                 \
                        for (int c = ca; c < cb; c++)                                              \
                            col[(size_t)(c + off) * bins + pout[c]]--;                             \
                    else if (pin)                                                                  \
                        for (int c = ca; c < cb; c++)                                              \
                            col[(size_t)(c + off) * bins + pin[c]]++;                              \
                }                                                                                  \
                /* The window of x = xs: strip columns 0 .. 2 rx. */                               \
                memset(win, 0, (size_t)bins * sizeof *win);                                        \
                for (int d = 0; d <= 2 * rx; d++) {                                                \
                    const uint8_t *cd = col + (size_t)d * bins;                                    \
                    for (int v = 0; v < bins; v++)                                                 \
                        win[v] = (uint16_t)(win[v] + cd[v]);                                       \
                }                                                                                  \
                int64_t s = 0;                                                                     \
                for (int v = 0; v < bins; v++)                                                     \
                    s += t[win[v]];                                                                \
                const sweep_job sj_ = {col, win, cs_.po, cs_.pn, t,  cs_.num, cs_.nn,              \
                                       xs,  xe,  rx,     W,      kh, sent};                        \
                SWEEP(&sj_, s, bins);                                                              \
                float *o = j->out + (size_t)(y - j->out_y0) * j->out_stride + xs;                  \
                if (ent_)                                                                          \
                    FINISH(cs_.num, cs_.nn, xe - xs, o);                                           \
                else                                                                               \
                    winent_few_finish(j->m, t, cs_.num, cs_.nn, xe - xs, o);                       \
                if (sent >= 0) {                                                                   \
                    const uint8_t *centre = code_row(j, y);                                        \
                    for (int x = xs; x < xe; x++)                                                  \
                        if (centre[x] == sent)                                                     \
                            o[x - xs] = NAN;                                                       \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static inline __attribute__((always_inline)) void
rows_portable_bins(const winent_few_job *j, int ya, int yb, void *scratch, const int bins)
{
    COLS_ROWS_BODY(sweep_portable, finish_portable);
}

static void rows_portable(const winent_few_job *j, int bins, int ya, int yb, void *scratch)
{
    if (bins == WINENT_COLS_BINS_SMALL)
        rows_portable_bins(j, ya, yb, scratch, WINENT_COLS_BINS_SMALL);
    else
        rows_portable_bins(j, ya, yb, scratch, WINENT_COLS_BINS_LARGE);
}

#if COLS_X86

/* --- AVX2: 32 bins per compare, 4 divisions per vdivpd. --- */

#define AVX2_TARGET "avx2,bmi,bmi2"

__attribute__((target(AVX2_TARGET), always_inline)) static inline int64_t
step_avx2(const uint8_t *cin, const uint8_t *cout, uint16_t *win, const int64_t *t, int64_t s,
          const int bins)
{
    uint64_t m[WINENT_COLS_BINS_LARGE / 64];
    winent_diff_mask_avx2(cin, cout, bins, m);
    return apply_bits(m, cin, cout, win, t, s, bins);
}

__attribute__((target(AVX2_TARGET), always_inline)) static inline void
sweep_avx2(const sweep_job *sj, int64_t s, const int bins)
{
    SWEEP_LOOP(step_avx2);
}

/* Integers in [0, 2^52) to double, exactly: the 2^52 bias trick. */
__attribute__((target(AVX2_TARGET), always_inline)) static inline __m256d u52_to_pd_avx2(__m256i v)
{
    const __m256i bias = _mm256_set1_epi64x(0x4330000000000000ll);
    const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, bias)), two52);
}

__attribute__((target(AVX2_TARGET), always_inline)) static inline void
finish_avx2(const int64_t *num, const int64_t *nn, int count, float *o)
{
    int i = 0;
    for (; i + 4 <= count; i += 4) {
        const __m256i d = _mm256_loadu_si256((const __m256i *)(num + i));
        const __m256i n = _mm256_loadu_si256((const __m256i *)(nn + i));
        const __m256d q =
            _mm256_div_pd(u52_to_pd_avx2(d), u52_to_pd_avx2(_mm256_slli_epi64(n, 32)));
        _mm_storeu_ps(o + i, _mm256_cvtpd_ps(q));
    }
    finish_portable(num + i, nn + i, count - i, o + i);
}

__attribute__((target(AVX2_TARGET), always_inline)) static inline void
rows_avx2_bins(const winent_few_job *j, int ya, int yb, void *scratch, const int bins)
{
    COLS_ROWS_BODY(sweep_avx2, finish_avx2);
}

__attribute__((target(AVX2_TARGET))) static void rows_avx2(const winent_few_job *j, int bins,
                                                           int ya, int yb, void *scratch)
{
    if (bins == WINENT_COLS_BINS_SMALL)
        rows_avx2_bins(j, ya, yb, scratch, WINENT_COLS_BINS_SMALL);
    else
        rows_avx2_bins(j, ya, yb, scratch, WINENT_COLS_BINS_LARGE);
}

/* --- AVX-512: 64 bins per compare, 8 divisions per vdivpd. --- */

#define AVX512_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi2,popcnt,bmi,bmi2"

/* The window's counts stay in registers, 16-bit lanes, 32 bins a vector
 * (2 for 64 bins, 8 for 256): per step each 64 bins with a changed one move
 * by the sign-extended cin - cout, and the old and new counts of the changed
 * bins are packed (vpcompressw) into one list for the lookups of only those. */
__attribute__((target(AVX512_TARGET), always_inline)) static inline void
sweep_avx512(const sweep_job *sj, int64_t s, const int bins)
{
    const int xs = sj->xs, xe = sj->xe, rx = sj->rx, W = sj->W, kh = sj->kh, sent = sj->sent;
    const int64_t *t = sj->t;
    __m512i w[WINENT_COLS_BINS_LARGE / 32];
#pragma GCC unroll 8
    for (int i = 0; i < bins / 32; i++)
        w[i] = _mm512_loadu_si512(sj->win + 32 * i);
    /* The sentinel's count: its lane of its block. */
    const int sb = sent >= 0 ? sent / 32 : 0;
    const __m512i sl = _mm512_set1_epi16((short)(sent >= 0 ? sent % 32 : 0));
    for (int x = xs;; x++) {
        const int kw = imin(W - 1, x + rx) - imax(0, x - rx) + 1;
        int cnt = 0;
        if (sent >= 0) {
            __m512i v = w[0];
#pragma GCC unroll 8
            for (int i = 1; i < bins / 32; i++)
                v = i == sb ? w[i] : v;
            cnt = (uint16_t)_mm_cvtsi128_si32(
                _mm512_castsi512_si128(_mm512_permutexvar_epi16(sl, v)));
        }
        const int n = kh * kw - cnt;
        sj->num[x - xs] = t[n] - (s - t[cnt]);
        sj->nn[x - xs] = n;
        if (x + 1 >= xe)
            break;
        const uint8_t *cin = sj->col + (size_t)(x - xs + 2 * rx + 1) * bins;
        const uint8_t *cout = sj->col + (size_t)(x - xs) * bins;
        /* The old and new counts of the changed bins, packed one block after
         * the other into po and pn (zeros after them), then looked up four at
         * a time: one loop exit per step to predict, not one per block. */
        int np = 0;
#pragma GCC unroll 4
        for (int b = 0; b < bins; b += 64) {
            const __m512i a = _mm512_load_si512(cin + b), o = _mm512_load_si512(cout + b);
            const uint64_t k = _mm512_cmpneq_epi8_mask(a, o);
            if (k == 0)
                continue;
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                const __mmask32 kh32 = (__mmask32)(k >> (32 * h));
                const __m512i old = w[b / 32 + h];
                /* cin - cout in 16 bits: column counts reach the window's
                 * height (255), so their difference need not fit a byte. */
                const __m512i now = _mm512_sub_epi16(
                    _mm512_add_epi16(old, _mm512_cvtepu8_epi16(h ? _mm512_extracti64x4_epi64(a, 1)
                                                                 : _mm512_castsi512_si256(a))),
                    _mm512_cvtepu8_epi16(h ? _mm512_extracti64x4_epi64(o, 1)
                                           : _mm512_castsi512_si256(o)));
                w[b / 32 + h] = now;
                /* Stored as two 256-bit halves: the 64-bit loads of the
                 * lookups below then get their bytes forwarded from the
                 * store (from one 512-bit store they waited for it here:
                 * 31x31 on noise of 256 values 20 % slower). */
                const __m512i qo_ = _mm512_maskz_compress_epi16(kh32, old);
                const __m512i qn_ = _mm512_maskz_compress_epi16(kh32, now);
                _mm256_storeu_si256((__m256i *)(sj->po + np), _mm512_castsi512_si256(qo_));
                _mm256_storeu_si256((__m256i *)(sj->pn + np), _mm512_castsi512_si256(qn_));
                _mm256_storeu_si256((__m256i *)(sj->po + np + 16),
                                    _mm512_extracti64x4_epi64(qo_, 1));
                _mm256_storeu_si256((__m256i *)(sj->pn + np + 16),
                                    _mm512_extracti64x4_epi64(qn_, 1));
                np += (int)_mm_popcnt_u32(kh32);
            }
        }
        /* The lookups read four at a time: the lanes past the last block's
         * 32 may hold an earlier step's counts, so the three after np are
         * made equal (zero: no change). */
        memset(sj->po + np, 0, 3 * sizeof *sj->po);
        memset(sj->pn + np, 0, 3 * sizeof *sj->pn);
        for (int i = 0; i < np; i += 4) {
            uint64_t qo, qn;
            memcpy(&qo, sj->po + i, 8);
            memcpy(&qn, sj->pn + i, 8);
            s += ((t[qn & 0xFFFF] - t[qo & 0xFFFF]) +
                  (t[(qn >> 16) & 0xFFFF] - t[(qo >> 16) & 0xFFFF])) +
                 ((t[(qn >> 32) & 0xFFFF] - t[(qo >> 32) & 0xFFFF]) + (t[qn >> 48] - t[qo >> 48]));
        }
    }
}

__attribute__((target(AVX512_TARGET), always_inline)) static inline void
finish_avx512(const int64_t *num, const int64_t *nn, int count, float *o)
{
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m512d d = _mm512_cvtepi64_pd(_mm512_loadu_si512(num + i));
        const __m512d n = _mm512_cvtepi64_pd(_mm512_slli_epi64(_mm512_loadu_si512(nn + i), 32));
        _mm256_storeu_ps(o + i, _mm512_cvtpd_ps(_mm512_div_pd(d, n)));
    }
    finish_portable(num + i, nn + i, count - i, o + i);
}

__attribute__((target(AVX512_TARGET), always_inline)) static inline void
rows_avx512_bins(const winent_few_job *j, int ya, int yb, void *scratch, const int bins)
{
    COLS_ROWS_BODY(sweep_avx512, finish_avx512);
}

__attribute__((target(AVX512_TARGET))) static void rows_avx512(const winent_few_job *j, int bins,
                                                               int ya, int yb, void *scratch)
{
    if (bins == WINENT_COLS_BINS_SMALL)
        rows_avx512_bins(j, ya, yb, scratch, WINENT_COLS_BINS_SMALL);
    else
        rows_avx512_bins(j, ya, yb, scratch, WINENT_COLS_BINS_LARGE);
}

#endif /* COLS_X86 */

winent_few_path winent_cols_choose(int kx, int ky, const char *request)
{
    (void)kx;
    int want = WINENT_FEW_AVX512;
    if (request != NULL && *request != '\0') {
        if (!strcmp(request, "slide"))
            return WINENT_FEW_NONE;
        if (!strcmp(request, "portable"))
            want = WINENT_FEW_PORTABLE;
        else if (!strcmp(request, "avx2"))
            want = WINENT_FEW_AVX2;
    }
    if (ky > 255) /* byte column counts */
        return WINENT_FEW_NONE;
#if COLS_X86
    __builtin_cpu_init();
    if (want >= WINENT_FEW_AVX512 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi2") &&
        __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") &&
        __builtin_cpu_supports("bmi2"))
        return WINENT_FEW_AVX512;
    if (want >= WINENT_FEW_AVX2 && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
        return WINENT_FEW_AVX2;
#endif
    return WINENT_FEW_PORTABLE;
}

double winent_cols_changes(const winent_few_job *j, int y, int samples)
{
    const int W = j->W, rx = j->rx, steps = W - 2 * rx - 1;
    if (steps < 1 || samples < 1)
        return 0.0;
    const int r0 = imax(0, y - j->ry), r1 = imin(j->H - 1, y + j->ry);
    uint8_t ha[256] = {0}, hb[256] = {0};
    long changed = 0;
    for (int i = 0; i < samples; i++) {
        /* The step from x to x + 1: column x - rx leaves, x + rx + 1 enters. */
        const int xa = (int)(((int64_t)2 * i + 1) * steps / (2 * samples)), xb = xa + 2 * rx + 1;
        for (int r = r0; r <= r1; r++) {
            const uint8_t *p = code_row(j, r);
            ha[p[xa]]++;
            hb[p[xb]]++;
        }
        /* Each differing bin once: equal after it is counted. */
        for (int r = r0; r <= r1; r++) {
            const uint8_t *p = code_row(j, r);
            const uint8_t va = p[xa], vb = p[xb];
            changed += ha[va] != hb[va];
            ha[va] = hb[va];
            changed += ha[vb] != hb[vb];
            ha[vb] = hb[vb];
        }
        for (int r = r0; r <= r1; r++) {
            const uint8_t *p = code_row(j, r);
            ha[p[xa]] = hb[p[xa]] = ha[p[xb]] = hb[p[xb]] = 0;
        }
    }
    return (double)changed / samples;
}

/* The cost model, nanoseconds per pixel on one core of the development
 * machine (AMD EPYC, AVX-512; issue 32's measurements, 2048 x 1024 maps of
 * land cover, an 8-bit photograph and noise, windows 5 to 31): the sliding
 * engine about SLIDE_NS per update (2 Ky updates a pixel); the column
 * paths a fixed part per pixel (vertical updates, the compare, the emit,
 * branches mispredicted on changing steps) and a part per changed bin. */
#define SLIDE_NS 0.72
typedef struct cols_cost {
    double fixed64, fixed256, per_change;
} cols_cost;
static const cols_cost cost_avx512 = {8.0, 12.0, 0.55};
static const cols_cost cost_avx2 = {9.0, 15.0, 1.1};
static const cols_cost cost_portable = {12.0, 20.0, 1.6};

int winent_cols_pays(winent_few_path isa, int bins, int ky, double changes, double *ratio)
{
    const cols_cost *c = isa == WINENT_FEW_AVX512 ? &cost_avx512
                         : isa == WINENT_FEW_AVX2 ? &cost_avx2
                                                  : &cost_portable;
    const double cols =
        (bins <= WINENT_COLS_BINS_SMALL ? c->fixed64 : c->fixed256) + c->per_change * changes;
    const double slide = SLIDE_NS * 2.0 * ky;
    if (ratio)
        *ratio = cols / slide;
    return isa != WINENT_FEW_NONE && cols < slide;
}

void winent_cols_rows(const winent_few_job *j, int bins, winent_few_path isa, int ya, int yb,
                      void *scratch)
{
    switch (isa) {
#if COLS_X86
    case WINENT_FEW_AVX512: rows_avx512(j, bins, ya, yb, scratch); break;
    case WINENT_FEW_AVX2: rows_avx2(j, bins, ya, yb, scratch); break;
#endif
    default: rows_portable(j, bins, ya, yb, scratch); break;
    }
}
