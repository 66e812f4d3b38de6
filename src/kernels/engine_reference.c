/* SPDX-License-Identifier: BSD-3-Clause */
#include "engine_reference.h"
#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorts win[0 .. n) ascending, through tmp[0 .. n). The result is the one
 * sorted array whatever the method, and that array is all the values below
 * read. Not qsort: its call per comparison made this oracle most of the
 * time of the tests that use it. Insertion for a few codes; else a radix
 * sort by bytes, skipping a byte every code shares (codes under 256 take
 * one pass). */
static void sort_codes(uint32_t *win, uint32_t *tmp, int n)
{
    if (n <= 32) {
        for (int i = 1; i < n; i++) {
            const uint32_t v = win[i];
            int j = i;
            for (; j > 0 && win[j - 1] > v; j--)
                win[j] = win[j - 1];
            win[j] = v;
        }
        return;
    }
    uint32_t *a = win, *b = tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        int start[257] = {0};
        for (int i = 0; i < n; i++)
            start[((a[i] >> shift) & 255u) + 1]++;
        if (start[((a[0] >> shift) & 255u) + 1] == n)
            continue;
        for (int d = 0; d < 256; d++)
            start[d + 1] += start[d];
        for (int i = 0; i < n; i++)
            b[start[(a[i] >> shift) & 255u]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    if (a != win)
        memcpy(win, a, sizeof *win * (size_t)n);
}

/* Sorted valid codes of the window at (x, y) (tmp: scratch of as many);
 * returns their number, or -1 when the centre is not counted. */
static int window_codes(const winent_plan *p, const winent_chunk *c, const uint32_t *codes, int x,
                        int y, uint32_t *win, uint32_t *tmp)
{
    if (p->can_skip &&
        codes[(size_t)(y - c->in_y0) * (size_t)c->width + (size_t)x] == WINENT_NODATA_CODE)
        return -1;
    int n = 0;
    /* Rows y - ry .. y + ky - 1 - ry: an even side has one more pixel
     * before the centre than after it, as scikit-image's footprints. */
    for (int yy = y - p->ry; yy < y - p->ry + p->ky; yy++) {
        if (yy < 0 || yy >= c->height)
            continue;
        for (int xx = x - p->rx; xx < x - p->rx + p->kx; xx++) {
            if (xx < 0 || xx >= c->width)
                continue;
            /* A disk keeps the pixels within Euclidean distance R; a
             * footprint those its mask holds. */
            if (p->disk && (xx - x) * (xx - x) + (yy - y) * (yy - y) > p->rx * p->rx)
                continue;
            if (p->opts.footprint != NULL &&
                !p->opts.footprint[(size_t)(yy - y + p->ry) * (size_t)p->kx + (size_t)(xx - x + p->rx)])
                continue;
            uint32_t v = codes[(size_t)(yy - c->in_y0) * (size_t)c->width + (size_t)xx];
            if (!p->can_skip || v != WINENT_NODATA_CODE)
                win[n++] = v;
        }
    }
    sort_codes(win, tmp, n);
    return n;
}

static uint32_t *chunk_codes(const winent_plan *p, const winent_chunk *c)
{
    size_t count = (size_t)c->width * (size_t)c->in_h;
    uint32_t *codes = malloc((count ? count : 1) * sizeof *codes);
    if (codes == NULL)
        return NULL;
    for (int r = 0; r < c->in_h; r++)
        winent_plan_codes(p, (const char *)c->rows + (size_t)r * c->row_bytes, (size_t)c->width,
                          codes + (size_t)r * (size_t)c->width);
    return codes;
}

/* The window's distinct codes and counts from its sorted codes; returns
 * how many distinct. */
static int group_counts(const uint32_t *win, int n, uint32_t *code, int *cnt)
{
    int g = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && win[j] == win[i])
            j++;
        code[g] = win[i];
        cnt[g++] = j - i;
        i = j;
    }
    return g;
}

/* The exact value every engine gives: S = sum T[count] from the plan's
 * table, then the measure's last step; the majority by a scan. */
static float exact_value(const winent_plan *p, const uint32_t *code, const int *cnt, int g, int n)
{
    if (p->opts.measure == WINENT_MEASURE_MAJORITY) {
        int best = 0; /* the largest count, ties to the smallest value */
        for (int i = 1; i < g; i++)
            if (cnt[i] > cnt[best] ||
                (cnt[i] == cnt[best] && winent_code_order(&p->rule, code[i]) <
                                            winent_code_order(&p->rule, code[best])))
                best = i;
        return winent_code_value(&p->rule, code[best]);
    }
    int64_t sum = 0;
    for (int i = 0; i < g; i++)
        sum += p->t[cnt[i]];
    return winent_measure_finish(&p->measure, sum, n, p->t);
}

/* The plain float64 formulas of SPEC section 1, from the counts. */
static double plain_value(const winent_plan *p, const uint32_t *code, const int *cnt, int g, int n)
{
    const winent_compute_opts *o = &p->opts;
    double h = 0.0, sq = 0.0, pq = 0.0;
    int best = 0;
    for (int i = 0; i < g; i++) {
        const double pr = (double)cnt[i] / n;
        h -= pr * log(pr);
        sq += pr * pr;
        if (o->measure == WINENT_MEASURE_RENYI)
            pq += pow(pr, o->renyi_q);
        if (cnt[i] > cnt[best] ||
            (cnt[i] == cnt[best] &&
             winent_code_order(&p->rule, code[i]) < winent_code_order(&p->rule, code[best])))
            best = i;
    }
    const double lnb = o->base == WINENT_BASE_2 ? log(2.0) : o->base == WINENT_BASE_10 ? log(10.0) : 1.0;
    switch (o->measure) {
    case WINENT_MEASURE_RENYI:
        if (o->renyi_q == 1.0)
            return h / lnb;
        return log(pq) / (1.0 - o->renyi_q) / lnb;
    case WINENT_MEASURE_SIMPSON: return 1.0 - sq;
    case WINENT_MEASURE_RICHNESS: return g;
    case WINENT_MEASURE_EVENNESS: return g <= 1 ? 0.0 : h / log(g);
    case WINENT_MEASURE_MAJORITY: return winent_code_value(&p->rule, code[best]);
    default: return h / lnb;
    }
}

/* Both formulas share the window walk; `out_f` or `out_d` picks which one
 * is stored. */
static winent_status compute(const winent_plan *p, const winent_chunk *c, float *out_f,
                             double *out_d, size_t out_stride, winent_err *err)
{
    /* The co-occurrence measures' oracle is their own (tests/engine/glcm_oracle.h). */
    if (winent_measure_is_glcm(p->opts.measure))
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "the reference engine computes the histogram measures only, not %s",
                          winent_measure_name(p->opts.measure));
    uint32_t *codes = chunk_codes(p, c);
    uint32_t *win = malloc(sizeof *win * (size_t)p->nmax * 2);
    uint32_t *code = malloc(sizeof *code * (size_t)p->nmax);
    int *cnt = malloc(sizeof *cnt * (size_t)p->nmax);
    if (codes == NULL || win == NULL || code == NULL || cnt == NULL) {
        free(codes);
        free(win);
        free(code);
        free(cnt);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory in the reference engine");
    }
    for (int y = c->y0; y < c->y1; y++) {
        for (int x = 0; x < c->width; x++) {
            int n = window_codes(p, c, codes, x, y, win, win + p->nmax);
            size_t o = (size_t)(y - c->y0) * out_stride + (size_t)x;
            if (n < 0) {
                if (out_f)
                    out_f[o] = NAN;
                else
                    out_d[o] = NAN;
                continue;
            }
            const int g = group_counts(win, n, code, cnt);
            if (n == 0) { /* a footprint without its centre, none of it counted */
                const float v = p->opts.measure == WINENT_MEASURE_MAJORITY ? NAN : 0.0f;
                if (out_f)
                    out_f[o] = v;
                else
                    out_d[o] = v;
                continue;
            }
            if (out_f)
                out_f[o] = exact_value(p, code, cnt, g, n);
            else
                out_d[o] = plain_value(p, code, cnt, g, n);
        }
    }
    free(cnt);
    free(code);
    free(win);
    free(codes);
    return WINENT_OK;
}

winent_status winent_reference_compute(const winent_plan *p, const winent_chunk *c, float *out,
                                       size_t out_stride, winent_err *err)
{
    return compute(p, c, out, NULL, out_stride, err);
}

winent_status winent_reference_compute_f64(const winent_plan *p, const winent_chunk *c, double *out,
                                           size_t out_stride, winent_err *err)
{
    return compute(p, c, NULL, out, out_stride, err);
}
