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
 * gives the same bits. Eight rows slide in lockstep (four where the
 * moments' column sums are kept, or the histograms are large), each with
 * its own histograms: their updates are independent, which hides one
 * cell's read-modify-write latency behind the others'. Per angle and group
 * of rows, each pair's histogram cell is computed once (pair_codes: 2 x
 * lanes column steps read it), and each column's moment sums (the measures
 * other than the entropies and ASM) once per row (column_moments, sliding
 * down the band from one group of rows to the next), so a column step
 * costs one read per moment, not a pass over its pairs. Only the sums the
 * asked measures read are kept. The angles run one after the other over
 * the row, each adding its value into a row of doubles in angle order;
 * the map's float is their mean, rounded once. The one-row slide and the
 * marginals' pair-by-pair updates are glcm_slide.h, shared with the CUDA
 * engine: the same sums, so the same bits.
 */
#include "glcm.h"
#include "glcm_slide.h"

#include <stdlib.h>
#include <string.h>

/* The moment sums of a column's pairs: n, si, sj, sii, sjj, sij, sad, sh,
 * s3, s4. */
#define NQ 10
/* The largest buffer of column moments or of pair codes a worker takes;
 * wider rows or taller windows slide pair by pair instead (the same
 * sums). */
#define BUF_BYTES_MAX ((size_t)48 << 20)
/* A pair code that is not counted (an end is nodata). */
#define PC_SENT 0xFFFFFFFFu
/* The pair code's flag of a diagonal cell (i == j). */
#define PC_DIAG 0x80000000u

typedef struct glcm_scratch {
    uint16_t *codes;   /* levels of the band's input rows */
    size_t codes_cap;  /* in codes */
    size_t held;       /* bytes of the buffers below, once made */
    uint16_t *hist;    /* [LANES][L * L] pair counts, zero between rows */
    uint32_t *marg;    /* [LANES][2 L] marginal counts (first ends, second ends) */
    double *sum;       /* [LANES][nmeasures * width] the angles' values summed */
    int *cnt;          /* [LANES][width] angles with a pair */
    int64_t *cs;       /* [cs_n][width][LANES][NQ] each lane's column moments per angle
                          (one buffer for all angles where cs_n is 1), or NULL */
    int cs_n;
    /* Per angle, while its buffer holds the moments of the rows before
     * (cs_ok): the last lane's anchor rows, from which the next rows'
     * first lane slides by the rows that leave and enter. */
    int cs_ok[4], cs_lo[4], cs_hi[4];
    uint32_t *pc;      /* [width][pc_rows] one angle's pair codes, column-major, or NULL */
} glcm_scratch;

struct winent_glcm_cpu {
    const winent_glcm_plan *plan;
    int threads, max_width;
    /* Rows that slide in lockstep (WINENT_GLCM_LANES at most): 8 hide
     * more of the histograms' latency and share each angle's pair codes
     * more widely; 4 where the moments' column sums (and with 8, the
     * rows of sums per measure) would outgrow the caches, or the
     * histograms (levels^2 cells each) are large. */
    int lanes;
    int need_q;        /* a measure needs sum u^2 (ASM, energy) */
    /* The symmetric entropy's diagonal, counted by the tables: a diagonal
     * cell of the pair-code path counts from `bias` (its empty count) and
     * dub[bias + c] = du[c] + Lq[2], so the sum of T over the cells takes
     * the diagonal's 2 u_ii log 2 (glcm_rule.h) with no sum of its own:
     * the same integer. NULL where a cell could pass 16 bits, or a
     * measure reads the diagonal's other sums. */
    uint16_t bias;
    int64_t *dub;      /* owned: [0 .. 2 bias] */
    int64_t *dqb;      /* owned, with dub: [c] (c + 1)^2 - c^2, twice that on the diagonal
                          (sum S^2 = 2 q + 2 qdiag: q then holds q + qdiag) */
    glcm_scratch *scratch;
};

/* Rows that slide in lockstep for plan p (winent_glcm_cpu.lanes). */
static int lanes_for(const winent_glcm_plan *p)
{
    return p->need_mom || p->levels > 256 ? 4 : WINENT_GLCM_LANES;
}

/* Anchor rows of `lanes` output rows at any angle. */
static size_t pc_rows(const winent_glcm_plan *p, int lanes)
{
    return (size_t)lanes + 2 * (size_t)p->ry;
}

/* The pair codes of anchor rows [r0, r0 + R) at offset (dx, dy), column
 * a's at pc[a R .. a R + R): the histogram cell (symmetric: the cell of
 * the unordered pair) with PC_DIAG on the diagonal, PC_SENT where an end
 * is not counted. Computed once per angle and LANES rows, read by the
 * 2 LANES column steps of every pair. */
static void pair_codes(const winent_glcm_geom *g, const uint16_t *codes, int y0, int dx, int dy,
                       int r0, int R, uint32_t diag_flag, uint32_t *restrict pc)
{
    const int W = g->W, sym = g->symmetric;
    const unsigned L = (unsigned)g->L;
    const int alo = dx < 0 ? -dx : 0, ahi = W - 1 - (dx > 0 ? dx : 0);
    for (int k = 0; k < R; k++) {
        const uint16_t *restrict first = codes + (size_t)(r0 + k - y0) * W;
        const uint16_t *restrict second = first + (ptrdiff_t)dy * W + dx;
        uint32_t *restrict col = pc + k;
        for (int a = alo; a <= ahi; a++) {
            const unsigned i = first[a], j = second[a];
            const int swap = sym && i > j;
            const unsigned lo = swap ? j : i, hi = swap ? i : j;
            const uint32_t v = (lo * L + hi) | (i == j ? diag_flag : 0u);
            col[(size_t)a * R] = i == WINENT_GLCM_SENT || j == WINENT_GLCM_SENT ? PC_SENT : v;
        }
    }
}

/* A lane's changes to its sums over one column step, held in registers
 * (the lanes' winent_glcm_acc live in memory) and added at the end. */
typedef struct lane_sums {
    int64_t n, tsum, diag, q, qdiag;
} lane_sums;

/* One pair in or out of a lane (sign a constant where inlined): the
 * histogram cell and the sums glcm_rule.h's entropy and ASM read. */
/* Always inlined, so that the callers' constant flags pick the code. */
#define INLINE __attribute__((always_inline)) static inline

INLINE void pair_update(uint16_t *hist, lane_sums *a, const int64_t *du, const int64_t *dqb,
                        uint32_t pc, int sign, int need_q, int diag_bias)
{
    if (pc == PC_SENT)
        return;
    uint16_t *cell = &hist[pc & ~PC_DIAG];
    const int64_t diag = pc >> 31;
    const unsigned c = sign > 0 ? *cell : (unsigned)(*cell - 1u);
    *cell = (uint16_t)(sign > 0 ? c + 1u : c);
    a->n += sign;
    a->tsum += sign * du[c];
    a->diag += sign * diag;
    if (need_q && diag_bias) {
        a->q += sign * dqb[c];
    } else if (need_q) {
        const int64_t dq = 2 * (int64_t)c + 1;
        a->q += sign * dq;
        a->qdiag += sign * dq * diag;
    }
}

static inline void lane_add(winent_glcm_acc *a, const lane_sums *s)
{
    a->n += s->n;
    a->tsum += s->tsum;
    a->diag += s->diag;
    a->q += s->q;
    a->qdiag += s->qdiag;
}

/* Add (sign 1) or remove (-1) anchor column c's pairs in every lane, from
 * its pair codes pcc (lane l's rows [b[l], e[l]) relative to r0). */
static inline void hist_column(winent_glcm_state *st, const int64_t *du, const int64_t *dqb,
                               const uint32_t *pcc, const int *b, const int *e, int kmax,
                               int nl, int sign, int need_q, int diag_bias)
{
    lane_sums s[WINENT_GLCM_LANES] = {{0, 0, 0, 0, 0}};
    for (int k = 0; k < kmax; k++)
        for (int l = 0; l < nl; l++)
            if (b[l] + k < e[l])
                pair_update(st[l].hist, &s[l], du, dqb, pcc[b[l] + k], sign, need_q, diag_bias);
    for (int l = 0; l < nl; l++)
        lane_add(&st[l].acc, &s[l]);
}

/* Code o leaving a lane and code i entering it (equal: nothing). Both counted (the
 * common case; a valid code is below 2^20 plus the diagonal flag, so bit
 * 30 is set only in PC_SENT): the pair count is unchanged and only the
 * cells, their T differences and the diagonal change. */
INLINE void pair_swap(uint16_t *hist, lane_sums *a, const int64_t *du, const int64_t *dqb,
                      uint32_t o, uint32_t i, int need_q, int diag_bias)
{
    if (o == i)
        return;
    if ((need_q && !diag_bias) || ((o | i) & 0x40000000u) != 0) {
        pair_update(hist, a, du, dqb, o, -1, need_q, diag_bias);
        pair_update(hist, a, du, dqb, i, 1, need_q, diag_bias);
        return;
    }
    uint16_t *co = &hist[o & ~PC_DIAG];
    const unsigned c = (unsigned)(*co - 1u);
    *co = (uint16_t)c;
    a->tsum -= du[c];
    uint16_t *ci = &hist[i & ~PC_DIAG];
    const unsigned d = *ci;
    *ci = (uint16_t)(d + 1u);
    a->tsum += du[d];
    if (need_q) /* diag_bias: sum u^2 with the diagonal's (glcm_rule.h's q + qdiag) */
        a->q += dqb[d] - dqb[c];
    if (!diag_bias) /* else the codes carry no diagonal flag: the tables count it */
        a->diag += (int64_t)(i >> 31) - (int64_t)(o >> 31);
}

/* The common step: every lane's run of K pairs, the column `out` leaving
 * and `in` entering (pair codes from row r0), each lane's pair out then
 * its pair in, the NL lanes interleaved, their sums in registers. A
 * pair that leaves and enters with the same code changes nothing and is
 * skipped: in flat texture most are, and their updates would chain
 * through one cell's store and load. */
INLINE void hist_swap(winent_glcm_state *st, const int64_t *du, const int64_t *dqb,
                      const uint32_t *out, const uint32_t *in, const int *b, int K, int NL,
                      int stair, int need_q, int diag_bias)
{
    lane_sums s[WINENT_GLCM_LANES];
    uint16_t *h[WINENT_GLCM_LANES];
    const uint32_t *o[WINENT_GLCM_LANES], *i[WINENT_GLCM_LANES];
    for (int l = 0; l < NL; l++) {
        const lane_sums zero = {0, 0, 0, 0, 0};
        s[l] = zero;
        h[l] = st[l].hist;
        o[l] = out + b[l];
        i[l] = in + b[l];
    }
    if (stair) { /* lane l's rows from b[0] + l: one pointer for all, fewer registers */
        for (int k = 0; k < K; k++) {
#pragma GCC unroll 16
            for (int l = 0; l < NL; l++)
                pair_swap(h[l], &s[l], du, dqb, o[0][k + l], i[0][k + l], need_q, diag_bias);
        }
    } else {
        for (int k = 0; k < K; k++) {
#pragma GCC unroll 16
            for (int l = 0; l < NL; l++)
                pair_swap(h[l], &s[l], du, dqb, o[l][k], i[l][k], need_q, diag_bias);
        }
    }
    for (int l = 0; l < NL; l++)
        lane_add(&st[l].acc, &s[l]);
}

/* Add (sign 1) or remove (-1) the moments of anchor row r's pairs into
 * the column sums cs (lane l). */
static void moment_row(const winent_glcm_geom *g, const uint16_t *codes, int y0, int dx, int dy,
                       int r, int l, int nl, int sign, int64_t *cs)
{
    const int W = g->W;
    const int alo = dx < 0 ? -dx : 0, ahi = W - 1 - (dx > 0 ? dx : 0);
    const uint16_t *first = codes + (size_t)(r - y0) * W;
    const uint16_t *second = first + (ptrdiff_t)dy * W + dx;
    for (int a = alo; a <= ahi; a++) {
        const unsigned i = first[a], j = second[a];
        if (i == WINENT_GLCM_SENT || j == WINENT_GLCM_SENT)
            continue;
        const int64_t I = i, J = j, d = I > J ? I - J : J - I, t = I + J, t2 = t * t;
        int64_t *q = cs + ((size_t)a * (size_t)nl + (size_t)l) * NQ;
        q[0] += sign;
        q[1] += sign * I;
        q[2] += sign * J;
        q[3] += sign * I * I;
        q[4] += sign * J * J;
        q[5] += sign * I * J;
        q[6] += sign * d;
        q[7] += sign * g->hw[d];
        q[8] += sign * t2 * t;
        q[9] += sign * t2 * t2;
    }
}

/* Rows [lo, hi] that are not in [xlo, xhi], added (sign 1) or removed
 * (-1) into lane l's column moments. */
static void moment_rows_outside(const winent_glcm_geom *g, const uint16_t *codes, int y0, int dx,
                                int dy, int lo, int hi, int xlo, int xhi, int l, int nl,
                                int sign, int64_t *cs)
{
    for (int r = lo; r <= hi; r++)
        if (r < xlo || r > xhi)
            moment_row(g, codes, y0, dx, dy, r, l, nl, sign, cs);
}

/* Each lane's column moments over its anchor rows [rlo[l], rhi[l]]: lane
 * 0 summed (or, with `carry`, slid from the last lane of the rows before,
 * whose anchor rows are [*plo, *phi]), each next lane from the one before
 * by the rows that leave and enter (exact integers: the same sums in any
 * order). Leaves the last lane's rows in *plo, *phi. */
static void column_moments(const winent_glcm_geom *g, const uint16_t *codes, int y0, int dx,
                           int dy, const int *rlo, const int *rhi, int nl, int64_t *cs,
                           int carry, int *plo, int *phi)
{
    const size_t per = (size_t)nl * NQ;
    const int last = nl - 1;
    if (carry) {
        for (size_t a = 0; a < (size_t)g->W; a++)
            memcpy(cs + a * per, cs + a * per + (size_t)last * NQ, NQ * sizeof *cs);
        moment_rows_outside(g, codes, y0, dx, dy, *plo, *phi, rlo[0], rhi[0], 0, nl, -1, cs);
        moment_rows_outside(g, codes, y0, dx, dy, rlo[0], rhi[0], *plo, *phi, 0, nl, 1, cs);
    } else {
        memset(cs, 0, (size_t)g->W * per * sizeof *cs);
        for (int r = rlo[0]; r <= rhi[0]; r++)
            moment_row(g, codes, y0, dx, dy, r, 0, nl, 1, cs);
    }
    for (int l = 1; l < nl; l++) {
        for (size_t a = 0; a < (size_t)g->W; a++)
            memcpy(cs + a * per + (size_t)l * NQ, cs + a * per + (size_t)(l - 1) * NQ,
                   NQ * sizeof *cs);
        moment_rows_outside(g, codes, y0, dx, dy, rlo[l - 1], rhi[l - 1], rlo[l], rhi[l], l, nl,
                            -1, cs);
        moment_rows_outside(g, codes, y0, dx, dy, rlo[l], rhi[l], rlo[l - 1], rhi[l - 1], l, nl,
                            1, cs);
    }
    *plo = rlo[last];
    *phi = rhi[last];
}

/* Add (sign 1) or remove (-1) column c's moments in every lane (n too
 * when `with_n`: no histogram counts it). */
static inline void moment_column(winent_glcm_state *st, const int64_t *cs, int c, int nl,
                                 int sign, int with_n)
{
    for (int l = 0; l < nl; l++) {
        const int64_t *q = cs + ((size_t)c * (size_t)nl + (size_t)l) * NQ;
        winent_glcm_acc *a = &st[l].acc;
        if (with_n)
            a->n += sign * q[0];
        a->si += sign * q[1];
        a->sj += sign * q[2];
        a->sii += sign * q[3];
        a->sjj += sign * q[4];
        a->sij += sign * q[5];
        a->sad += sign * q[6];
        a->sh += sign * q[7];
        a->s3 += sign * q[8];
        a->s4 += sign * q[9];
    }
}

/* What the fast slide keeps per column step. */
typedef struct fast_ctx {
    const winent_glcm_geom *gp; /* the geometry without moments (marginals' path) */
    const uint16_t *codes;
    int y0, dx, dy, R, kmax, need_q;
    int nl;              /* lanes: 4 or 8 (winent_glcm_cpu.lanes) */
    const int64_t *du;   /* the T differences the pair codes' cells take (diag_bias) */
    const int64_t *dqb;  /* diag_bias: (c + 1)^2 - c^2 of a cell, doubled on the diagonal */
    int diag_bias;       /* diagonal cells count from DIAG_BIAS (e->dub) */
    int even;            /* every lane has kmax pairs per column */
    int stair;           /* and lane l's rows start at b[0] + l */
    const int *rlo, *rhi;
    int b[WINENT_GLCM_LANES], e[WINENT_GLCM_LANES];
    const uint32_t *pc;  /* pair codes, or NULL: the marginals' pair by pair path */
    const int64_t *cs;   /* column moments, or NULL */
} fast_ctx;

static inline void fast_column(const fast_ctx *f, winent_glcm_state *st, int c, int sign)
{
    if (f->pc != NULL) {
        const uint32_t *pcc = f->pc + (size_t)c * f->R;
        const int64_t *du = f->du, *dqb = f->dqb;
        const int sg = sign > 0 ? 1 : -1;
        if (f->need_q)
            hist_column(st, du, dqb, pcc, f->b, f->e, f->kmax, f->nl, sg, 1, f->diag_bias);
        else if (sign > 0)
            hist_column(st, du, dqb, pcc, f->b, f->e, f->kmax, f->nl, 1, 0, f->diag_bias);
        else
            hist_column(st, du, dqb, pcc, f->b, f->e, f->kmax, f->nl, -1, 0, f->diag_bias);
    } else if (f->gp->need_hist) {
        winent_glcm_column4(f->gp, st, f->nl, f->codes, f->y0, f->dx, f->dy, f->rlo, f->rhi, c,
                            sign);
    }
    if (f->cs != NULL)
        moment_column(st, f->cs, c, f->nl, sign, !f->gp->need_hist);
}

/* hist_swap with its flags and lane count constant (always inlined). */
INLINE void swap_lanes(const fast_ctx *f, winent_glcm_state *st, const uint32_t *out,
                       const uint32_t *in, int NL)
{
    if (f->need_q && f->diag_bias)
        hist_swap(st, f->du, f->dqb, out, in, f->b, f->kmax, NL, f->stair, 1, 1);
    else if (f->need_q)
        hist_swap(st, f->du, f->dqb, out, in, f->b, f->kmax, NL, f->stair, 1, 0);
    else if (f->diag_bias)
        hist_swap(st, f->du, f->dqb, out, in, f->b, f->kmax, NL, f->stair, 0, 1);
    else
        hist_swap(st, f->du, f->dqb, out, in, f->b, f->kmax, NL, f->stair, 0, 0);
}

/* A step that removes column co and adds column ci: fused where every
 * lane has the same run of pair codes. */
static inline void fast_swap(const fast_ctx *f, winent_glcm_state *st, int co, int ci)
{
    if (f->pc == NULL || !f->even) {
        fast_column(f, st, co, -1);
        fast_column(f, st, ci, 1);
        return;
    }
    const uint32_t *out = f->pc + (size_t)co * f->R, *in = f->pc + (size_t)ci * f->R;
    if (f->nl == 8)
        swap_lanes(f, st, out, in, 8);
    else
        swap_lanes(f, st, out, in, 4);
    if (f->cs != NULL) {
        moment_column(st, f->cs, co, f->nl, -1, 0);
        moment_column(st, f->cs, ci, f->nl, 1, 0);
    }
}

/* Set the diagonal cells of every lane's histogram to `v` (an empty
 * count: bias in the pair-code path, 0 outside it). */
static void diag_cells(winent_glcm_state *st, int nl, int L, uint16_t v)
{
    for (int l = 0; l < nl; l++)
        for (int i = 0; i < L; i++)
            st[l].hist[(size_t)i * (size_t)L + (size_t)i] = v;
}

/* Two doubles, divided by one instruction where the target has one (GCC's
 * and Clang's vector extension: each quotient IEEE's correctly rounded
 * one, as a scalar division's). */
typedef double v2d __attribute__((vector_size(16)));
_Static_assert(WINENT_GLCM_LANES % 2 == 0, "lanes in pairs");

/* Each lane's measures at one pixel added into sum[l lstride + k kstride] and
 * its angle counted in cnt[l cstride], where its matrix holds a pair. The
 * entropy, the common measure, for all lanes at once: their numerators
 * and denominators, then the divisions two by two (the same correctly
 * rounded quotients as winent_glcm_entropy_value's, at a fraction of
 * their latency). */
static inline void lane_values(const winent_glcm_geom *g, const winent_glcm_state *st,
                               const winent_glcm_tabs *tabs, int nl, double *sum, int *cnt,
                               size_t lstride, size_t kstride, size_t cstride)
{
    double v[WINENT_GLCM_LANES], num[WINENT_GLCM_LANES], den[WINENT_GLCM_LANES];
    for (int k = 0; k < g->nm; k++) {
        const int m = g->measures[k];
        if (m == WINENT_GLCM_ENTROPY) {
            for (int l = 0; l < nl; l++) {
                const winent_glcm_acc *a = &st[l].acc;
                const int64_t N = tabs->symmetric ? 2 * a->n : a->n;
                num[l] = WINENT_I2D(a->n > 0 ? winent_glcm_hjoint(a, tabs) : 0);
                den[l] = WINENT_DMUL(WINENT_I2D(a->n > 0 ? N : 1), WINENT_LQ_SCALE);
            }
            for (int l = 0; l < nl; l += 2) {
                v2d n2, d2;
                memcpy(&n2, num + l, sizeof n2);
                memcpy(&d2, den + l, sizeof d2);
                const v2d q = n2 / d2;
                memcpy(v + l, &q, sizeof q);
            }
        } else {
            for (int l = 0; l < nl; l++)
                v[l] = st[l].acc.n > 0 ? winent_glcm_value(m, &st[l].acc, tabs) : 0.0;
        }
        for (int l = 0; l < nl; l++)
            if (st[l].acc.n > 0)
                sum[(size_t)l * lstride + (size_t)k * kstride] += v[l];
    }
    for (int l = 0; l < nl; l++)
        cnt[(size_t)l * cstride] += st[l].acc.n > 0;
}

/* winent_glcm_out, the division by one, two or four angles a product by
 * the exact reciprocal: the same real number, so the same rounding. */
static inline float out_value(unsigned centre, double sum, int cnt)
{
    static const double inv[5] = {0.0, 1.0, 0.5, 0.0, 0.25};
    if (centre == WINENT_GLCM_SENT || cnt == 0 || cnt == 3)
        return winent_glcm_out(centre, sum, cnt);
    return (float)(sum * inv[cnt]);
}

/* winent_glcm_slide4 for the CPU: the pairs from precomputed pair codes
 * (the marginals, where asked, pair by pair), the moments from column
 * sums (O(1) per column step instead of a pass over its pairs); only the
 * sums the measures read. The same exact sums, so the same bits. */
static int slide4_fast(const winent_glcm_cpu *e, const winent_glcm_geom *g, glcm_scratch *s,
                       winent_glcm_state *st, int y0, int ang, int y, size_t lstride)
{
    const int dx = g->dx[ang], dy = g->dy[ang], rx = g->rx, W = g->W, nl = e->lanes;
    int rlo[WINENT_GLCM_LANES], rhi[WINENT_GLCM_LANES], r0 = g->H, r1 = -1;
    const winent_glcm_tabs tabs = {g->lq, g->symmetric};
    const winent_glcm_acc zero = WINENT_GLCM_ACC_ZERO;
    winent_glcm_geom gp = *g;
    gp.need_mom = 0;
    fast_ctx f = {&gp, s->codes, y0, dx, dy, 0, 0, e->need_q, nl, g->du, e->dqb, 0, 1, 1, rlo, rhi,
                  {0}, {0}, NULL, NULL};
    for (int l = 0; l < nl; l++) {
        rlo[l] = winent_glcm_imax(0, y + l - g->ry) + winent_glcm_imax(0, -dy);
        rhi[l] = winent_glcm_imin(g->H - 1, y + l + g->ry) - winent_glcm_imax(0, dy);
        st[l].acc = zero;
        if (rlo[l] <= rhi[l]) {
            r0 = winent_glcm_imin(r0, rlo[l]);
            r1 = winent_glcm_imax(r1, rhi[l]);
        }
    }
    if (r1 < r0)
        return 0; /* no lane has a pair at this angle */
    f.R = r1 - r0 + 1;
    for (int l = 0; l < nl; l++) {
        f.b[l] = rlo[l] - r0;
        f.e[l] = winent_glcm_imax(rhi[l] + 1 - r0, f.b[l]);
        f.kmax = winent_glcm_imax(f.kmax, f.e[l] - f.b[l]);
    }
    for (int l = 0; l < nl; l++)
        f.even &= f.e[l] - f.b[l] == f.kmax;
    for (int l = 0; l < nl; l++)
        f.stair &= f.b[l] == f.b[0] + l;
    if (g->need_hist && !g->need_marg && s->pc != NULL) {
        f.diag_bias = e->dub != NULL;
        pair_codes(g, s->codes, y0, dx, dy, r0, f.R, f.diag_bias ? 0u : PC_DIAG, s->pc);
        f.pc = s->pc;
        if (f.diag_bias) {
            f.du = e->dub;
            diag_cells(st, f.nl, g->L, e->bias);
        }
    }
    if (g->need_mom) {
        const int own = s->cs_n == g->nangles; /* a buffer per angle */
        const int b = own ? ang : 0;
        int64_t *cs = s->cs + (size_t)b * W * (size_t)nl * NQ;
        column_moments(g, s->codes, y0, dx, dy, rlo, rhi, nl, cs, s->cs_ok[b], &s->cs_lo[b],
                       &s->cs_hi[b]);
        s->cs_ok[b] = own; /* one buffer for all: the next angle overwrites it */
        f.cs = cs;
    }
    int lo = 0, hi = -1;
    for (int x = 0; x < W; x++) {
        const int nlo = winent_glcm_imax(0, x - rx) + winent_glcm_imax(0, -dx);
        const int nhi = winent_glcm_imin(W - 1, x + rx) - winent_glcm_imax(0, dx);
        if (x == 0)
            lo = nlo, hi = nlo - 1;
        const int olo = lo, ohi = winent_glcm_imin(hi, nlo - 1);
        const int ilo = winent_glcm_imax(nlo, hi + 1);
        if (ohi == olo && nhi == ilo) {
            fast_swap(&f, st, olo, ilo);
        } else {
            for (int c = olo; c <= ohi; c++)
                fast_column(&f, st, c, -1);
            for (int c = ilo; c <= nhi; c++)
                fast_column(&f, st, c, 1);
        }
        lo = nlo;
        hi = nhi;
        lane_values(g, st, &tabs, f.nl, s->sum + x, s->cnt + x, lstride, (size_t)W, (size_t)W);
    }
    if (g->need_hist) /* leave the histograms zero */
        for (int c = lo; c <= hi; c++)
            fast_column(&f, st, c, -1);
    if (f.diag_bias)
        diag_cells(st, f.nl, g->L, 0);
    return 1;
}

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
    e->lanes = lanes_for(p);
    for (int k = 0; k < p->opts.nmeasures; k++)
        e->need_q |= p->opts.measures[k] == WINENT_GLCM_ASM || p->opts.measures[k] == WINENT_GLCM_ENERGY;
    e->scratch = calloc((size_t)threads, sizeof *e->scratch);
    if (e->scratch == NULL)
        goto nomem;
    /* A window holds at most kx ky pairs at any offset. */
    const int64_t most = (int64_t)p->kx * p->ky;
    if (p->opts.symmetric && 2 * most + 1 <= 65535) {
        e->bias = (uint16_t)(most + 1);
        e->dub = malloc(sizeof *e->dub * (2 * (size_t)e->bias + 1));
        e->dqb = malloc(sizeof *e->dqb * (2 * (size_t)e->bias + 1));
        if (e->dub == NULL || e->dqb == NULL)
            goto nomem;
        for (int c = 0; c <= 2 * (int)e->bias; c++) {
            const int diag = c >= e->bias, u = diag ? c - e->bias : c;
            e->dub[c] = diag ? p->du[u] + p->lq[2] : p->du[u];
            e->dqb[c] = (diag ? 2 : 1) * (2 * (int64_t)u + 1);
        }
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
        free(e->scratch[t].cs);
        free(e->scratch[t].pc);
    }
    free(e->scratch);
    free(e->dub);
    free(e->dqb);
    free(e);
}

/* Output rows [y, y + nl) from the band's levels (image rows from y0):
 * e->lanes rows in lockstep, or one. */
static void compute_rows(const winent_glcm_cpu *e, const winent_glcm_geom *g, glcm_scratch *s,
                         int y, int nl, int y0, float *const *out, size_t row_off,
                         size_t out_stride)
{
    const int W = g->W, L = g->L;
    const size_t lstride = (size_t)g->nm * W;
    winent_glcm_state st[WINENT_GLCM_LANES];
    for (int l = 0; l < e->lanes; l++) {
        winent_glcm_state one = {s->hist + (size_t)l * L * L, s->marg + (size_t)l * 2 * L,
                                 s->marg + (size_t)l * 2 * L + L, WINENT_GLCM_ACC_ZERO};
        st[l] = one;
    }
    const int fast = nl == e->lanes && (!g->need_mom || s->cs != NULL);
    memset(s->sum, 0, (size_t)nl * lstride * sizeof *s->sum);
    memset(s->cnt, 0, (size_t)nl * W * sizeof *s->cnt);
    for (int a = 0; a < g->nangles; a++) {
        if (fast)
            slide4_fast(e, g, s, st, y0, a, y, lstride);
        else if (nl == e->lanes)
            winent_glcm_slide4(g, st, nl, s->codes, y0, a, y, s->sum, lstride, s->cnt);
        else
            winent_glcm_slide(g, st, s->codes, y0, a, y, 0, W, s->sum, (size_t)W, s->cnt);
    }
    for (int l = 0; l < nl; l++) {
        const uint16_t *centre = s->codes + (size_t)(y + l - y0) * W;
        const int *cnt = s->cnt + (size_t)l * W;
        for (int k = 0; k < g->nm; k++) {
            float *o = out[k] + row_off + (size_t)l * out_stride;
            const double *sum = s->sum + (size_t)l * lstride + (size_t)k * W;
            for (int x = 0; x < W; x++)
                o[x] = out_value(centre[x], sum[x], cnt[x]);
        }
    }
}

/* The bytes of a worker's buffers for images `width` wide (0 where a
 * buffer is not made), one rule for scratch_ready and
 * winent_glcm_cpu_scratch_bytes. */
typedef struct scratch_sizes {
    size_t marg, sum, cnt, cs, pc, hist;
    int cs_n; /* moment buffers: one per angle where they fit */
} scratch_sizes;

static void sizes_of(const winent_glcm_plan *p, int width, scratch_sizes *z)
{
    const size_t L = (size_t)p->levels, W = (size_t)(width > 0 ? width : 1);
    const size_t nl = (size_t)lanes_for(p);
    z->marg = nl * 2 * L * sizeof(uint32_t);
    z->sum = nl * (size_t)p->opts.nmeasures * W * sizeof(double);
    z->cnt = nl * W * sizeof(int);
    const size_t cs1 = W * nl * NQ * sizeof(int64_t);
    const size_t pc = W * pc_rows(p, (int)nl) * sizeof(uint32_t);
    z->cs_n = (size_t)p->nangles * cs1 <= BUF_BYTES_MAX ? p->nangles : 1;
    z->cs = p->need_mom && cs1 <= BUF_BYTES_MAX ? (size_t)z->cs_n * cs1 : 0;
    z->pc = p->need_hist && !p->need_marg && pc <= BUF_BYTES_MAX ? pc : 0;
    z->hist = nl * L * L * sizeof(uint16_t);
}

/* A worker's buffers, made on its first band: an engine that never
 * computes (a map computed in its group's pass, or a worker the pool never
 * runs) holds none. */
static winent_status scratch_ready(const winent_glcm_cpu *e, glcm_scratch *s, winent_err *err)
{
    if (s->hist != NULL)
        return WINENT_OK;
    scratch_sizes z;
    sizes_of(e->plan, e->max_width, &z);
    s->cs_n = z.cs_n;
    s->marg = calloc(1, z.marg);
    s->sum = malloc(z.sum);
    s->cnt = malloc(z.cnt);
    if (z.cs > 0)
        s->cs = malloc(z.cs);
    if (z.pc > 0)
        s->pc = malloc(z.pc);
    /* hist last: its presence says the rest is there */
    if (s->marg != NULL && s->sum != NULL && s->cnt != NULL && (s->cs != NULL || z.cs == 0) &&
        (s->pc != NULL || z.pc == 0))
        s->hist = calloc(1, z.hist);
    if (s->hist != NULL) {
        s->held = z.marg + z.sum + z.cnt + z.cs + z.pc + z.hist;
        return WINENT_OK;
    }
    free(s->marg), free(s->sum), free(s->cnt), free(s->cs), free(s->pc);
    s->marg = NULL, s->sum = NULL, s->cnt = NULL, s->cs = NULL, s->pc = NULL;
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the GLCM engine");
}

size_t winent_glcm_cpu_scratch_bytes(const winent_glcm_plan *p, int width, int band_rows)
{
    scratch_sizes z;
    sizes_of(p, width, &z);
    const size_t W = (size_t)(width > 0 ? width : 1);
    const size_t codes = (size_t)(band_rows + 2 * p->ry) * W * sizeof(uint16_t);
    return z.marg + z.sum + z.cnt + z.cs + z.pc + z.hist + codes;
}

size_t winent_glcm_cpu_scratch_held(const winent_glcm_cpu *e)
{
    size_t b = 0;
    for (int t = 0; t < e->threads; t++)
        b += e->scratch[t].held + e->scratch[t].codes_cap * sizeof(uint16_t);
    return b;
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
    WINENT_TRY(scratch_ready(e, s, err));
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
    memset(s->cs_ok, 0, sizeof s->cs_ok); /* moments slide within one band only */
    for (int y = ya; y < yb;) {
        const int nl = yb - y >= e->lanes ? e->lanes : 1;
        compute_rows(e, &g, s, y, nl, in0, out, (size_t)(y - c->y0) * out_stride, out_stride);
        y += nl;
    }
    return WINENT_OK;
}

winent_status winent_glcm_cpu_compute(winent_glcm_cpu *e, const winent_chunk *c,
                                      float *const *out, size_t out_stride, winent_err *err)
{
    return winent_glcm_cpu_compute_rows(e, 0, c, c->y0, c->y1, out, out_stride, err);
}
