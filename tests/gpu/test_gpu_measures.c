/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measures other than the entropy (--measure) and the GPUs: the CUDA
 * kernels finish the entropy only, so the GPU engine refuses another
 * measure with a device error (never a map of something else), a job
 * naming a GPU is refused before any work, and --device auto computes the
 * measure on the CPU, with the CPU engine's bits. No GPU needed: the
 * refusal comes before any device is looked at (or from a build without
 * CUDA), so this runs everywhere.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"

int main(void)
{
    static const winent_measure ms[] = {WINENT_MEASURE_SIMPSON, WINENT_MEASURE_RICHNESS,
                                        WINENT_MEASURE_EVENNESS, WINENT_MEASURE_RENYI,
                                        WINENT_MEASURE_MAJORITY};
    enum { W = 37, H = 23 };
    uint8_t in[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (uint8_t)((i * 7 + i / W * 3) % 5);
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        winent_compute_opts o;
        winent_compute_opts_default(&o);
        o.measure = ms[k];
        o.renyi_q = 2.0;
        winent_engine *e = NULL;
        winent_error err;
        winent_status st = winent_engine_create(&o, WINENT_ENGINE_GPU, 0, W, H, 1, &e, &err);
        CHECK(st == WINENT_ERR_DEVICE && e == NULL, "%s: the GPU engine gave status %d (%s)",
              winent_measure_name(ms[k]), (int)st, err.message);
        winent_engine_free(e);
        /* --device gpu: refused before any work; auto: the CPU's map. */
        float got[W * H], want[W * H];
        st = winent_entropy(&o, in, 0, W, H, got, 0, "gpu", 1, &err);
        CHECK(st == WINENT_ERR_DEVICE, "%s with --device gpu: status %d (%s)",
              winent_measure_name(ms[k]), (int)st, err.message);
        CHECK(winent_entropy(&o, in, 0, W, H, got, 0, "auto", 2, &err) == WINENT_OK, "%s",
              err.message);
        CHECK(winent_entropy(&o, in, 0, W, H, want, 0, "cpu", 1, &err) == WINENT_OK, "%s",
              err.message);
        CHECK(memcmp(got, want, sizeof got) == 0, "%s: auto and cpu differ",
              winent_measure_name(ms[k]));
        /* renyi of order 1 is the entropy: the GPUs take it. */
    }
    return harness_end();
}
