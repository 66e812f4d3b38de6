/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_majority.c - the majority (the most frequent code of each
 * window, ties to the smallest code) on the CPU, sliding.
 *
 * Each output row slides one histogram left to right, as the entropy's
 * does, and keeps beside it how many codes hold each count (`fc`), so the
 * largest count `maxc` is known exactly after every update. The window's
 * mode (the smallest code of count maxc) survives every update but one:
 * a code entering can only take its place (a larger count, or the same
 * count and a smaller code), a code leaving that is not the mode leaves it
 * the mode. When the mode itself leaves, the mode is found again at the
 * next pixel by one pass over the window's pixels. The answer is the
 * argmax by definition, whatever the order of the updates: the bits of
 * the reference, on any band and thread split.
 *
 * The histogram counts the codes' keys in value order (winent_code_order:
 * the codes themselves but where a nodata rotated them), so that "the
 * smallest" is the smallest value. Where they index a histogram directly
 * (at most 65536 codes) the keys are used as they are; wider ones (32-bit
 * values, many bins) are first replaced by their rank among the band's
 * distinct keys, which keeps their order.
 */
#include "engine_cpu_majority.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

typedef struct mode_state {
    uint16_t *h; /* count of each code (rank) */
    int *fc;     /* fc[k]: codes holding count k */
    int maxc;    /* the largest count */
    uint32_t mode;
    int dirty;   /* the mode left: find it again before the next answer */
    int top;     /* the largest count seen in this row (to clear fc) */
} mode_state;

static inline void mode_add(mode_state *m, uint32_t v)
{
    const int c = m->h[v]++;
    m->fc[c]--;
    m->fc[c + 1]++;
    if (c + 1 > m->maxc) {
        m->maxc = c + 1;
        m->mode = v;
        m->dirty = 0;
        m->top = imax(m->top, c + 1);
    } else if (c + 1 == m->maxc && !m->dirty && v < m->mode) {
        m->mode = v;
    }
}

static inline void mode_remove(mode_state *m, uint32_t v)
{
    const int c = m->h[v]--;
    m->fc[c]--;
    m->fc[c - 1]++;
    if (c == m->maxc && m->fc[c] == 0)
        m->maxc--;
    if (v == m->mode)
        m->dirty = 1;
}

typedef struct maj_job {
    const winent_plan *p;
    const uint32_t *codes; /* input rows [oy, ...), W apart */
    int oy, W, H;
    const uint32_t *rank_code; /* ranks: the code of each, or NULL (codes direct) */
    int skip;                  /* WINENT_NODATA_CODE is not counted */
} maj_job;

static inline int inside(int c, int W)
{
    return (unsigned)c < (unsigned)W;
}

static inline const uint32_t *row_at(const maj_job *j, int y)
{
    return j->codes + (size_t)(y - j->oy) * (size_t)j->W;
}

/* Apply BODY to each run of the window's rows around row y inside the
 * image: r_ the row, a_ .. b_ the run's columns from x (a rectangle: one
 * run a row, -rx .. kx - 1 - rx; a disk or footprint: the plan's runs). */
#define WINDOW_ROWS(j, y, BODY)                                                                    \
    for (int dy_ = -(j)->p->ry; dy_ < (j)->p->ky - (j)->p->ry; dy_++) {                            \
        const int yy_ = (y) + dy_;                                                                 \
        if (yy_ < 0 || yy_ >= (j)->H)                                                              \
            continue;                                                                              \
        const uint32_t *r_ = row_at((j), yy_);                                                     \
        const winent_plan *p_ = (j)->p;                                                            \
        const int q0_ = p_->shaped ? p_->row_first[dy_ + p_->ry] : 0;                              \
        const int q1_ = p_->shaped ? p_->row_first[dy_ + p_->ry + 1] : 1;                          \
        for (int q_ = q0_; q_ < q1_; q_++) {                                                       \
            const int a_ = p_->shaped ? p_->row_run[2 * q_] : -p_->rx;                             \
            const int b_ = p_->shaped ? p_->row_run[2 * q_ + 1] : p_->kx - 1 - p_->rx;             \
            BODY                                                                                   \
        }                                                                                          \
    }

static void find_mode(const maj_job *j, mode_state *m, int x, int y)
{
    int found = 0;
    WINDOW_ROWS(j, y, {
        for (int xx = imax(0, x + a_); xx <= imin(j->W - 1, x + b_); xx++) {
            const uint32_t v = r_[xx];
            if (j->skip && v == WINENT_NODATA_CODE)
                continue;
            if (m->h[v] == m->maxc && (!found || v < m->mode)) {
                m->mode = v;
                found = 1;
            }
        }
    });
    m->dirty = 0;
}

static void majority_row(const maj_job *j, mode_state *m, int y, float *orow)
{
    const winent_plan *p = j->p;
    const int W = j->W;
    m->maxc = 0;
    m->dirty = 1;
    m->top = 0;
    WINDOW_ROWS(j, y, {
        for (int xx = imax(0, a_); xx <= imin(W - 1, b_); xx++)
            if (!(j->skip && r_[xx] == WINENT_NODATA_CODE))
                mode_add(m, r_[xx]);
    });
    const uint32_t *crow = row_at(j, y);
    for (int x = 0; x < W; x++) {
        if ((j->skip && crow[x] == WINENT_NODATA_CODE) || m->maxc == 0) {
            orow[x] = NAN; /* nodata, or a footprint without its centre counting nothing */
        } else {
            if (m->dirty)
                find_mode(j, m, x, y);
            const uint32_t key = j->rank_code ? j->rank_code[m->mode] : m->mode;
            orow[x] = winent_code_value(&p->rule, winent_order_code(&p->rule, key));
        }
        if (x + 1 >= W)
            break;
        WINDOW_ROWS(j, y, {
            if (inside(x + a_, W) && !(j->skip && r_[x + a_] == WINENT_NODATA_CODE))
                mode_remove(m, r_[x + a_]);
            if (inside(x + 1 + b_, W) && !(j->skip && r_[x + 1 + b_] == WINENT_NODATA_CODE))
                mode_add(m, r_[x + 1 + b_]);
        });
    }
    /* Leave the histogram and the count of counts zero. */
    WINDOW_ROWS(j, y, {
        for (int xx = imax(0, W - 1 + a_); xx <= imin(W - 1, W - 1 + b_); xx++)
            if (!(j->skip && r_[xx] == WINENT_NODATA_CODE))
                m->h[r_[xx]] = 0;
    });
    memset(m->fc, 0, sizeof *m->fc * (size_t)(m->top + 2));
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Replace the codes by the rank of their value order key
 * (winent_code_order) among the distinct ones (nodata kept); the ranks'
 * keys into *rank_code (owned by the caller). Returns the number of ranks,
 * or -1 when out of memory. */
static int64_t rank_codes(const winent_code_rule *r, uint32_t *codes, size_t n, int skip,
                          uint32_t **rank_code)
{
    uint32_t *u = malloc(sizeof *u * (n ? n : 1));
    if (u == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!(skip && codes[i] == WINENT_NODATA_CODE))
            u[k++] = winent_code_order(r, codes[i]);
    qsort(u, k, sizeof *u, cmp_u32);
    size_t d = 0;
    for (size_t i = 0; i < k; i++)
        if (d == 0 || u[i] != u[d - 1])
            u[d++] = u[i];
    for (size_t i = 0; i < n; i++) {
        if (skip && codes[i] == WINENT_NODATA_CODE)
            continue;
        const uint32_t key = winent_code_order(r, codes[i]);
        size_t lo = 0, hi = d;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (u[mid] <= key)
                lo = mid;
            else
                hi = mid;
        }
        codes[i] = (uint32_t)lo;
    }
    *rank_code = u;
    return (int64_t)d;
}

winent_status winent_cpu_majority_rows(const winent_plan *p, const winent_chunk *c, int ya, int yb,
                                       float *out, size_t out_stride, winent_err *err)
{
    const int W = c->width;
    if (yb <= ya || W == 0)
        return WINENT_OK;
    const int ra = imax(0, ya - p->ry), rb = imin(c->height, yb + p->ry);
    const size_t n = (size_t)W * (size_t)(rb - ra);
    uint32_t *codes = malloc(sizeof *codes * n);
    uint32_t *rank_code = NULL;
    mode_state m = {NULL, NULL, 0, 0, 1, 0};
    winent_status st = WINENT_OK;
    if (codes == NULL)
        goto nomem;
    for (int r = ra; r < rb; r++)
        winent_plan_codes(p, (const char *)c->rows + (size_t)(r - c->in_y0) * c->row_bytes,
                          (size_t)W, codes + (size_t)(r - ra) * (size_t)W);
    maj_job j = {p, codes, ra, W, c->height, NULL, p->can_skip};
    /* Rotated codes' keys span the dtype's 2^bits patterns. */
    size_t bins = p->rule.rotate ? (size_t)p->rule.rotate_mask + 1 : (size_t)p->ncodes;
    if (!p->direct) {
        int64_t d = rank_codes(&p->rule, codes, n, j.skip, &rank_code);
        if (d < 0)
            goto nomem;
        bins = (size_t)d;
        j.rank_code = rank_code;
    } else {
        /* Keys in value order, below ncodes as the codes are. */
        for (size_t i = 0; i < n; i++)
            if (!(j.skip && codes[i] == WINENT_NODATA_CODE))
                codes[i] = winent_code_order(&p->rule, codes[i]);
    }
    m.h = calloc(bins ? bins : 1, sizeof *m.h);
    m.fc = calloc((size_t)p->nmax + 2, sizeof *m.fc);
    if (m.h == NULL || m.fc == NULL)
        goto nomem;
    for (int y = ya; y < yb; y++)
        majority_row(&j, &m, y, out + (size_t)(y - c->y0) * out_stride);
    goto done;
nomem:
    st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the CPU engine's majority");
done:
    free(codes);
    free(rank_code);
    free(m.h);
    free(m.fc);
    return st;
}
