/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ranks dense within a chunk (src/kernels/engine_cuda_dense.cuh) on the
 * host: the bitmap, its prefix and each code's new code, as the device's
 * remap kernel computes them, on u16 planes of few and of all 65536 codes,
 * with and without the nodata sentinel. Checks that the ranks are 0..K-1 in
 * the codes' order with the sentinel kept, and that the CPU engine's map of
 * the ranked plane is the map of the plane, bit for bit (the property the
 * GPU's dense kernels rely on). Needs no GPU; test_gpu_identity checks the
 * device's run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "entropy_rule.h"
#include "engine_cuda_kernels.cuh"
#include "engine_cuda_dense.cuh"

extern "C" {
#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/entropy_plan.h"
}
#include "gpu_twin.h"

typedef struct tcase {
    const char *name;
    uint32_t values; /* samples lo .. lo + values - 1 */
    uint32_t lo;
    uint32_t step;   /* samples lo + step * k */
    int nd;          /* 65535 is nodata (some samples are) */
    int k;           /* window side */
    int w, h;
} tcase;

static unsigned long long seed = 0xd3e5u;

/* The CPU engine's map of u16 samples. */
static std::vector<float> map_of(const std::vector<uint16_t> &in, const tcase *tc)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = WINENT_U16;
    o.kx = o.ky = tc->k;
    o.has_nodata = tc->nd;
    o.nodata = 65535;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s: %s", tc->name, err.msg);
    if (p == NULL)
        return std::vector<float>((size_t)tc->w * tc->h);
    std::vector<float> out = twin_cpu_map(p, in.data(), WINENT_U16, tc->w, tc->h, tc->name);
    winent_plan_free(p);
    return out;
}

template <bool ND> static void run(const tcase *tc)
{
    const size_t n = (size_t)tc->w * tc->h;
    std::vector<uint16_t> in(n), ranked(n);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = tc->lo + tc->step * (uint32_t)(harness_rand(&seed) % tc->values);
        if (ND && harness_rand(&seed) % 17 == 0)
            v = 65535;
        in[i] = (uint16_t)v;
    }
    /* Step 1 (presence) and the prefix of step 2, as the kernels do them. */
    uint32_t bits[DENSE_WORDS], prefix[DENSE_WORDS];
    memset(bits, 0, sizeof bits);
    std::vector<char> seen(65536, 0);
    for (size_t i = 0; i < n; i++) {
        if (ND && in[i] == 65535)
            continue;
        bits[in[i] >> 5] |= 1u << (in[i] & 31);
        seen[in[i]] = 1;
    }
    uint32_t k = dense_prefix_host(bits, prefix), want = 0;
    for (int v = 0; v < 65536; v++)
        want += seen[v];
    CHECK(k == want, "%s: K %u, %u codes present", tc->name, k, want);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        ranked[i] = dense_code<ND>(bits, prefix, in[i]);
        if (ND && in[i] == 65535)
            bad += ranked[i] != 65535;
        else
            bad += ranked[i] >= k;
    }
    CHECK(bad == 0, "%s: %d codes out of 0..%u (or a sentinel moved)", tc->name, bad, k - 1);
    /* Order kept: code v's rank is the number of present codes below v. */
    uint32_t below = 0;
    bad = 0;
    for (uint32_t v = 0; v < 65536; v++) {
        if (ND && v == 65535)
            break;
        if (seen[v]) {
            bad += dense_rank(bits, prefix, v) != below;
            below++;
        }
    }
    CHECK(bad == 0, "%s: %d ranks out of order", tc->name, bad);
    std::vector<float> a = map_of(in, tc), b = map_of(ranked, tc);
    size_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    CHECK(diff == 0, "%s: %zu of %zu pixels differ between the plane and its ranks", tc->name,
          diff, n);
    printf("  %-44s K %5u  %s\n", tc->name, k, diff ? "DIFFERS" : "identical");
}

static const tcase cases[] = {
    {"1000 values 31x31", 1000, 0, 1, 0, 31, 120, 90},
    {"4096 values spread over 0..65535 15x15", 4096, 3, 16, 0, 15, 150, 100},
    {"all 65536 values 9x9", 65536, 0, 1, 0, 9, 300, 260},
    {"values 65500..65535 (65535 a code) 7x7", 36, 65500, 1, 0, 7, 80, 60},
    {"nodata 65535, 6000 values 31x31", 6000, 100, 7, 1, 31, 140, 100},
    {"nodata 65535, one value 5x5", 1, 40000, 1, 1, 5, 50, 40},
    {"nodata 65535, 65535 values 11x11", 65535, 0, 1, 1, 11, 300, 260},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].nd)
            run<true>(&cases[i]);
        else
            run<false>(&cases[i]);
    }
    return harness_end();
}
