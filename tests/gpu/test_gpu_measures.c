/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measures other than the entropy (--measure) and the GPUs, through
 * the library: the GPU engine computes every measure of the histogram and
 * every co-occurrence measure with the CPU engine's bits (where a GPU is
 * usable), the majority (its own kernel) too, and --device auto gives the
 * CPU's bits for the majority. Without a usable GPU only the auto case
 * runs.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"

enum { W = 37, H = 23 };

/* The measure on the GPU engine and on the CPU engine: the same bits
 * (nothing to compare without a usable GPU). */
static void gpu_like_cpu(const winent_compute_opts *o, const uint8_t *in, const char *what)
{
    float got[W * H], want[W * H];
    winent_engine *e = NULL;
    winent_error err;
    if (winent_engine_create(o, WINENT_ENGINE_GPU, 0, W, H, 1, &e, &err) != WINENT_OK) {
        /* Only where no GPU is usable (or the build has no CUDA). */
        CHECK(winent_cuda_device_count() == 0, "%s: the GPU engine: %s", what, err.message);
        return;
    }
    winent_engine_free(e);
    CHECK(winent_entropy(o, in, 0, W, H, got, 0, "gpu", 1, &err) == WINENT_OK, "%s: %s", what,
          err.message);
    CHECK(winent_entropy(o, in, 0, W, H, want, 0, "cpu", 1, &err) == WINENT_OK, "%s: %s", what,
          err.message);
    CHECK(memcmp(got, want, sizeof got) == 0, "%s: gpu and cpu differ", what);
}

int main(void)
{
    static const winent_measure ms[] = {WINENT_MEASURE_SIMPSON, WINENT_MEASURE_RICHNESS,
                                        WINENT_MEASURE_EVENNESS, WINENT_MEASURE_RENYI,
                                        WINENT_MEASURE_GLCM_ENTROPY,
                                        WINENT_MEASURE_GLCM_CORRELATION, WINENT_MEASURE_MAJORITY};
    uint8_t in[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (uint8_t)((i * 7 + i / W * 3) % 5);
    winent_compute_opts o;
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        winent_compute_opts_default(&o);
        o.measure = ms[k];
        o.renyi_q = 2.0;
        gpu_like_cpu(&o, in, winent_measure_name(ms[k]));
        o.kx = 9;
        o.ky = 3;
        gpu_like_cpu(&o, in, winent_measure_name(ms[k]));
    }
    /* The majority under auto: the CPU's map, wherever it runs. */
    winent_compute_opts_default(&o);
    o.measure = WINENT_MEASURE_MAJORITY;
    winent_error err;
    float got[W * H], want[W * H];
    CHECK(winent_entropy(&o, in, 0, W, H, got, 0, "auto", 2, &err) == WINENT_OK, "%s",
          err.message);
    CHECK(winent_entropy(&o, in, 0, W, H, want, 0, "cpu", 1, &err) == WINENT_OK, "%s",
          err.message);
    CHECK(memcmp(got, want, sizeof got) == 0, "majority: auto and cpu differ");
    return harness_end();
}
