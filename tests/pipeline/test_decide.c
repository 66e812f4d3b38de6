/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_decide: auto's launch decisions (src/pipeline/decide.c) as tables of
 * rate snapshots: whether the other GPUs pay once the first has computed
 * two chunks, and whether the CPU's measured rate brings the GPUs in.
 */
#include "harness.h"
#include "pipeline/decide.h"

int main(void)
{
    /* The first GPU: 100 Mpixel/s after its first chunk (4 Mpixel in 0.04 s
     * more), more_s 0.4: they pay when over 40 Mpixel are left. */
    static const struct {
        winent_first_gpu g;
        int want;
    } more[] = {
        {{0, 2, 8e6, 4e6, 0.10, 0.06, 41e6}, 1},
        {{0, 2, 8e6, 4e6, 0.10, 0.06, 39e6}, 0},
        {{0, 5, 20e6, 4e6, 0.22, 0.06, 100e6}, 1},
        {{1, 0, 0, 0, 0, 0, 0}, 1},              /* it failed: the others take over */
        {{0, 1, 4e6, 4e6, 0.06, 0.06, 1e9}, 0},  /* ended after one chunk: nothing left */
        {{0, 3, 12e6, 4e6, 0.06, 0.06, 1e9}, 0}, /* no time after its first chunk */
        {{0, 2, 4e6, 4e6, 0.10, 0.06, 1e6}, 1},  /* no pixels after it: as if slow */
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        CHECK(winent_more_gpus_pay(&more[i].g, 0.4) == more[i].want, "more[%zu]", i);
    /* The CPU at 1 Gpixel/s on 16 workers, worth_s 0.8: 800 Mpixel is the
     * line; -1 once every worker has run a band and it stays under. */
    static const struct {
        double rate, total;
        int bands, want;
    } worth[] = {
        {1e9, 801e6, 0, 1},   {1e9, 801e6, 16, 1}, {1e9, 799e6, 3, 0},
        {1e9, 799e6, 16, -1}, {0.0, 1e12, 0, 0},   {0.0, 1e12, 16, -1},
    };
    for (size_t i = 0; i < sizeof worth / sizeof worth[0]; i++)
        CHECK(winent_gpus_worth(worth[i].rate, worth[i].total, worth[i].bands, 16, 0.8) ==
                  worth[i].want,
              "worth[%zu]", i);
    /* auto's GPUs shown to CUDA: every one only past all_s of the CPU
     * alone (30 s), else the first. */
    static const struct {
        double cpu_alone_s;
        int want;
    } all[] = {{0.5, 0}, {8.0, 0}, {30.0, 0}, {30.1, 1}, {600.0, 1}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CHECK(winent_auto_all_gpus(all[i].cpu_alone_s, 30.0) == all[i].want, "all[%zu]", i);
    return harness_end();
}
