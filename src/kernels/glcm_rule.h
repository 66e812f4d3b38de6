/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm_rule.h - the arithmetic of the co-occurrence measures that every
 * engine shares, as inline code that compiles both as C and as CUDA, so
 * that the CPU and GPU engines give the same bits by construction.
 *
 * A window's matrix at one offset is summed into a winent_glcm_acc of
 * exact integers (the engines slide them: a step adds and removes pairs):
 *
 *   n                 ordered pairs counted (both ends valid, inside)
 *   tsum = sum T[u]   over the cells u of the pair histogram, T[c] = c Lq[c],
 *                     Lq[c] = round(log_b(c) 2^32) (entropy_rule.h's table);
 *                     symmetric: u counts unordered pairs {i, j}
 *   q = sum u^2, diag = sum u_ii, qdiag = sum u_ii^2
 *   mi, mj = sum T[m] over the marginal histograms (first ends, second
 *            ends; symmetric: one histogram of both ends, in mi)
 *   si = sum i, sj = sum j, sii = sum i^2, sjj = sum j^2, sij = sum ij,
 *   sad = sum |i - j|, sh = sum round(2^32 / (1 + (i - j)^2)),
 *   s3 = sum (i + j)^3, s4 = sum (i + j)^4        over the ordered pairs.
 *
 * The symmetric matrix S = C + C^T (total N = 2n) is never built: its
 * diagonal cells are 2 u_ii and its other cells u_ij, so
 *   sum S log S = 2 sum u log u + 2 diag log 2,  sum S^2 = 2 q + 2 qdiag,
 * and its moments are those of the ordered pairs taken both ways. Every
 * measure is then an exact integer numerator over an exact denominator
 * and one division (cluster shade and prominence: 128-bit numerators),
 * each operation rounded to nearest, no fused multiply-add, in a fixed
 * order; the angles' values are summed in angle order, divided by their
 * number and rounded once to float.
 */
#ifndef WINENT_GLCM_RULE_H
#define WINENT_GLCM_RULE_H

#include <stdint.h>

#include "entropy_rule.h"

#if defined(__CUDA_ARCH__)
#define WINENT_DADD(a, b) __dadd_rn((a), (b))
#define WINENT_DSQRT(a) __dsqrt_rn(a)
#define WINENT_I2D(a) __ll2double_rn(a)
#define WINENT_U2D(a) __ull2double_rn(a)
#define WINENT_FNAN __int_as_float(0x7fc00000)
#else
#define WINENT_DADD(a, b) ((a) + (b))
#define WINENT_DSQRT(a) __builtin_sqrt(a)
#define WINENT_I2D(a) ((double)(int64_t)(a))
#define WINENT_U2D(a) ((double)(uint64_t)(a))
#define WINENT_FNAN __builtin_nanf("")
#endif

typedef struct winent_glcm_acc {
    int64_t n, tsum, q, diag, qdiag, mi, mj;
    int64_t si, sj, sii, sjj, sij, sad, sh, s3, s4;
} winent_glcm_acc;

/* An empty matrix's sums (every field named: C++ warns on a bare {0}). */
#define WINENT_GLCM_ACC_ZERO {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

/* The tables a finish needs (device or host pointers alike). */
typedef struct winent_glcm_tabs {
    const int64_t *lq; /* [0..2 kx ky] */
    int symmetric;
} winent_glcm_tabs;

/* A signed 128-bit integer to double, the same rounding everywhere: the
 * magnitude's high half times 2^64 plus its low half, each rounded to
 * nearest (both halves of one sign, so nothing cancels). |v| < 2^126. */
WINENT_HD double winent_glcm_i128_to_d(__int128 v)
{
    const int neg = v < 0;
    const unsigned __int128 m = (unsigned __int128)(neg ? -v : v);
    double h = WINENT_DMUL(WINENT_U2D((uint64_t)(m >> 64)), 18446744073709551616.0);
    double d = WINENT_DADD(h, WINENT_U2D((uint64_t)m));
    return neg ? -d : d;
}

/* Fixed-point entropy numerators (times N 2^32) of the joint matrix and of
 * the marginals; N = n (asymmetric) or 2n. */
WINENT_HD int64_t winent_glcm_hjoint(const winent_glcm_acc *a, const winent_glcm_tabs *t)
{
    if (!t->symmetric)
        return a->n * t->lq[a->n] - a->tsum;
    const int64_t N = 2 * a->n;
    return N * t->lq[N] - 2 * a->tsum - 2 * a->diag * t->lq[2];
}

WINENT_HD int64_t winent_glcm_hmarg(const winent_glcm_acc *a, const winent_glcm_tabs *t, int second)
{
    const int64_t N = t->symmetric ? 2 * a->n : a->n;
    return N * t->lq[N] - (t->symmetric || !second ? a->mi : a->mj);
}

/* numerator / denominator of exact integers, as the one division. */
WINENT_HD double winent_glcm_ratio(int64_t num, int64_t den)
{
    return WINENT_DDIV(WINENT_I2D(num), WINENT_I2D(den));
}

/* Cluster shade (k = 3) or prominence (k = 4): the k-th central moment of
 * t = i + j, whose raw sums over the n pairs are S1..S4, as
 * (n^2 S3 - 3 n S1 S2 + 2 S1^3) / n^3 and
 * (n^3 S4 - 4 n^2 S1 S3 + 6 n S1^2 S2 - 3 S1^4) / n^4, numerators exact.
 * With n < 2^16 (a window's pairs) and t < 2^11 (levels < 1024), S1 <
 * 2^27, S2 < 2^38, S3 < 2^49, S4 < 2^60, so every factor grouped below
 * (n^2, n S1, 4 n^2 S1, 6 n S2, S1^2, n^3) fits in 63 bits and each term
 * is one 64 x 64 -> 128-bit product. */
WINENT_HD __int128 winent_glcm_mul(int64_t a, int64_t b)
{
    return (__int128)a * (__int128)b;
}

WINENT_HD double winent_glcm_cluster(const winent_glcm_acc *a, int k)
{
    const int64_t n = a->n, s1 = a->si + a->sj, s2 = a->sii + a->sjj + 2 * a->sij;
    const int64_t s3 = a->s3, s4 = a->s4, s11 = s1 * s1, n3 = n * n * n;
    __int128 num, den;
    if (k == 3) {
        num = winent_glcm_mul(n * n, s3) - winent_glcm_mul(3 * n * s1, s2) +
              winent_glcm_mul(2 * s11, s1);
        den = n3;
    } else {
        num = winent_glcm_mul(n3, s4) - winent_glcm_mul(4 * n * n * s1, s3) +
              winent_glcm_mul(6 * n * s2, s11) - 3 * winent_glcm_mul(s11, s11);
        den = winent_glcm_mul(n3, n);
    }
    return WINENT_DDIV(winent_glcm_i128_to_d(num), winent_glcm_i128_to_d(den));
}

/* Correlation: cov / (sigma_i sigma_j), 1 where a sigma is 0. */
WINENT_HD double winent_glcm_correlation(const winent_glcm_acc *a, int symmetric)
{
    const int64_t n = a->n;
    if (symmetric) {
        /* mu = A / 2n, sigma^2 = (2n B - A^2) / 4n^2, cov = (4n sij - A^2) / 4n^2 */
        const int64_t A = a->si + a->sj, B = a->sii + a->sjj;
        const int64_t var = 2 * n * B - A * A;
        if (var <= 0)
            return 1.0;
        return winent_glcm_ratio(4 * n * a->sij - A * A, var);
    }
    const int64_t vi = n * a->sii - a->si * a->si, vj = n * a->sjj - a->sj * a->sj;
    if (vi <= 0 || vj <= 0)
        return 1.0;
    const double den = WINENT_DSQRT(WINENT_DMUL(WINENT_I2D(vi), WINENT_I2D(vj)));
    return WINENT_DDIV(WINENT_I2D(n * a->sij - a->si * a->sj), den);
}

/* The entropy of one angle's matrix; a->n > 0. */
WINENT_HD double winent_glcm_entropy_value(const winent_glcm_acc *a, const winent_glcm_tabs *t)
{
    const int64_t N = t->symmetric ? 2 * a->n : a->n;
    return WINENT_DDIV(WINENT_I2D(winent_glcm_hjoint(a, t)),
                       WINENT_DMUL(WINENT_I2D(N), WINENT_LQ_SCALE));
}

/* Measure `m` (a winent_glcm_measure) of one angle's matrix; a->n > 0. */
WINENT_HD double winent_glcm_value(int m, const winent_glcm_acc *a, const winent_glcm_tabs *t)
{
    const int64_t n = a->n;
    const int sym = t->symmetric;
    const int64_t N = sym ? 2 * n : n;
    switch (m) {
    case 0: return winent_glcm_entropy_value(a, t);
    case 1: /* ASM */
    case 2: /* energy */ {
        const double asm_ = sym ? winent_glcm_ratio(a->q + a->qdiag, 2 * n * n)
                                : winent_glcm_ratio(a->q, n * n);
        return m == 1 ? asm_ : WINENT_DSQRT(asm_);
    }
    case 3: /* contrast */
        return winent_glcm_ratio(a->sii + a->sjj - 2 * a->sij, n);
    case 4: /* dissimilarity */
        return winent_glcm_ratio(a->sad, n);
    case 5: /* homogeneity */
        return WINENT_DDIV(WINENT_I2D(a->sh), WINENT_DMUL(WINENT_I2D(n), WINENT_LQ_SCALE));
    case 6: return winent_glcm_correlation(a, sym);
    case 7: /* mean */
        return sym ? winent_glcm_ratio(a->si + a->sj, 2 * n) : winent_glcm_ratio(a->si, n);
    case 8: /* variance */ {
        if (sym) {
            const int64_t A = a->si + a->sj;
            return winent_glcm_ratio(2 * n * (a->sii + a->sjj) - A * A, 4 * n * n);
        }
        return winent_glcm_ratio(n * a->sii - a->si * a->si, n * n);
    }
    case 9: return winent_glcm_cluster(a, 3);
    case 10: return winent_glcm_cluster(a, 4);
    case 11: /* H(j | i) = H(i, j) - H(i), >= 0 */ {
        int64_t d = winent_glcm_hjoint(a, t) - winent_glcm_hmarg(a, t, 0);
        return WINENT_DDIV(WINENT_I2D(d > 0 ? d : 0), WINENT_DMUL(WINENT_I2D(N), WINENT_LQ_SCALE));
    }
    default: /* I(i; j) = H(i) + H(j) - H(i, j), >= 0 */ {
        int64_t d = winent_glcm_hmarg(a, t, 0) + winent_glcm_hmarg(a, t, 1) - winent_glcm_hjoint(a, t);
        return WINENT_DDIV(WINENT_I2D(d > 0 ? d : 0), WINENT_DMUL(WINENT_I2D(N), WINENT_LQ_SCALE));
    }
    }
}

/* The average of `k` angles' values summed in angle order, as the map's
 * float; NaN when no angle had a pair. */
WINENT_HD float winent_glcm_average(double sum, int k)
{
    if (k == 0)
        return WINENT_FNAN;
    return WINENT_D2F(WINENT_DDIV(sum, (double)k));
}

#endif
