/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_disk.h - the CPU engine's circular windows (--disk R): a
 * sliding histogram like the square windows', whose step removes, in each
 * row dy of the disk, the pixel leaving at x - hw(dy) and adds the one
 * entering at x + 1 + hw(dy): 2 (2R + 1) updates a pixel, the square's
 * count for the same diameter. The engine (engine_cpu.c) makes the codes
 * and hands a band here when the plan is a disk.
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
    const winent_plan *plan; /* borrowed: the disk (rx, hw) and the tables */
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

/* Output rows [ya, yb) x columns [xa, xb) of the disk window: the bits of
 * the reference engine. `hist` are WINENT_DISK_LANES histograms of counts,
 * one bin per code the job's codes can take (sentinel included), zero on
 * entry and left zero. One thread; any number at once on their own
 * histograms. */
void winent_cpu_disk_rows(const winent_disk_job *j, int ya, int yb, int xa, int xb,
                          uint16_t *const *hist);

#endif
