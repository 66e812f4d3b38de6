/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_cols.h - the CPU engine's paths for chunks of up to 64 and up
 * to 256 8-bit codes (land-cover maps, 8-bit imagery), internal to
 * src/kernels.
 *
 * Per band of output rows and strip of columns it keeps, for every column,
 * the byte histogram of the column's Ky window rows (64 or 256 bins), moved
 * down one row per output row. Along a row the window's 16-bit histogram and
 * its S = sum T[count] slide by one column: the entering and the leaving
 * column histograms are compared in SIMD, and only the bins where they
 * differ update the window's counts and S (two table lookups each). On
 * spatially correlated data (class maps, imagery) neighbouring columns share
 * most codes, so few bins change per step; on noise about 2 * Ky do. The
 * divisions of a row run 8 (AVX-512) or 4 (AVX2) at a time. Every path
 * (AVX-512, AVX2, portable C) sums the same int64 terms exactly and finishes
 * with the shared division, so they give the reference's bits.
 */
#ifndef WINENT_ENGINE_CPU_COLS_H
#define WINENT_ENGINE_CPU_COLS_H

#include <stddef.h>
#include <stdint.h>

#include "engine_cpu_simd.h"

/* The two histogram widths: codes below 64 and below 256. */
#define WINENT_COLS_BINS_SMALL 64
#define WINENT_COLS_BINS_LARGE 256

/* The ISA of the column paths (the few-values path's names: NONE, PORTABLE,
 * AVX2, AVX512) for `kx` x `ky` windows on this CPU. `request` is
 * WINENT_CPU_PATH as winent_few_choose reads it: "slide" gives
 * WINENT_FEW_NONE (the sliding engine does everything), "portable", "avx2"
 * or "avx512" that ISA lowered to what the CPU has; NULL or empty the
 * fastest. Windows taller than 255 rows (byte column counts) get NONE.
 * Thread-safe. */
winent_few_path winent_cols_choose(int kx, int ky, const char *request);

/* Bytes of scratch one thread needs for rows `max_width` wide, either
 * histogram width. */
size_t winent_cols_scratch_bytes(int max_width, int rx);

/* The largest code of `h` rows of `w` 8-bit codes (row stride `stride`). */
int winent_cols_max_code(const uint8_t *codes, size_t stride, int w, int h);

/* About how many bins of the window change per step along output row `y`
 * of the job (its codes below 256): the entering and leaving columns of
 * `samples` windows spread along the row, compared. 0 when the row has no
 * full-width step (images narrower than the window plus one). */
double winent_cols_changes(const winent_few_job *j, int y, int samples);

/* Whether the column path through `isa` with `bins` bins beats the sliding
 * engine (2 Ky updates per pixel) on `ky`-high windows whose steps change
 * `changes` bins (winent_cols_changes): a cost model fitted on this
 * project's measurements (docs/PERFORMANCE.md, issue 32). Writes the
 * column path's estimated cost relative to the sliding engine's to
 * `*ratio` (may be NULL). */
int winent_cols_pays(winent_few_path isa, int bins, int ky, double changes, double *ratio);

/* Output rows [ya, yb) of the job (every code below `bins`, 64 or 256; the
 * job's `sent` below `bins` or -1) through `isa` (not NONE), all columns.
 * `scratch` has winent_cols_scratch_bytes(W, rx) bytes, 64-byte
 * aligned. */
void winent_cols_rows(const winent_few_job *j, int bins, winent_few_path isa, int ya, int yb,
                      void *scratch);

#endif
