/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_choose.c - the CPU engine's paths as one table and the
 * choice of a band's path (engine_cpu_choose.h). Any path gives the same
 * bits: the choice is about speed only.
 */
#include "engine_cpu_choose.h"

#include "engine_cpu_cmp.h"
#include "engine_cpu_cols.h"

#include <stddef.h>

/* Best cases per update and core, measured on the benchmark machine's
 * cores (docs/PERFORMANCE.md): the few-values path about 0.47 ns, the
 * sliding histogram 2.1-3.3 ns. The compare and column paths' costs are
 * their models' ratios to the sliding engine's. */
#define NS_FEW 0.45
#define NS_SLIDE 2.0

/* The last step of each measure (winent_measure_rule.kind: entropy, renyi,
 * simpson, richness, evenness, majority), nanoseconds per pixel on one core
 * of the development machine (estimates from their operations, consistent
 * with the differences of whole 2048 x 2048 jobs, docs/PERFORMANCE.md):
 * the entropy's division as the sliding engine
 * does it (scalar) and as the few-values and column paths do it (8 or 4 in
 * one vector division); the others per pixel on every path (renyi's a
 * logarithm in plain arithmetic, evenness an integer division); the
 * majority's search for its mode (a scan of the window's bins when the
 * mode's count falls). The paths' costs above are the entropy's; another
 * measure adds the difference, spread over the 2 Ky updates of a pixel. */
static const double finish_ns[] = {4.0, 17.0, 4.0, 1.0, 12.0, 6.0};
#define FINISH_NS_SIMD 0.8
#define FINISH_NS_RENYI_SIMD 6.0
#define MEASURE_MAJORITY 5

double winent_cpu_measure_ns(int measure, winent_cpu_path p, int ky)
{
    if (measure <= 0 || measure >= (int)(sizeof finish_ns / sizeof finish_ns[0]))
        return 0.0;
    const int simd = p == WINENT_CPU_FEW || p == WINENT_CPU_COLS64 || p == WINENT_CPU_COLS256;
    const double entropy = simd ? FINISH_NS_SIMD : finish_ns[0];
    /* Renyi's logarithm runs 4 at a time on those paths (winent_few_finish). */
    const double own = simd && measure == 1 ? FINISH_NS_RENYI_SIMD : finish_ns[measure];
    return (own - entropy) / (2.0 * (ky > 1 ? ky : 1));
}

static double measure_ns(const winent_cpu_choice_in *in, const winent_cpu_path_row *row)
{
    return winent_cpu_measure_ns(in->measure, row->path, in->ky);
}

static int few_takes(const winent_cpu_choice_in *in, double *ns)
{
    if (!in->code8 || in->few == WINENT_FEW_NONE || in->top >= WINENT_FEW_BINS ||
        in->measure == MEASURE_MAJORITY)
        return 0;
    if (ns)
        *ns = NS_FEW;
    return 1;
}

/* Small windows of bytes where no pixel is nodata (the kernel counts every
 * code): whatever the codes, ahead of the column paths. */
static int cmp_takes(const winent_cpu_choice_in *in, double *ns)
{
    if (!in->code8 || !in->cmp || in->measure != 0 || (in->few == WINENT_FEW_NONE && in->cols == WINENT_FEW_NONE))
        return 0;
    if (in->nodata_seen != NULL && in->nodata_seen(in->ctx))
        return 0;
    if (ns)
        *ns = NS_SLIDE * winent_cmp_ratio(in->kx, in->ky);
    return 1;
}

/* A column path of `bins` bins, left to itself only where its steps should
 * change few enough bins to beat the sliding engine (its cost model,
 * winent_cols_pays); forced, wherever the codes fit. The majority's takes
 * every band of byte keys (engine_cpu_majority.c: its sliding histogram
 * rescans the window's pixels where the mode leaves). */
static int cols_takes(const winent_cpu_choice_in *in, int bins, double *ns)
{
    if (!in->code8 || in->cols == WINENT_FEW_NONE)
        return 0;
    if ((bins == WINENT_COLS_BINS_SMALL) != (in->top < WINENT_COLS_BINS_SMALL))
        return 0;
    if (in->cols_forced && ns == NULL)
        return 1;
    const double changes = in->changes != NULL ? in->changes(in->ctx, bins) : 0.0;
    double ratio = 1.0;
    const int pays = winent_cols_pays(in->cols, bins, in->ky, changes, &ratio);
    if (!pays && !in->cols_forced && in->measure != MEASURE_MAJORITY)
        return 0;
    if (ns)
        *ns = NS_SLIDE * ratio;
    return 1;
}

static int cols64_takes(const winent_cpu_choice_in *in, double *ns)
{
    return cols_takes(in, WINENT_COLS_BINS_SMALL, ns);
}

static int cols256_takes(const winent_cpu_choice_in *in, double *ns)
{
    return cols_takes(in, WINENT_COLS_BINS_LARGE, ns);
}

static int remap_takes(const winent_cpu_choice_in *in, double *ns)
{
    if (!in->remap)
        return 0;
    if (ns)
        *ns = NS_SLIDE;
    return 1;
}

static int slide_takes(const winent_cpu_choice_in *in, double *ns)
{
    (void)in;
    if (ns)
        *ns = NS_SLIDE;
    return 1;
}

const winent_cpu_path_row winent_cpu_paths[WINENT_CPU_NPATHS] = {
    /* path, name, bins, tall, takes */
    {WINENT_CPU_FEW, "few", WINENT_FEW_BINS, 1, few_takes},
    {WINENT_CPU_CMP, "cmp", 0, 1, cmp_takes},
    {WINENT_CPU_COLS64, "cols64", WINENT_COLS_BINS_SMALL, 1, cols64_takes},
    {WINENT_CPU_COLS256, "cols256", WINENT_COLS_BINS_LARGE, 1, cols256_takes},
    {WINENT_CPU_REMAP, "remap", 0, 0, remap_takes},
    {WINENT_CPU_SLIDE, "slide", 0, 0, slide_takes},
};

const winent_cpu_path_row *winent_cpu_choose(const winent_cpu_choice_in *in, double *ns)
{
    const winent_cpu_path_row *row = &winent_cpu_paths[WINENT_CPU_NPATHS - 1];
    for (int i = 0; i < WINENT_CPU_NPATHS - 1; i++)
        if (winent_cpu_paths[i].takes(in, ns)) {
            row = &winent_cpu_paths[i];
            break;
        }
    if (row->path == WINENT_CPU_SLIDE)
        row->takes(in, ns);
    if (ns)
        *ns += measure_ns(in, row);
    return row;
}

const winent_cpu_path_row *winent_cpu_path_row_of(winent_cpu_path p)
{
    for (int i = 0; i < WINENT_CPU_NPATHS; i++)
        if (winent_cpu_paths[i].path == p)
            return &winent_cpu_paths[i];
    return &winent_cpu_paths[WINENT_CPU_NPATHS - 1];
}
