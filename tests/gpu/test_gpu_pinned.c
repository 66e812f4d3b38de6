/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A memory job whose buffers are the caller's own pinned memory: the GPUs
 * copy from and to them directly, nothing staged (plan.c,
 * callers_pinned). Its map must be the CPU's, bit for bit, on one GPU and
 * on every GPU, for a u8 and a u16 image, with the map pinned and not, and
 * with padded rows (which are staged again). Skips (77) without a GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/cuda_copies.h"
#include "kernels/engine_cuda.h"
#include "winent.h"

static void fill(void *buf, winent_dtype t, size_t n, uint32_t vmax)
{
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t v = (uint32_t)((s >> 33) % vmax);
        if (t == WINENT_U8)
            ((uint8_t *)buf)[i] = (uint8_t)v;
        else
            ((uint16_t *)buf)[i] = (uint16_t)v;
    }
}

/* One image on `device` from pinned rows `pad` samples wider than the
 * image, into a pinned (or pageable) map, against the CPU's map. */
static void one(winent_dtype t, uint32_t vmax, int k, const char *device, int pinned_out, int pad)
{
    const int W = 1000, H = 1531; /* several chunks, a ragged last one */
    const size_t ss = winent_dtype_size(t), n = (size_t)W * H;
    const size_t in_row = (size_t)(W + pad) * ss;
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = t;
    o.kx = o.ky = k;
    void *plain = malloc(n * ss);
    uint8_t *in = winent_cuda_host_alloc(in_row * H);
    float *ref = malloc(n * sizeof *ref);
    float *got = pinned_out ? winent_cuda_host_alloc(n * sizeof *got) : malloc(n * sizeof *got);
    CHECK(plain && in && ref && got, "out of memory");
    if (plain && in && ref && got) {
        fill(plain, t, n, vmax);
        for (int y = 0; y < H; y++)
            memcpy(in + (size_t)y * in_row, (uint8_t *)plain + (size_t)y * W * ss, (size_t)W * ss);
        CHECK(pad > 0 || winent_cuda_host_pinned(in, in_row * H), "the input is not seen pinned");
        memset(got, 0xEE, n * sizeof *got);
        winent_error e;
        CHECK(winent_entropy(&o, plain, 0, W, H, ref, 0, "cpu", 2, &e) == WINENT_OK, "cpu: %s",
              e.message);
        CHECK(winent_entropy(&o, in, in_row, W, H, got, 0, device, 2, &e) == WINENT_OK,
              "--device %s: %s", device, e.message);
        CHECK(memcmp(ref, got, n * sizeof *got) == 0,
              "%s %dx%d --device %s, map %s, rows padded by %d: not the CPU's map",
              winent_dtype_name(t), k, k, device, pinned_out ? "pinned" : "pageable", pad);
    }
    free(plain);
    winent_cuda_host_free(in);
    free(ref);
    if (pinned_out)
        winent_cuda_host_free(got);
    else
        free(got);
}

int main(void)
{
    int gpus = winent_gpu_count();
    if (gpus == 0) {
        printf("no usable GPU: skipped\n");
        return 77;
    }
    /* A pageable buffer is never taken for a pinned one. */
    char *plain = malloc(1 << 20);
    CHECK(plain && !winent_cuda_host_pinned(plain, 1 << 20), "a malloc'd buffer seen pinned");
    free(plain);
    const char *all = gpus > 1 ? "gpu" : "0";
    for (int d = 0; d < 2; d++) {
        const char *dev = d == 0 ? "0" : all;
        one(WINENT_U8, 16, 5, dev, 1, 0);
        one(WINENT_U16, 65536, 31, dev, 1, 0);
        one(WINENT_U16, 4096, 9, dev, 0, 0); /* the map pageable: staged */
        one(WINENT_U8, 200, 7, dev, 1, 3);   /* padded rows: staged */
    }
    return harness_end();
}
