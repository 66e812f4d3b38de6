/* The 5 x 5 course example of SPEC section 1, through every engine. */
#include <math.h>
#include <stdint.h>

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
    return harness_end();
}
