/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_choose.h - the CPU engine's paths as one table
 * (winent_cpu_paths: what each takes, what it costs) and the choice of a
 * band's path from it (winent_cpu_choose). Both the engine's bands
 * (winent_cpu_engine_compute_rows) and its launch estimate for `auto`
 * (winent_cpu_engine_ns_per_update) read this one table, so the estimate
 * is the cost of the path a band would take. Pure: no kernel runs; what
 * costs a scan of the band (nodata seen, bins changing per step) is asked
 * through the probes, only by the rows that need it.
 */
#ifndef WINENT_ENGINE_CPU_CHOOSE_H
#define WINENT_ENGINE_CPU_CHOOSE_H

#include "engine_cpu_simd.h"

/* The paths, in the order winent_cpu_engine_last_path names them. */
typedef enum winent_cpu_path {
    WINENT_CPU_SLIDE,   /* the sliding histograms (engine_cpu.c) */
    WINENT_CPU_FEW,     /* codes < 16: column histograms of 16 bins (engine_cpu_simd.c) */
    WINENT_CPU_COLS64,  /* codes < 64: the column path of 64 bins (engine_cpu_cols.c) */
    WINENT_CPU_COLS256, /* other 8-bit codes: the column path of 256 bins */
    WINENT_CPU_CMP,     /* small windows: codes compared (engine_cpu_cmp.c) */
    WINENT_CPU_REMAP,   /* wide codes renumbered per tile, then slid */
    WINENT_CPU_NPATHS
} winent_cpu_path;

/* What the choice reads. The engine's part is fixed when it is made; the
 * band's part comes from the band's codes (or, for the estimate, from a
 * sample of rows). */
typedef struct winent_cpu_choice_in {
    /* The engine's. */
    winent_few_path few;  /* the few-values path's ISA; NONE: not for this plan */
    winent_few_path cols; /* the column paths' ISA; NONE: not for this plan */
    int cmp;              /* the compare kernel takes this plan's windows */
    int cols_forced;      /* WINENT_CPU_PATH named an ISA: the column paths take
                             their bands whether or not they should pay */
    int remap;            /* codes past 65536: renumbered per tile */
    int kx, ky;
    int measure; /* the plan's last step (winent_measure_rule.kind): its cost
                    is added to every path's, and the compare kernel counts
                    the entropy only */
    /* The band's. */
    int code8; /* its codes fit a byte (what the few, column and compare paths read) */
    int top;   /* its largest code (the sentinel's where a pixel holds it), with code8 */
    /* Probes of the band, called at most once each per choice: whether a
     * pixel is nodata (the compare kernel counts every code), and about
     * how many bins a step changes for a column path of `bins` bins
     * (winent_cols_changes). */
    int (*nodata_seen)(void *ctx);
    double (*changes)(void *ctx, int bins);
    void *ctx;
} winent_cpu_choice_in;

/* One path: when it takes a band and what it costs there. */
typedef struct winent_cpu_path_row {
    winent_cpu_path path;
    const char *name; /* as winent_cpu_engine_last_path says it */
    int bins;         /* its kernel's histogram bins (0: the sliding engine's) */
    int tall;         /* it sets up Ky rows of columns per band: bands of two windows */
    /* Whether it takes the band; when `ns` is not NULL, its cost there in
     * nanoseconds per pixel entering or leaving a window, per core. */
    int (*takes)(const winent_cpu_choice_in *in, double *ns);
} winent_cpu_path_row;

/* The table, in the order of the choice (the first row that takes a band
 * is its path; the last, the sliding engine, takes any). */
extern const winent_cpu_path_row winent_cpu_paths[WINENT_CPU_NPATHS];

/* The path of a band: the first row of winent_cpu_paths that takes it;
 * its cost in *ns (may be NULL: then no probe runs only for the cost).
 * Thread-safe. */
const winent_cpu_path_row *winent_cpu_choose(const winent_cpu_choice_in *in, double *ns);

/* What measure `measure` (winent_measure_rule.kind) adds to the entropy's
 * cost on path `p` for windows `ky` rows high, in the table's nanoseconds
 * per update: its last step's cost per pixel beyond the entropy's there,
 * spread over the pixel's 2 Ky updates (0 for the entropy). */
double winent_cpu_measure_ns(int measure, winent_cpu_path p, int ky);

/* The row of path `p`. */
const winent_cpu_path_row *winent_cpu_path_row_of(winent_cpu_path p);

#endif
