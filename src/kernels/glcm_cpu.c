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
 * float is their mean, rounded once. The slide itself is glcm_slide.h,
 * shared with the CUDA engine.
 */
#include "glcm.h"
#include "glcm_slide.h"

#include <stdlib.h>
#include <string.h>

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
static void compute_row(const winent_glcm_geom *g, glcm_scratch *s, int y, int y0,
                        float *const *out, size_t row_off)
{
    const int W = g->W;
    memset(s->sum, 0, (size_t)g->nm * W * sizeof *s->sum);
    memset(s->cnt, 0, (size_t)W * sizeof *s->cnt);
    winent_glcm_state st = {s->hist, s->marg, s->marg + g->L, {0}};
    for (int a = 0; a < g->nangles; a++)
        winent_glcm_slide(g, &st, s->codes, y0, a, y, 0, W, s->sum, (size_t)W, s->cnt);
    const uint16_t *centre = s->codes + (size_t)(y - y0) * W;
    for (int k = 0; k < g->nm; k++) {
        float *o = out[k] + row_off;
        const double *sum = s->sum + (size_t)k * W;
        for (int x = 0; x < W; x++)
            o[x] = winent_glcm_out(centre[x], sum[x], s->cnt[x]);
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
    for (int y = ya; y < yb; y++)
        compute_row(&g, s, y, in0, out, (size_t)(y - c->y0) * out_stride);
    return WINENT_OK;
}

winent_status winent_glcm_cpu_compute(winent_glcm_cpu *e, const winent_chunk *c,
                                      float *const *out, size_t out_stride, winent_err *err)
{
    return winent_glcm_cpu_compute_rows(e, 0, c, c->y0, c->y1, out, out_stride, err);
}
