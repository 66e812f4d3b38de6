#include "engine_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Remap blocks: output tiles of this many columns and rows. */
#define REMAP_TILE_W 256
#define REMAP_TILE_H 64

typedef struct thread_scratch {
    uint16_t *hist;      /* direct: ncodes counts; remap: region counts */
    uint32_t *ids;       /* remap: dense ids of the block's region */
    uint32_t *keys;      /* remap: hash keys, WINENT_NODATA_CODE = empty */
    uint32_t *vals;      /* remap: hash values (dense ids) */
    uint32_t *slots;     /* remap: slot of each dense id, to clear after use */
    unsigned hash_bits;
} thread_scratch;

struct winent_cpu_engine {
    const winent_plan *plan;    /* borrowed */
    int threads;
    int max_width, max_in_rows;
    uint32_t *codes;            /* owned: codes of the chunk's input rows */
    size_t region_max;          /* remap: most pixels of a block's region */
    thread_scratch *scratch;    /* owned: one per thread */
};

/* A 2D view of codes: at(y, x) = base[(y - oy) * stride + (x - ox)]. */
typedef struct code_view {
    const uint32_t *base;
    size_t stride;
    int ox, oy;
} code_view;

static inline const uint32_t *view_at(const code_view *v, int y, int x)
{
    return v->base + (size_t)(y - v->oy) * v->stride + (size_t)(x - v->ox);
}

/* The sliding window's histogram and its running sums. */
typedef struct window_state {
    uint16_t *h;
    const int64_t *du;
    int64_t s; /* sum over codes of T[count] */
    int n;     /* pixels counted */
} window_state;

static inline void win_add(window_state *w, uint32_t v)
{
    if (v == WINENT_NODATA_CODE)
        return;
    unsigned c = w->h[v];
    w->h[v] = (uint16_t)(c + 1);
    w->s += w->du[c];
    w->n++;
}

static inline void win_remove(window_state *w, uint32_t v)
{
    if (v == WINENT_NODATA_CODE)
        return;
    unsigned c = w->h[v];
    w->h[v] = (uint16_t)(c - 1);
    w->s -= w->du[c - 1];
    w->n--;
}

/* Replace one pixel by another (a no-op when the codes are equal). */
static inline void win_swap(window_state *w, uint32_t out, uint32_t in)
{
    if (out == in)
        return;
    win_remove(w, out);
    win_add(w, in);
}

static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }

/* Serpentine over output rows [ya, yb) x columns [xa, xb): build the first
 * window, then slide one column at a time along a row and one row at a time
 * at the row's end. `hist` must be all zero; it is left all zero. */
static void run_block(const winent_plan *p, const code_view *v, int W, int H, int ya, int yb, int xa,
                      int xb, float *out, size_t out_stride, int out_y0, uint16_t *hist)
{
    const int rx = p->rx, ry = p->ry;
    const int64_t *t = p->t;
    window_state w = {hist, p->du, 0, 0};
    int x = xa, y = ya, dir = 1;
    int wy0 = imax(0, y - ry), wy1 = imin(H - 1, y + ry);

    for (int yy = wy0; yy <= wy1; yy++)
        for (int xx = imax(0, x - rx); xx <= imin(W - 1, x + rx); xx++)
            win_add(&w, *view_at(v, yy, xx));

    for (;;) {
        float *orow = out + (size_t)(y - out_y0) * out_stride;
        for (;;) {
            uint32_t centre = *view_at(v, y, x);
            orow[x] = centre == WINENT_NODATA_CODE ? NAN : winent_finish(t[w.n] - w.s, w.n);
            int nx = x + dir;
            if (nx < xa || nx >= xb)
                break;
            /* Column leaving and column entering the window. */
            int xout = dir > 0 ? x - rx : x + rx;
            int xin = dir > 0 ? x + rx + 1 : x - rx - 1;
            int rows = wy1 - wy0 + 1;
            if (xout >= 0 && xout < W && xin >= 0 && xin < W) {
                const uint32_t *po = view_at(v, wy0, xout), *pi = view_at(v, wy0, xin);
                for (int k = 0; k < rows; k++, po += v->stride, pi += v->stride)
                    win_swap(&w, *po, *pi);
            } else if (xout >= 0 && xout < W) {
                const uint32_t *po = view_at(v, wy0, xout);
                for (int k = 0; k < rows; k++, po += v->stride)
                    win_remove(&w, *po);
            } else if (xin >= 0 && xin < W) {
                const uint32_t *pi = view_at(v, wy0, xin);
                for (int k = 0; k < rows; k++, pi += v->stride)
                    win_add(&w, *pi);
            }
            x = nx;
        }
        if (y + 1 >= yb)
            break;
        /* Move down: row y - ry leaves, row y + ry + 1 enters. */
        int wx0 = imax(0, x - rx), wx1 = imin(W - 1, x + rx);
        int yout = y - ry, yin = y + ry + 1;
        if (yout >= 0 && yin < H) {
            const uint32_t *po = view_at(v, yout, wx0), *pi = view_at(v, yin, wx0);
            for (int k = 0; k <= wx1 - wx0; k++)
                win_swap(&w, po[k], pi[k]);
        } else if (yout >= 0) {
            const uint32_t *po = view_at(v, yout, wx0);
            for (int k = 0; k <= wx1 - wx0; k++)
                win_remove(&w, po[k]);
        } else if (yin < H) {
            const uint32_t *pi = view_at(v, yin, wx0);
            for (int k = 0; k <= wx1 - wx0; k++)
                win_add(&w, pi[k]);
        }
        y++;
        wy0 = imax(0, y - ry);
        wy1 = imin(H - 1, y + ry);
        dir = -dir;
    }
    /* Leave the histogram clean for the next block. */
    for (int yy = wy0; yy <= wy1; yy++)
        for (int xx = imax(0, x - rx); xx <= imin(W - 1, x + rx); xx++) {
            uint32_t c = *view_at(v, yy, xx);
            if (c != WINENT_NODATA_CODE)
                hist[c] = 0;
        }
}

static inline uint32_t hash_slot(uint32_t key, unsigned bits)
{
    return (uint32_t)((key * 2654435761u) >> (32 - bits));
}

/* Renumber the codes of rows [ry0, ry1) x columns [rx0, rx1) densely into
 * s->ids (row stride rx1 - rx0); returns the number of distinct codes. */
static uint32_t remap_region(const code_view *v, int ry0, int ry1, int rx0, int rx1,
                             thread_scratch *s)
{
    const uint32_t mask = (1u << s->hash_bits) - 1u;
    uint32_t next = 0;
    size_t rw = (size_t)(rx1 - rx0);
    for (int y = ry0; y < ry1; y++) {
        const uint32_t *src = view_at(v, y, rx0);
        uint32_t *dst = s->ids + (size_t)(y - ry0) * rw;
        for (size_t x = 0; x < rw; x++) {
            uint32_t key = src[x];
            if (key == WINENT_NODATA_CODE) {
                dst[x] = WINENT_NODATA_CODE;
                continue;
            }
            uint32_t slot = hash_slot(key, s->hash_bits);
            while (s->keys[slot] != WINENT_NODATA_CODE && s->keys[slot] != key)
                slot = (slot + 1) & mask;
            if (s->keys[slot] == WINENT_NODATA_CODE) {
                s->keys[slot] = key;
                s->vals[slot] = next;
                s->slots[next] = slot;
                next++;
            }
            dst[x] = s->vals[slot];
        }
    }
    return next;
}

static void remap_release(thread_scratch *s, uint32_t distinct)
{
    for (uint32_t i = 0; i < distinct; i++)
        s->keys[s->slots[i]] = WINENT_NODATA_CODE;
    memset(s->hist, 0, sizeof *s->hist * distinct);
}

static void free_scratch(thread_scratch *s)
{
    free(s->hist);
    free(s->ids);
    free(s->keys);
    free(s->vals);
    free(s->slots);
}

winent_status winent_cpu_engine_create(const winent_plan *p, int max_width, int max_in_rows,
                                       int threads, winent_cpu_engine **out, winent_err *err)
{
    winent_cpu_engine *e = calloc(1, sizeof *e);
    *out = NULL;
    if (e == NULL)
        goto nomem;
    e->plan = p;
    e->threads = threads < 1 ? 1 : threads;
    e->max_width = max_width;
    e->max_in_rows = max_in_rows;
    e->codes = malloc(sizeof *e->codes * ((size_t)max_width * (size_t)max_in_rows + 1));
    e->scratch = calloc((size_t)e->threads, sizeof *e->scratch);
    if (e->codes == NULL || e->scratch == NULL)
        goto nomem;
    if (!p->direct) {
        int rw = imin(max_width, REMAP_TILE_W + 2 * p->rx);
        int rh = imin(max_in_rows, REMAP_TILE_H + 2 * p->ry);
        e->region_max = (size_t)rw * (size_t)rh;
    }
    for (int i = 0; i < e->threads; i++) {
        thread_scratch *s = &e->scratch[i];
        if (p->direct) {
            s->hist = calloc((size_t)p->ncodes, sizeof *s->hist);
            if (s->hist == NULL)
                goto nomem;
            continue;
        }
        unsigned bits = 4;
        while (((size_t)1 << bits) < 2 * e->region_max)
            bits++;
        s->hash_bits = bits;
        s->hist = calloc(e->region_max, sizeof *s->hist);
        s->ids = malloc(sizeof *s->ids * e->region_max);
        s->slots = malloc(sizeof *s->slots * e->region_max);
        s->keys = malloc(sizeof *s->keys << bits);
        s->vals = malloc(sizeof *s->vals << bits);
        if (!s->hist || !s->ids || !s->slots || !s->keys || !s->vals)
            goto nomem;
        memset(s->keys, 0xFF, sizeof *s->keys << bits);
    }
    *out = e;
    return WINENT_OK;
nomem:
    winent_cpu_engine_free(e);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the CPU engine's scratch");
}

void winent_cpu_engine_free(winent_cpu_engine *e)
{
    if (e == NULL)
        return;
    if (e->scratch)
        for (int i = 0; i < e->threads; i++)
            free_scratch(&e->scratch[i]);
    free(e->scratch);
    free(e->codes);
    free(e);
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

winent_status winent_cpu_engine_compute(winent_cpu_engine *e, const winent_chunk *c, float *out,
                                        size_t out_stride, winent_err *err)
{
    const winent_plan *p = e->plan;
    const int W = c->width, H = c->height;
    if (W > e->max_width || c->in_h > e->max_in_rows)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "chunk larger than the CPU engine was sized for");
    if (c->y1 <= c->y0 || W == 0)
        return WINENT_OK;
    const code_view v = {e->codes, (size_t)W, 0, c->in_y0};

    /* Codes of every input row, in parallel. */
#pragma omp parallel for num_threads(e->threads) schedule(static)
    for (int r = 0; r < c->in_h; r++)
        winent_plan_codes(p, (const char *)c->rows + (size_t)r * c->row_bytes, (size_t)W,
                          e->codes + (size_t)r * (size_t)W);

    const int rows = c->y1 - c->y0;
    if (p->direct) {
        /* Bands of whole rows: one serpentine each. */
        int bands = imin(rows, e->threads * 4);
        int band_h = (rows + bands - 1) / bands;
        bands = (rows + band_h - 1) / band_h;
#pragma omp parallel for num_threads(e->threads) schedule(dynamic, 1)
        for (int b = 0; b < bands; b++) {
            int ya = c->y0 + b * band_h, yb = imin(c->y1, ya + band_h);
            run_block(p, &v, W, H, ya, yb, 0, W, out, out_stride, c->y0,
                      e->scratch[thread_id()].hist);
        }
        return WINENT_OK;
    }

    /* Remap: tiles small enough that their distinct codes fit the scratch. */
    int tiles_x = (W + REMAP_TILE_W - 1) / REMAP_TILE_W;
    int tiles_y = (rows + REMAP_TILE_H - 1) / REMAP_TILE_H;
#pragma omp parallel for num_threads(e->threads) schedule(dynamic, 1)
    for (int i = 0; i < tiles_x * tiles_y; i++) {
        thread_scratch *s = &e->scratch[thread_id()];
        int xa = (i % tiles_x) * REMAP_TILE_W, xb = imin(W, xa + REMAP_TILE_W);
        int ya = c->y0 + (i / tiles_x) * REMAP_TILE_H, yb = imin(c->y1, ya + REMAP_TILE_H);
        int rx0 = imax(0, xa - p->rx), rx1 = imin(W, xb + p->rx);
        int ry0 = imax(0, ya - p->ry), ry1 = imin(H, yb + p->ry);
        uint32_t distinct = remap_region(&v, ry0, ry1, rx0, rx1, s);
        code_view rv = {s->ids, (size_t)(rx1 - rx0), rx0, ry0};
        run_block(p, &rv, W, H, ya, yb, xa, xb, out, out_stride, c->y0, s->hist);
        remap_release(s, distinct);
    }
    return WINENT_OK;
}
