/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm_cpu.c - the co-occurrence measures on the CPU, sliding.
 *
 * A window's matrix at offset (dx, dy) is the histogram of the pair codes
 * (q(a, b), q(a + dx, b + dy)) over the anchors (a, b) whose pair lies in
 * the cropped window: the window shrunk by the offset, a rectangle of
 * anchor columns [lo(x), hi(x)] and rows [rlo(y), rhi(y)], both column
 * bounds moving by at most one per step. So each output row slides its
 * histogram left to right like the entropy engine's: a step removes the
 * anchor column leaving and adds the one entering (2 (ky - |dy|) pairs),
 * keeping the sums of glcm_rule.h exact in int64, so any order of updates
 * gives the same bits. Four rows slide in lockstep, each with its own
 * histograms (glcm_slide4); their moment sums (the measures other than
 * the entropies and ASM) come per column from prefix sums over the
 * column's rows (slide4_pre), O(1) per column step. The angles run one after the other over the row,
 * each adding its value into a row of doubles in angle order; the map's
 * float is their mean, rounded once. The slide itself is glcm_slide.h,
 * shared with the CUDA engine.
 */
#include "glcm.h"
#include "glcm_slide.h"

#include <stdlib.h>
#include <string.h>

/* The moment sums of the pairs anchored in one column, per anchor row
 * prefix: n, si, sj, sii, sjj, sij, sad, sh, s3, s4. */
#define NQ 10
/* The largest prefix buffer a worker takes; wider rows or taller windows
 * slide the moments pair by pair instead (the same sums). */
#define PRE_BYTES_MAX ((size_t)48 << 20)

typedef struct glcm_scratch {
    uint16_t *codes;   /* levels of the band's input rows */
    size_t codes_cap;  /* in codes */
    uint16_t *hist;    /* [LANES][L * L] pair counts, zero between rows */
    uint32_t *marg;    /* [LANES][2 L] marginal counts (first ends, second ends) */
    double *sum;       /* [LANES][nmeasures * width] the angles' values summed */
    int *cnt;          /* [LANES][width] angles with a pair */
    int64_t *pre;      /* [PRE_ROWS][width][NQ] moment prefix sums, or NULL */
} glcm_scratch;

struct winent_glcm_cpu {
    const winent_glcm_plan *plan;
    int threads, max_width;
    glcm_scratch *scratch;
};

/* Rows of the moment prefix: the anchor rows of LANES output rows, plus one. */
static size_t pre_rows(const winent_glcm_plan *p)
{
    return (size_t)WINENT_GLCM_LANES + 2 * (size_t)p->ry + 2;
}

/* pre row (r - r0), r in [r0, r1 + 1], column a: the sums over the pairs
 * anchored at (a, b), r0 <= b < r, of angle (dx, dy). */
static void moment_prefix(const winent_glcm_geom *g, const uint16_t *codes, int y0, int dx,
                          int dy, int r0, int r1, int64_t *pre)
{
    const int W = g->W;
    const size_t rs = (size_t)W * NQ;
    const int alo = dx < 0 ? -dx : 0, ahi = W - 1 - (dx > 0 ? dx : 0);
    memset(pre, 0, rs * sizeof *pre);
    for (int r = r0; r <= r1; r++) {
        const int64_t *prev = pre + (size_t)(r - r0) * rs;
        int64_t *cur = pre + (size_t)(r - r0 + 1) * rs;
        memcpy(cur, prev, rs * sizeof *cur);
        const uint16_t *first = codes + (size_t)(r - y0) * W;
        const uint16_t *second = first + (ptrdiff_t)dy * W + dx;
        for (int a = alo; a <= ahi; a++) {
            const unsigned i = first[a], j = second[a];
            if (i == WINENT_GLCM_SENT || j == WINENT_GLCM_SENT)
                continue;
            const int64_t I = i, J = j, d = I > J ? I - J : J - I, t = I + J, t2 = t * t;
            int64_t *q = cur + (size_t)a * NQ;
            q[0] += 1;
            q[1] += I;
            q[2] += J;
            q[3] += I * I;
            q[4] += J * J;
            q[5] += I * J;
            q[6] += d;
            q[7] += g->hw[d];
            q[8] += t2 * t;
            q[9] += t2 * t2;
        }
    }
}

/* Add (sign 1) or remove (-1) the moments of column c's pairs in anchor
 * rows [rlo, rhi] (n too when `with_n`: no histogram counts it). */
static inline void moment_column(winent_glcm_acc *a, const int64_t *pre, int W, int r0, int rlo,
                                 int rhi, int c, int sign, int with_n)
{
    if (rhi < rlo)
        return;
    const int64_t *hi = pre + ((size_t)(rhi + 1 - r0) * W + (size_t)c) * NQ;
    const int64_t *lo = pre + ((size_t)(rlo - r0) * W + (size_t)c) * NQ;
    if (with_n)
        a->n += sign * (hi[0] - lo[0]);
    a->si += sign * (hi[1] - lo[1]);
    a->sj += sign * (hi[2] - lo[2]);
    a->sii += sign * (hi[3] - lo[3]);
    a->sjj += sign * (hi[4] - lo[4]);
    a->sij += sign * (hi[5] - lo[5]);
    a->sad += sign * (hi[6] - lo[6]);
    a->sh += sign * (hi[7] - lo[7]);
    a->s3 += sign * (hi[8] - lo[8]);
    a->s4 += sign * (hi[9] - lo[9]);
}

/* Add or remove anchor column c in every lane: the pairs into the
 * histograms (gp: the geometry without moments), the moments from the
 * prefix. */
static inline void column_pre(const winent_glcm_geom *gp, winent_glcm_state *st,
                              const uint16_t *codes, int y0, int dx, int dy, const int *rlo,
                              const int *rhi, int c, int sign, const int64_t *pre, int r0)
{
    if (gp->need_hist)
        winent_glcm_column4(gp, st, codes, y0, dx, dy, rlo, rhi, c, sign);
    for (int l = 0; l < WINENT_GLCM_LANES; l++)
        moment_column(&st[l].acc, pre, gp->W, r0, rlo[l], rhi[l], c, sign, !gp->need_hist);
}

/* winent_glcm_slide4 with the moments from column prefix sums (O(1) per
 * column instead of a pass over its pairs): the same exact sums, so the
 * same bits. */
static void slide4_pre(const winent_glcm_geom *g, winent_glcm_state *st, const uint16_t *codes,
                       int y0, int ang, int y, double *sum, size_t lstride, int *cnt,
                       int64_t *pre)
{
    const int dx = g->dx[ang], dy = g->dy[ang], rx = g->rx, W = g->W;
    int rlo[WINENT_GLCM_LANES], rhi[WINENT_GLCM_LANES], r0 = g->H, r1 = -1;
    const winent_glcm_tabs tabs = {g->lq, g->symmetric};
    const winent_glcm_acc zero = WINENT_GLCM_ACC_ZERO;
    winent_glcm_geom gp = *g;
    gp.need_mom = 0;
    for (int l = 0; l < WINENT_GLCM_LANES; l++) {
        rlo[l] = winent_glcm_imax(0, y + l - g->ry) + winent_glcm_imax(0, -dy);
        rhi[l] = winent_glcm_imin(g->H - 1, y + l + g->ry) - winent_glcm_imax(0, dy);
        st[l].acc = zero;
        if (rlo[l] <= rhi[l]) {
            r0 = winent_glcm_imin(r0, rlo[l]);
            r1 = winent_glcm_imax(r1, rhi[l]);
        }
    }
    if (r1 < r0)
        return; /* no lane has a pair at this angle */
    moment_prefix(g, codes, y0, dx, dy, r0, r1, pre);
    int lo = 0, hi = -1;
    for (int x = 0; x < W; x++) {
        const int nlo = winent_glcm_imax(0, x - rx) + winent_glcm_imax(0, -dx);
        const int nhi = winent_glcm_imin(W - 1, x + rx) - winent_glcm_imax(0, dx);
        if (x == 0)
            lo = nlo, hi = nlo - 1;
        for (int c = lo; c <= winent_glcm_imin(hi, nlo - 1); c++)
            column_pre(&gp, st, codes, y0, dx, dy, rlo, rhi, c, -1, pre, r0);
        for (int c = winent_glcm_imax(nlo, hi + 1); c <= nhi; c++)
            column_pre(&gp, st, codes, y0, dx, dy, rlo, rhi, c, 1, pre, r0);
        lo = nlo;
        hi = nhi;
        for (int l = 0; l < WINENT_GLCM_LANES; l++) {
            if (st[l].acc.n == 0)
                continue;
            for (int k = 0; k < g->nm; k++)
                sum[(size_t)l * lstride + (size_t)k * W + (size_t)x] +=
                    winent_glcm_value(g->measures[k], &st[l].acc, &tabs);
            cnt[(size_t)l * W + (size_t)x]++;
        }
    }
    if (gp.need_hist)
        for (int c = lo; c <= hi; c++)
            winent_glcm_column4(&gp, st, codes, y0, dx, dy, rlo, rhi, c, -1);
}

winent_status winent_glcm_cpu_create(const winent_glcm_plan *p, int max_width, int threads,
                                     winent_glcm_cpu **out, winent_err *err)
{
    *out = NULL;
    if (threads < 1)
        threads = 1;
    winent_glcm_cpu *e = calloc(1, sizeof *e);
    if (e == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the GLCM engine");
    e->plan = p;
    e->threads = threads;
    e->max_width = max_width;
    e->scratch = calloc((size_t)threads, sizeof *e->scratch);
    if (e->scratch == NULL)
        goto nomem;
    const size_t L = (size_t)p->levels, W = (size_t)(max_width > 0 ? max_width : 1);
    for (int t = 0; t < threads; t++) {
        glcm_scratch *s = &e->scratch[t];
        const size_t nl = WINENT_GLCM_LANES;
        s->hist = calloc(nl * L * L, sizeof *s->hist);
        s->marg = calloc(nl * 2 * L, sizeof *s->marg);
        s->sum = malloc(nl * (size_t)p->opts.nmeasures * W * sizeof *s->sum);
        s->cnt = malloc(nl * W * sizeof *s->cnt);
        if (s->hist == NULL || s->marg == NULL || s->sum == NULL || s->cnt == NULL)
            goto nomem;
        const size_t pre = pre_rows(p) * W * NQ * sizeof(int64_t);
        if (p->need_mom && pre <= PRE_BYTES_MAX && (s->pre = malloc(pre)) == NULL)
            goto nomem;
    }
    *out = e;
    return WINENT_OK;
nomem:
    winent_glcm_cpu_free(e);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the GLCM engine");
}

void winent_glcm_cpu_free(winent_glcm_cpu *e)
{
    if (e == NULL)
        return;
    for (int t = 0; e->scratch != NULL && t < e->threads; t++) {
        free(e->scratch[t].codes);
        free(e->scratch[t].hist);
        free(e->scratch[t].marg);
        free(e->scratch[t].sum);
        free(e->scratch[t].cnt);
        free(e->scratch[t].pre);
    }
    free(e->scratch);
    free(e);
}

/* Output rows [y, y + nl) from the band's levels (image rows from y0):
 * LANES rows in lockstep, or one. */
static void compute_rows(const winent_glcm_geom *g, glcm_scratch *s, int y, int nl, int y0,
                         float *const *out, size_t row_off, size_t out_stride)
{
    const int W = g->W, L = g->L;
    const size_t lstride = (size_t)g->nm * W;
    memset(s->sum, 0, (size_t)nl * lstride * sizeof *s->sum);
    memset(s->cnt, 0, (size_t)nl * W * sizeof *s->cnt);
    winent_glcm_state st[WINENT_GLCM_LANES];
    for (int l = 0; l < WINENT_GLCM_LANES; l++) {
        winent_glcm_state one = {s->hist + (size_t)l * L * L, s->marg + (size_t)l * 2 * L,
                                 s->marg + (size_t)l * 2 * L + L, WINENT_GLCM_ACC_ZERO};
        st[l] = one;
    }
    for (int a = 0; a < g->nangles; a++) {
        if (nl == WINENT_GLCM_LANES && g->need_mom && s->pre != NULL)
            slide4_pre(g, st, s->codes, y0, a, y, s->sum, lstride, s->cnt, s->pre);
        else if (nl == WINENT_GLCM_LANES)
            winent_glcm_slide4(g, st, s->codes, y0, a, y, s->sum, lstride, s->cnt);
        else
            winent_glcm_slide(g, st, s->codes, y0, a, y, 0, W, s->sum, (size_t)W, s->cnt);
    }
    for (int l = 0; l < nl; l++) {
        const uint16_t *centre = s->codes + (size_t)(y + l - y0) * W;
        const int *cnt = s->cnt + (size_t)l * W;
        for (int k = 0; k < g->nm; k++) {
            float *o = out[k] + row_off + (size_t)l * out_stride;
            const double *sum = s->sum + (size_t)l * lstride + (size_t)k * W;
            for (int x = 0; x < W; x++)
                o[x] = winent_glcm_out(centre[x], sum[x], cnt[x]);
        }
    }
}

winent_status winent_glcm_cpu_compute_rows(winent_glcm_cpu *e, int worker, const winent_chunk *c,
                                           int ya, int yb, float *const *out, size_t out_stride,
                                           winent_err *err)
{
    const winent_glcm_plan *p = e->plan;
    if (worker < 0 || worker >= e->threads || c->width > e->max_width || ya < c->y0 ||
        yb > c->y1 || ya > yb)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "GLCM engine: bad band %d..%d (worker %d)",
                          ya, yb, worker);
    if (ya == yb)
        return WINENT_OK;
    int in0, nin;
    winent_chunk_input_rows(ya, yb, p->ry, c->height, &in0, &nin);
    if (in0 < c->in_y0 || in0 + nin > c->in_y0 + c->in_h)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                          "GLCM engine: the chunk lacks input rows %d..%d", in0, in0 + nin);
    glcm_scratch *s = &e->scratch[worker];
    const size_t need = (size_t)nin * (size_t)c->width;
    if (need > s->codes_cap) {
        uint16_t *nc = realloc(s->codes, need * sizeof *nc);
        if (nc == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the GLCM engine");
        s->codes = nc;
        s->codes_cap = need;
    }
    for (int r = 0; r < nin; r++)
        winent_glcm_levels(p, (const char *)c->rows + (size_t)(in0 - c->in_y0 + r) * c->row_bytes,
                           (size_t)c->width, s->codes + (size_t)r * c->width);
    winent_glcm_geom g;
    winent_glcm_geom_init(p, c->width, c->height, &g);
    for (int y = ya; y < yb;) {
        const int nl = yb - y >= WINENT_GLCM_LANES ? WINENT_GLCM_LANES : 1;
        compute_rows(&g, s, y, nl, in0, out, (size_t)(y - c->y0) * out_stride, out_stride);
        y += nl;
    }
    return WINENT_OK;
}

winent_status winent_glcm_cpu_compute(winent_glcm_cpu *e, const winent_chunk *c,
                                      float *const *out, size_t out_stride, winent_err *err)
{
    return winent_glcm_cpu_compute_rows(e, 0, c, c->y0, c->y1, out, out_stride, err);
}
