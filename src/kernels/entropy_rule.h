/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * entropy_rule.h - the arithmetic every engine shares, as inline code that
 * compiles both as C (CPU engines) and as CUDA (device code), so that the
 * CPU and GPU engines give the same bits by construction.
 *
 *   value -> code:   winent_code_int / winent_code_float (SPEC section 2)
 *   counts -> H:     D = T[n] - sum_v T[c_v], with T[c] = c * Lq[c] and
 *                    Lq[c] = round(log_b(c) * 2^32), an exact int64 sum;
 *                    H = (double)D / (n * 2^32), rounded once to double
 *                    and once to float (winent_finish).
 *
 * Plain POD, no pointers to host memory: the struct travels to the GPU by
 * value.
 */
#ifndef WINENT_ENTROPY_RULE_H
#define WINENT_ENTROPY_RULE_H

#include <stdint.h>

#if defined(__CUDACC__)
#define WINENT_HD __host__ __device__ __forceinline__
#else
#define WINENT_HD static inline
#endif

/* The code of a pixel that is not counted (nodata or NaN), when the plan
 * can skip pixels at all (winent_plan.can_skip). */
#define WINENT_NODATA_CODE 0xFFFFFFFFu

/* Fixed-point scale of the log table: Lq[c] = round(log_b(c) * 2^32). */
#define WINENT_LQ_SCALE 4294967296.0

typedef struct winent_code_rule {
    int dtype;          /* winent_dtype */
    int quantize;       /* 1: --bins/--range; 0: distinct integer values */
    uint32_t bins;
    double lo, hi;      /* range, hi > lo */
    int has_nodata;
    int nodata_int_ok;  /* nodata is an integer representable in dtype */
    int64_t nodata_int; /* nodata as that integer */
    float nodata_f32;   /* nodata as the f32 sample would hold it */
    double nodata_f64;
    uint32_t int_offset;/* code = value + offset for distinct-value integers */
    int rotate;         /* distinct integer values with an integer nodata N:
                           code = (value - N - 1) & rotate_mask (mod 2^bits
                           of the dtype), so that N alone would land on the
                           all-ones code and every other value keeps a code
                           of its own below it: ncodes = 2^bits - 1, and a
                           16-bit dtype's codes and sentinel fit 16 bits */
    uint32_t rotate_mask;
} winent_code_rule;

/* Division and conversion that neither compiler may contract or reassociate:
 * IEEE round-to-nearest on both sides. */
#if defined(__CUDA_ARCH__)
#define WINENT_DSUB(a, b) __dsub_rn((a), (b))
#define WINENT_DMUL(a, b) __dmul_rn((a), (b))
#define WINENT_DDIV(a, b) __ddiv_rn((a), (b))
#define WINENT_D2F(a) __double2float_rn(a)
#define WINENT_FLOOR(a) floor(a)
#define WINENT_DADD(a, b) __dadd_rn((a), (b))
#define WINENT_FREXP(a, e) frexp((a), (e))
#else
#define WINENT_DADD(a, b) ((a) + (b))
#define WINENT_FREXP(a, e) __builtin_frexp((a), (e))
#define WINENT_DSUB(a, b) ((a) - (b))
#define WINENT_DMUL(a, b) ((a) * (b))
#define WINENT_DDIV(a, b) ((a) / (b))
#define WINENT_D2F(a) ((float)(a))
#define WINENT_FLOOR(a) __builtin_floor(a)
#endif

/* floor(((v - lo) * bins) / (hi - lo)) in float64, in that order, clamped. */
WINENT_HD uint32_t winent_quantize(const winent_code_rule *r, double v)
{
    double t = WINENT_DMUL(WINENT_DSUB(v, r->lo), (double)r->bins);
    t = WINENT_DDIV(t, WINENT_DSUB(r->hi, r->lo));
    if (!(t >= 0.0)) /* negative, -inf */
        return 0;
    if (t >= (double)r->bins)
        return r->bins - 1;
    return (uint32_t)WINENT_FLOOR(t);
}

/* Code of an integer sample (any of the six integer dtypes). */
WINENT_HD uint32_t winent_code_int(const winent_code_rule *r, int64_t v)
{
    if (r->has_nodata && r->nodata_int_ok && v == r->nodata_int)
        return WINENT_NODATA_CODE;
    if (r->quantize)
        return winent_quantize(r, (double)v);
    if (r->rotate)
        return (uint32_t)(v - r->nodata_int - 1) & r->rotate_mask;
    /* Without a nodata value no integer pixel is skipped, so the one 32-bit
     * value whose code equals the sentinel (u32 4294967295, i32 2147483647)
     * is an ordinary value: engines read the sentinel as "not counted" only
     * when the plan's can_skip says a pixel can be. */
    return (uint32_t)v + r->int_offset;
}

/* Code of an f32 sample. */
WINENT_HD uint32_t winent_code_f32(const winent_code_rule *r, float v)
{
    if (v != v || (r->has_nodata && v == r->nodata_f32))
        return WINENT_NODATA_CODE;
    return winent_quantize(r, (double)v);
}

/* Code of an f64 sample. */
WINENT_HD uint32_t winent_code_f64(const winent_code_rule *r, double v)
{
    if (v != v || (r->has_nodata && v == r->nodata_f64))
        return WINENT_NODATA_CODE;
    return winent_quantize(r, v);
}

/* The entropy of a window with n counted pixels and D = T[n] - sum T[c]. */
WINENT_HD float winent_finish(int64_t d, int n)
{
    double num = (double)d;
    double den = WINENT_DMUL((double)n, WINENT_LQ_SCALE);
    return WINENT_D2F(WINENT_DDIV(num, den));
}

/* ---- The measures of a window's histogram (SPEC section 1) ----------------
 *
 * Every measure but the majority is a function of S = sum over the counted
 * values v of T[c_v] for a table T the plan builds per measure (T[0] = 0),
 * and of the counted pixels n: the engines keep S exact in int64 as they
 * keep the entropy's, through du[c] = T[c + 1] - T[c]; only the last step
 * below differs.
 *   entropy   T[c] = c * Lq[c]                 H = (T[n] - S) / (n 2^32)
 *   simpson   T[c] = c^2                       1 - S / n^2
 *   richness  T[c] = (c > 0)                   S
 *   renyi Q   T[c] = round(c^Q 2^s)            ln(S / T[n]) / ((1 - Q) ln b)
 *             (Q = 1 is the entropy, Q = 0 the richness table)
 *   evenness  T[c] = (c * Le[c]) << 16 | (c > 0), Le[c] = round(log_b(c) 2^26):
 *             S's low 16 bits are the richness r, its high bits the entropy
 *             sum at scale 2^26; J = (T[n] - S) >> 16 / (n * Le[r]), 0 for r <= 1.
 * The plan's comments give each table's range. */

/* Pielou's evenness: the richness in the low bits of S, the entropy's log
 * table at scale 2^26 above them (a 255 x 255 window in base 2 needs
 * 20 + 26 + 16 = 62 bits). */
#define WINENT_EVEN_RICH_BITS 16
#define WINENT_EVEN_LQ_SCALE 67108864.0

typedef struct winent_measure_rule {
    int kind;          /* winent_measure (the plan's; renyi of order 1 is entropy) */
    double renyi_den;  /* renyi: (1 - Q) * ln(base), never 0 */
} winent_measure_rule;

/* The natural logarithm of x > 0 with +, -, *, / only, each rounded once to
 * nearest (no FMA, no library call): the same bits from every compiler and
 * device. x = m 2^e with m in [sqrt(1/2), sqrt(2)), f = (m - 1) / (m + 1),
 * ln m = 2 f (1 + f^2/3 + f^4/5 + ...) to f^24 (|f| <= 0.1716: the rest is
 * below 2^-60), ln 2 in two parts so that e * LN2_HI is exact. */
WINENT_HD double winent_ln(double x)
{
    int e = 0;
    double m = WINENT_FREXP(x, &e);
    if (m < 0.70710678118654752440) {
        m = WINENT_DMUL(m, 2.0);
        e--;
    }
    const double f = WINENT_DDIV(WINENT_DSUB(m, 1.0), WINENT_DADD(m, 1.0));
    const double f2 = WINENT_DMUL(f, f);
    double s = 1.0 / 25.0;
    for (int k = 11; k >= 0; k--)
        s = WINENT_DADD(WINENT_DMUL(s, f2), 1.0 / (double)(2 * k + 1));
    const double lm = WINENT_DMUL(WINENT_DMUL(2.0, f), s);
    const double de = (double)e;
    return WINENT_DADD(WINENT_DMUL(de, 6.93147180369123816490e-01),
                       WINENT_DADD(WINENT_DMUL(de, 1.90821492927058770002e-10), lm));
}

/* The measure of a window whose counted values have S = sv (T as above,
 * `t` the plan's table) and n >= 1 counted pixels, rounded once to float. */
WINENT_HD float winent_measure_finish(const winent_measure_rule *m, int64_t sv, int n,
                                      const int64_t *t)
{
    if (m->kind == 0) /* WINENT_MEASURE_ENTROPY */
        return winent_finish(t[n] - sv, n);
    switch (m->kind) {
    case 1: { /* WINENT_MEASURE_RENYI */
        const double r = WINENT_DDIV((double)sv, (double)t[n]);
        return WINENT_D2F(WINENT_DADD(WINENT_DDIV(winent_ln(r), m->renyi_den), 0.0));
    }
    case 2: /* WINENT_MEASURE_SIMPSON */
        return WINENT_D2F(WINENT_DDIV((double)(t[n] - sv), (double)t[n]));
    case 3: /* WINENT_MEASURE_RICHNESS */
        return WINENT_D2F((double)sv);
    case 4: { /* WINENT_MEASURE_EVENNESS */
        const int64_t r = sv & (((int64_t)1 << WINENT_EVEN_RICH_BITS) - 1);
        if (r <= 1)
            return 0.0f;
        const int64_t d = (t[n] >> WINENT_EVEN_RICH_BITS) - (sv >> WINENT_EVEN_RICH_BITS);
        const int64_t le = (t[r] >> WINENT_EVEN_RICH_BITS) / r;
        return WINENT_D2F(WINENT_DDIV((double)d, WINENT_DMUL((double)n, (double)le)));
    }
    default: return 0.0f;
    }
}

/* The value a code stands for, as the majority map gives it: a distinct
 * integer value itself (rounded to float: 32-bit values past 2^24 lose
 * their last bits); a bin of --bins/--range its centre,
 * lo + (b + 0.5) * (hi - lo) / bins, in float64 in that order. */
WINENT_HD float winent_code_value(const winent_code_rule *r, uint32_t code)
{
    if (r->quantize) {
        double w = WINENT_DSUB(r->hi, r->lo);
        double b = WINENT_DADD((double)code, 0.5);
        return WINENT_D2F(WINENT_DADD(r->lo, WINENT_DDIV(WINENT_DMUL(b, w), (double)r->bins)));
    }
    int64_t v;
    if (r->rotate) {
        v = (int64_t)((code + (uint32_t)r->nodata_int + 1u) & r->rotate_mask);
        /* Signed dtypes (i8 1, i16 3, i32 5): back from the bit pattern. */
        if (r->dtype == 1 && v >= 128)
            v -= 256;
        else if (r->dtype == 3 && v >= 32768)
            v -= 65536;
        else if (r->dtype == 5 && v >= 2147483648LL)
            v -= 4294967296LL;
    } else {
        v = (int64_t)code - (int64_t)r->int_offset;
    }
    return WINENT_D2F((double)v);
}

/* A key of a counted code that orders codes as their values: the majority's
 * ties go to the smallest value. Codes of bins and of distinct values
 * without a nodata already do (the offset of signed types keeps the
 * order); codes rotated around an integer nodata are turned back to the
 * value's bit pattern, its sign bit flipped for the signed dtypes. */
WINENT_HD uint32_t winent_code_order(const winent_code_rule *r, uint32_t code)
{
    if (r->quantize || !r->rotate)
        return code;
    const uint32_t v = (code + (uint32_t)r->nodata_int + 1u) & r->rotate_mask;
    const int is_signed = r->dtype == 1 || r->dtype == 3 || r->dtype == 5;
    return is_signed ? v ^ ((r->rotate_mask >> 1) + 1u) : v;
}

/* The code of a key (winent_code_order's inverse). */
WINENT_HD uint32_t winent_order_code(const winent_code_rule *r, uint32_t key)
{
    if (r->quantize || !r->rotate)
        return key;
    const int is_signed = r->dtype == 1 || r->dtype == 3 || r->dtype == 5;
    const uint32_t v = is_signed ? key ^ ((r->rotate_mask >> 1) + 1u) : key;
    return (v - (uint32_t)r->nodata_int - 1u) & r->rotate_mask;
}

#endif
