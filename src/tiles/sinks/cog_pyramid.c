/* SPDX-License-Identifier: BSD-3-Clause */
/* Overview levels built from the full-resolution tiles (cog_pyramid.h). */
#include "cog_pyramid.h"
#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Means computed at a time before they are copied out (put_means). */
#define WINENT_COG_MEANS_ROW 256

static int ceil_half(int n)
{
    return n / 2 + (n & 1);
}

/* Trailing zero bits of n > 0: how many times 2 divides it. */
static int twos(int n)
{
    int k = 0;
    while ((n & 1) == 0) {
        n >>= 1;
        k++;
    }
    return k;
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
    g->inner = k < twos(side) ? k : twos(side);
    for (int i = 0; i <= k; i++) {
        g->across[i] = (uint32_t)((g->w[i] + side - 1) / side);
        g->down[i] = (uint32_t)((g->h[i] + side - 1) / side);
    }
}

/* Side of a tile's block of level k, in level-k pixels. */
static size_t block_side(const winent_cog_geom *g, int k)
{
    return (size_t)g->side >> k;
}

/* Offset of level k's means in a partial; k = inner + 1: of the sums. */
static size_t means_at(const winent_cog_geom *g, int k)
{
    size_t at = 0;
    for (int j = 1; j < k; j++)
        at += block_side(g, j) * block_side(g, j) * sizeof(float);
    return at;
}

size_t winent_cog_sums_bytes(const winent_cog_geom *g)
{
    if (g->levels == 0 || g->inner == g->levels)
        return 0;
    size_t b = block_side(g, g->inner);
    return b * b * (sizeof(double) + sizeof(uint32_t));
}

size_t winent_cog_partial_bytes(const winent_cog_geom *g)
{
    if (g->levels == 0)
        return 0;
    return means_at(g, g->inner + 1) + winent_cog_sums_bytes(g);
}

/* Full-resolution rows a tile is reduced by at a time: one row of blocks
 * of the deepest inner level, so that the sums stay in cache. */
static size_t strip_rows(const winent_cog_geom *g)
{
    return (size_t)1 << g->inner;
}

size_t winent_cog_partial_scratch_bytes(const winent_cog_geom *g)
{
    size_t half = (size_t)g->side / 2;
    return strip_rows(g) / 2 * half * (sizeof(double) + sizeof(uint32_t));
}

/* `v`, or +0 when it is NaN, and 1 in `*valid` when it is not: integer
 * operations, so that the loops around it vectorise (a floating-point
 * comparison keeps GCC from it). */
static inline float valid_or_zero(float v, uint32_t *valid)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    uint32_t ok = (b & 0x7fffffffu) <= 0x7f800000u;
    b &= 0u - ok;
    *valid = ok;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* Level 1 of one row of 2x2 blocks whose four pixels are all inside the
 * image: branch-free, so that it vectorises. The sum is ((v0 + v1) + v2)
 * + v3 in double, NaN counted as nothing. */
static void blocks_whole(const float *r0, const float *r1, size_t half, double *sum,
                         uint32_t *count)
{
    for (size_t bx = 0; bx < half; bx++) {
        uint32_t n0, n1, n2, n3;
        float v0 = valid_or_zero(r0[2 * bx], &n0), v1 = valid_or_zero(r0[2 * bx + 1], &n1);
        float v2 = valid_or_zero(r1[2 * bx], &n2), v3 = valid_or_zero(r1[2 * bx + 1], &n3);
        count[bx] = n0 + n1 + n2 + n3;
        sum[bx] = (double)v0 + (double)v1 + (double)v2 + (double)v3;
    }
}

/* Level 1 of one row of 2x2 blocks of which only `nr` rows and `ncols`
 * columns of pixels are inside the image (the tile's right or bottom edge). */
static void blocks_edge(const float *r0, const float *r1, int nr, int ncols, size_t half,
                        double *sum, uint32_t *count)
{
    for (size_t bx = 0; bx < half; bx++) {
        int c0 = 2 * (int)bx;
        int nc = c0 + 1 < ncols ? 2 : c0 < ncols ? 1 : 0;
        double s = 0.0;
        uint32_t n = 0;
        for (int r = 0; r < nr; r++) {
            const float *row = (r ? r1 : r0) + c0;
            for (int k = 0; k < nc; k++)
                if (!isnan(row[k])) {
                    s += row[k];
                    n++;
                }
        }
        sum[bx] = s;
        count[bx] = n;
    }
}

/* Where one level's means of a tile go: `nr` x `nc` of its w x w blocks,
 * rows `stride` bytes apart from `at` (any alignment). */
typedef struct means_dst {
    uint8_t *at;
    size_t stride;
    int nr, nc;
} means_dst;

/* The means of `rows` rows of w sums and counts, rows [r0, r0 + rows) of
 * the level's block, into `d` (those of them it takes). Computed into a
 * float row first: the division vectorises, the copy takes any alignment. */
static void put_means(const double *sum, const uint32_t *count, size_t w, int r0, int rows,
                      const means_dst *d)
{
    float m[WINENT_COG_MEANS_ROW];
    int nc = d->nc;
    for (int r = 0; r < rows && r0 + r < d->nr; r++) {
        const double *s = sum + (size_t)r * w;
        const uint32_t *n = count + (size_t)r * w;
        for (int c = 0; c < nc; c += WINENT_COG_MEANS_ROW) {
            int e = nc - c < WINENT_COG_MEANS_ROW ? nc - c : WINENT_COG_MEANS_ROW;
            /* NaN where the count is 0, selected with integer masks (as
             * valid_or_zero) so that the loop vectorises. */
            const float nan = NAN;
            uint32_t nan_bits;
            memcpy(&nan_bits, &nan, sizeof nan_bits);
            for (int i = 0; i < e; i++) {
                uint32_t k = n[c + i], none = 0u - (uint32_t)(k == 0), bits;
                float q = (float)(s[c + i] / (double)(k | (none & 1u)));
                memcpy(&bits, &q, sizeof bits);
                bits = (bits & ~none) | (nan_bits & none);
                memcpy(&m[i], &bits, sizeof bits);
            }
            memcpy(d->at + (size_t)(r0 + r) * d->stride + (size_t)c * sizeof(float), m,
                   (size_t)e * sizeof(float));
        }
    }
}

/* The tile's means at every inner level k into dst[k], and the deepest
 * inner level's sums and counts into `sums` (winent_cog_sums_bytes), a
 * strip of rows at a time (strip_rows). */
static void reduce(const winent_cog_geom *g, const float *px, size_t stride, int nrows, int ncols,
                   void *scratch, const means_dst *dst, uint8_t *sums)
{
    const int side = g->side, K = g->inner;
    const size_t half = (size_t)side / 2, strip = strip_rows(g), b = block_side(g, K);
    const int with_sums = winent_cog_sums_bytes(g) != 0;
    double *sum = scratch;
    uint32_t *count = (uint32_t *)(sum + strip / 2 * half);
    for (size_t st = 0; st < (size_t)side / strip; st++) {
        /* Level 1 from the pixels. */
        for (size_t j = 0; j < strip / 2; j++) {
            int r0 = (int)(st * strip + 2 * j);
            int nr = r0 + 1 < nrows ? 2 : r0 < nrows ? 1 : 0;
            const float *row0 = nr ? px + (size_t)r0 * stride : px;
            if (nr == 2 && ncols == side)
                blocks_whole(row0, row0 + stride, half, sum + j * half, count + j * half);
            else
                blocks_edge(row0, nr == 2 ? row0 + stride : row0, nr, ncols, half, sum + j * half,
                            count + j * half);
        }
        put_means(sum, count, half, (int)(st * strip / 2), (int)(strip / 2), &dst[1]);
        /* Each inner level from the one below, in place: block (bx, by) is
         * written at or before the first of the four it reads, and every
         * later block reads further on. */
        for (int k = 2; k <= K; k++) {
            size_t w = block_side(g, k), wp = 2 * w, rows = strip >> k;
            for (size_t by = 0; by < rows; by++)
                for (size_t bx = 0; bx < w; bx++) {
                    size_t i = 2 * by * wp + 2 * bx;
                    double s = (sum[i] + sum[i + 1]) + (sum[i + wp] + sum[i + wp + 1]);
                    uint32_t n = count[i] + count[i + 1] + count[i + wp] + count[i + wp + 1];
                    sum[by * w + bx] = s;
                    count[by * w + bx] = n;
                }
            put_means(sum, count, w, (int)(st * rows), (int)rows, &dst[k]);
        }
        /* The deepest inner level's row of sums and counts, for the levels
         * above. */
        if (with_sums) {
            memcpy(sums + st * b * sizeof(double), sum, b * sizeof(double));
            memcpy(sums + b * b * sizeof(double) + st * b * sizeof(uint32_t), count,
                   b * sizeof(uint32_t));
        }
    }
}

/* `v` as the output stores it, back in float: the value a reader of the
 * file sees (an integer code's value, a float16's), so that values the
 * output cannot tell apart are one class. */
static float as_stored(const winent_out_sample *q, float v)
{
    if (q == NULL || q->type == WINENT_OT_FLOAT32 || isnan(v))
        return v;
    uint8_t b[4];
    float r;
    winent_out_encode(q, &v, 1, b);
    winent_out_decode(q, b, 1, &r);
    return r;
}

/* The mode of the valid (non-NaN) values among v[0..3]: the most
 * frequent, ties to the smallest; NaN when none is valid. */
static float mode4(const float *v)
{
    float best = NAN;
    int most = 0;
    for (int i = 0; i < 4; i++) {
        if (isnan(v[i]))
            continue;
        int n = 0;
        for (int j = 0; j < 4; j++)
            n += v[j] == v[i];
        if (n > most || (n == most && v[i] < best)) {
            best = v[i];
            most = n;
        }
    }
    return best;
}

/* Rows [r0, r0 + rows) of a level's block, `rows` rows of w values, into
 * `d` (those of them it takes). */
static void put_values(const float *val, size_t w, int r0, int rows, const means_dst *d)
{
    for (int r = 0; r < rows && r0 + r < d->nr; r++)
        memcpy(d->at + (size_t)(r0 + r) * d->stride, val + (size_t)r * w,
               (size_t)d->nc * sizeof(float));
}

/* Level 1 of one row of 2x2 blocks by the mode: `nr` rows (0 to 2) and
 * `ncols` columns of pixels inside the image, the rest no pixel. */
static void blocks_mode(const float *r0, const float *r1, int nr, int ncols, size_t half,
                        const winent_out_sample *q, float *val)
{
    for (size_t bx = 0; bx < half; bx++) {
        const int c0 = 2 * (int)bx;
        float v[4] = {NAN, NAN, NAN, NAN};
        for (int r = 0; r < nr; r++)
            for (int c = 0; c < 2 && c0 + c < ncols; c++)
                v[2 * r + c] = as_stored(q, (r ? r1 : r0)[c0 + c]);
        val[bx] = mode4(v);
    }
}

/* reduce() by the mode: every inner level from the one below, each 2x2
 * block's mode; `sums` (when there are any) zero. */
static void reduce_mode(const winent_cog_geom *g, const winent_out_sample *q, const float *px,
                        size_t stride, int nrows, int ncols, void *scratch, const means_dst *dst,
                        uint8_t *sums)
{
    const int side = g->side, K = g->inner;
    const size_t half = (size_t)side / 2, strip = strip_rows(g);
    float *val = scratch;
    for (size_t st = 0; st < (size_t)side / strip; st++) {
        for (size_t j = 0; j < strip / 2; j++) {
            int r0 = (int)(st * strip + 2 * j);
            int nr = r0 + 1 < nrows ? 2 : r0 < nrows ? 1 : 0;
            const float *row0 = nr ? px + (size_t)r0 * stride : px;
            blocks_mode(row0, nr == 2 ? row0 + stride : row0, nr, ncols, half, q, val + j * half);
        }
        put_values(val, half, (int)(st * strip / 2), (int)(strip / 2), &dst[1]);
        /* In place, as reduce(): block (bx, by) is written at or before
         * the first of the four it reads. */
        for (int k = 2; k <= K; k++) {
            size_t w = block_side(g, k), wp = 2 * w, rows = strip >> k;
            for (size_t by = 0; by < rows; by++)
                for (size_t bx = 0; bx < w; bx++) {
                    size_t i = 2 * by * wp + 2 * bx;
                    const float v[4] = {val[i], val[i + 1], val[i + wp], val[i + wp + 1]};
                    val[by * w + bx] = mode4(v);
                }
            put_values(val, w, (int)(st * rows), (int)rows, &dst[k]);
        }
    }
    if (sums)
        memset(sums, 0, winent_cog_sums_bytes(g));
}

static int is_mode(const winent_cog_rule *rule)
{
    return rule != NULL && rule->kind == WINENT_OVERVIEW_MODE;
}

void winent_cog_partial(const winent_cog_geom *g, const winent_cog_rule *rule, const float *px,
                        size_t stride, int nrows, int ncols, void *scratch, uint8_t *dst)
{
    means_dst d[WINENT_COG_MAX_LEVELS + 1];
    for (int k = 1; k <= g->inner; k++) {
        size_t b = block_side(g, k);
        d[k] = (means_dst){dst + means_at(g, k), b * sizeof(float), (int)b, (int)b};
    }
    uint8_t *sums = winent_cog_sums_bytes(g) ? dst + means_at(g, g->inner + 1) : NULL;
    if (is_mode(rule))
        reduce_mode(g, rule->q, px, stride, nrows, ncols, scratch, d, sums);
    else
        reduce(g, px, stride, nrows, ncols, scratch, d, dst + means_at(g, g->inner + 1));
}

/* One level's state (level 0 is unused). */
typedef struct level {
    float *rows[2];  /* owned: side rows of w floats each; tile row r is built in
                        rows[r & 1], so that the one before stays readable */
    long building;   /* the tile row being built (-1: none yet) */
    double *sum;     /* owned above the inner levels: w sums of the row being added up */
    uint32_t *count; /* owned above the inner levels: w counts, likewise */
    float *quad;     /* owned above the inner levels by the mode: each pixel's 2x2
                        block of the level below, 4 w values (NaN: none yet) */
} level;

struct winent_cog_pyramid {
    winent_cog_geom g;
    winent_cog_rule rule;
    winent_cog_emit_fn emit;
    winent_cog_reuse_fn reuse;
    void *user;
    level lv[WINENT_COG_MAX_LEVELS + 1];
    double *sum_in;     /* owned: the deepest inner level's sums of the current row of
                           tiles: side / 2^inner rows of w[inner] */
    uint32_t *count_in; /* owned: its counts, likewise */
};

size_t winent_cog_pyramid_bytes(const winent_cog_geom *g)
{
    size_t b = sizeof(winent_cog_pyramid);
    if (g->levels == 0)
        return b;
    for (int k = 1; k <= g->levels; k++) {
        b += 2 * (size_t)g->side * (size_t)g->w[k] * sizeof(float);
        if (k > g->inner) /* the mean's sums and counts, or the mode's blocks */
            b += (size_t)g->w[k] * 4 * sizeof(float);
    }
    if (winent_cog_sums_bytes(g))
        b += block_side(g, g->inner) * (size_t)g->w[g->inner] * (sizeof(double) + sizeof(uint32_t));
    return b;
}

void winent_cog_pyramid_free(winent_cog_pyramid *p)
{
    if (p == NULL)
        return;
    for (int k = 0; k <= WINENT_COG_MAX_LEVELS; k++) {
        free(p->lv[k].rows[0]);
        free(p->lv[k].rows[1]);
        free(p->lv[k].sum);
        free(p->lv[k].count);
        free(p->lv[k].quad);
    }
    free(p->sum_in);
    free(p->count_in);
    free(p);
}

/* Level k's state above the inner levels: the mean's sums and counts,
 * or the mode's blocks (all NaN). Returns -1 when out of memory. */
static int level_above(level *l, int mode, size_t w)
{
    if (!mode)
        return (l->sum = calloc(w, sizeof(double))) == NULL ||
                       (l->count = calloc(w, sizeof(uint32_t))) == NULL
                   ? -1
                   : 0;
    if ((l->quad = malloc(4 * w * sizeof(float))) == NULL)
        return -1;
    for (size_t i = 0; i < 4 * w; i++)
        l->quad[i] = NAN;
    return 0;
}

winent_status winent_cog_pyramid_create(const winent_cog_geom *g, const winent_cog_rule *rule,
                                        winent_cog_emit_fn emit, winent_cog_reuse_fn reuse,
                                        void *user, winent_cog_pyramid **out, winent_err *err)
{
    winent_cog_pyramid *p = calloc(1, sizeof *p);
    *out = NULL;
    if (p == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    p->g = *g;
    p->rule = rule ? *rule : (winent_cog_rule){WINENT_OVERVIEW_MEAN, NULL};
    const int mode = is_mode(&p->rule);
    p->emit = emit;
    p->reuse = reuse;
    p->user = user;
    size_t side = (size_t)g->side;
    for (int k = 1; k <= g->levels; k++) {
        size_t w = (size_t)g->w[k];
        p->lv[k].building = -1;
        /* Huge pages: their first touch was 30 % of a COG job's page
         * faults (docs/PERFORMANCE.md, "COG against the plain tiled GeoTIFF"). */
        if ((p->lv[k].rows[0] = winent_huge_alloc(side * w * sizeof(float))) == NULL ||
            (p->lv[k].rows[1] = winent_huge_alloc(side * w * sizeof(float))) == NULL)
            goto oom;
        if (k > g->inner && level_above(&p->lv[k], mode, w) != 0)
            goto oom;
    }
    /* The mode makes the levels above from the deepest inner level's
     * rows, not from sums. */
    if (winent_cog_sums_bytes(g) && !mode) {
        size_t n = block_side(g, g->inner) * (size_t)g->w[g->inner];
        p->sum_in = winent_huge_alloc(n * sizeof(double));
        p->count_in = winent_huge_alloc(n * sizeof(uint32_t));
        if (!p->sum_in || !p->count_in)
            goto oom;
    }
    *out = p;
    return WINENT_OK;
oom:
    winent_cog_pyramid_free(p);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the overviews");
}

/* Row `y` of level k, to be written: in the buffer of its tile row. The
 * first row of a tile row takes the buffer the tile row two before used:
 * the caller must be done with that one first. */
static winent_status row_at(winent_cog_pyramid *p, int k, int y, float **row, winent_err *err)
{
    const int side = p->g.side;
    level *l = &p->lv[k];
    long tr = y / side;
    if (tr != l->building) {
        if (tr >= 2)
            WINENT_TRY(p->reuse(p->user, k, (uint32_t)(tr - 2), err));
        l->building = tr;
    }
    *row = l->rows[tr & 1] + (size_t)(y % side) * (size_t)p->g.w[k];
    return WINENT_OK;
}

/* Emit level k's row of tiles if row `y`, just completed, ends it. */
static winent_status maybe_emit(winent_cog_pyramid *p, int k, int y, winent_err *err)
{
    const winent_cog_geom *g = &p->g;
    const int side = g->side;
    if (y % side != side - 1 && y != g->h[k] - 1)
        return WINENT_OK;
    return p->emit(p->user, k, (uint32_t)(y / side), p->lv[k].rows[(y / side) & 1], (size_t)g->w[k],
                   y % side + 1, g->w[k], err);
}

/* Row `y` of level k (the deepest inner level or above) is complete: its
 * means are in place in the level's tile row, its sums and counts in
 * `sum`/`count`. Emit the tile row when it is full or the level's last,
 * and add the row into level k+1, completing that level's row every
 * second row (and at the last). */
static winent_status row_done(winent_cog_pyramid *p, int k, int y, const double *sum,
                              const uint32_t *count, winent_err *err)
{
    const winent_cog_geom *g = &p->g;
    WINENT_TRY(maybe_emit(p, k, y, err));
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
    float *row;
    WINENT_TRY(row_at(p, k + 1, Y, &row, err));
    for (int x = 0; x < W; x++)
        row[x] = up->count[x] ? (float)(up->sum[x] / up->count[x]) : NAN;
    winent_status st = row_done(p, k + 1, Y, up->sum, up->count, err);
    memset(up->sum, 0, (size_t)W * sizeof(double));
    memset(up->count, 0, (size_t)W * sizeof(uint32_t));
    return st;
}

/* row_done() by the mode: row `y` of level k is complete in the level's
 * rows. It goes into the blocks of level k+1 (completing that level's row
 * every second row, and at the last) before its tile row is emitted: once
 * emitted, its rows may be reused as soon as their tiles are compressed. */
static winent_status row_done_mode(winent_cog_pyramid *p, int k, int y, winent_err *err)
{
    const winent_cog_geom *g = &p->g;
    if (k < g->levels) {
        level *up = &p->lv[k + 1];
        const int w = g->w[k];
        const float *row = p->lv[k].rows[(y / g->side) & 1] + (size_t)(y % g->side) * (size_t)w;
        for (int x = 0; x < w; x++)
            up->quad[4 * (x >> 1) + 2 * (y & 1) + (x & 1)] = row[x];
        if ((y & 1) == 1 || y == g->h[k] - 1) {
            const int Y = y >> 1, W = g->w[k + 1];
            float *out;
            WINENT_TRY(row_at(p, k + 1, Y, &out, err));
            for (int x = 0; x < W; x++)
                out[x] = mode4(up->quad + 4 * x);
            for (size_t i = 0; i < 4 * (size_t)W; i++)
                up->quad[i] = NAN;
            WINENT_TRY(row_done_mode(p, k + 1, Y, err));
        }
    }
    return maybe_emit(p, k, y, err);
}

/* The rectangle of tile (tx, ty) in inner level k: its first row and
 * column, and how many of its blocks lie inside the level. */
static void tile_rect(const winent_cog_geom *g, int k, uint32_t ty, uint32_t tx, int *y0, int *x0,
                      int *nr, int *nc)
{
    int b = (int)block_side(g, k);
    *y0 = (int)ty * b;
    *x0 = (int)tx * b;
    *nr = g->h[k] - *y0 < b ? g->h[k] - *y0 : b;
    *nc = g->w[k] - *x0 < b ? g->w[k] - *x0 : b;
}

void winent_cog_pyramid_put(winent_cog_pyramid *p, uint32_t ty, uint32_t tx, const float *px,
                            size_t stride, int nrows, int ncols, void *scratch, uint8_t *sums)
{
    const winent_cog_geom *g = &p->g;
    means_dst d[WINENT_COG_MAX_LEVELS + 1];
    for (int k = 1; k <= g->inner; k++) {
        int y0, x0, nr, nc;
        tile_rect(g, k, ty, tx, &y0, &x0, &nr, &nc);
        size_t w = (size_t)g->w[k];
        float *at = p->lv[k].rows[(y0 / g->side) & 1] + (size_t)(y0 % g->side) * w + (size_t)x0;
        d[k] = (means_dst){(uint8_t *)at, w * sizeof(float), nr, nc};
    }
    if (is_mode(&p->rule))
        reduce_mode(g, p->rule.q, px, stride, nrows, ncols, scratch, d,
                    winent_cog_sums_bytes(g) ? sums : NULL);
    else
        reduce(g, px, stride, nrows, ncols, scratch, d, sums);
}

winent_status winent_cog_pyramid_add(winent_cog_pyramid *p, uint32_t ty, uint32_t tx,
                                     const uint8_t *partial, int in_place, winent_err *err)
{
    const winent_cog_geom *g = &p->g;
    const int K = g->inner;
    /* Each inner level's block of this tile into its place, unless an
     * encoder put it there. */
    for (int k = 1; k <= K && !in_place; k++) {
        size_t b = block_side(g, k);
        int y0, x0, nr, nc;
        tile_rect(g, k, ty, tx, &y0, &x0, &nr, &nc);
        const uint8_t *src = partial + means_at(g, k);
        for (int r = 0; r < nr; r++) {
            float *row;
            WINENT_TRY(row_at(p, k, y0 + r, &row, err));
            memcpy(row + x0, src + (size_t)r * b * sizeof(float), (size_t)nc * sizeof(float));
        }
    }
    size_t b = block_side(g, K), wk = (size_t)g->w[K];
    int y0, x0, nr, nc;
    tile_rect(g, K, ty, tx, &y0, &x0, &nr, &nc);
    /* The deepest inner level's sums, for the levels above it (none when
     * it is the last level). */
    const int sums_in = p->sum_in != NULL;
    if (sums_in) {
        const uint8_t *sums = partial + (in_place ? 0 : means_at(g, K + 1)),
                      *counts = sums + b * b * sizeof(double);
        for (int r = 0; r < nr; r++) {
            memcpy(p->sum_in + (size_t)r * wk + x0, sums + (size_t)r * b * sizeof(double),
                   (size_t)nc * sizeof(double));
            memcpy(p->count_in + (size_t)r * wk + x0, counts + (size_t)r * b * sizeof(uint32_t),
                   (size_t)nc * sizeof(uint32_t));
        }
    }
    if (tx + 1 < g->across[0])
        return WINENT_OK;
    /* The row of tiles is whole: the inner levels' rows it ends are
     * complete, and the deepest's go up. */
    for (int k = 1; k < K; k++) {
        size_t bk = block_side(g, k);
        int last = (int)((ty + 1) * bk) - 1;
        WINENT_TRY(maybe_emit(p, k, last < g->h[k] - 1 ? last : g->h[k] - 1, err));
    }
    for (int r = 0; r < nr; r++)
        WINENT_TRY(is_mode(&p->rule)
                       ? row_done_mode(p, K, y0 + r, err)
                       : row_done(p, K, y0 + r, sums_in ? p->sum_in + (size_t)r * wk : NULL,
                                  sums_in ? p->count_in + (size_t)r * wk : NULL, err));
    return WINENT_OK;
}
