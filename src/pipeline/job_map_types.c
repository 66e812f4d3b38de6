/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * job_map_types.c - what an output's samples can hold, checked the same way
 * by every door: --ot's codes and float16's range against each map's
 * values (from the options, and again once the input's type and range are
 * known), and a majority's classes against a float's exact integers (from
 * the samples themselves, as each door reads them). A value a type cannot
 * hold is refused rather than written as a clamped code, an infinity or a
 * neighbouring class.
 */
#include <math.h>
#include <stdio.h>

#include "pipeline_internal.h"
#include "../base/opttable.h"
#include "kernels/measure.h"
#include "tiles/formats/out_sample.h"
#include "tiles/formats/zst_reader.h"

/* --ot's samples hold every value of map `c` (its dtype known where
 * `dtype_known`, its range where `range_known`): unsigned codes no negative
 * value (a correlation, a cluster shade, a majority of signed values),
 * float16 nothing past its largest finite value (a cluster prominence, a
 * majority of u16 values): else the map would hold clamped codes or
 * infinities where the values are. The job checks what the options say;
 * the run checks each map again once the input's type and range are known. */
winent_status winent_job_check_class_codes(winent_out_type t, const winent_compute_opts *c,
                                          double output_top, winent_words w, winent_err *err)
{
    const int is_int = t == WINENT_OT_UINT8 || t == WINENT_OT_UINT16;
    if (!is_int || c->measure != WINENT_MEASURE_MAJORITY || c->bins > 0 ||
        winent_dtype_is_float(c->dtype))
        return WINENT_OK;
    /* An integer output spreads 0 .. the output's top over 0 .. its
     * largest code: past that code, a step is over 1 and two classes can
     * share a code (or decode half-way between two). */
    const double max_code = t == WINENT_OT_UINT8 ? 254.0 : 65534.0;
    if (!(output_top > max_code))
        return WINENT_OK;
    const char *ot = winent_out_type_name(t);
    char v[32];
    winent_num_text(output_top, v, sizeof v);
    return winent_opt_say(err, w,
                          "--ot %s: the majority's classes would share codes (%s holds %.0f "
                          "values beside its nodata code, this output's values reach %s): give "
                          "--ot %s",
                          "ot='%s': the majority's classes would share codes (%s holds %.0f "
                          "values beside its nodata code, this output's values reach %s): give "
                          "ot='%s'",
                          ot, ot, max_code + 1.0, v,
                          t == WINENT_OT_UINT8 && output_top <= 65534.0 ? "uint16" : "float32");
}

winent_status winent_job_refuse_classes(double value, double limit, winent_words w,
                                       winent_err *err)
{
    const int f16 = limit < 65504.0;
    const char *fix = f16 ? (w == WINENT_WORDS_PYTHON ? "give ot='float32'" : "give --ot float32")
                      : w == WINENT_WORDS_PYTHON
                          ? "recode the classes below it, or give bins=N with range=(lo, hi) "
                            "(the bins' centres then stand for the values)"
                          : "recode the classes below it, or give --bins N with --range LO:HI "
                            "(the bins' centres then stand for the values)";
    return WINENT_ERR(err, WINENT_ERR_USAGE,
                      "majority: the classes would be rounded together: the input holds the "
                      "value %.0f, and the %s output holds every integer only up to %.0f: %s",
                      value, f16 ? "float16" : "float32", limit, fix);
}

winent_status winent_job_check_map_type(winent_out_type t, const winent_compute_opts *c,
                                        int dtype_known, int range_known, winent_words w,
                                        winent_err *err)
{
    const int is_int = t == WINENT_OT_UINT8 || t == WINENT_OT_UINT16;
    const int majority = c->measure == WINENT_MEASURE_MAJORITY;
    const int binned = c->bins > 0 || winent_dtype_is_float(c->dtype);
    const int known = !majority || (dtype_known && (!binned || range_known));
    if (!known)
        return WINENT_OK;
    /* A range found by --range auto (the run) is checked here first. */
    WINENT_TRY(winent_majority_check(c, w, err));
    if (!(is_int || t == WINENT_OT_FLOAT16))
        return WINENT_OK;
    const char *ot = winent_out_type_name(t);
    char m[64], v[32];
    winent_measure_text(c, m, sizeof m);
    const double bottom = winent_measure_bottom(c), top = winent_compute_top(c);
    WINENT_TRY(winent_job_check_class_codes(t, c, top, w, err));
    if (is_int && bottom < 0.0) {
        winent_num_text(bottom, v, sizeof v);
        return winent_opt_say(err, w,
                              "--ot %s: %s can be negative here (down to %s), which unsigned "
                              "samples cannot hold: give --ot float32 for it",
                              "ot='%s': %s can be negative here (down to %s), which unsigned "
                              "samples cannot hold: give ot='float32' for it",
                              ot, m, v);
    }
    if (t == WINENT_OT_FLOAT16 && (top > 65504.0 || bottom < -65504.0)) {
        snprintf(v, sizeof v, "%.6g", top > -bottom ? top : bottom);
        return winent_opt_say(err, w,
                              "--ot float16: %s can reach %s here, past float16's largest value "
                              "(65504): give --ot float32%s",
                              "ot='float16': %s can reach %s here, past float16's largest value "
                              "(65504): give ot='float32'%s",
                              m, v, bottom < 0.0 ? "" : w == WINENT_WORDS_PYTHON
                              ? ", or 'uint16' (scaled to its largest value)"
                              : ", or uint16 (scaled to its largest value)");
    }
    return WINENT_OK;
}

winent_status winent_job_refuse_class_type(winent_dtype source, winent_words w, winent_err *err)
{
    return winent_opt_say(err, w,
                          "--ot float16: the majority's classes of %s samples can pass 2048, "
                          "past which float16 rounds them together: give --ot float32",
                          "ot='float16': the majority's classes of %s samples can pass 2048, "
                          "past which float16 rounds them together: give ot='float32'",
                          winent_dtype_name(source), winent_dtype_name(source));
}

winent_status winent_job_check_decode_types(const winent_zst_map *z, winent_out_type t,
                                           winent_words w, winent_err *err)
{
    const int n = z->nmaps > 1 && z->maps != NULL ? z->nmaps : 1;
    double top = 0.0;
    for (int i = 0; i < n; i++)
        top = fmax(top, winent_compute_top(n > 1 ? &z->maps[i].compute : &z->compute));
    for (int i = 0; i < n; i++) {
        const winent_compute_opts *c = n > 1 ? &z->maps[i].compute : &z->compute;
        const int range_known = c->range_lo != 0.0 || c->range_hi != 0.0;
        WINENT_TRY(winent_job_check_map_type(t, c, 1, range_known, w, err));
        WINENT_TRY(winent_job_check_class_codes(t, c, top, w, err));
        /* The maps, not the source's samples, are read: a majority's
         * classes against float16 by the source's type (a job checks the
         * samples themselves). A float16 file's are float16's already. */
        if (t == WINENT_OT_FLOAT16 && z->sample.type != WINENT_OT_FLOAT16 &&
            winent_class_limit(c, t) > 0.0)
            return winent_job_refuse_class_type(c->dtype, w, err);
    }
    return WINENT_OK;
}
