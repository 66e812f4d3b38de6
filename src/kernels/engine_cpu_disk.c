/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_disk.c - shaped windows on the CPU (engine_cpu_disk.h): a
 * disk or any footprint, as the plan's row runs.
 *
 * Each output row slides its window left to right. A run of row dy of the
 * window holds columns x + a .. x + b; a step x -> x + 1 removes, in every
 * run of every row of the window inside the image, the code at x + a and
 * adds the one at x + b + 1, keeping S = sum of T[count] exact in int64
 * through the du table, as the square windows do (any update order gives
 * the reference's bits). The two columns each run reads are pointers set
 * once per output row (`lo[k] + x`, `hi[k] + x`), so an interior step
 * costs what the square's does per run; a disk is one run per row. Four
 * rows slide in lockstep on four histograms, hiding one histogram's
 * store-to-load latency behind the others.
 *
 * Windows are cropped at the image's borders: the rows of the window
 * outside the image are left out of the row's list, and near the left and
 * right edges each update checks its column. The count of pixels in the
 * window is kept as it goes (`cnt`); n = cnt - count[sentinel], and the
 * pixel's value is winent_measure_finish(S - T[count[sentinel]], n) with
 * the plan's measure and table (the entropy: winent_finish(T[n] - that,
 * n)), as everywhere. A footprint without its centre can count no pixel
 * at all: that window's value is 0, as scikit-image's.
 */
#include "engine_cpu_disk.h"

#include <math.h>

#define LANES WINENT_DISK_LANES

static inline int imax(int a, int b)
{
    return a > b ? a : b;
}
static inline int imin(int a, int b)
{
    return a < b ? a : b;
}

/* 1 when column c is inside [0, W). */
static inline int inside(int c, int W)
{
    return (unsigned)c < (unsigned)W;
}

/* The pixel's value from the window's S, its pixel count and the
 * sentinel's count. */
static inline float emit(const winent_measure_rule *m, const int64_t *t, int64_t s, int cnt,
                         unsigned cs, int centre_is_sent)
{
    if (centre_is_sent)
        return NAN;
    int n = cnt - (int)cs;
    if (n <= 0)
        return 0.0f;
    return winent_measure_finish(m, s - t[cs], n, t);
}

size_t winent_cpu_disk_scratch_bytes(const winent_plan *p)
{
    const size_t nr = p->nrow_runs > 0 ? (size_t)p->nrow_runs : 1;
    return (size_t)LANES * nr * (2 * sizeof(void *) + 2 * sizeof(int));
}

/* A lane's runs: lo[k] + x is the code leaving at the step from x, hi[k]
 * + x the one entering; a[k], b[k] the run's first and last dx. */
typedef struct lane_runs {
    const void **lo, **hi;
    int *a, *b;
} lane_runs;

static void lanes_of(const winent_plan *p, void *scratch, lane_runs *l)
{
    const size_t nr = p->nrow_runs > 0 ? (size_t)p->nrow_runs : 1;
    char *c = scratch;
    for (int g = 0; g < LANES; g++) {
        l[g].lo = (const void **)(void *)c;
        c += nr * sizeof(void *);
        l[g].hi = (const void **)(void *)c;
        c += nr * sizeof(void *);
        l[g].a = (int *)(void *)c;
        c += nr * sizeof(int);
        l[g].b = (int *)(void *)c;
        c += nr * sizeof(int);
    }
}

#define DEFINE_RUNS(NAME, T)                                                                       \
    static void NAME(const winent_disk_job *j, int ya, int yb, int xa, int xb,                     \
                     uint16_t *const *hist, const lane_runs *L)                                    \
    {                                                                                              \
        const winent_plan *p = j->plan;                                                            \
        const T *base = (const T *)j->base;                                                        \
        const size_t st = j->stride;                                                               \
        const int W = j->W, H = j->H, RX = p->rx, RY = p->ry;                                      \
        const int64_t *du = p->du, *t = p->t;                                                      \
        const T sent = (T)j->sent;                                                                 \
        const int has_sent = j->has_sent;                                                          \
        /* Steps x -> x + 1 whose columns all lie inside the image: x in [xl, xr). */              \
        const int xl = imax(xa, RX), xr = imin(xb - 1, W - (p->kx - RX));                          \
        for (int y = ya; y < yb; y += LANES) {                                                     \
            const int lanes = imin(LANES, yb - y);                                                 \
            int nk[LANES], cnt[LANES];                                                             \
            int64_t s[LANES];                                                                      \
            float *orow[LANES];                                                                    \
            const T *crow[LANES];                                                                  \
            for (int g = 0; g < lanes; g++) {                                                      \
                const int yc = y + g;                                                              \
                const int dy0 = imax(-RY, -yc), dy1 = imin(p->ky - 1 - RY, H - 1 - yc);            \
                crow[g] = base + (size_t)(yc - j->oy) * st - j->ox;                                \
                orow[g] = j->out + (size_t)(yc - j->out_y0) * j->out_stride;                       \
                uint16_t *h = hist[g];                                                             \
                const T **lo = (const T **)L[g].lo, **hi = (const T **)L[g].hi;                    \
                int64_t acc = 0;                                                                   \
                int c = 0, k = 0;                                                                  \
                for (int dy = dy0; dy <= dy1; dy++) {                                              \
                    const T *r = base + (size_t)(yc + dy - j->oy) * st - j->ox;                    \
                    for (int q = p->row_first[dy + RY]; q < p->row_first[dy + RY + 1]; q++) {     \
                        const int a = p->row_run[2 * q], b = p->row_run[2 * q + 1];                \
                        L[g].a[k] = a;                                                             \
                        L[g].b[k] = b;                                                             \
                        lo[k] = r + a;     /* leaving at the step from x: lo[k][x] */              \
                        hi[k] = r + b + 1; /* entering: hi[k][x] */                                \
                        k++;                                                                       \
                        for (int xx = imax(0, xa + a); xx <= imin(W - 1, xa + b); xx++) {          \
                            unsigned cv = h[r[xx]];                                                \
                            h[r[xx]] = (uint16_t)(cv + 1);                                         \
                            acc += du[cv];                                                         \
                            c++;                                                                   \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
                nk[g] = k;                                                                         \
                s[g] = acc;                                                                        \
                cnt[g] = c;                                                                        \
            }                                                                                      \
            int x = xa;                                                                            \
            /* Left edge, then right edge: the columns are checked. */                             \
            for (int pass = 0; pass < 2; pass++) {                                                 \
                const int xe = pass == 0 ? imin(xb, xl) : xb;                                      \
                for (; x < xe; x++) {                                                              \
                    for (int g = 0; g < lanes; g++) {                                              \
                        uint16_t *h = hist[g];                                                     \
                        orow[g][x] = emit(&p->measure, t, s[g], cnt[g], has_sent ? h[sent] : 0u,   \
                                          has_sent && crow[g][x] == sent);                         \
                        if (x + 1 >= xb)                                                           \
                            continue;                                                              \
                        const T *const *lo = (const T *const *)L[g].lo;                            \
                        const T *const *hi = (const T *const *)L[g].hi;                            \
                        int64_t acc = s[g];                                                        \
                        int c = cnt[g];                                                            \
                        for (int k = 0; k < nk[g]; k++) {                                          \
                            if (inside(x + L[g].a[k], W)) {                                        \
                                const T v = lo[k][x];                                              \
                                unsigned cv = h[v] - 1u;                                           \
                                h[v] = (uint16_t)cv;                                               \
                                acc -= du[cv];                                                     \
                                c--;                                                               \
                            }                                                                      \
                            if (inside(x + L[g].b[k] + 1, W)) {                                    \
                                const T v = hi[k][x];                                              \
                                unsigned cv = h[v];                                                \
                                h[v] = (uint16_t)(cv + 1);                                         \
                                acc += du[cv];                                                     \
                                c++;                                                               \
                            }                                                                      \
                        }                                                                          \
                        s[g] = acc;                                                                \
                        cnt[g] = c;                                                                \
                    }                                                                              \
                }                                                                                  \
                if (pass == 1)                                                                     \
                    break;                                                                         \
                /* Interior: every column inside, one leaves and one enters per run. */            \
                for (; x < xr; x++) {                                                              \
                    for (int g = 0; g < lanes; g++) {                                              \
                        uint16_t *h = hist[g];                                                     \
                        orow[g][x] = emit(&p->measure, t, s[g], cnt[g], has_sent ? h[sent] : 0u,   \
                                          has_sent && crow[g][x] == sent);                         \
                    }                                                                              \
                    for (int g = 0; g < lanes; g++) {                                              \
                        uint16_t *h = hist[g];                                                     \
                        const T *const *pl = (const T *const *)L[g].lo;                            \
                        const T *const *ph = (const T *const *)L[g].hi;                            \
                        int64_t acc = s[g];                                                        \
                        for (int k = 0; k < nk[g]; k++) {                                          \
                            T vo = pl[k][x], vi = ph[k][x];                                        \
                            unsigned co = h[vo] - 1u;                                              \
                            h[vo] = (uint16_t)co;                                                  \
                            acc -= du[co];                                                         \
                            unsigned ci = h[vi];                                                   \
                            h[vi] = (uint16_t)(ci + 1);                                            \
                            acc += du[ci];                                                         \
                        }                                                                          \
                        s[g] = acc;                                                                \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            /* Leave the histograms zero: clear the last window's bins. */                         \
            const int lx = xb - 1;                                                                 \
            for (int g = 0; g < lanes; g++) {                                                      \
                const T *const *lo = (const T *const *)L[g].lo;                                    \
                for (int k = 0; k < nk[g]; k++) {                                                  \
                    const int a = L[g].a[k];                                                       \
                    const T *r = lo[k] - a;                                                        \
                    for (int xx = imax(0, lx + a); xx <= imin(W - 1, lx + L[g].b[k]); xx++)        \
                        hist[g][r[xx]] = 0;                                                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_RUNS(runs_u8, uint8_t)
DEFINE_RUNS(runs_u16, uint16_t)
DEFINE_RUNS(runs_u32, uint32_t)

void winent_cpu_disk_rows(const winent_disk_job *j, int ya, int yb, int xa, int xb,
                          uint16_t *const *hist, void *scratch)
{
    if (yb <= ya || xb <= xa)
        return;
    lane_runs l[LANES];
    lanes_of(j->plan, scratch, l);
    switch (j->code_size) {
    case 1: runs_u8(j, ya, yb, xa, xb, hist, l); break;
    case 2: runs_u16(j, ya, yb, xa, xb, hist, l); break;
    default: runs_u32(j, ya, yb, xa, xb, hist, l); break;
    }
}
