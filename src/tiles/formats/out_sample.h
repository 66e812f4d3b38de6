/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * out_sample.h - the output's sample type (--ot): float32 as computed,
 * IEEE float16, or integer codes round(H / scale) with one code kept for
 * NaN. Every sink converts its float rows through here, and --decode's
 * reader converts a .zst's samples back, so the rule lives in one place
 * (docs/SPEC.md, "Output sample types"). Pure functions: any thread.
 */
#ifndef WINENT_OUT_SAMPLE_H
#define WINENT_OUT_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "winent.h"

/* How the samples of one output are stored. */
typedef struct winent_out_sample {
    winent_out_type type;
    int bytes;            /* per sample: 4, 2, 2, 1 */
    int is_int;           /* uint16, uint8 */
    double scale, offset; /* integers: value = code * scale + offset (offset 0);
                             floats: 1 and 0 */
    uint32_t max_code;    /* integers: the largest code of a value (65534, 254) */
    uint32_t nodata_code; /* integers: the code of NaN (65535, 255) */
} winent_out_sample;

/* The type's name as --ot and the .zst header write it ("float32",
 * "float16", "uint16", "uint8"); "?" for an unknown type. */
const char *winent_out_type_name(winent_out_type t);

/* The type named `name` (as winent_out_type_name); -1 when none is. */
int winent_out_type_parse(const char *name, winent_out_type *t);

/* `q` for type `t` when the largest value the map can hold is `top`
 * (winent_compute_top): integers spread 0 .. top over 0 .. max_code. A
 * top of 0 (a 1 x 1 window) gives scale 1. */
void winent_out_sample_init(winent_out_sample *q, winent_out_type t, double top);

/* `n` floats into the type's little-endian samples at `dst` (n * bytes). */
void winent_out_encode(const winent_out_sample *q, const float *src, size_t n, uint8_t *dst);

/* `n` little-endian samples at `src` back into floats (NaN for the nodata
 * code; code * scale + offset, rounded once to float32). */
void winent_out_decode(const winent_out_sample *q, const uint8_t *src, size_t n, float *dst);

/* IEEE 754 binary16 of `f`, rounded to nearest even (NaN stays NaN,
 * overflow is infinity), and back (exact). */
uint16_t winent_half_of(float f);
float winent_half_to_float(uint16_t h);

#endif
