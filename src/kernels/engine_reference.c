/* SPDX-License-Identifier: BSD-3-Clause */
#include "engine_reference.h"

#include <math.h>
#include <stdlib.h>

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sorted valid codes of the window at (x, y); returns their number, or -1
 * when the centre is not counted. */
static int window_codes(const winent_plan *p, const winent_chunk *c, const uint32_t *codes, int x,
                        int y, uint32_t *win)
{
    if (p->can_skip &&
        codes[(size_t)(y - c->in_y0) * (size_t)c->width + (size_t)x] == WINENT_NODATA_CODE)
        return -1;
    int n = 0;
    for (int yy = y - p->ry; yy <= y + p->ry; yy++) {
        if (yy < 0 || yy >= c->height)
            continue;
        for (int xx = x - p->rx; xx <= x + p->rx; xx++) {
            if (xx < 0 || xx >= c->width)
                continue;
            /* A disk keeps the pixels within Euclidean distance R. */
            if (p->disk && (xx - x) * (xx - x) + (yy - y) * (yy - y) > p->rx * p->rx)
                continue;
            uint32_t v = codes[(size_t)(yy - c->in_y0) * (size_t)c->width + (size_t)xx];
            if (!p->can_skip || v != WINENT_NODATA_CODE)
                win[n++] = v;
        }
    }
    qsort(win, (size_t)n, sizeof *win, cmp_u32);
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

static double log_base(double v, winent_base b)
{
    return b == WINENT_BASE_2 ? log2(v) : b == WINENT_BASE_10 ? log10(v) : log(v);
}

/* Both formulas share the window walk; `exact` picks which one is stored. */
static winent_status compute(const winent_plan *p, const winent_chunk *c, float *out_f,
                             double *out_d, size_t out_stride, winent_err *err)
{
    uint32_t *codes = chunk_codes(p, c);
    uint32_t *win = malloc(sizeof *win * (size_t)p->nmax);
    if (codes == NULL || win == NULL) {
        free(codes);
        free(win);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory in the reference engine");
    }
    for (int y = c->y0; y < c->y1; y++) {
        for (int x = 0; x < c->width; x++) {
            int n = window_codes(p, c, codes, x, y, win);
            size_t o = (size_t)(y - c->y0) * out_stride + (size_t)x;
            if (n < 0) {
                if (out_f)
                    out_f[o] = NAN;
                else
                    out_d[o] = NAN;
                continue;
            }
            int64_t sum = 0;
            double sum_f = 0.0;
            for (int i = 0; i < n;) {
                int j = i;
                while (j < n && win[j] == win[i])
                    j++;
                int cnt = j - i;
                sum += (int64_t)cnt * p->lq[cnt];
                sum_f += cnt * log_base(cnt, p->opts.base);
                i = j;
            }
            if (out_f)
                out_f[o] = winent_finish((int64_t)n * p->lq[n] - sum, n);
            else
                out_d[o] = log_base(n, p->opts.base) - sum_f / n;
        }
    }
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
