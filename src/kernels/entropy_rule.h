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
#else
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

#endif
