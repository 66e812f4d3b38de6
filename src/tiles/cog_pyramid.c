/* Overview levels built from the full-resolution tiles (cog_pyramid.h). */
#include "cog_pyramid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ceil_half(int n)
{
    return n / 2 + (n & 1);
}

void winent_cog_geometry(int width, int height, int side, winent_cog_geom *g)
{
    memset(g, 0, sizeof *g);
    g->side = side;
    g->w[0] = width;
    g->h[0] = height;
    int k = 0;
    /* As GDAL's COG driver: another level while the last is larger than
     * one tile either way. */
    while ((g->w[k] > side || g->h[k] > side) && k < WINENT_COG_MAX_LEVELS) {
        g->w[k + 1] = ceil_half(g->w[k]);
        g->h[k + 1] = ceil_half(g->h[k]);
        k++;
    }
    g->levels = k;
    for (int i = 0; i <= k; i++) {
        g->across[i] = (uint32_t)((g->w[i] + side - 1) / side);
        g->down[i] = (uint32_t)((g->h[i] + side - 1) / side);
    }
}

size_t winent_cog_partial_bytes(int side)
{
    size_t half = (size_t)side / 2;
    return half * half * (sizeof(float) + 1);
}

/* One row of 2x2 blocks whose four pixels are all inside the image:
 * branch-free, so that it vectorises. */
static void blocks_whole(const float *r0, const float *r1, int half, float *mean, uint8_t *count)
{
    for (int bx = 0; bx < half; bx++) {
        float v0 = r0[2 * bx], v1 = r0[2 * bx + 1], v2 = r1[2 * bx], v3 = r1[2 * bx + 1];
        int n = (v0 == v0) + (v1 == v1) + (v2 == v2) + (v3 == v3);
        double sum = (double)(v0 == v0 ? v0 : 0.0f) + (double)(v1 == v1 ? v1 : 0.0f) +
                     (double)(v2 == v2 ? v2 : 0.0f) + (double)(v3 == v3 ? v3 : 0.0f);
        mean[bx] = n ? (float)(sum / n) : NAN;
        count[bx] = (uint8_t)n;
    }
}

/* One row of 2x2 blocks of which only `nr` rows and `nc` columns of
 * pixels are inside the image (the tile's right or bottom edge). */
static void blocks_edge(const float *r0, const float *r1, int nr, int ncols, int half, float *mean,
                        uint8_t *count)
{
    for (int bx = 0; bx < half; bx++) {
        int c0 = 2 * bx;
        int nc = c0 + 1 < ncols ? 2 : c0 < ncols ? 1 : 0;
        double sum = 0.0;
        int n = 0;
        for (int r = 0; r < nr; r++) {
            const float *row = (r ? r1 : r0) + c0;
            for (int k = 0; k < nc; k++)
                if (!isnan(row[k])) {
                    sum += row[k];
                    n++;
                }
        }
        mean[bx] = n ? (float)(sum / n) : NAN;
        count[bx] = (uint8_t)n;
    }
}

void winent_cog_partial(const float *px, size_t stride, int nrows, int ncols, int side,
                        float *scratch, uint8_t *dst)
{
    const int half = side / 2;
    /* `dst` follows a compressed tile in a unit buffer: any alignment, so
     * each row of means is made aside and copied in. */
    float *mean = scratch;
    uint8_t *count = dst + (size_t)half * (size_t)half * sizeof(float);
    for (int by = 0; by < half; by++) {
        uint8_t *c = count + (size_t)by * (size_t)half;
        int r0 = 2 * by;
        int nr = r0 + 1 < nrows ? 2 : r0 < nrows ? 1 : 0;
        const float *row0 = nr ? px + (size_t)r0 * stride : px;
        if (nr == 2 && ncols == side)
            blocks_whole(row0, row0 + stride, half, mean, c);
        else
            blocks_edge(row0, nr == 2 ? row0 + stride : row0, nr, ncols, half, mean, c);
        memcpy(dst + (size_t)by * (size_t)half * sizeof(float), mean, (size_t)half * sizeof(float));
    }
}

/* One level's state (level 0 is unused). */
typedef struct level {
    float *rows;     /* owned: side rows of w floats, the tile row being built */
    double *sum;     /* owned: w sums of the level's row being added up (level >= 2) */
    uint32_t *count; /* owned: w counts, likewise */
} level;

struct winent_cog_pyramid {
    winent_cog_geom g;
    winent_cog_emit_fn emit;
    void *user;
    level lv[WINENT_COG_MAX_LEVELS + 1];
    uint8_t *count1; /* owned: the level-1 counts of the current tile row, side/2 rows of w[1] */
    double *sum1;    /* owned: one level-1 row of sums (mean x count), w[1] */
    uint32_t *cnt1;  /* owned: one level-1 row of counts, w[1] */
};

size_t winent_cog_pyramid_bytes(const winent_cog_geom *g)
{
    size_t b = sizeof(winent_cog_pyramid);
    if (g->levels == 0)
        return b;
    for (int k = 1; k <= g->levels; k++)
        b += (size_t)g->side * (size_t)g->w[k] * sizeof(float) +
             (size_t)g->w[k] * (sizeof(double) + sizeof(uint32_t));
    b += (size_t)(g->side / 2) * (size_t)g->w[1] + (size_t)g->w[1] * 12;
    return b;
}

void winent_cog_pyramid_free(winent_cog_pyramid *p)
{
    if (p == NULL)
        return;
    for (int k = 0; k <= WINENT_COG_MAX_LEVELS; k++) {
        free(p->lv[k].rows);
        free(p->lv[k].sum);
        free(p->lv[k].count);
    }
    free(p->count1);
    free(p->sum1);
    free(p->cnt1);
    free(p);
}

winent_status winent_cog_pyramid_create(const winent_cog_geom *g, winent_cog_emit_fn emit,
                                        void *user, winent_cog_pyramid **out, winent_err *err)
{
    winent_cog_pyramid *p = calloc(1, sizeof *p);
    *out = NULL;
    if (p == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    p->g = *g;
    p->emit = emit;
    p->user = user;
    size_t side = (size_t)g->side;
    for (int k = 1; k <= g->levels; k++) {
        size_t w = (size_t)g->w[k];
        p->lv[k].rows = malloc(side * w * sizeof(float));
        p->lv[k].sum = calloc(w, sizeof(double));
        p->lv[k].count = calloc(w, sizeof(uint32_t));
        if (!p->lv[k].rows || !p->lv[k].sum || !p->lv[k].count)
            goto oom;
    }
    if (g->levels > 0) {
        size_t w1 = (size_t)g->w[1];
        p->count1 = malloc(side / 2 * w1);
        p->sum1 = malloc(w1 * sizeof(double));
        p->cnt1 = malloc(w1 * sizeof(uint32_t));
        if (!p->count1 || !p->sum1 || !p->cnt1)
            goto oom;
    }
    *out = p;
    return WINENT_OK;
oom:
    winent_cog_pyramid_free(p);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the overviews");
}

/* Row `y` of level `k` is complete: its means are in place in the level's
 * tile row, its sums and counts in `sum`/`count`. Emit the tile row when it
 * is full or the level's last, and add the row into level k+1, completing
 * that level's row every second row (and at the last). */
static winent_status row_done(winent_cog_pyramid *p, int k, int y, const double *sum,
                              const uint32_t *count, winent_err *err)
{
    const winent_cog_geom *g = &p->g;
    const int side = g->side;
    if (y % side == side - 1 || y == g->h[k] - 1)
        WINENT_TRY(p->emit(p->user, k, (uint32_t)(y / side), p->lv[k].rows, (size_t)g->w[k],
                           y % side + 1, g->w[k], err));
    if (k == g->levels)
        return WINENT_OK;
    level *up = &p->lv[k + 1];
    const int w = g->w[k];
    for (int x = 0; x < w; x++) {
        up->sum[x >> 1] += sum[x];
        up->count[x >> 1] += count[x];
    }
    if ((y & 1) == 0 && y != g->h[k] - 1)
        return WINENT_OK;
    const int Y = y >> 1, W = g->w[k + 1];
    float *row = up->rows + (size_t)(Y % side) * (size_t)W;
    for (int x = 0; x < W; x++)
        row[x] = up->count[x] ? (float)(up->sum[x] / up->count[x]) : NAN;
    winent_status st = row_done(p, k + 1, Y, up->sum, up->count, err);
    memset(up->sum, 0, (size_t)W * sizeof(double));
    memset(up->count, 0, (size_t)W * sizeof(uint32_t));
    return st;
}

winent_status winent_cog_pyramid_add(winent_cog_pyramid *p, uint32_t ty, uint32_t tx,
                                     const uint8_t *partial, winent_err *err)
{
    const winent_cog_geom *g = &p->g;
    const int half = g->side / 2, side = g->side, w1 = g->w[1];
    /* This tile's level-1 block: rows from y0, columns from x0. */
    const int y0 = (int)ty * half, x0 = (int)tx * half;
    const int nr = g->h[1] - y0 < half ? g->h[1] - y0 : half;
    const int nc = w1 - x0 < half ? w1 - x0 : half;
    const uint8_t *counts = partial + (size_t)half * (size_t)half * sizeof(float);
    for (int r = 0; r < nr; r++) {
        float *dst = p->lv[1].rows + (size_t)((y0 + r) % side) * (size_t)w1 + x0;
        memcpy(dst, partial + (size_t)r * (size_t)half * sizeof(float), (size_t)nc * sizeof(float));
        memcpy(p->count1 + (size_t)r * (size_t)w1 + x0, counts + (size_t)r * (size_t)half,
               (size_t)nc);
    }
    if (tx + 1 < g->across[0])
        return WINENT_OK;
    /* The tile row is whole: its level-1 rows go up. */
    for (int r = 0; r < nr; r++) {
        const float *mean = p->lv[1].rows + (size_t)((y0 + r) % side) * (size_t)w1;
        const uint8_t *c = p->count1 + (size_t)r * (size_t)w1;
        for (int x = 0; x < w1; x++) {
            p->cnt1[x] = c[x];
            p->sum1[x] = c[x] ? (double)mean[x] * c[x] : 0.0;
        }
        WINENT_TRY(row_done(p, 1, y0 + r, p->sum1, p->cnt1, err));
    }
    return WINENT_OK;
}
