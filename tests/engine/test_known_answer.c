/* SPDX-License-Identifier: BSD-3-Clause */
/* The 5 x 5 course example of SPEC section 1, through every engine. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_reference.h"

static const uint8_t input[25] = {7,  6,  9, 3, 1,  15, 10, 12, 9,  13, 10, 11, 2,
                                  11, 3,  6, 12, 2, 4,  8,  11, 8,  7,  13, 6};
static const double expected[25] = {
    2.04319, 2.13833, 2.33837, 2.13833, 1.88916, 2.02281, 2.25273, 2.51053, 2.33937,
    2.13833, 2.15353, 2.41505, 2.51159, 2.44121, 2.33837, 2.02281, 2.30667, 2.41505,
    2.33937, 2.25386, 1.88916, 2.09473, 2.21107, 2.13833, 2.04319};

int main(void)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.base = WINENT_BASE_E; /* the course's answer is in nats */
    winent_plan *p = NULL;
    winent_err err;
    winent_err_clear(&err);
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
    winent_chunk c = {input, 5, 5, 5, 0, 5, 0, 5};
    float ref[25], fast[25];
    double f64[25];
    CHECK(winent_reference_compute(p, &c, ref, 5, &err) == WINENT_OK, "%s", err.msg);
    CHECK(winent_reference_compute_f64(p, &c, f64, 5, &err) == WINENT_OK, "%s", err.msg);
    winent_cpu_engine *e = NULL;
    CHECK(winent_cpu_engine_create(p, 5, 5, 2, &e, &err) == WINENT_OK, "%s", err.msg);
    CHECK(winent_cpu_engine_compute(e, &c, fast, 5, &err) == WINENT_OK, "%s", err.msg);
    for (int i = 0; i < 25; i++) {
        CHECK(fabs(f64[i] - expected[i]) < 5e-6, "pixel %d: f64 %.6f, expected %.5f", i, f64[i],
              expected[i]);
        CHECK(fabs(ref[i] - f64[i]) < 1e-6, "pixel %d: %.8f vs f64 %.8f", i, ref[i], f64[i]);
        CHECK(ref[i] == fast[i], "pixel %d: reference %.9g, cpu %.9g", i, ref[i], fast[i]);
    }
    /* The corner window holds 9 pixels; a uniform window gives exactly 0. */
    const uint8_t flat[9] = {4, 4, 4, 4, 4, 4, 4, 4, 4};
    winent_chunk cf = {flat, 3, 3, 3, 0, 3, 0, 3};
    float out[9];
    CHECK(winent_cpu_engine_compute(e, &cf, out, 3, &err) == WINENT_OK, "%s", err.msg);
    for (int i = 0; i < 9; i++)
        CHECK(out[i] == 0.0f, "flat pixel %d = %g", i, out[i]);
    winent_cpu_engine_free(e);
    winent_plan_free(p);

    /* 32-bit values whose code is the sentinel are ordinary values without
     * a nodata value, and not counted with one: reference = CPU engine. */
    static const uint32_t u32v[12] = {0xFFFFFFFFu, 7, 0xFFFFFFFFu, 7, 1, 0xFFFFFFFFu,
                                      2,           7, 0xFFFFFFFFu, 1, 1, 3};
    static const int32_t i32v[12] = {2147483647, -3, 2147483647, 0, 5, 2147483647,
                                     -3,         0,  2147483647, 5, 5, 5};
    for (int t = 0; t < 2; t++)
        for (int nd = 0; nd < 2; nd++) {
            winent_compute_opts o32;
            winent_compute_opts_default(&o32);
            o32.dtype = t ? WINENT_I32 : WINENT_U32;
            o32.kx = 3;
            o32.ky = 3;
            o32.has_nodata = nd;
            o32.nodata = nd ? (t ? 5.0 : 1.0) : 0.0;
            winent_plan *p32 = NULL;
            winent_cpu_engine *e32 = NULL;
            CHECK(winent_plan_create(&o32, &p32, &err) == WINENT_OK, "%s", err.msg);
            CHECK(winent_cpu_engine_create(p32, 4, 3, 1, &e32, &err) == WINENT_OK, "%s", err.msg);
            const void *rows = t ? (const void *)i32v : (const void *)u32v;
            winent_chunk c32 = {rows, 16, 4, 3, 0, 3, 0, 3};
            float r32[12], f32[12];
            CHECK(winent_reference_compute(p32, &c32, r32, 4, &err) == WINENT_OK, "%s", err.msg);
            CHECK(winent_cpu_engine_compute(e32, &c32, f32, 4, &err) == WINENT_OK, "%s", err.msg);
            for (int i = 0; i < 12; i++)
                CHECK(memcmp(&r32[i], &f32[i], 4) == 0, "%s nodata %d pixel %d: %g vs %g",
                      t ? "i32" : "u32", nd, i, r32[i], f32[i]);
            /* Pixel 0 holds the all-ones code: counted (not NaN) either way,
             * since the nodata value is another one. */
            CHECK(!isnan(r32[0]) && r32[0] > 0.0f, "%s nodata %d: top value counted (%g)",
                  t ? "i32" : "u32", nd, r32[0]);
            /* The nodata pixel itself is NaN. */
            if (nd)
                CHECK(isnan(r32[t ? 4 : 4]), "%s: nodata pixel is NaN (%g)", t ? "i32" : "u32",
                      r32[4]);
            winent_cpu_engine_free(e32);
            winent_plan_free(p32);
        }
    return harness_end();
}
