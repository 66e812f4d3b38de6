/* SPDX-License-Identifier: BSD-3-Clause */
#include "entropy_plan.h"
#include "measure.h"

#include "../base/opttable.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most bins: the CLI's --bins limit (histograms of 2^30 counts are
 * already 4 GiB per thread). */
#define BINS_MAX (1u << 30)

/* The window of `o` as door `w` quotes it: "7x3", "5", "disk3" (CLI:
 * width x height) or "(3, 7)", "5", "('disk', 3)" (Python: rows, cols). */
static void window_text(const winent_compute_opts *o, winent_words w, char *buf, size_t n)
{
    const int py = w == WINENT_WORDS_PYTHON;
    if (o->disk && o->kx == o->ky && o->kx % 2 != 0)
        snprintf(buf, n, py ? "('disk', %d)" : "disk%d", (o->kx - 1) / 2);
    else if (o->kx == o->ky)
        snprintf(buf, n, "%d", o->kx);
    else if (py)
        snprintf(buf, n, "(%d, %d)", o->ky, o->kx);
    else
        snprintf(buf, n, "%dx%d", o->kx, o->ky);
}

/* A footprint (o->footprint): sides 1..255 of either parity, a pixel set,
 * and no disk beside it. */
static winent_status check_footprint(const winent_compute_opts *o, winent_words w, winent_err *err)
{
    if (o->disk)
        return winent_opt_say(err, w, "--footprint: give a footprint or --disk, not both",
                              "footprint: give a footprint array or a disk, not both");
    if (o->kx < 1 || o->kx > 255 || o->ky < 1 || o->ky > 255)
        return winent_opt_say(err, w,
                              "--footprint: a %dx%d footprint: give 1 to 255 pixels a side",
                              "footprint: a footprint of %d columns and %d rows: give 1 to 255 "
                              "pixels a side",
                              o->kx, o->ky);
    for (size_t i = 0; i < (size_t)o->kx * (size_t)o->ky; i++)
        if (o->footprint[i])
            return WINENT_OK;
    return winent_opt_say(err, w,
                          "--footprint: a %dx%d footprint with no pixel in it: set at least one",
                          "footprint: a footprint of %d columns and %d rows with no pixel in it: "
                          "set at least one",
                          o->kx, o->ky);
}

static winent_status check_window(const winent_compute_opts *o, winent_words w, winent_err *err)
{
    if (o->footprint != NULL)
        return check_footprint(o, w, err);
    char t[48];
    window_text(o, w, t, sizeof t);
    if (o->disk && (o->kx != o->ky || o->kx % 2 == 0))
        return winent_opt_say(err, w,
                              "--disk: a %dx%d window: a disk's window is 2R+1 square, R from 0 "
                              "to 127",
                              "radius: a %dx%d window: a disk's window is 2R+1 square, R from 0 "
                              "to 127",
                              o->kx, o->ky);
    /* Sides of either parity: an even side centres as scikit-image's
     * footprints do (index n / 2, one more pixel before than after). */
    if (o->kx < 1 || o->kx > 255 || o->ky < 1 || o->ky > 255)
        return winent_opt_refuse(err, w, "window", t);
    return WINENT_OK;
}

/* A range LO:HI as door `w` quotes it: "0:1" or "(0, 1)". */
static void range_text(double lo, double hi, winent_words w, char *buf, size_t n)
{
    char a[32], b[32];
    winent_num_text(lo, a, sizeof a);
    winent_num_text(hi, b, sizeof b);
    snprintf(buf, n, w == WINENT_WORDS_PYTHON ? "(%s, %s)" : "%s:%s", a, b);
}

static winent_status check_range(const winent_compute_opts *o, unsigned flags, winent_words w,
                                 winent_err *err)
{
    const int unset = o->range_lo == 0.0 && o->range_hi == 0.0;
    const int range_auto = (flags & WINENT_CHECK_RANGE_AUTO) != 0;
    const int dtype_known = (flags & WINENT_CHECK_DTYPE) != 0;
    char t[80];
    range_text(o->range_lo, o->range_hi, w, t, sizeof t);
    /* 0 bins is "each distinct value": with a range it means nothing, as
     * --bins 0 does on the command line. */
    if (o->bins == 0 && (range_auto || !unset))
        return winent_opt_refuse(err, w, "bins", "0");
    if (range_auto)
        return WINENT_OK; /* the range comes from the data */
    if (unset && dtype_known && winent_dtype_is_float(o->dtype))
        return winent_opt_say(err, w,
                              "--range: %s input needs a range: give --range auto (the band's "
                              "minimum and maximum) or --range LO:HI (and optionally --bins N)",
                              "range: %s input needs a range: give range='auto' (the band's "
                              "minimum and maximum) or range=(lo, hi) (and optionally bins=N)",
                              winent_dtype_word(w, o->dtype));
    if (unset && o->bins > 0)
        return winent_opt_say(err, w, "--bins: needs --range LO:HI (or --range auto)",
                              "bins: needs range=(lo, hi) (or range='auto')");
    /* A range given is checked even where it goes unused (an integer input
     * without bins): it is a mistake either way. 0:0 is the fields' "no
     * range": a door that was given it refuses it with this same line. */
    if (!unset &&
        (!isfinite(o->range_lo) || !isfinite(o->range_hi) || !(o->range_hi > o->range_lo)))
        return winent_opt_refuse(err, w, "range", t);
    /* The bin of v is (v - LO) * bins / (HI - LO) in doubles: a width, or
     * a width times the bins, past the largest double would make every
     * pixel's bin 0 or the last (a wrong map, not an error). */
    if (!unset && o->bins > 0 && !isfinite((o->range_hi - o->range_lo) * (double)o->bins))
        return winent_opt_say(err, w,
                              "--range: '%s': its width times the %u bins overflows a double: "
                              "give a narrower range",
                              "range=%s: its width times the %u bins overflows a double: give a "
                              "narrower range",
                              t, o->bins);
    return WINENT_OK;
}

winent_status winent_compute_check(const winent_compute_opts *o, unsigned flags, winent_words w,
                                   winent_err *err)
{
    WINENT_TRY(check_window(o, w, err));
    if ((unsigned)o->base > WINENT_BASE_10) {
        char t[16];
        snprintf(t, sizeof t, "%d", (int)o->base);
        return winent_opt_refuse(err, w, "base", t);
    }
    if ((flags & WINENT_CHECK_DTYPE) && (unsigned)o->dtype >= WINENT_DTYPE_COUNT) {
        char t[16];
        snprintf(t, sizeof t, "%d", (int)o->dtype);
        return winent_opt_refuse(err, w, "dtype", t);
    }
    if (o->bins > BINS_MAX) {
        char t[16];
        snprintf(t, sizeof t, "%u", o->bins);
        return winent_opt_refuse(err, w, "bins", t);
    }
    WINENT_TRY(check_range(o, flags, w, err));
    if ((flags & WINENT_CHECK_DTYPE) && (flags & WINENT_CHECK_NODATA) && o->has_nodata)
        WINENT_TRY(winent_nodata_check(o->dtype, o->nodata, w, err));
    /* The measure's rules last: some need the dtype (a wide type's levels),
     * which a door may not know yet (Python's texture() checks before it
     * reads the array), and every door names the options of their own
     * first, in this order. */
    WINENT_TRY(winent_measure_check(o, (flags & WINENT_CHECK_DTYPE) != 0, w, err));
    return WINENT_OK;
}

winent_status winent_compute_opts_check(const winent_compute_opts *o, winent_words words,
                                        winent_error *err)
{
    if (o == NULL)
        return winent_err_null(err, "winent_compute_opts_check", "o");
    winent_err e;
    winent_err_clear(&e);
    return winent_err_export(
        &e, winent_compute_check(o, WINENT_CHECK_DTYPE | WINENT_CHECK_NODATA, words, &e), err);
}

winent_status winent_compute_opts_validate(const winent_compute_opts *o, winent_error *err)
{
    if (o == NULL)
        return winent_err_null(err, "winent_compute_opts_validate", "o");
    return winent_compute_opts_check(o, WINENT_WORDS_CLI, err);
}

winent_status winent_nodata_check(winent_dtype t, double v, winent_words w, winent_err *err)
{
    static const double lo[] = {0, -128, 0, -32768, 0, -2147483648.0};
    static const double hi[] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0};
    char num[32];
    if (t == WINENT_F64 || isnan(v) || (unsigned)t >= WINENT_DTYPE_COUNT)
        return WINENT_OK;
    winent_num_text(v, num, sizeof num);
    if (t == WINENT_F32) {
        if (isinf(v) || fabs(v) <= 3.4028234663852886e38)
            return WINENT_OK;
        return winent_opt_say(err, w,
                              "--nodata: '%s': a %s band holds values up to +-3.4028235e38, so "
                              "no pixel can equal it: give a value the band can hold",
                              "nodata=%s: a %s band holds values up to +-3.4028235e38, so no "
                              "pixel can equal it: give a value the band can hold",
                              num, winent_dtype_word(w, t));
    }
    if (v == floor(v) && v >= lo[t] && v <= hi[t])
        return WINENT_OK;
    return winent_opt_say(err, w,
                          "--nodata: '%s': a %s band holds whole numbers from %.0f to %.0f, so "
                          "no pixel can equal it: give a value the band can hold",
                          "nodata=%s: a %s band holds whole numbers from %.0f to %.0f, so no "
                          "pixel can equal it: give a value the band can hold",
                          num, winent_dtype_word(w, t), lo[t], hi[t]);
}

/* The pixels of a full window: kx * ky, or a disk's (its half-widths in
 * `hw`, 2R + 1 of them, when not NULL). */
static int window_area(const winent_compute_opts *o, int16_t *hw)
{
    if (o->footprint != NULL) {
        int area = 0;
        for (size_t i = 0; i < (size_t)o->kx * (size_t)o->ky; i++)
            area += o->footprint[i] != 0;
        return area;
    }
    if (!o->disk)
        return o->kx * o->ky;
    const int r = o->kx / 2;
    int area = 0;
    for (int dy = -r; dy <= r; dy++) {
        int w = 0;
        while ((w + 1) * (w + 1) + dy * dy <= r * r)
            w++;
        if (hw != NULL)
            hw[dy + r] = (int16_t)w;
        area += 2 * w + 1;
    }
    return area;
}

/* Runs of 1s along `n` lines of `len` bytes, byte i of line l at
 * m[l * sl + i * si]: first[l] .. first[l + 1] index `run` (2 int16 each,
 * first and last i less `c`). Returns the runs, or -1 out of memory. */
static int make_runs(const unsigned char *m, int n, int len, size_t sl, size_t si, int c,
                     int **first, int16_t **run)
{
    int count = 0;
    for (int l = 0; l < n; l++)
        for (int i = 0; i < len; i++)
            count += m[l * sl + i * si] && (i == 0 || !m[l * sl + (i - 1) * si]);
    *first = malloc(sizeof **first * (size_t)(n + 1));
    *run = malloc(sizeof **run * 2 * (size_t)(count > 0 ? count : 1));
    if (*first == NULL || *run == NULL)
        return -1;
    int k = 0;
    for (int l = 0; l < n; l++) {
        (*first)[l] = k;
        for (int i = 0; i < len; i++) {
            if (!m[l * sl + i * si] || (i > 0 && m[l * sl + (i - 1) * si]))
                continue;
            int e = i;
            while (e + 1 < len && m[l * sl + (e + 1) * si])
                e++;
            (*run)[2 * k] = (int16_t)(i - c);
            (*run)[2 * k + 1] = (int16_t)(e - c);
            k++;
        }
    }
    (*first)[n] = k;
    return count;
}

/* A shaped plan's mask and runs (entropy_plan.h): the footprint's, or the
 * disk's from its half-widths. Returns 0, or -1 out of memory. */
static int make_shape(winent_plan *p, const winent_compute_opts *o)
{
    const size_t kx = (size_t)p->kx, ky = (size_t)p->ky;
    if ((p->mask = malloc(kx * ky)) == NULL)
        return -1;
    for (size_t r = 0; r < ky; r++)
        for (size_t c = 0; c < kx; c++)
            p->mask[r * kx + c] = o->footprint != NULL ? o->footprint[r * kx + c] != 0
                                  : p->disk          ? abs((int)c - p->rx) <= p->hw[r]
                                                     : 1;
    p->nrow_runs = make_runs(p->mask, p->ky, p->kx, kx, 1, p->rx, &p->row_first, &p->row_run);
    p->ncol_runs = make_runs(p->mask, p->kx, p->ky, 1, kx, p->ry, &p->col_first, &p->col_run);
    return p->nrow_runs < 0 || p->ncol_runs < 0 ? -1 : 0;
}

double winent_compute_top(const winent_compute_opts *o)
{
    if (o == NULL)
        return 0.0;
    double n = (double)window_area(o, NULL);
    /* A float band without --bins is quantized into 256 (make_rule). */
    uint32_t bins = o->bins > 0 ? o->bins : winent_dtype_is_float(o->dtype) ? 256 : 0;
    return winent_measure_top(o, n, bins);
}

static void make_rule(const winent_compute_opts *o, winent_code_rule *r)
{
    memset(r, 0, sizeof *r);
    r->dtype = (int)o->dtype;
    r->quantize = o->bins > 0 || winent_dtype_is_float(o->dtype);
    r->bins = o->bins > 0 ? o->bins : 256;
    r->lo = o->range_lo;
    r->hi = o->range_hi;
    r->has_nodata = o->has_nodata;
    r->nodata_f64 = o->nodata;
    r->nodata_f32 = (float)o->nodata;
    switch (o->dtype) {
    case WINENT_I8: r->int_offset = 128u; break;
    case WINENT_I16: r->int_offset = 32768u; break;
    case WINENT_I32: r->int_offset = 0x80000000u; break;
    default: r->int_offset = 0; break;
    }
    if (o->has_nodata && !winent_dtype_is_float(o->dtype) && o->nodata == floor(o->nodata)) {
        static const double lo[] = {0, -128, 0, -32768, 0, -2147483648.0};
        static const double hi[] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0};
        if (o->nodata >= lo[o->dtype] && o->nodata <= hi[o->dtype]) {
            r->nodata_int_ok = 1;
            r->nodata_int = (int64_t)o->nodata;
            r->rotate = !r->quantize;
            r->rotate_mask = (uint32_t)(((uint64_t)1 << (8 * winent_dtype_size(o->dtype))) - 1);
        }
    }
}

static double log_base(double c, winent_base b)
{
    switch (b) {
    case WINENT_BASE_2: return log2(c);
    case WINENT_BASE_10: return log10(c);
    default: return log(c);
    }
}

winent_status winent_plan_create(const winent_compute_opts *o, winent_plan **out, winent_err *err)
{
    winent_plan *p = NULL;
    *out = NULL;
    WINENT_TRY(winent_compute_check(o, WINENT_CHECK_DTYPE, WINENT_WORDS_CLI, err));
    p = calloc(1, sizeof *p);
    if (p == NULL)
        goto nomem;
    p->opts = *o;
    make_rule(o, &p->rule);
    p->kx = o->kx;
    p->ky = o->ky;
    p->rx = o->kx / 2;
    p->ry = o->ky / 2;
    p->nmax = o->kx * o->ky;
    p->disk = o->disk ? 1 : 0;
    p->area = window_area(o, p->disk ? p->hw : NULL);
    /* A footprint of ones with odd sides is the rectangle: its fast paths
     * (the same bits). A rectangle with an even side is off centre, which
     * the rectangle's paths do not know: it runs as a shape of all ones. */
    const int odd = o->kx % 2 && o->ky % 2;
    const int rect = o->footprint != NULL && odd && p->area == o->kx * o->ky;
    p->shaped = p->disk || (o->footprint != NULL && !rect) || (o->footprint == NULL && !odd);
    if (p->shaped && make_shape(p, o) != 0)
        goto nomem;
    /* The caller's footprint is borrowed: the plan's own copy, or none. */
    p->opts.footprint = o->footprint != NULL && !rect ? p->mask : NULL;
    if (p->rule.quantize)
        p->ncodes = p->rule.bins;
    else
        p->ncodes = ((uint64_t)1 << (8 * winent_dtype_size(o->dtype))) - (p->rule.rotate ? 1 : 0);
    p->direct = p->ncodes <= WINENT_DIRECT_CODES_MAX;
    p->can_skip = winent_dtype_is_float(o->dtype) || (p->rule.has_nodata && p->rule.nodata_int_ok);
    p->lq = malloc(sizeof(int64_t) * (size_t)(p->nmax + 1));
    p->t = malloc(sizeof(int64_t) * (size_t)(p->nmax + 1));
    p->du = malloc(sizeof(int64_t) * (size_t)(p->nmax + 1));
    if (p->lq == NULL || p->t == NULL || p->du == NULL)
        goto nomem;
    p->lq[0] = 0;
    for (int c = 1; c <= p->nmax; c++)
        p->lq[c] = llround(log_base((double)c, o->base) * WINENT_LQ_SCALE);
    winent_measure_tables(o, p->nmax, p->lq, p->t, &p->measure);
    for (int c = 0; c < p->nmax; c++)
        p->du[c] = p->t[c + 1] - p->t[c];
    p->du[p->nmax] = 0;
    *out = p;
    return WINENT_OK;
nomem:
    winent_plan_free(p);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory building the entropy tables");
}

void winent_plan_free(winent_plan *p)
{
    if (p == NULL)
        return;
    free(p->lq);
    free(p->t);
    free(p->du);
    free(p->mask);
    free(p->row_first);
    free(p->row_run);
    free(p->col_first);
    free(p->col_run);
    free(p);
}

/* Samples are loaded with memcpy: callers may hand rows at any address
 * (a 16-bit row at an odd one is legal input), where a typed load would be
 * undefined behaviour; compilers turn the memcpy into a plain load. */
#define CODES_LOOP(type, fn, conv)                                     \
    do {                                                               \
        const unsigned char *s_ = samples;                             \
        for (size_t i_ = 0; i_ < count; i_++) {                        \
            type v_;                                                   \
            memcpy(&v_, s_ + i_ * sizeof v_, sizeof v_);               \
            codes[i_] = fn(r, conv v_);                                \
        }                                                              \
    } while (0)

void winent_plan_codes(const winent_plan *p, const void *samples, size_t count, uint32_t *codes)
{
    const winent_code_rule *r = &p->rule;
    /* Fast paths for the common distinct-value cases without nodata. */
    if (!r->quantize && !r->has_nodata) {
        switch (p->opts.dtype) {
        case WINENT_U8: {
            const uint8_t *s = samples;
            for (size_t i = 0; i < count; i++)
                codes[i] = s[i];
            return;
        }
        case WINENT_U16: {
            const unsigned char *s = samples;
            for (size_t i = 0; i < count; i++) {
                uint16_t v;
                memcpy(&v, s + 2 * i, sizeof v);
                codes[i] = v;
            }
            return;
        }
        default: break;
        }
    }
    switch (p->opts.dtype) {
    case WINENT_U8: CODES_LOOP(uint8_t, winent_code_int, (int64_t)); break;
    case WINENT_I8: CODES_LOOP(int8_t, winent_code_int, (int64_t)); break;
    case WINENT_U16: CODES_LOOP(uint16_t, winent_code_int, (int64_t)); break;
    case WINENT_I16: CODES_LOOP(int16_t, winent_code_int, (int64_t)); break;
    case WINENT_U32: CODES_LOOP(uint32_t, winent_code_int, (int64_t)); break;
    case WINENT_I32: CODES_LOOP(int32_t, winent_code_int, (int64_t)); break;
    case WINENT_F32: CODES_LOOP(float, winent_code_f32, ); break;
    case WINENT_F64: CODES_LOOP(double, winent_code_f64, ); break;
    default: break;
    }
}
