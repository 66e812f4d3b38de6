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
 * gives the same bits. The angles run one after the other over the row,
 * each adding its value into a row of doubles in angle order; the map's
 * float is their mean, rounded once.
 */
#include "glcm.h"
#include "glcm_rule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A level that is not counted (nodata, NaN). Levels are < 1024. */
#define SENT 0xFFFFu

typedef struct glcm_scratch {
    uint16_t *codes;   /* levels of the band's input rows */
    size_t codes_cap;  /* in codes */
    uint16_t *hist;    /* [L * L] pair counts, zero between rows */
    uint32_t *marg;    /* [2 L] marginal counts (first ends, second ends) */
    double *sum;       /* [nmeasures * width] the angles' values summed */
    int *cnt;          /* [width] angles with a pair */
} glcm_scratch;

struct winent_glcm_cpu {
    const winent_glcm_plan *plan;
    int threads, max_width;
    glcm_scratch *scratch;
};

/* One angle's slide along one output row. */
typedef struct slide {
    const winent_glcm_plan *p;
    const uint16_t *codes; /* level of image row b at codes[(b - y0) * W + a] */
    int y0, W;
    int dx, dy, rlo, rhi;
    uint16_t *hist;
    uint32_t *mi, *mj;
    winent_glcm_acc acc;
} slide;

static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }

static inline void hist_add(slide *s, unsigned i, unsigned j)
{
    const winent_glcm_plan *p = s->p;
    const int64_t *du = p->du;
    const unsigned L = (unsigned)p->levels;
    winent_glcm_acc *a = &s->acc;
    unsigned lo = i, hi = j;
    if (p->opts.symmetric && i > j) {
        lo = j;
        hi = i;
    }
    unsigned c = s->hist[lo * L + hi]++;
    a->tsum += du[c];
    a->q += 2 * (int64_t)c + 1;
    if (i == j) {
        a->diag++;
        a->qdiag += 2 * (int64_t)c + 1;
    }
    if (p->need_marg) {
        uint32_t *mj = p->opts.symmetric ? s->mi : s->mj;
        int64_t *tj = p->opts.symmetric ? &a->mi : &a->mj;
        c = s->mi[i]++;
        a->mi += du[c];
        c = mj[j]++;
        *tj += du[c];
    }
}

static inline void hist_remove(slide *s, unsigned i, unsigned j)
{
    const winent_glcm_plan *p = s->p;
    const int64_t *du = p->du;
    const unsigned L = (unsigned)p->levels;
    winent_glcm_acc *a = &s->acc;
    unsigned lo = i, hi = j;
    if (p->opts.symmetric && i > j) {
        lo = j;
        hi = i;
    }
    unsigned c = --s->hist[lo * L + hi];
    a->tsum -= du[c];
    a->q -= 2 * (int64_t)c + 1;
    if (i == j) {
        a->diag--;
        a->qdiag -= 2 * (int64_t)c + 1;
    }
    if (p->need_marg) {
        uint32_t *mj = p->opts.symmetric ? s->mi : s->mj;
        int64_t *tj = p->opts.symmetric ? &a->mi : &a->mj;
        c = --s->mi[i];
        a->mi -= du[c];
        c = --mj[j];
        *tj -= du[c];
    }
}

/* The moment sums of one pair, added (sign 1) or removed (-1). */
static inline void moments(winent_glcm_acc *a, const int64_t *hw, int64_t i, int64_t j, int64_t sg)
{
    const int64_t d = i > j ? i - j : j - i, t = i + j, t2 = t * t;
    a->si += sg * i;
    a->sj += sg * j;
    a->sii += sg * i * i;
    a->sjj += sg * j * j;
    a->sij += sg * i * j;
    a->sad += sg * d;
    a->sh += sg * hw[d];
    a->s3 += sg * t2 * t;
    a->s4 += sg * t2 * t2;
}

/* Add (sign 1) or remove (-1) the pairs anchored in column `x`. */
static void column(slide *s, int x, int sign)
{
    const winent_glcm_plan *p = s->p;
    const int W = s->W;
    const uint16_t *first = s->codes + (size_t)(s->rlo - s->y0) * W + x;
    const uint16_t *second = first + (ptrdiff_t)s->dy * W + s->dx;
    for (int b = s->rlo; b <= s->rhi; b++, first += W, second += W) {
        const unsigned i = *first, j = *second;
        if (i == SENT || j == SENT)
            continue;
        s->acc.n += sign;
        if (p->need_hist) {
            if (sign > 0)
                hist_add(s, i, j);
            else
                hist_remove(s, i, j);
        }
        if (p->need_mom)
            moments(&s->acc, p->hw, i, j, sign);
    }
}

/* Slide one angle along output row y, adding each window's values into
 * sum/cnt; leaves the histograms zeroed. */
static void slide_row(slide *s, int H, double *sum, int *cnt)
{
    const winent_glcm_plan *p = s->p;
    const int W = s->W, rx = p->rx, dx = s->dx;
    const int nm = p->opts.nmeasures;
    const winent_glcm_tabs tabs = {p->lq, p->opts.symmetric};
    (void)H;
    memset(&s->acc, 0, sizeof s->acc);
    int lo = 0, hi = -1; /* the anchor columns in the histogram */
    for (int x = 0; x < W; x++) {
        const int nlo = imax(0, x - rx) + imax(0, -dx);
        const int nhi = imin(W - 1, x + rx) - imax(0, dx);
        for (int a = lo; a <= imin(hi, nlo - 1); a++)
            column(s, a, -1);
        for (int a = imax(nlo, hi + 1); a <= nhi; a++)
            column(s, a, 1);
        lo = nlo;
        hi = nhi;
        if (s->acc.n == 0)
            continue;
        for (int k = 0; k < nm; k++)
            sum[(size_t)k * W + x] += winent_glcm_value((int)p->opts.measures[k], &s->acc, &tabs);
        cnt[x]++;
    }
    for (int a = lo; a <= hi; a++)
        column(s, a, -1);
}

/* Levels of `count` samples (plan's dtype, native order), SENT where not
 * counted. */
static void levels_of(const winent_glcm_plan *p, const unsigned char *src, int count,
                      uint16_t *dst)
{
    const winent_code_rule *r = &p->rule;
    const size_t sz = winent_dtype_size(p->opts.compute.dtype);
    for (int i = 0; i < count; i++) {
        const unsigned char *q = src + (size_t)i * sz;
        uint32_t c;
        switch (p->opts.compute.dtype) {
#define INT_CASE(E, T)                                                                             \
    case E: {                                                                                      \
        T v;                                                                                       \
        memcpy(&v, q, sizeof v);                                                                   \
        c = winent_code_int(r, (int64_t)v);                                                        \
        break;                                                                                     \
    }
            INT_CASE(WINENT_U8, uint8_t)
            INT_CASE(WINENT_I8, int8_t)
            INT_CASE(WINENT_U16, uint16_t)
            INT_CASE(WINENT_I16, int16_t)
            INT_CASE(WINENT_U32, uint32_t)
            INT_CASE(WINENT_I32, int32_t)
#undef INT_CASE
        case WINENT_F32: {
            float v;
            memcpy(&v, q, sizeof v);
            c = winent_code_f32(r, v);
            break;
        }
        default: {
            double v;
            memcpy(&v, q, sizeof v);
            c = winent_code_f64(r, v);
            break;
        }
        }
        dst[i] = c == WINENT_NODATA_CODE ? (uint16_t)SENT : (uint16_t)c;
    }
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
        s->hist = calloc(L * L, sizeof *s->hist);
        s->marg = calloc(2 * L, sizeof *s->marg);
        s->sum = malloc((size_t)p->opts.nmeasures * W * sizeof *s->sum);
        s->cnt = malloc(W * sizeof *s->cnt);
        if (s->hist == NULL || s->marg == NULL || s->sum == NULL || s->cnt == NULL)
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
    }
    free(e->scratch);
    free(e);
}

/* One output row from the band's levels (image rows from y0). */
static void compute_row(const winent_glcm_plan *p, glcm_scratch *s, const winent_chunk *c, int y,
                        int y0, float *const *out, size_t row_off)
{
    const int W = c->width, H = c->height, nm = p->opts.nmeasures;
    memset(s->sum, 0, (size_t)nm * W * sizeof *s->sum);
    memset(s->cnt, 0, (size_t)W * sizeof *s->cnt);
    for (int a = 0; a < p->nangles; a++) {
        slide sl = {p, s->codes, y0, W, p->dx[a], p->dy[a], 0, 0, s->hist, s->marg,
                    s->marg + p->levels, {0}};
        sl.rlo = imax(0, y - p->ry) + imax(0, -sl.dy);
        sl.rhi = imin(H - 1, y + p->ry) - imax(0, sl.dy);
        if (sl.rlo > sl.rhi)
            continue;
        slide_row(&sl, H, s->sum, s->cnt);
    }
    const uint16_t *centre = s->codes + (size_t)(y - y0) * W;
    for (int k = 0; k < nm; k++) {
        float *o = out[k] + row_off;
        const double *sum = s->sum + (size_t)k * W;
        for (int x = 0; x < W; x++)
            o[x] = centre[x] == SENT ? NAN : winent_glcm_average(sum[x], s->cnt[x]);
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
        levels_of(p, (const unsigned char *)c->rows + (size_t)(in0 - c->in_y0 + r) * c->row_bytes,
                  c->width, s->codes + (size_t)r * c->width);
    for (int y = ya; y < yb; y++)
        compute_row(p, s, c, y, in0, out, (size_t)(y - c->y0) * out_stride);
    return WINENT_OK;
}

winent_status winent_glcm_cpu_compute(winent_glcm_cpu *e, const winent_chunk *c,
                                      float *const *out, size_t out_stride, winent_err *err)
{
    return winent_glcm_cpu_compute_rows(e, 0, c, c->y0, c->y1, out, out_stride, err);
}
