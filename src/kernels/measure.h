/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * measure.h - the measures of a window's histogram (measure.c): checks,
 * the per-measure table T of the running sum, and the largest value.
 */
#ifndef WINENT_MEASURE_H
#define WINENT_MEASURE_H

#include <stdint.h>

#include "entropy_rule.h"
#include "winent.h"
#include "../base/werr.h"

/* 1 for a co-occurrence (GLCM) measure, which the GLCM engine computes. */
int winent_measure_is_glcm(winent_measure m);

/* The measure's options (a known measure; renyi's Q >= 0 and small enough
 * for the window; a co-occurrence measure's distance, angles, rectangle,
 * and, with `dtype_known`, its levels: usage errors naming the option in
 * the door's words `w`). */
winent_status winent_measure_check(const winent_compute_opts *o, int dtype_known, winent_words w,
                                   winent_err *err);

/* T[0 .. nmax] of o's measure into `t` (`lq`: the entropy's log table,
 * [0 .. nmax]) and the rule of its last step. o must pass the check. */
void winent_measure_tables(const winent_compute_opts *o, int nmax, const int64_t *lq, int64_t *t,
                           winent_measure_rule *rule);

/* The largest value o's measure takes on windows of `n` pixels with
 * `bins` bins (0: distinct values): the scale of integer outputs. */
double winent_measure_top(const winent_compute_opts *o, double n, uint32_t bins);

/* 1 for the measures in the base's unit (bits, nats, bans): the
 * entropies and the mutual information; 0 for a count, a ratio, a value.
 * `text` (or NULL): the measure as winent_measure_text writes it, for a
 * reader of a header (NULL or "" is the entropy). */
int winent_measure_has_unit(winent_measure m);
int winent_measure_text_has_unit(const char *text);

/* 1 where o's map can be NaN at a valid pixel (so an output must name a
 * nodata value even without nodata in the input): a co-occurrence window
 * with no pair, a majority of a footprint that leaves out its centre. */
int winent_measure_can_be_nan(const winent_compute_opts *o);

/* The smallest value o's measure takes (its dtype and range set): below
 * 0 for a correlation, a cluster shade, a majority of negative values. */
double winent_measure_bottom(const winent_compute_opts *o);

/* A majority of bins (o's range set) whose values float32 holds: a bin's
 * centre past its largest value would be an infinity in the map. The
 * check of winent_measure_check, and of a job's run once --range auto
 * found the range. */
winent_status winent_majority_check(const winent_compute_opts *o, winent_words w,
                                    winent_err *err);

/* How a reduced-resolution view of a measure's map (a COG's overviews,
 * the --preview image) is made from the pixels below it: the mean of
 * the valid values for a quantity, where a mean of neighbours is itself
 * a value the measure could take in between; the mode (the most frequent
 * valid value, ties to the smallest) for a class map, the majority, where
 * a mean would invent classes that exist nowhere in the map
 * (docs/SPEC.md, "Overviews"). */
typedef enum winent_overview_rule {
    WINENT_OVERVIEW_MEAN = 0,
    WINENT_OVERVIEW_MODE = 1
} winent_overview_rule;

winent_overview_rule winent_measure_overview_rule(winent_measure m);

/* The rule as GDAL names a resampling method (the RESAMPLING item of an
 * overview, gdaladdo -r): "AVERAGE", "MODE". */
const char *winent_overview_rule_gdal(winent_overview_rule r);

/* The majority map's largest magnitude: the dtype's for distinct values,
 * the range's for bins. */
double winent_majority_top(const winent_compute_opts *o);

#endif
