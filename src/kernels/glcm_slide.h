/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm_slide.h - the co-occurrence slide along a segment of one output row,
 * as inline code that compiles both as C (glcm_cpu.c: a worker's row) and
 * as CUDA (glcm_cuda.cu: a thread's segment), so both engines run the same
 * steps on the same exact sums.
 *
 * At offset (dx, dy) the window at (x, y) holds the pairs anchored at
 * columns [lo(x), hi(x)] and rows [rlo(y), rhi(y)]: the cropped window
 * shrunk by the offset, with lo(x) = max(0, x - rx) + max(0, -dx) and
 * hi(x) = min(W - 1, x + rx) - max(0, dx). Both bounds move by at most one
 * per step, so a step removes the anchor column leaving and adds the one
 * entering; a segment [xa, xb) starts from an empty matrix at xa.
 */
#ifndef WINENT_GLCM_SLIDE_H
#define WINENT_GLCM_SLIDE_H

#include <stddef.h>
#include <stdint.h>

#include "glcm_rule.h"

/* A level that is not counted (nodata, NaN). Levels are below 1024. */
#define WINENT_GLCM_SENT 0xFFFFu

/* What a slide needs of the plan, as plain data (it travels to the GPU by
 * value; the table pointers are the engine's, host or device). */
typedef struct winent_glcm_geom {
    int W, H, L, rx, ry;
    int symmetric, need_hist, need_marg, need_mom;
    int nangles, dx[4], dy[4];
    int nm;
    int measures[16];
    const int64_t *lq, *du, *hw;
} winent_glcm_geom;

/* One angle's running state: its histograms and exact sums. */
typedef struct winent_glcm_state {
    uint16_t *hist;  /* [L * L], zero when the matrix is empty */
    uint32_t *mi;    /* [L] first ends (symmetric: both ends) */
    uint32_t *mj;    /* [L] second ends */
    winent_glcm_acc acc;
} winent_glcm_state;

WINENT_HD void winent_glcm_pair(const winent_glcm_geom *g, winent_glcm_state *s, unsigned i,
                                unsigned j, int sign)
{
    winent_glcm_acc *a = &s->acc;
    const int64_t *du = g->du;
    a->n += sign;
    if (g->need_hist) {
        unsigned lo = i, hi = j;
        if (g->symmetric && i > j) {
            lo = j;
            hi = i;
        }
        uint16_t *cell = &s->hist[lo * (unsigned)g->L + hi];
        /* c: the count before an add, after a remove; (c + 1)^2 - c^2 = 2c + 1 */
        const unsigned c = sign > 0 ? *cell : (unsigned)(*cell - 1u);
        *cell = (uint16_t)(sign > 0 ? c + 1u : c);
        const int64_t dq = 2 * (int64_t)c + 1;
        const int64_t on_diag = i == j; /* no branch: i == j is a coin toss in texture */
        a->tsum += sign * du[c];
        a->q += sign * dq;
        a->diag += sign * on_diag;
        a->qdiag += sign * dq * on_diag;
        if (g->need_marg) {
            uint32_t *mj = g->symmetric ? s->mi : s->mj;
            int64_t *tj = g->symmetric ? &a->mi : &a->mj;
            unsigned ci = sign > 0 ? s->mi[i] : s->mi[i] - 1u;
            s->mi[i] = sign > 0 ? ci + 1u : ci;
            a->mi += sign * du[ci];
            unsigned cj = sign > 0 ? mj[j] : mj[j] - 1u;
            mj[j] = sign > 0 ? cj + 1u : cj;
            *tj += sign * du[cj];
        }
    }
    if (g->need_mom) {
        const int64_t I = i, J = j, sg = sign;
        const int64_t d = I > J ? I - J : J - I, t = I + J, t2 = t * t;
        a->si += sg * I;
        a->sj += sg * J;
        a->sii += sg * I * I;
        a->sjj += sg * J * J;
        a->sij += sg * I * J;
        a->sad += sg * d;
        a->sh += sg * g->hw[d];
        a->s3 += sg * t2 * t;
        a->s4 += sg * t2 * t2;
    }
}

/* Add (sign 1) or remove (-1) the pairs anchored in column x, rows
 * [rlo, rhi]; codes hold image row y0 at codes[0], rows W apart. */
WINENT_HD void winent_glcm_column(const winent_glcm_geom *g, winent_glcm_state *s,
                                  const uint16_t *codes, int y0, int dx, int dy, int rlo, int rhi,
                                  int x, int sign)
{
    const int W = g->W;
    const uint16_t *first = codes + (size_t)(rlo - y0) * (size_t)W + (size_t)x;
    for (int b = rlo; b <= rhi; b++, first += W) {
        const unsigned i = first[0], j = first[(ptrdiff_t)dy * W + dx];
        if (i == WINENT_GLCM_SENT || j == WINENT_GLCM_SENT)
            continue;
        winent_glcm_pair(g, s, i, j, sign);
    }
}

WINENT_HD int winent_glcm_imax(int a, int b) { return a > b ? a : b; }
WINENT_HD int winent_glcm_imin(int a, int b) { return a < b ? a : b; }

/* Slide angle `a` along output row y over columns [xa, xb): for each
 * window with a pair, its measures are added into sum[k * sstride + x - xa]
 * and cnt[x - xa] counts the angle. Leaves the state's histograms zero. */
WINENT_HD void winent_glcm_slide(const winent_glcm_geom *g, winent_glcm_state *s,
                                 const uint16_t *codes, int y0, int ang, int y, int xa, int xb,
                                 double *sum, size_t sstride, int *cnt)
{
    const int dx = g->dx[ang], dy = g->dy[ang], rx = g->rx, W = g->W;
    const int rlo = winent_glcm_imax(0, y - g->ry) + winent_glcm_imax(0, -dy);
    const int rhi = winent_glcm_imin(g->H - 1, y + g->ry) - winent_glcm_imax(0, dy);
    if (rlo > rhi)
        return;
    const winent_glcm_tabs tabs = {g->lq, g->symmetric};
    winent_glcm_acc zero = WINENT_GLCM_ACC_ZERO;
    s->acc = zero;
    int lo = 0, hi = -1; /* the anchor columns in the matrix */
    for (int x = xa; x < xb; x++) {
        const int nlo = winent_glcm_imax(0, x - rx) + winent_glcm_imax(0, -dx);
        const int nhi = winent_glcm_imin(W - 1, x + rx) - winent_glcm_imax(0, dx);
        if (x == xa)
            lo = nlo, hi = nlo - 1;
        for (int c = lo; c <= winent_glcm_imin(hi, nlo - 1); c++)
            winent_glcm_column(g, s, codes, y0, dx, dy, rlo, rhi, c, -1);
        for (int c = winent_glcm_imax(nlo, hi + 1); c <= nhi; c++)
            winent_glcm_column(g, s, codes, y0, dx, dy, rlo, rhi, c, 1);
        lo = nlo;
        hi = nhi;
        if (s->acc.n == 0)
            continue;
        for (int k = 0; k < g->nm; k++)
            sum[(size_t)k * sstride + (size_t)(x - xa)] +=
                winent_glcm_value(g->measures[k], &s->acc, &tabs);
        cnt[x - xa]++;
    }
    for (int c = lo; c <= hi; c++)
        winent_glcm_column(g, s, codes, y0, dx, dy, rlo, rhi, c, -1);
}

/* The most rows sliding in lockstep on the CPU, each with its own state:
 * their updates are independent, which hides the latency of one
 * histogram's read-modify-write of a cell behind the others' (texture
 * repeats pairs, so consecutive updates of one histogram often hit the
 * same cell). */
#define WINENT_GLCM_LANES 8

/* winent_glcm_column for nl (<= LANES) rows at once: lane l's anchor rows
 * are [rlo[l], rhi[l]]. */
WINENT_HD void winent_glcm_column4(const winent_glcm_geom *g, winent_glcm_state *st, int nl,
                                   const uint16_t *codes, int y0, int dx, int dy, const int *rlo,
                                   const int *rhi, int x, int sign)
{
    const int W = g->W;
    const ptrdiff_t off = (ptrdiff_t)dy * W + dx;
    int kmax = 0;
    for (int l = 0; l < nl; l++)
        kmax = winent_glcm_imax(kmax, rhi[l] - rlo[l] + 1);
    for (int k = 0; k < kmax; k++)
        for (int l = 0; l < nl; l++) {
            const int b = rlo[l] + k;
            if (b > rhi[l])
                continue;
            const uint16_t *p = codes + (size_t)(b - y0) * (size_t)W + (size_t)x;
            const unsigned i = p[0], j = p[off];
            if (i == WINENT_GLCM_SENT || j == WINENT_GLCM_SENT)
                continue;
            winent_glcm_pair(g, &st[l], i, j, sign);
        }
}

/* winent_glcm_slide for the nl (<= LANES) output rows y .. y + nl - 1
 * over columns [0, W): lane l adds into sum[l * lstride + k * W + x] and
 * cnt[l * W + x]. The same sums, so the same bits, as one row at a time. */
WINENT_HD void winent_glcm_slide4(const winent_glcm_geom *g, winent_glcm_state *st, int nl,
                                  const uint16_t *codes, int y0, int ang, int y, double *sum,
                                  size_t lstride, int *cnt)
{
    const int dx = g->dx[ang], dy = g->dy[ang], rx = g->rx, W = g->W;
    int rlo[WINENT_GLCM_LANES], rhi[WINENT_GLCM_LANES];
    const winent_glcm_tabs tabs = {g->lq, g->symmetric};
    winent_glcm_acc zero = WINENT_GLCM_ACC_ZERO;
    for (int l = 0; l < nl; l++) {
        rlo[l] = winent_glcm_imax(0, y + l - g->ry) + winent_glcm_imax(0, -dy);
        rhi[l] = winent_glcm_imin(g->H - 1, y + l + g->ry) - winent_glcm_imax(0, dy);
        st[l].acc = zero;
    }
    int lo = 0, hi = -1;
    for (int x = 0; x < W; x++) {
        const int nlo = winent_glcm_imax(0, x - rx) + winent_glcm_imax(0, -dx);
        const int nhi = winent_glcm_imin(W - 1, x + rx) - winent_glcm_imax(0, dx);
        if (x == 0)
            lo = nlo, hi = nlo - 1;
        for (int c = lo; c <= winent_glcm_imin(hi, nlo - 1); c++)
            winent_glcm_column4(g, st, nl, codes, y0, dx, dy, rlo, rhi, c, -1);
        for (int c = winent_glcm_imax(nlo, hi + 1); c <= nhi; c++)
            winent_glcm_column4(g, st, nl, codes, y0, dx, dy, rlo, rhi, c, 1);
        lo = nlo;
        hi = nhi;
        for (int l = 0; l < nl; l++) {
            if (st[l].acc.n == 0)
                continue;
            for (int k = 0; k < g->nm; k++)
                sum[(size_t)l * lstride + (size_t)k * W + (size_t)x] +=
                    winent_glcm_value(g->measures[k], &st[l].acc, &tabs);
            cnt[(size_t)l * W + (size_t)x]++;
        }
    }
    for (int c = lo; c <= hi; c++)
        winent_glcm_column4(g, st, nl, codes, y0, dx, dy, rlo, rhi, c, -1);
}

/* The map's float at a pixel from its angles' sum and count: NaN where
 * the pixel itself is not counted or no angle had a pair. */
WINENT_HD float winent_glcm_out(unsigned centre, double sum, int cnt)
{
    return centre == WINENT_GLCM_SENT ? WINENT_FNAN : winent_glcm_average(sum, cnt);
}

/* One segment's work, as a GPU thread does it: output row y, columns
 * [xa, xb) (at most `seg`), every angle, then the floats of plane k at
 * out[k * plane_stride + x - xa]. sum: [nm * seg], cnt: [seg]. */
WINENT_HD void winent_glcm_segment(const winent_glcm_geom *g, winent_glcm_state *st,
                                   const uint16_t *codes, int y0, int y, int xa, int xb,
                                   double *sum, int *cnt, int seg, float *out, size_t plane_stride)
{
    for (int x = 0; x < xb - xa; x++) {
        cnt[x] = 0;
        for (int k = 0; k < g->nm; k++)
            sum[(size_t)k * seg + x] = 0.0;
    }
    for (int a = 0; a < g->nangles; a++)
        winent_glcm_slide(g, st, codes, y0, a, y, xa, xb, sum, (size_t)seg, cnt);
    const uint16_t *centre = codes + (size_t)(y - y0) * (size_t)g->W;
    for (int k = 0; k < g->nm; k++)
        for (int x = xa; x < xb; x++)
            out[(size_t)k * plane_stride + (size_t)(x - xa)] =
                winent_glcm_out(centre[x], sum[(size_t)k * seg + (size_t)(x - xa)], cnt[x - xa]);
}

#endif
