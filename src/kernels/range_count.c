/* SPDX-License-Identifier: BSD-3-Clause */
/* Clamp counting and min/max over samples: branch-free loops over one
 * sample type each, with 32-bit counters per block, so that compilers turn
 * them into vector compares (and the per-row cost stays a small fraction of
 * the entropy's). */
#include "range_count.h"

#include <math.h>
#include <string.h>

/* Samples per block: the 32-bit counters of a block cannot overflow. */
#define BLOCK ((size_t)1 << 30)

/* The smallest float >= x and the largest float <= x (x finite): for a
 * float v, (double)v < lo exactly when v < float_up(lo), and (double)v >
 * hi exactly when v > float_down(hi), so the loops compare floats. */
static float float_up(double x)
{
    float f = (float)x;
    if ((double)f < x)
        f = nextafterf(f, INFINITY);
    return f;
}

static float float_down(double x)
{
    float f = (float)x;
    if ((double)f > x)
        f = nextafterf(f, -INFINITY);
    return f;
}

/* Float bits as a signed integer of the same order (-0 just below +0), so
 * that min and max reduce as integers: compilers vectorize those without
 * -ffast-math, which float min/max would need. Its own inverse. */
static inline int32_t order_key(int32_t i)
{
    return i ^ (int32_t)((uint32_t)(i >> 31) >> 1);
}

/* One block of f32 samples. `has_nd` is a constant in each caller, so
 * the loop without nodata drops its compares. */
__attribute__((always_inline)) static inline void
count_f32_block(const unsigned char *s, size_t k, float lo, float hi, float nd, const int has_nd,
                winent_clamp_counts *acc)
{
    uint32_t below = 0, above = 0, skipped = 0;
    int32_t kmin = INT32_MAX, kmax = INT32_MIN;
    for (size_t i = 0; i < k; i++) {
        float v;
        int32_t bits;
        memcpy(&v, s + 4 * i, sizeof v);
        memcpy(&bits, s + 4 * i, sizeof bits);
        /* NaN compares false: neither below nor above. */
        int32_t keep = has_nd ? (v != nd) : 1;
        below += (v < lo) & keep;
        above += (v > hi) & keep;
        skipped += has_nd ? (v != v) | (v == nd) : (v != v);
        /* v - v is 0 for finite v only (NaN for NaN and infinities).
         * Masks rather than ?: so that the loop vectorizes. */
        int32_t finite = -(int32_t)((v - v == 0.0f) & keep);
        int32_t key = order_key(bits);
        int32_t a = (key & finite) | (INT32_MAX & ~finite);
        int32_t b = (key & finite) | (INT32_MIN & ~finite);
        kmin = a < kmin ? a : kmin;
        kmax = b > kmax ? b : kmax;
    }
    acc->below += below;
    acc->above += above;
    acc->valid += k - skipped;
    if (kmin <= kmax) {
        float fmin, fmax;
        int32_t bmin = order_key(kmin), bmax = order_key(kmax);
        memcpy(&fmin, &bmin, sizeof fmin);
        memcpy(&fmax, &bmax, sizeof fmax);
        if (fmin < acc->min)
            acc->min = fmin;
        if (fmax > acc->max)
            acc->max = fmax;
    }
}

#define COUNT_F32_FN(name, attr)                                                                   \
    attr static void name(const unsigned char *s, size_t n, float lo, float hi, float nd,          \
                          int has_nd, winent_clamp_counts *acc)                                    \
    {                                                                                              \
        for (size_t k; n > 0; s += 4 * k, n -= k) {                                                \
            k = n < BLOCK ? n : BLOCK;                                                             \
            if (has_nd)                                                                            \
                count_f32_block(s, k, lo, hi, nd, 1, acc);                                         \
            else                                                                                   \
                count_f32_block(s, k, lo, hi, nd, 0, acc);                                         \
        }                                                                                          \
    }
COUNT_F32_FN(count_f32_portable, )
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
/* AVX2 has the 32-bit integer min/max SSE2 lacks: twice the lanes, and no
 * compare-and-blend for each. Chosen at run time. */
COUNT_F32_FN(count_f32_avx2, __attribute__((target("avx2"))))
static void count_f32(const unsigned char *s, size_t n, float lo, float hi, float nd, int has_nd,
                      winent_clamp_counts *acc)
{
    if (__builtin_cpu_supports("avx2"))
        count_f32_avx2(s, n, lo, hi, nd, has_nd, acc);
    else
        count_f32_portable(s, n, lo, hi, nd, has_nd, acc);
}
#else
#define count_f32 count_f32_portable
#endif
#undef COUNT_F32_FN

static void count_f64(const unsigned char *s, size_t n, double lo, double hi, double nd,
                      winent_clamp_counts *acc)
{
    uint64_t below = 0, above = 0, skipped = 0;
    double mn = acc->min, mx = acc->max;
    for (size_t i = 0; i < n; i++) {
        double v;
        memcpy(&v, s + 8 * i, sizeof v);
        below += (uint64_t)((v < lo) & (v != nd));
        above += (uint64_t)((v > hi) & (v != nd));
        skipped += (uint64_t)((v != v) | (v == nd));
        if ((v - v == 0.0) & (v != nd)) {
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
        }
    }
    acc->below += below;
    acc->above += above;
    acc->valid += n - skipped;
    acc->min = mn;
    acc->max = mx;
}

/* Integer samples: v < LO exactly when v < ceil(LO), v > HI exactly when
 * v > floor(HI); the thresholds are clamped to one step outside the type,
 * so they fit the compare type `C`. `nd` lies outside the type when no
 * nodata value applies. */
#define COUNT_INT(T, C)                                                                            \
    static void count_##T(const unsigned char *s, size_t n, C lo, C hi, C nd, C tmin, C tmax,      \
                          winent_clamp_counts *acc)                                                \
    {                                                                                              \
        while (n > 0) {                                                                            \
            size_t k = n < BLOCK ? n : BLOCK;                                                      \
            uint32_t below = 0, above = 0, skipped = 0;                                            \
            C mn = tmax, mx = tmin;                                                                \
            for (size_t i = 0; i < k; i++) {                                                       \
                T x;                                                                               \
                memcpy(&x, s + sizeof x * i, sizeof x);                                            \
                C v = (C)x;                                                                        \
                below += (v < lo) & (v != nd);                                                     \
                above += (v > hi) & (v != nd);                                                     \
                skipped += v == nd;                                                                \
                C a = v != nd ? v : tmax, b = v != nd ? v : tmin;                                  \
                mn = a < mn ? a : mn;                                                              \
                mx = b > mx ? b : mx;                                                              \
            }                                                                                      \
            acc->below += below;                                                                   \
            acc->above += above;                                                                   \
            acc->valid += k - skipped;                                                             \
            if (skipped < k) {                                                                     \
                if ((double)mn < acc->min)                                                         \
                    acc->min = (double)mn;                                                         \
                if ((double)mx > acc->max)                                                         \
                    acc->max = (double)mx;                                                         \
            }                                                                                      \
            s += sizeof(T) * k;                                                                    \
            n -= k;                                                                                \
        }                                                                                          \
    }
COUNT_INT(uint8_t, int32_t)
COUNT_INT(int8_t, int32_t)
COUNT_INT(uint16_t, int32_t)
COUNT_INT(int16_t, int32_t)
COUNT_INT(uint32_t, int64_t)
COUNT_INT(int32_t, int64_t)
#undef COUNT_INT

/* ceil(x) or floor(x) clamped to [tmin - 1, tmax + 1]. */
static int64_t int_threshold(double x, int up, double tmin, double tmax)
{
    double t = up ? ceil(x) : floor(x);
    if (t < tmin - 1)
        t = tmin - 1;
    if (t > tmax + 1)
        t = tmax + 1;
    return (int64_t)t;
}

void winent_range_count(const winent_plan *p, const void *samples, size_t count,
                        winent_clamp_counts *acc)
{
    static const double tmin[] = {0, -128, 0, -32768, 0, -2147483648.0};
    static const double tmax[] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0};
    const winent_code_rule *r = &p->rule;
    const unsigned char *s = samples;
    double lo = r->lo, hi = r->hi;
    if (!r->quantize) {
        /* Distinct values: nothing is clamped; only the valid count. */
        lo = -INFINITY;
        hi = INFINITY;
    }
    switch (p->opts.dtype) {
    case WINENT_F32:
        count_f32(s, count, float_up(lo), float_down(hi), r->has_nodata ? r->nodata_f32 : NAN,
                  r->has_nodata, acc);
        return;
    case WINENT_F64:
        count_f64(s, count, lo, hi, r->has_nodata ? r->nodata_f64 : NAN, acc);
        return;
    default: break;
    }
    const int t = (int)p->opts.dtype;
    if (t < 0 || t > WINENT_I32)
        return;
    int64_t ilo = int_threshold(lo, 1, tmin[t], tmax[t]);
    int64_t ihi = int_threshold(hi, 0, tmin[t], tmax[t]);
    int64_t ind = r->has_nodata && r->nodata_int_ok ? r->nodata_int : (int64_t)tmin[t] - 1;
    const int64_t a = (int64_t)tmin[t], b = (int64_t)tmax[t];
#define SMALL(fn) fn(s, count, (int32_t)ilo, (int32_t)ihi, (int32_t)ind, (int32_t)a, (int32_t)b, acc)
    switch (p->opts.dtype) {
    case WINENT_U8: SMALL(count_uint8_t); break;
    case WINENT_I8: SMALL(count_int8_t); break;
    case WINENT_U16: SMALL(count_uint16_t); break;
    case WINENT_I16: SMALL(count_int16_t); break;
    case WINENT_U32: count_uint32_t(s, count, ilo, ihi, ind, a, b, acc); break;
    case WINENT_I32: count_int32_t(s, count, ilo, ihi, ind, a, b, acc); break;
    default: break;
    }
#undef SMALL
}

void winent_clamp_init(winent_clamp_counts *c)
{
    memset(c, 0, sizeof *c);
    c->min = INFINITY;
    c->max = -INFINITY;
}

void winent_clamp_merge(winent_clamp_counts *a, const winent_clamp_counts *b)
{
    a->below += b->below;
    a->above += b->above;
    a->valid += b->valid;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
}

/* ---- min/max ------------------------------------------------------------ */

void winent_minmax_init(winent_minmax *m)
{
    m->min = INFINITY;
    m->max = -INFINITY;
    m->n = 0;
}

void winent_minmax_merge(winent_minmax *a, const winent_minmax *b)
{
    if (b->n == 0)
        return;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
    a->n += b->n;
}

static void minmax_f32(const unsigned char *s, size_t n, float nd, winent_minmax *m)
{
    float mn = INFINITY, mx = -INFINITY;
    uint64_t good = 0;
    for (size_t i = 0; i < n; i++) {
        float v;
        memcpy(&v, s + 4 * i, sizeof v);
        /* v - v is 0 for finite v only (NaN for NaN and infinities). */
        int ok = (v - v == 0.0f) & (v != nd);
        float a = ok ? v : INFINITY, b = ok ? v : -INFINITY;
        mn = a < mn ? a : mn;
        mx = b > mx ? b : mx;
        good += (uint64_t)ok;
    }
    winent_minmax t = {mn, mx, good};
    winent_minmax_merge(m, &t);
}

static void minmax_f64(const unsigned char *s, size_t n, double nd, winent_minmax *m)
{
    double mn = INFINITY, mx = -INFINITY;
    uint64_t good = 0;
    for (size_t i = 0; i < n; i++) {
        double v;
        memcpy(&v, s + 8 * i, sizeof v);
        int ok = (v - v == 0.0) & (v != nd);
        double a = ok ? v : INFINITY, b = ok ? v : -INFINITY;
        mn = a < mn ? a : mn;
        mx = b > mx ? b : mx;
        good += (uint64_t)ok;
    }
    winent_minmax t = {mn, mx, good};
    winent_minmax_merge(m, &t);
}

#define MINMAX_INT(T, C)                                                                           \
    static void minmax_##T(const unsigned char *s, size_t n, C nd, C tmin, C tmax,                 \
                           winent_minmax *m)                                                       \
    {                                                                                              \
        C mn = tmax, mx = tmin;                                                                    \
        uint64_t good = 0;                                                                         \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x;                                                                                   \
            memcpy(&x, s + sizeof x * i, sizeof x);                                                \
            C v = (C)x;                                                                            \
            int ok = v != nd;                                                                      \
            C a = ok ? v : tmax, b = ok ? v : tmin;                                                \
            mn = a < mn ? a : mn;                                                                  \
            mx = b > mx ? b : mx;                                                                  \
            good += (uint64_t)ok;                                                                  \
        }                                                                                          \
        if (good > 0) {                                                                            \
            winent_minmax t = {(double)mn, (double)mx, good};                                      \
            winent_minmax_merge(m, &t);                                                            \
        }                                                                                          \
    }
MINMAX_INT(uint8_t, int32_t)
MINMAX_INT(int8_t, int32_t)
MINMAX_INT(uint16_t, int32_t)
MINMAX_INT(int16_t, int32_t)
MINMAX_INT(uint32_t, int64_t)
MINMAX_INT(int32_t, int64_t)
#undef MINMAX_INT

void winent_range_minmax(int dtype, const void *samples, size_t count, int has_nodata,
                         double nodata, winent_minmax *m)
{
    const unsigned char *s = samples;
    /* An integer sample is nodata only when its type holds the value. */
    int64_t ind = INT64_MIN;
    if (has_nodata && nodata == floor(nodata) && fabs(nodata) < 9.2e18)
        ind = (int64_t)nodata;
    switch (dtype) {
    case WINENT_F32:
        minmax_f32(s, count, has_nodata ? (float)nodata : NAN, m);
        break;
    case WINENT_F64: minmax_f64(s, count, has_nodata ? nodata : NAN, m); break;
#define INT_CASE(D, T, C, lo, hi)                                                                  \
    case D:                                                                                        \
        minmax_##T(s, count, ind >= (lo) && ind <= (hi) ? (C)ind : (C)(lo) - 1, (C)(lo), (C)(hi),  \
                   m);                                                                             \
        break;
        INT_CASE(WINENT_U8, uint8_t, int32_t, 0, 255)
        INT_CASE(WINENT_I8, int8_t, int32_t, -128, 127)
        INT_CASE(WINENT_U16, uint16_t, int32_t, 0, 65535)
        INT_CASE(WINENT_I16, int16_t, int32_t, -32768, 32767)
        INT_CASE(WINENT_U32, uint32_t, int64_t, 0, 4294967295LL)
        INT_CASE(WINENT_I32, int32_t, int64_t, -2147483648LL, 2147483647LL)
#undef INT_CASE
    default: break;
    }
}

double winent_class_limit(const winent_compute_opts *o, winent_out_type t)
{
    static const double reach[] = {255, 128, 65535, 32768, 4294967295.0, 2147483648.0};
    const double exact = t == WINENT_OT_FLOAT16 ? 2048.0 : t == WINENT_OT_FLOAT32 ? 16777216.0
                                                                                   : 0.0;
    const int dt = (int)o->dtype;
    /* Binned (the plan's rule quantizes): the bins' centres are no classes. */
    const int binned = o->bins > 0 || winent_dtype_is_float(o->dtype);
    if (o->measure != WINENT_MEASURE_MAJORITY || binned || dt < 0 ||
        dt > WINENT_I32 || !(reach[dt] > exact) || exact == 0.0)
        return 0.0;
    return exact;
}

int winent_class_outside(const winent_clamp_counts *c, double limit, double *value)
{
    if (c->valid == 0 || (c->max <= limit && c->min >= -limit))
        return 0;
    *value = c->max > limit ? c->max : c->min;
    return 1;
}
