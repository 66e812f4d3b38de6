/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_disk.h - the CPU engine's shaped windows (--disk R, and any
 * footprint: --footprint FILE, winent_compute_opts.footprint): a sliding
 * histogram like the square windows', whose step removes, in each run of
 * each row of the window, the pixel leaving at x + a and adds the one
 * entering at x + b + 1: two updates a run (a disk: 2 (2R + 1) a pixel,
 * the square's count for the same diameter). The engine (engine_cpu.c)
 * makes the codes and hands a band here when the plan is shaped.
 */
#ifndef WINENT_ENGINE_CPU_DISK_H
#define WINENT_ENGINE_CPU_DISK_H

#include <stddef.h>
#include <stdint.h>

#include "entropy_plan.h"

/* Rows sliding in lockstep, each with its own histogram: the caller hands
 * this many zeroed histograms. */
#define WINENT_DISK_LANES 4

/* Where the band's codes are and where its floats go. Image coordinates:
 * code (y, x) is at base[(y - oy) * stride + (x - ox)], in codes of
 * `code_size` bytes (1, 2 or 4). */
typedef struct winent_disk_job {
    const winent_plan *plan; /* borrowed: the window's runs and the tables */
    const void *base;
    size_t stride; /* in codes */
    size_t code_size;
    int ox, oy;
    int W, H;      /* the image */
    uint32_t sent; /* the code of a pixel not counted */
    int has_sent;  /* 0: every pixel is counted */
    float *out;    /* output row out_y0, rows out_stride floats apart */
    size_t out_stride;
    int out_y0;
} winent_disk_job;

/* Bytes of the scratch winent_cpu_disk_rows needs for plan `p`'s runs. */
size_t winent_cpu_disk_scratch_bytes(const winent_plan *p);

/* Output rows [ya, yb) x columns [xa, xb) of the shaped window: the bits
 * of the reference engine. `hist` are WINENT_DISK_LANES histograms of
 * counts, one bin per code the job's codes can take (sentinel included),
 * zero on entry and left zero; `scratch` winent_cpu_disk_scratch_bytes of
 * the thread's own. One thread; any number at once on their own
 * histograms and scratch. */
void winent_cpu_disk_rows(const winent_disk_job *j, int ya, int yb, int xa, int xb,
                          uint16_t *const *hist, void *scratch);

#endif
