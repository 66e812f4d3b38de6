/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm_oracle.h - the co-occurrence measures by brute force, for tests:
 * per window and angle, the full L x L matrix of counts is built from the
 * pixel pairs, made symmetric by adding its transpose, normalized to
 * probabilities and fed to the textbook formulas in double precision
 * (Haralick 1973; scikit-image's graycoprops for correlation's zero-sigma
 * rule). It shares no code with the engine (not its levels, tables,
 * sliding or integer sums): it quantizes the samples itself.
 */
#ifndef WINENT_TEST_GLCM_ORACLE_H
#define WINENT_TEST_GLCM_ORACLE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "winent.h"

typedef struct oracle_opts {
    winent_dtype dtype;
    int levels;        /* quantize into levels over [lo, hi]; 0: u8/i8 values */
    double lo, hi;
    int has_nodata;
    double nodata;
    int kx, ky, distance;
    unsigned angles;   /* bits: 0, 45, 90, 135 */
    int symmetric;
    int base;          /* winent_base */
} oracle_opts;

/* The level of sample `i`, or -1 when it is not counted. */
static int oracle_level(const oracle_opts *o, const void *buf, size_t i)
{
    double v;
    switch (o->dtype) {
    case WINENT_U8: v = ((const uint8_t *)buf)[i]; break;
    case WINENT_I8: v = ((const int8_t *)buf)[i]; break;
    case WINENT_U16: v = ((const uint16_t *)buf)[i]; break;
    case WINENT_I16: v = ((const int16_t *)buf)[i]; break;
    case WINENT_F32: v = ((const float *)buf)[i]; break;
    default: v = ((const double *)buf)[i]; break;
    }
    if (isnan(v))
        return -1;
    if (o->has_nodata) {
        double nd = o->dtype == WINENT_F32 ? (double)(float)o->nodata : o->nodata;
        if (v == nd)
            return -1;
    }
    if (o->levels == 0)
        return o->dtype == WINENT_I8 ? (int)v + 128 : (int)v;
    double t = floor((v - o->lo) * o->levels / (o->hi - o->lo));
    if (!(t >= 0))
        return 0;
    return t >= o->levels ? o->levels - 1 : (int)t;
}

static double oracle_log(double v, int base)
{
    return base == WINENT_BASE_2 ? log2(v) : base == WINENT_BASE_10 ? log10(v) : log(v);
}

/* The measure `m` of a normalized matrix given by its nonzero cells
 * (ci[c], cj[c]) = P[c], c < nc; L levels. */
static double oracle_measure(int m, const int *ci, const int *cj, const double *P, int nc, int L,
                             int base)
{
    double mi = 0, mj = 0, vi = 0, vj = 0, cov = 0, r = 0;
    for (int c = 0; c < nc; c++) {
        mi += ci[c] * P[c];
        mj += cj[c] * P[c];
    }
    for (int c = 0; c < nc; c++) {
        vi += (ci[c] - mi) * (ci[c] - mi) * P[c];
        vj += (cj[c] - mj) * (cj[c] - mj) * P[c];
        cov += (ci[c] - mi) * (cj[c] - mj) * P[c];
    }
    if (m == 7)
        return mi;
    if (m == 8)
        return vi;
    if (m == 6)
        return sqrt(vi) < 1e-9 || sqrt(vj) < 1e-9 ? 1.0 : cov / (sqrt(vi) * sqrt(vj));
    double *pi = calloc((size_t)L, sizeof *pi), *pj = calloc((size_t)L, sizeof *pj);
    for (int c = 0; c < nc; c++) {
        double p = P[c];
        int d = abs(ci[c] - cj[c]);
        double t = ci[c] + cj[c] - mi - mj;
        pi[ci[c]] += p;
        pj[cj[c]] += p;
        switch (m) {
        case 1:
        case 2: r += p * p; break;
        case 3: r += (double)d * d * p; break;
        case 4: r += d * p; break;
        case 5: r += p / (1.0 + (double)d * d); break;
        case 9: r += t * t * t * p; break;
        case 10: r += t * t * t * t * p; break;
        default: r -= p * oracle_log(p, base); break; /* 0, 11, 12: H(i, j) */
        }
    }
    if (m == 2)
        r = sqrt(r);
    if (m == 11 || m == 12) {
        double hi = 0, hj = 0;
        for (int i = 0; i < L; i++) {
            hi -= pi[i] > 0 ? pi[i] * oracle_log(pi[i], base) : 0;
            hj -= pj[i] > 0 ? pj[i] * oracle_log(pj[i], base) : 0;
        }
        r = m == 11 ? r - hi : hi + hj - r;
    }
    free(pi);
    free(pj);
    return r;
}

/* The map of measure `m` over the w x h image `buf`, into out (w * h). */
static void oracle_map(const oracle_opts *o, const void *buf, int w, int h, int m, double *out)
{
    static const int ux[4] = {1, 1, 0, -1}, uy[4] = {0, 1, 1, 1};
    int L = o->levels ? o->levels : 256;
    int *lev = malloc(sizeof *lev * (size_t)w * h);
    double *P = calloc((size_t)L * L, sizeof *P);
    int cap = 2 * o->kx * o->ky + 2;
    int *ci = malloc(sizeof *ci * cap), *cj = malloc(sizeof *cj * cap);
    double *cp = malloc(sizeof *cp * cap);
    for (size_t i = 0; i < (size_t)w * h; i++)
        lev[i] = oracle_level(o, buf, i);
    int rx = o->kx / 2, ry = o->ky / 2;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (lev[(size_t)y * w + x] < 0) {
                out[(size_t)y * w + x] = NAN;
                continue;
            }
            /* the cropped window */
            int x0 = x - rx < 0 ? 0 : x - rx, x1 = x + rx >= w ? w - 1 : x + rx;
            int y0 = y - ry < 0 ? 0 : y - ry, y1 = y + ry >= h ? h - 1 : y + ry;
            double sum = 0;
            int k = 0;
            for (int a = 0; a < 4; a++) {
                if (!(o->angles & (1u << a)))
                    continue;
                int dx = ux[a] * o->distance, dy = uy[a] * o->distance;
                double n = 0;
                int nc = 0;
                for (int v = y0; v <= y1; v++)
                    for (int u = x0; u <= x1; u++) {
                        int u2 = u + dx, v2 = v + dy;
                        if (u2 < x0 || u2 > x1 || v2 < y0 || v2 > y1)
                            continue;
                        int i = lev[(size_t)v * w + u], j = lev[(size_t)v2 * w + u2];
                        if (i < 0 || j < 0)
                            continue;
                        if (P[i * L + j]++ == 0) {
                            ci[nc] = i;
                            cj[nc++] = j;
                        }
                        if (o->symmetric && P[j * L + i]++ == 0) {
                            ci[nc] = j;
                            cj[nc++] = i;
                        }
                        n += o->symmetric ? 2 : 1;
                    }
                for (int c = 0; c < nc; c++) { /* the matrix, read and cleared */
                    cp[c] = P[ci[c] * L + cj[c]] / n;
                    P[ci[c] * L + cj[c]] = 0;
                }
                if (n == 0)
                    continue;
                sum += oracle_measure(m, ci, cj, cp, nc, L, o->base);
                k++;
            }
            out[(size_t)y * w + x] = k ? sum / k : NAN;
        }
    free(lev);
    free(P);
    free(ci);
    free(cj);
    free(cp);
}

#endif
