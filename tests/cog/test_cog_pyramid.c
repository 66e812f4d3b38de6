/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The COG's overview rule (src/tiles/sinks/cog_pyramid.h) against a brute-force
 * mean: random sizes (one pixel wide, odd, tall, just over a tile), tile
 * sides (powers of two, where every level can be inside a tile, and 48 or
 * 80, where only 4 can), NaN holes and NaN blocks; every pixel of every
 * level within 2^-24 (relative) of the double-precision mean of the valid
 * pixels of its block, NaN exactly where the block has none; the level sizes and count
 * of GDAL's COG rule; every tile row emitted once, in order per level;
 * the same whether the tiles' means go through partials or are put in
 * place (winent_cog_pyramid_put), or a mix.
 * The mode (a class map's rule) against its own oracle: each level built
 * from the whole level below, 2x2 block by block, the valid values
 * counted in a sorted list; every value of every level one of the
 * image's classes; with integer codes whose step merges classes, values
 * compared as stored.
 * Also the hand-made TIFF directories: GDAL is not needed, the bytes are
 * read back here.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "tiles/sinks/cog_pyramid.h"
#include "tiles/formats/tiff_dir.h"

typedef struct got_level {
    float *px;         /* w x h, filled from the emitted rows */
    uint32_t next_row; /* tile rows come in order */
    /* The last two emitted tile rows, as the pyramid lent them. */
    const float *lent[2];
    size_t stride[2];
    int nrows[2];
    uint32_t reused; /* tile rows given back so far */
} got_level;

typedef struct ctx {
    winent_cog_geom g;
    got_level lv[WINENT_COG_MAX_LEVELS + 1];
    int bad_order, bad_reuse;
} ctx;

static winent_status on_emit(void *user, int level, uint32_t tile_row, const float *rows,
                             size_t stride, int nrows, int ncols, winent_err *err)
{
    ctx *c = user;
    (void)err;
    got_level *l = &c->lv[level];
    int side = c->g.side;
    if (tile_row != l->next_row || ncols != c->g.w[level])
        c->bad_order = 1;
    l->next_row = tile_row + 1;
    int want_rows = c->g.h[level] - (int)tile_row * side;
    if (want_rows > side)
        want_rows = side;
    if (nrows != want_rows)
        c->bad_order = 1;
    for (int r = 0; r < nrows; r++)
        memcpy(l->px + ((size_t)tile_row * side + r) * (size_t)ncols, rows + (size_t)r * stride,
               (size_t)ncols * sizeof(float));
    l->lent[tile_row & 1] = rows;
    l->stride[tile_row & 1] = stride;
    l->nrows[tile_row & 1] = nrows;
    return WINENT_OK;
}

/* The rows of a tile row stay as lent until they are taken back, in
 * order, after they were emitted and two rows before their buffer is
 * written again: by the pyramid (reuse) before it copies a partial's
 * means, or here before a tile is put in place. */
static void take_back(ctx *c, int level, uint32_t tile_row)
{
    got_level *l = &c->lv[level];
    int side = c->g.side, w = c->g.w[level];
    if (tile_row < l->reused) /* taken back already, before a put */
        return;
    if (tile_row != l->reused || tile_row + 2 > l->next_row)
        c->bad_reuse = 1;
    l->reused = tile_row + 1;
    const float *rows = l->lent[tile_row & 1];
    for (int r = 0; r < l->nrows[tile_row & 1] && rows; r++)
        if (memcmp(rows + (size_t)r * l->stride[tile_row & 1],
                   l->px + ((size_t)tile_row * side + r) * (size_t)w, (size_t)w * sizeof(float)))
            c->bad_reuse = 1;
}

static winent_status on_reuse(void *user, int level, uint32_t tile_row, winent_err *err)
{
    (void)err;
    take_back(user, level, tile_row);
    return WINENT_OK;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The level below `lo` (w x h) halved by the mode: each 2x2 block's
 * valid values sorted, the longest run the winner, the first (smallest)
 * among equals. */
static float *oracle_mode_level(const float *lo, int w, int h, int *W2, int *H2)
{
    const int W = (w + 1) / 2, H = (h + 1) / 2;
    float *up = malloc((size_t)W * H * sizeof(float));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float v[4];
            int n = 0;
            for (int yy = 2 * y; yy < 2 * y + 2 && yy < h; yy++)
                for (int xx = 2 * x; xx < 2 * x + 2 && xx < w; xx++)
                    if (!isnan(lo[(size_t)yy * w + xx]))
                        v[n++] = lo[(size_t)yy * w + xx];
            for (int i = 1; i < n; i++) /* insertion sort */
                for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
                    float t = v[j];
                    v[j] = v[j - 1];
                    v[j - 1] = t;
                }
            float best = NAN;
            int run_best = 0;
            for (int i = 0; i < n;) {
                int j = i;
                while (j < n && v[j] == v[i])
                    j++;
                if (j - i > run_best) {
                    run_best = j - i;
                    best = v[i];
                }
                i = j;
            }
            up[(size_t)y * W + x] = best;
        }
    *W2 = W;
    *H2 = H;
    return up;
}

/* Every level of `c` against the recursive mode of `img` (its values
 * taken as `q` stores them; NULL: as they are). */
static void check_mode(const ctx *c, const float *img, int W, int H, const winent_out_sample *q)
{
    float *lo = malloc((size_t)W * H * sizeof(float));
    for (size_t i = 0; i < (size_t)W * H; i++) {
        lo[i] = img[i];
        if (q && !isnan(img[i])) {
            uint8_t b[4];
            winent_out_encode(q, &img[i], 1, b);
            winent_out_decode(q, b, 1, &lo[i]);
        }
    }
    /* The map's classes as stored: few (the cases draw at most 12). */
    float classes[64];
    int ncl = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        int seen = isnan(lo[i]);
        for (int j = 0; j < ncl && !seen; j++)
            seen = classes[j] == lo[i];
        if (!seen && ncl < 64)
            classes[ncl++] = lo[i];
    }
    int w = W, h = H, off = 0, foreign = 0;
    for (int k = 1; k <= c->g.levels; k++) {
        int w2, h2;
        float *up = oracle_mode_level(lo, w, h, &w2, &h2);
        for (size_t i = 0; i < (size_t)w2 * h2; i++) {
            float got = c->lv[k].px[i];
            if (memcmp(&got, &up[i], sizeof got) != 0)
                off++;
            int known = isnan(got);
            for (int j = 0; j < ncl && !known; j++)
                known = classes[j] == got;
            foreign += !known;
        }
        free(lo);
        lo = up;
        w = w2;
        h = h2;
    }
    free(lo);
    CHECK(off == 0, "%dx%d side %d: %d overview pixels differ from the recursive mode", W, H,
          c->g.side, off);
    CHECK(foreign == 0, "%dx%d side %d: %d overview pixels are no class of the map", W, H,
          c->g.side, foreign);
}

/* put: 0, every tile through its partial; 1, every tile put in place;
 * 2, each tile one way or the other at random. `rule`: NULL, the mean
 * (real values); else its rule, on a class map of `classes` values. */
static void one_case_rule(int W, int H, int side, double holes, int put,
                          const winent_cog_rule *rule, int classes)
{
    float *img = malloc((size_t)W * H * sizeof(float));
    for (size_t i = 0; i < (size_t)W * H; i++)
        img[i] = rule ? (float)(next() % (uint64_t)classes) * 1.5f - 3.0f
                      : (float)(next() % 100000) / 7919.0f;
    /* Holes: scattered NaN pixels, and a whole NaN rectangle. */
    for (size_t i = 0; i < (size_t)W * H; i++)
        if ((double)(next() % 1000) < holes * 1000)
            img[i] = NAN;
    int rx = W / 3, ry = H / 3;
    for (int y = ry; y < ry + H / 4; y++)
        for (int x = rx; x < rx + W / 4; x++)
            img[(size_t)y * W + x] = NAN;

    ctx c;
    memset(&c, 0, sizeof c);
    winent_cog_geometry(W, H, side, &c.g);
    /* GDAL's rule: levels while the last is larger than a tile. */
    int w = W, h = H, levels = 0;
    while (w > side || h > side) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        levels++;
        CHECK(c.g.w[levels] == w && c.g.h[levels] == h, "%dx%d side %d: level %d is %dx%d", W, H,
              side, levels, c.g.w[levels], c.g.h[levels]);
    }
    CHECK(c.g.levels == levels, "%dx%d side %d: %d levels, want %d", W, H, side, c.g.levels,
          levels);
    if (levels == 0) {
        free(img);
        return;
    }
    for (int k = 1; k <= levels; k++)
        c.lv[k].px = calloc((size_t)c.g.w[k] * c.g.h[k], sizeof(float));
    winent_cog_pyramid *p;
    winent_err err;
    winent_err_clear(&err);
    CHECK(winent_cog_pyramid_create(&c.g, rule, on_emit, on_reuse, &c, &p, &err) == WINENT_OK,
          "create");
    size_t pb = winent_cog_partial_bytes(&c.g), sb = winent_cog_sums_bytes(&c.g);
    CHECK(sb < pb && (sb == 0) == (c.g.inner == levels), "%dx%d side %d: %zu bytes of sums", W, H,
          side, sb);
    uint8_t *partial = malloc(pb + 1);
    void *scratch = malloc(winent_cog_partial_scratch_bytes(&c.g));
    for (uint32_t ty = 0; ty < c.g.down[0]; ty++)
        for (uint32_t tx = 0; tx < c.g.across[0]; tx++) {
            int x0 = (int)tx * side, y0 = (int)ty * side;
            int nr = H - y0 < side ? H - y0 : side, nc = W - x0 < side ? W - x0 : side;
            const float *px = img + (size_t)y0 * W + x0;
            if (put == 1 || (put == 2 && next() % 2)) {
                /* The rows it writes: their tile row two before emitted,
                 * and given back (as the sink does once its jobs are
                 * done). */
                for (int k = 1; k <= c.g.inner; k++) {
                    uint32_t R = ty >> k;
                    if (R >= 2) {
                        CHECK(c.lv[k].next_row >= R - 1,
                              "%dx%d side %d: tile row %u of level %d put before %u was emitted", W,
                              H, side, R, k, R - 2);
                        take_back(&c, k, R - 2);
                    }
                }
                /* Sums at an odd address, as behind a HEAD in the sink. */
                winent_cog_pyramid_put(p, ty, tx, px, (size_t)W, nr, nc, scratch, partial + 1);
                CHECK(winent_cog_pyramid_add(p, ty, tx, sb ? partial + 1 : NULL, 1, &err) ==
                          WINENT_OK,
                      "add in place");
                continue;
            }
            /* An odd address, as behind a compressed tile. */
            winent_cog_partial(&c.g, rule, px, (size_t)W, nr, nc, scratch, partial + 1);
            CHECK(winent_cog_pyramid_add(p, ty, tx, partial + 1, 0, &err) == WINENT_OK, "add");
        }
    CHECK(!c.bad_order, "%dx%d side %d: tile rows out of order or misshapen", W, H, side);
    CHECK(!c.bad_reuse, "%dx%d side %d: rows taken back early, out of order or changed", W, H,
          side);
    int worst = 0;
    double worst_rel = 0;
    for (int k = 1; k <= levels; k++)
        CHECK(c.lv[k].next_row == c.g.down[k], "%dx%d side %d level %d: %u tile rows of %u", W, H,
              side, k, c.lv[k].next_row, c.g.down[k]);
    if (rule)
        check_mode(&c, img, W, H, rule->q);
    for (int k = 1; k <= levels && !rule; k++) {
        int f = 1 << k;
        for (int y = 0; y < c.g.h[k]; y++)
            for (int x = 0; x < c.g.w[k]; x++) {
                double sum = 0;
                long n = 0;
                for (int yy = y * f; yy < (y + 1) * f && yy < H; yy++)
                    for (int xx = x * f; xx < (x + 1) * f && xx < W; xx++) {
                        float v = img[(size_t)yy * W + xx];
                        if (!isnan(v)) {
                            sum += v;
                            n++;
                        }
                    }
                float got = c.lv[k].px[(size_t)y * c.g.w[k] + x];
                if (n == 0) {
                    if (!isnan(got))
                        worst++;
                    continue;
                }
                double m = sum / n, rel = m > 0 ? fabs(got - m) / m : fabs(got - m);
                if (!(rel <= ldexp(1.0, -24) * (1 + 1e-9)))
                    worst++;
                if (rel > worst_rel)
                    worst_rel = rel;
            }
    }
    CHECK(worst == 0, "%dx%d side %d: %d overview pixels off (worst relative error %.3g)", W, H,
          side, worst, worst_rel);
    winent_cog_pyramid_free(p);
    for (int k = 1; k <= levels; k++)
        free(c.lv[k].px);
    free(partial);
    free(scratch);
    free(img);
}

static void one_case(int W, int H, int side, double holes, int put)
{
    one_case_rule(W, H, side, holes, put, NULL, 0);
}

/* The mode, values as float32, and as uint8 codes whose step (a top of
 * 1000 over 254 codes) puts several classes 1.5 apart in one code. */
static void mode_cases(int W, int H, int side, double holes, int put)
{
    winent_out_sample u8;
    winent_out_sample_init(&u8, WINENT_OT_UINT8, 1000.0);
    const winent_cog_rule plain = {WINENT_OVERVIEW_MODE, NULL}, coded = {WINENT_OVERVIEW_MODE, &u8};
    one_case_rule(W, H, side, holes, put, &plain, 2 + (int)(next() % 6));
    one_case_rule(W, H, side, holes, put, &coded, 12);
}

static uint32_t get32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void directories(void)
{
    for (int big = 0; big < 2; big++) {
        winent_tiff_dir *d;
        winent_err err;
        winent_err_clear(&err);
        CHECK(winent_tiff_dir_create(&d, &err) == WINENT_OK, "create");
        uint64_t offs[3] = {1000, 2000, 3000};
        double dbl[3] = {0.5, -2, 1e300};
        /* Out of order on purpose: written sorted. */
        winent_tiff_dir_add(d, 324, WINENT_TIFF_OFFSETS, 3, offs);
        winent_tiff_dir_add_long(d, 256, 77);
        winent_tiff_dir_add(d, 33550, WINENT_TIFF_DOUBLE, 3, dbl);
        winent_tiff_dir_add(d, 305, WINENT_TIFF_ASCII, 0, "abc");
        winent_tiff_dir_add_short(d, 258, 32);
        winent_tiff_dir_add_long(d, 256, 78); /* replaces */
        uint64_t size = winent_tiff_dir_size(d, big);
        uint8_t *buf = malloc(size + 16);
        uint64_t at = 1234;
        CHECK(winent_tiff_dir_write(d, big, at, 99, buf) == 0, "write");
        uint64_t n = big ? get64(buf) : (uint64_t)(buf[0] | buf[1] << 8);
        CHECK(n == 5, "big %d: %llu entries", big, (unsigned long long)n);
        const uint8_t *e = buf + (big ? 8 : 2);
        int es = big ? 20 : 12;
        int last = -1, sorted = 1;
        for (uint64_t i = 0; i < n; i++) {
            int tag = e[i * es] | e[i * es + 1] << 8;
            sorted &= tag > last;
            last = tag;
        }
        CHECK(sorted, "big %d: tags in ascending order", big);
        /* 256 first: LONG 78 inline. */
        CHECK((e[0] | e[1] << 8) == 256 && (e[2] | e[3] << 8) == 4 &&
                  get32(e + (big ? 12 : 8)) == 78,
              "big %d: ImageWidth entry", big);
        /* 324 (the 4th): offsets, out of line, as LONG or LONG8. */
        const uint8_t *o = e + 3 * es;
        CHECK((o[0] | o[1] << 8) == 324 && (o[2] | o[3] << 8) == (big ? 16 : 4),
              "big %d: TileOffsets type", big);
        uint64_t where = big ? get64(o + 12) : get32(o + 8);
        CHECK(where >= at && where < at + size && where % 2 == 0, "big %d: values inside", big);
        const uint8_t *v = buf + (where - at);
        CHECK((big ? get64(v + 16) : get32(v + 8)) == 3000, "big %d: third offset", big);
        /* The next-directory offset closes the table. */
        const uint8_t *nx = e + n * es;
        CHECK((big ? get64(nx) : get32(nx)) == 99, "big %d: next directory", big);
        free(buf);
        /* A classic TIFF cannot hold an offset past 4 GiB. */
        uint64_t far = (uint64_t)5 << 30;
        winent_tiff_dir_add(d, 324, WINENT_TIFF_OFFSETS, 1, &far);
        buf = malloc(winent_tiff_dir_size(d, big));
        CHECK(winent_tiff_dir_write(d, big, at, 0, buf) == (big ? 0 : -1),
              "big %d: an offset past 4 GiB", big);
        free(buf);
        winent_tiff_dir_free(d);
    }
}

int main(void)
{
    static const int cases[][3] = {
        {1, 1, 16},      {1, 300, 16},      {300, 1, 16},   {17, 17, 16},
        {33, 16, 16},    {517, 301, 16},    {517, 301, 64}, {512, 512, 512},
        {513, 512, 512}, {1500, 1100, 256}, {1024, 37, 32}, {999, 2049, 128},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int put = 0; put < 3; put++) {
            one_case(cases[i][0], cases[i][1], cases[i][2], 0.0, put);
            one_case(cases[i][0], cases[i][1], cases[i][2], 0.3, put);
            mode_cases(cases[i][0], cases[i][1], cases[i][2], 0.3, put);
        }
    for (int i = 0; i < 20; i++) {
        static const int sides[] = {16, 32, 48, 64, 80, 128};
        int side = sides[next() % 6];
        one_case(1 + (int)(next() % 700), 1 + (int)(next() % 700), side,
                 (double)(next() % 90) / 100, i % 3);
    }
    for (int i = 0; i < 10; i++) {
        static const int sides[] = {16, 32, 48, 64, 80};
        mode_cases(1 + (int)(next() % 400), 1 + (int)(next() % 400), sides[next() % 5],
                   (double)(next() % 95) / 100, i % 3);
    }
    directories();
    return harness_end();
}
