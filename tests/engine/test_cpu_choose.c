/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU engine's choice of a band's path from its table
 * (engine_cpu_choose.h), without running a kernel: for the facts of a band
 * (the engine's ISAs, the band's codes, what its probes say), the path a
 * plain restatement of the rules below expects, its cost as the estimate
 * for `auto` reads it, and which probes ran (a probe scans the band: the
 * compare kernel's nodata scan only where that kernel could take the band,
 * the column paths' change count only where the cost model decides).
 *
 * The rules: codes of a byte below 16 with a few-values ISA take the
 * few-values path; else small windows with the compare kernel take it
 * unless a pixel is nodata; else bytes with a column ISA take the column
 * path of 64 bins (codes < 64) or 256, where the model says it pays or the
 * ISA was forced; else wide codes are renumbered per tile (remap); else
 * the sliding engine. The other measures of a window's histogram take the
 * same paths but the compare kernel (it sums the entropy's logs); the
 * majority never the few-values path, and a column path wherever its keys
 * fit (its own kernel takes every such band); each measure's cost is the
 * entropy's plus its last step's (winent_cpu_measure_ns), larger for all
 * but richness, and but for renyi's (vectorized on the column paths)
 * cheapest where the entropy's division is scalar.
 */
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu_choose.h"
#include "kernels/engine_cpu_cmp.h"
#include "kernels/engine_cpu_cols.h"

typedef struct probe {
    int nodata;      /* what the nodata probe says */
    double changes;  /* what the change probe says */
    int nodata_calls, changes_calls, changes_bins;
} probe;

static int nodata_seen(void *ctx)
{
    probe *p = ctx;
    p->nodata_calls++;
    return p->nodata;
}

static double changes(void *ctx, int bins)
{
    probe *p = ctx;
    p->changes_calls++;
    p->changes_bins = bins;
    return p->changes;
}

typedef struct ccase {
    int measure; /* winent_measure_rule.kind: 0 entropy, 1 renyi, 2 simpson, 3 richness,
                    4 evenness, 5 majority */
    const char *name;
    winent_few_path few, cols;
    int cmp, forced, remap, k, code8, top;
    int nodata;        /* the band holds a nodata pixel */
    double changes;    /* bins a step changes */
    winent_cpu_path want;
    int want_nodata_calls, want_changes_calls;
} ccase;

#define P WINENT_FEW_PORTABLE
#define A2 WINENT_FEW_AVX2
#define N WINENT_FEW_NONE

/* Zero changes pay at 31 x 31 for every ISA; a million never do. */
static const ccase cases[] = {
    {0, "bytes < 16, few ISA", A2, A2, 1, 0, 0, 5, 1, 15, 1, 1e6, WINENT_CPU_FEW, 0, 0},
    {0, "bytes < 16, no few ISA, compare kernel", N, A2, 1, 0, 0, 5, 1, 15, 0, 0, WINENT_CPU_CMP, 1, 0},
    {0, "16 codes, compare kernel", A2, A2, 1, 0, 0, 5, 1, 16, 0, 0, WINENT_CPU_CMP, 1, 0},
    {0, "compare kernel, nodata: column path", A2, A2, 1, 0, 0, 31, 1, 16, 1, 0, WINENT_CPU_COLS64, 1, 1},
    {0, "compare kernel, nodata, noise: slide", A2, A2, 1, 0, 0, 31, 1, 200, 1, 1e6, WINENT_CPU_SLIDE, 1, 1},
    {0, "no ISA at all: no compare kernel", N, N, 1, 0, 0, 5, 1, 100, 0, 0, WINENT_CPU_SLIDE, 0, 0},
    {0, "63 codes, smooth", A2, A2, 0, 0, 0, 31, 1, 63, 0, 0, WINENT_CPU_COLS64, 0, 1},
    {0, "64 codes, smooth", A2, A2, 0, 0, 0, 31, 1, 64, 0, 0, WINENT_CPU_COLS256, 0, 1},
    {0, "255 codes, noise", P, P, 0, 0, 0, 31, 1, 255, 0, 1e6, WINENT_CPU_SLIDE, 0, 1},
    {0, "255 codes, noise, forced ISA", P, P, 0, 1, 0, 31, 1, 255, 0, 1e6, WINENT_CPU_COLS256, 0, 0},
    {0, "16-bit codes", A2, A2, 1, 0, 0, 5, 0, 0, 0, 0, WINENT_CPU_SLIDE, 0, 0},
    {0, "wide codes", N, N, 0, 0, 1, 9, 0, 0, 0, 0, WINENT_CPU_REMAP, 0, 0},
    {0, "slide forced", N, N, 0, 0, 0, 9, 1, 3, 0, 0, WINENT_CPU_SLIDE, 0, 0},
    /* The other measures. */
    {2, "simpson, bytes < 16, few ISA", A2, A2, 1, 0, 0, 5, 1, 15, 1, 1e6, WINENT_CPU_FEW, 0, 0},
    {2, "simpson, compare kernel's window: not it", N, A2, 1, 0, 0, 15, 1, 100, 0, 0,
     WINENT_CPU_COLS256, 0, 1},
    {1, "renyi, 63 codes, smooth", A2, A2, 0, 0, 0, 15, 1, 63, 0, 0, WINENT_CPU_COLS64, 0, 1},
    {4, "evenness, noise: slide", P, P, 0, 0, 0, 31, 1, 255, 0, 1e6, WINENT_CPU_SLIDE, 0, 1},
    {3, "richness, 16-bit codes", A2, A2, 1, 0, 0, 5, 0, 0, 0, 0, WINENT_CPU_SLIDE, 0, 0},
    {5, "majority, bytes < 16: columns, not few", N, A2, 0, 0, 0, 15, 1, 15, 0, 0,
     WINENT_CPU_COLS64, 0, 1},
    {5, "majority, noise: columns all the same", N, A2, 0, 0, 0, 31, 1, 255, 0, 1e6,
     WINENT_CPU_COLS256, 0, 1},
    {5, "majority, 16-bit codes: slide", N, N, 0, 0, 0, 15, 0, 0, 0, 0, WINENT_CPU_SLIDE, 0, 0},
};

static winent_cpu_choice_in input(const ccase *c, probe *pr)
{
    winent_cpu_choice_in in;
    memset(&in, 0, sizeof in);
    in.few = c->few;
    in.cols = c->cols;
    in.cmp = c->cmp;
    in.cols_forced = c->forced;
    in.remap = c->remap;
    in.kx = in.ky = c->k;
    in.measure = c->measure;
    in.code8 = c->code8;
    in.top = c->top;
    in.nodata_seen = nodata_seen;
    in.changes = changes;
    in.ctx = pr;
    pr->nodata = c->nodata;
    pr->changes = c->changes;
    return in;
}

/* The entropy's cost the estimate should read for path `p` on case `c`:
 * the models' figures (few 0.45 ns, the sliding engine 2 ns, the others
 * its ratio). */
static double entropy_cost(const ccase *c, winent_cpu_path p)
{
    double ratio = 1.0;
    switch (p) {
    case WINENT_CPU_FEW: return 0.45;
    case WINENT_CPU_CMP: return 2.0 * winent_cmp_ratio(c->k, c->k);
    case WINENT_CPU_COLS64:
        winent_cols_pays(c->cols, 64, c->k, c->changes, &ratio);
        return 2.0 * ratio;
    case WINENT_CPU_COLS256:
        winent_cols_pays(c->cols, 256, c->k, c->changes, &ratio);
        return 2.0 * ratio;
    default: return 2.0;
    }
}

/* The measure's: the entropy's plus its last step's. */
static double want_cost(const ccase *c, winent_cpu_path p)
{
    return entropy_cost(c, p) + winent_cpu_measure_ns(c->measure, p, c->k);
}

static void run_case(const ccase *c)
{
    /* The choice as the bands make it: no cost asked. */
    probe pr;
    memset(&pr, 0, sizeof pr);
    winent_cpu_choice_in in = input(c, &pr);
    const winent_cpu_path_row *row = winent_cpu_choose(&in, NULL);
    CHECK(row->path == c->want, "%s: took %s, expected %s", c->name, row->name,
          winent_cpu_path_row_of(c->want)->name);
    CHECK(pr.nodata_calls == c->want_nodata_calls, "%s: nodata probed %d times, expected %d",
          c->name, pr.nodata_calls, c->want_nodata_calls);
    CHECK(pr.changes_calls == c->want_changes_calls, "%s: changes probed %d times, expected %d",
          c->name, pr.changes_calls, c->want_changes_calls);
    if (pr.changes_calls)
        CHECK(pr.changes_bins == (c->top < 64 ? 64 : 256), "%s: changes probed for %d bins",
              c->name, pr.changes_bins);
    /* The same choice as the estimate makes it, with its cost. */
    memset(&pr, 0, sizeof pr);
    in = input(c, &pr);
    double ns = -1.0;
    const winent_cpu_path_row *est = winent_cpu_choose(&in, &ns);
    CHECK(est == row, "%s: the estimate took %s, the band %s", c->name, est->name, row->name);
    const double want = want_cost(c, c->want);
    CHECK(ns == want, "%s: cost %g ns per update, expected %g", c->name, ns, want);
    /* The table's own facts about the path. */
    CHECK(row == winent_cpu_path_row_of(row->path), "%s: row of %s", c->name, row->name);
    CHECK(row->tall == (c->want == WINENT_CPU_FEW || c->want == WINENT_CPU_CMP ||
                        c->want == WINENT_CPU_COLS64 || c->want == WINENT_CPU_COLS256),
          "%s: %s tall %d", c->name, row->name, row->tall);
}

int main(void)
{
    /* The model's premises for the cases above. */
    CHECK(winent_cols_pays(P, 256, 31, 0.0, NULL) && winent_cols_pays(A2, 64, 31, 0.0, NULL),
          "no change at 31 x 31: a column path should pay");
    CHECK(!winent_cols_pays(P, 256, 31, 1e6, NULL) && !winent_cols_pays(A2, 256, 31, 1e6, NULL),
          "a million changes: no column path should pay");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    /* Every path has one row, named as winent_cpu_engine_last_path says,
     * and the last row takes any band. */
    static const char *const names[] = {"slide", "few", "cols64", "cols256", "cmp", "remap"};
    for (int p = 0; p < WINENT_CPU_NPATHS; p++) {
        int rows = 0;
        for (int i = 0; i < WINENT_CPU_NPATHS; i++)
            rows += winent_cpu_paths[i].path == (winent_cpu_path)p;
        CHECK(rows == 1, "path %d: %d rows", p, rows);
        CHECK(!strcmp(winent_cpu_path_row_of((winent_cpu_path)p)->name, names[p]),
              "path %d named %s", p, winent_cpu_path_row_of((winent_cpu_path)p)->name);
    }
    /* Each measure's last step: none for the entropy; richness (a count)
     * cheaper than the entropy's scalar division, the others dearer than
     * its vector one; spread over the 2 Ky updates of a pixel. */
    for (int k = 0; k < 3; k++) {
        const winent_cpu_path p = k == 0 ? WINENT_CPU_SLIDE : k == 1 ? WINENT_CPU_COLS64
                                                                     : WINENT_CPU_FEW;
        CHECK(winent_cpu_measure_ns(0, p, 15) == 0.0, "entropy adds to itself on %d", (int)p);
        CHECK(winent_cpu_measure_ns(3, WINENT_CPU_SLIDE, 15) < 0.0, "richness dearer than entropy");
        for (int m = 1; m <= 5; m++) {
            const double a = winent_cpu_measure_ns(m, p, 5), b = winent_cpu_measure_ns(m, p, 25);
            CHECK(a == 5.0 * b, "measure %d path %d: not spread over 2 Ky updates", m, (int)p);
            if (p != WINENT_CPU_SLIDE && m != 3)
                CHECK(a > 0.0, "measure %d on path %d: not dearer than the entropy", m, (int)p);
            /* Renyi's logarithm is vectorized on the column paths alone. */
            CHECK(p == WINENT_CPU_SLIDE ||
                      (m == 1) == (winent_cpu_measure_ns(m, WINENT_CPU_SLIDE, 5) > a),
                  "measure %d: its extra cost on the slide against path %d's", m, (int)p);
        }
    }
    winent_cpu_choice_in none;
    memset(&none, 0, sizeof none);
    CHECK(winent_cpu_choose(&none, NULL)->path == WINENT_CPU_SLIDE, "no facts: not the slide");
    return harness_end();
}
