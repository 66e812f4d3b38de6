/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * measure.c - the measures of a window's histogram: their names, their
 * checks, and the table T each one's running sum S = sum T[count] uses
 * (entropy_rule.h gives the formulas; docs/SPEC.md section 1 the ranges).
 *
 * Every table keeps S below 2^62 for the largest window (255 x 255, 65025
 * pixels), so S, T[n] - S and their conversions to double stay exact or
 * rounded once, the same on every engine.
 */
#include "measure.h"

#include "../base/opttable.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[WINENT_MEASURE_COUNT] = {
    "entropy",          "renyi",
    "simpson",          "richness",
    "evenness",         "majority",
    "glcm-entropy",     "glcm-asm",
    "glcm-energy",      "glcm-contrast",
    "glcm-dissimilarity", "glcm-homogeneity",
    "glcm-correlation", "glcm-mean",
    "glcm-variance",    "glcm-cluster-shade",
    "glcm-cluster-prominence", "glcm-cond-entropy",
    "glcm-mutual-info"};

#define MEASURE_WORDS                                                                            \
    "use entropy, renyi:Q, simpson, richness, evenness, majority, or a co-occurrence measure: "  \
    "glcm-entropy, glcm-asm, glcm-energy, glcm-contrast, glcm-dissimilarity, "                 \
    "glcm-homogeneity, glcm-correlation, glcm-mean, glcm-variance, glcm-cluster-shade, "       \
    "glcm-cluster-prominence, glcm-cond-entropy, glcm-mutual-info"

int winent_measure_is_glcm(winent_measure m)
{
    return m >= WINENT_MEASURE_GLCM_ENTROPY && m < WINENT_MEASURE_COUNT;
}

const char *winent_measure_name(winent_measure m)
{
    return (unsigned)m < WINENT_MEASURE_COUNT ? names[m] : "?";
}

int winent_measure_text(const winent_compute_opts *o, char *buf, size_t size)
{
    if (o->measure == WINENT_MEASURE_RENYI)
        return snprintf(buf, size, "renyi:%.17g", o->renyi_q);
    if (winent_measure_is_glcm(o->measure)) {
        /* The pairs' distance and angles where they are not the defaults
         * (1; all four, symmetric): they name different maps. */
        char a[32] = "";
        size_t n = 0;
        const unsigned angles = o->glcm_angles;
        for (int k = 0; angles != 0 && angles != 15u && k < 4; k++)
            if (angles & (1u << k))
                n += (size_t)snprintf(a + n, sizeof a - n, "%s%d", n ? "+" : ":a", 45 * k);
        return snprintf(buf, size, "%s%s%.0d%s%s", winent_measure_name(o->measure),
                        o->glcm_distance > 1 ? ":d" : "",
                        o->glcm_distance > 1 ? o->glcm_distance : 0, a,
                        o->glcm_asymmetric ? ":asym" : "");
    }
    return snprintf(buf, size, "%s", winent_measure_name(o->measure));
}

winent_status winent_measure_parse(const char *text, winent_measure *m, double *q,
                                   winent_error *err)
{
    winent_err e;
    winent_err_clear(&e);
    winent_status st = WINENT_OK;
    *m = WINENT_MEASURE_ENTROPY;
    *q = 0.0;
    if (text == NULL)
        text = "";
    if (strncmp(text, "renyi:", 6) == 0) {
        char *end = NULL;
        double v = strtod(text + 6, &end);
        if (end == text + 6 || *end != '\0' || !isfinite(v) || v < 0.0)
            st = WINENT_ERR(&e, WINENT_ERR_USAGE,
                            "--measure: '%s': renyi's order is a number Q >= 0, e.g. renyi:2",
                            text);
        *m = WINENT_MEASURE_RENYI;
        *q = v;
        return winent_err_export(&e, st, err);
    }
    for (int i = 0; i < WINENT_MEASURE_COUNT; i++)
        if (i != WINENT_MEASURE_RENYI && strcmp(text, names[i]) == 0) {
            *m = (winent_measure)i;
            return winent_err_export(&e, WINENT_OK, err);
        }
    st = WINENT_ERR(&e, WINENT_ERR_USAGE, "--measure: '%s': " MEASURE_WORDS, text);
    return winent_err_export(&e, st, err);
}

/* Renyi's table scale: T[c] = round(c^Q 2^s) with S <= max(n, n^Q) 2^s
 * below 2^61; a Q that is not whole needs s >= 24 (T rounded to 2^-25 of
 * its value or better), a whole Q is exact with any s >= 0. Returns s, or
 * -1 when the window is too large for Q (*qmax: the largest Q it takes). */
static int renyi_scale(double q, int nmax, double *qmax)
{
    const double lb = log2((double)nmax);
    const int whole = q == floor(q);
    const int need = whole ? 0 : 24;
    const double bits = (q > 1.0 ? q : 1.0) * lb;
    const int s = 61 - (int)ceil(bits);
    *qmax = lb > 0.0 ? (61.0 - need) / lb : INFINITY;
    return s >= need ? s : -1;
}

/* The co-occurrence matrix's levels: the bins, else every value of an
 * integer type; at most WINENT_GLCM_LEVELS_MAX (levels^2 cells). */
static winent_status check_levels(const winent_compute_opts *o, winent_words w, winent_err *err)
{
    const unsigned max = 1024; /* WINENT_GLCM_LEVELS_MAX */
    char t[24];
    if (o->bins > max) {
        snprintf(t, sizeof t, "%u", o->bins);
        return winent_opt_say(err, w,
                              "--levels: '%s': give at most %u levels (the matrix has levels^2 "
                              "cells)",
                              "levels=%s: give at most %u levels (the matrix has levels^2 cells)",
                              t, max);
    }
    const size_t size = winent_dtype_size(o->dtype);
    if (o->bins == 0 && !winent_dtype_is_float(o->dtype) && size > 1)
        return winent_opt_say(err, w,
                              "--levels: a %s band has %llu values: give --levels N (at most %u) "
                              "and --range LO:HI to quantize it (the matrix has N^2 cells)",
                              "levels: a %s band has %llu values: give levels=N (at most %u) "
                              "and range=(lo, hi) or 'auto' to quantize it (the matrix has N^2 "
                              "cells)",
                              winent_dtype_word(w, o->dtype), 1ull << (8 * size), max);
    return WINENT_OK;
}

/* A footprint every byte of which is in the window, with odd sides: the
 * rectangle itself (the plan runs it as one), as the CLI's --footprint
 * and Python's footprint= take such a mask. */
static int footprint_is_rectangle(const winent_compute_opts *o)
{
    if (o->footprint == NULL || o->kx % 2 == 0 || o->ky % 2 == 0 || o->kx < 1 || o->ky < 1)
        return 0;
    for (size_t i = 0; i < (size_t)o->kx * (size_t)o->ky; i++)
        if (o->footprint[i] == 0)
            return 0;
    return 1;
}

static winent_status check_glcm(const winent_compute_opts *o, int dtype_known, winent_words w,
                                winent_err *err)
{
    char t[24];
    if (o->glcm_distance < 0 || o->glcm_distance > 127) {
        snprintf(t, sizeof t, "%d", o->glcm_distance);
        return winent_opt_refuse(err, w, "distance", t);
    }
    if (o->glcm_angles > 15u) {
        snprintf(t, sizeof t, "%u", o->glcm_angles);
        return winent_opt_refuse(err, w, "angles", t);
    }
    if (o->disk || (o->footprint != NULL && !footprint_is_rectangle(o)))
        return winent_opt_say(err, w,
                              "--measure %s: the co-occurrence measures take rectangular windows "
                              "only: give --window K or WxH",
                              "measures='%s': the co-occurrence measures take rectangular windows "
                              "only: give window=K or (rows, cols)",
                              winent_measure_name(o->measure));
    /* Their engines centre the window on its pixel: an even side has no
     * middle. */
    if (o->kx % 2 == 0 || o->ky % 2 == 0)
        return winent_opt_say(err, w,
                              "--measure %s: a %dx%d window: the co-occurrence measures take odd "
                              "sides (a middle pixel): give --window K or WxH with K, W, H odd",
                              "measures='%s': a window of %d rows and %d columns: the "
                              "co-occurrence measures take odd sides (a middle pixel): give "
                              "window=K or (rows, cols) with odd numbers",
                              winent_measure_name(o->measure), w == WINENT_WORDS_PYTHON ? o->ky : o->kx,
                              w == WINENT_WORDS_PYTHON ? o->kx : o->ky);
    /* A pair (p, p + (dx, dy)) fits a whole window where |dx| < kx and
     * |dy| < ky: at no angle asked, every window would have no pair and
     * the map would be all NaN. */
    const int d = o->glcm_distance > 0 ? o->glcm_distance : 1;
    const unsigned angles = o->glcm_angles ? o->glcm_angles : 15u;
    const int fits[4] = {d < o->kx, d < o->kx && d < o->ky, d < o->ky, d < o->kx && d < o->ky};
    int any = 0;
    for (int k = 0; k < 4; k++)
        any |= (angles & (1u << k)) && fits[k];
    if (!any)
        return winent_opt_say(err, w,
                              "--distance: '%d': no two pixels of a %dx%d window are %d apart at "
                              "the angles asked: give a distance below the window's sides",
                              "distances=%d: no two pixels of a window of %d rows and %d columns "
                              "are %d apart at the angles asked: give a distance below the "
                              "window's sides",
                              d, w == WINENT_WORDS_PYTHON ? o->ky : o->kx,
                              w == WINENT_WORDS_PYTHON ? o->kx : o->ky, d);
    return dtype_known ? check_levels(o, w, err) : WINENT_OK;
}

winent_status winent_measure_check(const winent_compute_opts *o, int dtype_known, winent_words w,
                                   winent_err *err)
{
    char t[48];
    if ((unsigned)o->measure >= WINENT_MEASURE_COUNT) {
        snprintf(t, sizeof t, "%d", (int)o->measure);
        return winent_opt_refuse(err, w, "measure", t);
    }
    /* The pairs' options mean something to the co-occurrence measures
     * alone (and a caller of the others may leave them unset). */
    if (winent_measure_is_glcm(o->measure))
        return check_glcm(o, dtype_known, w, err);
    if (o->measure == WINENT_MEASURE_MAJORITY)
        return winent_majority_check(o, w, err);
    if (o->measure != WINENT_MEASURE_RENYI)
        return WINENT_OK;
    snprintf(t, sizeof t, w == WINENT_WORDS_PYTHON ? "'renyi:%g'" : "renyi:%g", o->renyi_q);
    if (!isfinite(o->renyi_q) || o->renyi_q < 0.0)
        return winent_opt_say(err, w, "--measure: '%s': renyi's order is a number Q >= 0, e.g. "
                              "renyi:2",
                              "measures=%s: renyi's order is a number Q >= 0, e.g. 'renyi:2'", t);
    double qmax = 0.0;
    if (o->renyi_q != 1.0 && renyi_scale(o->renyi_q, o->kx * o->ky, &qmax) < 0)
        return winent_opt_say(err, w,
                              "--measure: '%s': a %dx%d window's sums of c^Q would overflow "
                              "64-bit integers: give Q at most %.4g there (a whole Q up to %.0f)",
                              "measures=%s: a %dx%d window's sums of c^Q would overflow "
                              "64-bit integers: give Q at most %.4g there (a whole Q up to %.0f)",
                              t, o->kx, o->ky,
                              floor(37.0 / log2((double)(o->kx * o->ky)) * 1e4) / 1e4,
                              floor(61.0 / log2((double)(o->kx * o->ky))));
    return WINENT_OK;
}

static double log_base(double c, winent_base b)
{
    switch (b) {
    case WINENT_BASE_2: return log2(c);
    case WINENT_BASE_10: return log10(c);
    default: return log(c);
    }
}

/* c^q exactly, for a whole q and c^q below 2^61 (renyi_scale's bound). */
static int64_t ipow(int64_t c, int q)
{
    int64_t r = 1;
    for (int i = 0; i < q; i++)
        r *= c;
    return r;
}

void winent_measure_tables(const winent_compute_opts *o, int nmax, const int64_t *lq, int64_t *t,
                           winent_measure_rule *rule)
{
    memset(rule, 0, sizeof *rule);
    rule->kind = (int)o->measure;
    if (o->measure == WINENT_MEASURE_RENYI && o->renyi_q == 1.0)
        rule->kind = WINENT_MEASURE_ENTROPY; /* Shannon's, with its bits */
    t[0] = 0;
    switch ((winent_measure)rule->kind) {
    case WINENT_MEASURE_SIMPSON:
        for (int c = 1; c <= nmax; c++)
            t[c] = (int64_t)c * c;
        break;
    case WINENT_MEASURE_RICHNESS:
        for (int c = 1; c <= nmax; c++)
            t[c] = 1;
        break;
    case WINENT_MEASURE_RENYI: {
        const double q = o->renyi_q;
        double qmax;
        const int s = renyi_scale(q, nmax, &qmax); /* >= 0: checked */
        rule->renyi_den = (1.0 - q) * (o->base == WINENT_BASE_2    ? log(2.0)
                                       : o->base == WINENT_BASE_10 ? log(10.0)
                                                                   : 1.0);
        for (int c = 1; c <= nmax; c++)
            t[c] = q == floor(q) ? ipow(c, (int)q) << s : llround(ldexp(pow((double)c, q), s));
        break;
    }
    case WINENT_MEASURE_EVENNESS:
        for (int c = 1; c <= nmax; c++) {
            const int64_t le = llround(log_base((double)c, o->base) * WINENT_EVEN_LQ_SCALE);
            t[c] = (((int64_t)c * le) << WINENT_EVEN_RICH_BITS) | 1;
        }
        break;
    default: /* entropy; the majority keeps no sum */
        for (int c = 1; c <= nmax; c++)
            t[c] = (int64_t)c * lq[c];
        break;
    }
}

double winent_majority_top(const winent_compute_opts *o)
{
    static const double hi[] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0};
    if (o->bins > 0 || winent_dtype_is_float(o->dtype))
        return fmax(fabs(o->range_lo), fabs(o->range_hi));
    if ((unsigned)o->dtype < WINENT_F32)
        return o->dtype == WINENT_I8 ? 128 : o->dtype == WINENT_I16 ? 32768
                                         : o->dtype == WINENT_I32 ? 2147483648.0
                                                                  : hi[o->dtype];
    return 0.0;
}

/* The largest value of a co-occurrence measure with L levels (the scale
 * of integer outputs; correlation and cluster shade may be negative, and
 * job_opts.c keeps them to float outputs). */
static double glcm_top(const winent_compute_opts *o)
{
    const double L = o->bins > 0 ? (double)o->bins : o->dtype == WINENT_U8 || o->dtype == WINENT_I8
                                                         ? 256.0
                                                         : 65536.0;
    const double m = L - 1.0;
    switch (o->measure) {
    case WINENT_MEASURE_GLCM_ENTROPY: return log_base(L * L, o->base);
    case WINENT_MEASURE_GLCM_COND_ENTROPY:
    case WINENT_MEASURE_GLCM_MUTUAL_INFO: return log_base(L, o->base);
    case WINENT_MEASURE_GLCM_CONTRAST: return m * m;
    case WINENT_MEASURE_GLCM_DISSIMILARITY:
    case WINENT_MEASURE_GLCM_MEAN: return m;
    case WINENT_MEASURE_GLCM_VARIANCE: return m * m;
    case WINENT_MEASURE_GLCM_CLUSTER_SHADE: return 8.0 * m * m * m;
    case WINENT_MEASURE_GLCM_CLUSTER_PROMINENCE: return 16.0 * m * m * m * m;
    default: return 1.0; /* asm, energy, homogeneity, correlation */
    }
}

double winent_measure_top(const winent_compute_opts *o, double n, uint32_t bins)
{
    if (bins > 0 && (double)bins < n)
        n = (double)bins;
    switch (o->measure) {
    case WINENT_MEASURE_SIMPSON: return n > 1.0 ? 1.0 - 1.0 / n : 0.0;
    case WINENT_MEASURE_RICHNESS: return n;
    case WINENT_MEASURE_EVENNESS: return n > 1.0 ? 1.0 : 0.0;
    case WINENT_MEASURE_MAJORITY: return winent_majority_top(o);
    default: break;
    }
    if (winent_measure_is_glcm(o->measure))
        return glcm_top(o);
    if (!(n > 1.0))
        return 0.0;
    return log_base(n, o->base);
}

int winent_measure_can_be_nan(const winent_compute_opts *o)
{
    if (winent_measure_is_glcm(o->measure))
        return 1;
    if (o->measure != WINENT_MEASURE_MAJORITY || o->footprint == NULL)
        return 0;
    return o->footprint[(size_t)(o->ky / 2) * (size_t)o->kx + (size_t)(o->kx / 2)] == 0;
}

winent_status winent_majority_check(const winent_compute_opts *o, winent_words w,
                                    winent_err *err)
{
    const int binned = o->bins > 0 || winent_dtype_is_float(o->dtype);
    if (o->measure != WINENT_MEASURE_MAJORITY || !binned ||
        (o->range_lo == 0.0 && o->range_hi == 0.0))
        return WINENT_OK; /* distinct values: the dtype's, which float32 holds */
    /* The first and last bins' centres, as the engines compute them: a
     * map of float32 would hold an infinity where such a centre passes
     * its largest value. */
    const double n = o->bins ? (double)o->bins : 256.0, step = (o->range_hi - o->range_lo) / n;
    const double a = o->range_lo + 0.5 * step, b = o->range_lo + (n - 0.5) * step;
    const double top = fmax(fabs(a), fabs(b));
    if (!(top > 3.4028234663852886e38))
        return WINENT_OK;
    char lo[32], hi[32], v[32];
    winent_num_text(o->range_lo, lo, sizeof lo);
    winent_num_text(o->range_hi, hi, sizeof hi);
    winent_num_text(top, v, sizeof v);
    return winent_opt_say(err, w,
                          "--measure majority: its values (the bins' centres over %s:%s) reach "
                          "%s, past float32's largest value (3.4028235e38): give a --range "
                          "within it",
                          "measures='majority': its values (the bins' centres over (%s, %s)) "
                          "reach %s, past float32's largest value (3.4028235e38): give a "
                          "range= within it",
                          lo, hi, v);
}

double winent_measure_bottom(const winent_compute_opts *o)
{
    switch (o->measure) {
    case WINENT_MEASURE_GLCM_CORRELATION: return -1.0;
    case WINENT_MEASURE_GLCM_CLUSTER_SHADE: return -glcm_top(o);
    case WINENT_MEASURE_MAJORITY:
        if (o->bins > 0 || winent_dtype_is_float(o->dtype)) /* the first bin's centre */
            return o->range_lo + 0.5 * (o->range_hi - o->range_lo) / (o->bins ? o->bins : 256);
        return o->dtype == WINENT_I8 ? -128.0 : o->dtype == WINENT_I16 ? -32768.0
               : o->dtype == WINENT_I32 ? -2147483648.0 : 0.0;
    default: return 0.0;
    }
}

winent_overview_rule winent_measure_overview_rule(winent_measure m)
{
    /* The majority's values are classes (input values or bins' centres):
     * the one measure whose map is categorical. A richness is a count,
     * and the others are real quantities: their means are values between
     * neighbours', as a mean of heights is a height. */
    return m == WINENT_MEASURE_MAJORITY ? WINENT_OVERVIEW_MODE : WINENT_OVERVIEW_MEAN;
}

const char *winent_overview_rule_gdal(winent_overview_rule r)
{
    return r == WINENT_OVERVIEW_MODE ? "MODE" : "AVERAGE";
}

int winent_measure_has_unit(winent_measure m)
{
    return m == WINENT_MEASURE_ENTROPY || m == WINENT_MEASURE_RENYI ||
           m == WINENT_MEASURE_GLCM_ENTROPY || m == WINENT_MEASURE_GLCM_COND_ENTROPY ||
           m == WINENT_MEASURE_GLCM_MUTUAL_INFO;
}

int winent_measure_text_has_unit(const char *text)
{
    if (text == NULL || *text == '\0')
        return 1;
    for (int i = 0; i < WINENT_MEASURE_COUNT; i++) {
        const size_t n = strlen(names[i]);
        if (strncmp(text, names[i], n) == 0 && (text[n] == '\0' || text[n] == ':'))
            return winent_measure_has_unit((winent_measure)i);
    }
    return 0;
}
