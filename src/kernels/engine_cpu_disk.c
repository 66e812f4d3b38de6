/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_disk.c - circular windows on the CPU (engine_cpu_disk.h).
 *
 * Each output row slides its disk left to right. Row dy of the disk holds
 * columns x - hw(dy) .. x + hw(dy); a step x -> x + 1 removes, in every row
 * of the disk inside the image, the code at x - hw(dy) and adds the one at
 * x + 1 + hw(dy), keeping S = sum of T[count] exact in int64 through the du
 * table, as the square windows do (any update order gives the reference's
 * bits). The two columns each row reads are pointers set once per output
 * row (`lo[k] + x`, `hi[k] + x`), so an interior step costs what the
 * square's does. Four rows slide in lockstep on four histograms, hiding one
 * histogram's store-to-load latency behind the others.
 *
 * Windows are cropped at the image's borders: the rows of the disk outside
 * the image are left out of the row's list, and near the left and right
 * edges each update checks its column. The count of pixels in the window
 * is kept as it goes (`cnt`); n = cnt - count[sentinel], and the pixel's
 * value is winent_measure_finish(S - T[count[sentinel]], n) with the plan's
 * measure and table (the entropy: winent_finish(T[n] - that, n)), as
 * everywhere.
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

/* The pixel's value from the window's S, its pixel count and the
 * sentinel's count. */
static inline float emit(const winent_measure_rule *m, const int64_t *t, int64_t s, int cnt,
                         unsigned cs, int centre_is_sent)
{
    if (centre_is_sent)
        return NAN;
    int n = cnt - (int)cs;
    return winent_measure_finish(m, s - t[cs], n, t);
}

#define DEFINE_DISK(NAME, T)                                                                       \
    static void NAME(const winent_disk_job *j, int ya, int yb, int xa, int xb,                     \
                     uint16_t *const *hist)                                                        \
    {                                                                                              \
        const winent_plan *p = j->plan;                                                            \
        const T *base = (const T *)j->base;                                                        \
        const size_t st = j->stride;                                                               \
        const int W = j->W, H = j->H, R = p->rx;                                                   \
        const int64_t *du = p->du, *t = p->t;                                                      \
        const T sent = (T)j->sent;                                                                 \
        const int has_sent = j->has_sent;                                                          \
        /* Steps x -> x + 1 whose columns all lie inside the image: x in [xl, xr). */              \
        const int xl = imax(xa, R), xr = imin(xb - 1, W - 1 - R);                                  \
        const T *row[LANES][256], *lo[LANES][256], *hi[LANES][256];                                \
        int hw[LANES][256];                                                                        \
        for (int y = ya; y < yb; y += LANES) {                                                     \
            const int lanes = imin(LANES, yb - y);                                                 \
            int nk[LANES], cnt[LANES];                                                             \
            int64_t s[LANES];                                                                      \
            float *orow[LANES];                                                                    \
            const T *crow[LANES];                                                                  \
            for (int g = 0; g < lanes; g++) {                                                      \
                const int yc = y + g;                                                              \
                const int dy0 = imax(-R, -yc), dy1 = imin(R, H - 1 - yc);                          \
                nk[g] = dy1 - dy0 + 1;                                                             \
                crow[g] = base + (size_t)(yc - j->oy) * st - j->ox;                                \
                orow[g] = j->out + (size_t)(yc - j->out_y0) * j->out_stride;                       \
                uint16_t *h = hist[g];                                                             \
                int64_t acc = 0;                                                                   \
                int c = 0;                                                                         \
                for (int k = 0; k < nk[g]; k++) {                                                  \
                    const int dy = dy0 + k, w = p->hw[dy + R];                                     \
                    const T *r = base + (size_t)(yc + dy - j->oy) * st - j->ox;                    \
                    row[g][k] = r;                                                                 \
                    hw[g][k] = w;                                                                  \
                    lo[g][k] = r - w;     /* leaving at the step from x: lo[k][x] */               \
                    hi[g][k] = r + w + 1; /* entering: hi[k][x] */                                 \
                    for (int xx = imax(0, xa - w); xx <= imin(W - 1, xa + w); xx++) {              \
                        unsigned cv = h[r[xx]];                                                    \
                        h[r[xx]] = (uint16_t)(cv + 1);                                             \
                        acc += du[cv];                                                             \
                        c++;                                                                       \
                    }                                                                              \
                }                                                                                  \
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
                        orow[g][x] = emit(&p->measure, t, s[g], cnt[g], has_sent ? h[sent] : 0u,                \
                                          has_sent && crow[g][x] == sent);                         \
                        if (x + 1 >= xb)                                                           \
                            continue;                                                              \
                        int64_t acc = s[g];                                                        \
                        int c = cnt[g];                                                            \
                        for (int k = 0; k < nk[g]; k++) {                                          \
                            const T *r = row[g][k];                                                \
                            const int w = hw[g][k];                                                \
                            if (x - w >= 0) {                                                      \
                                unsigned cv = h[r[x - w]] - 1u;                                    \
                                h[r[x - w]] = (uint16_t)cv;                                        \
                                acc -= du[cv];                                                     \
                                c--;                                                               \
                            }                                                                      \
                            if (x + w + 1 < W) {                                                   \
                                unsigned cv = h[r[x + w + 1]];                                     \
                                h[r[x + w + 1]] = (uint16_t)(cv + 1);                              \
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
                /* Interior: every column inside, one leaves and one enters per row. */            \
                for (; x < xr; x++) {                                                              \
                    for (int g = 0; g < lanes; g++) {                                              \
                        uint16_t *h = hist[g];                                                     \
                        orow[g][x] = emit(&p->measure, t, s[g], cnt[g], has_sent ? h[sent] : 0u,                \
                                          has_sent && crow[g][x] == sent);                         \
                    }                                                                              \
                    for (int g = 0; g < lanes; g++) {                                              \
                        uint16_t *h = hist[g];                                                     \
                        const T *const *pl = lo[g], *const *ph = hi[g];                            \
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
            for (int g = 0; g < lanes; g++)                                                        \
                for (int k = 0; k < nk[g]; k++) {                                                  \
                    const T *r = row[g][k];                                                        \
                    const int w = hw[g][k];                                                        \
                    for (int xx = imax(0, lx - w); xx <= imin(W - 1, lx + w); xx++)                \
                        hist[g][r[xx]] = 0;                                                        \
                }                                                                                  \
        }                                                                                          \
    }

DEFINE_DISK(disk_u8, uint8_t)
DEFINE_DISK(disk_u16, uint16_t)
DEFINE_DISK(disk_u32, uint32_t)

void winent_cpu_disk_rows(const winent_disk_job *j, int ya, int yb, int xa, int xb,
                          uint16_t *const *hist)
{
    if (yb <= ya || xb <= xa)
        return;
    switch (j->code_size) {
    case 1: disk_u8(j, ya, yb, xa, xb, hist); break;
    case 2: disk_u16(j, ya, yb, xa, xb, hist); break;
    default: disk_u32(j, ya, yb, xa, xb, hist); break;
    }
}
