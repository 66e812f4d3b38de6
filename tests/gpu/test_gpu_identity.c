/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA engine against the CPU engine, bit for bit, on every visible
 * GPU: every dtype, window shape, base, distinct values (up to ~1e6 of
 * them) and --bins/--range, nodata and NaN, random and smooth inputs. The
 * GPU computes each image as several chunks with halos (rotating over its
 * slots); the CPU computes it whole. Every case runs with each kernel
 * family the engine can be asked for (WINENT_GPU_KERNEL: its own choice, a
 * thread per window, a warp per window, the few-codes kernel, the compare
 * kernel, the groups kernel, the column-pack kernel, ranks dense within a
 * chunk, a block per window, equal-code cliques). Circular windows
 * (--disk R, their own kernel family whatever is asked for: every variant
 * must fall back to it) the same way, on every code plane and histogram.
 * Skips (77) without a usable GPU.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"

/* GEN_SPLIT: random over vmax in the top half, over 1000 values (from
 * vmin) in the bottom half: chunks of many and of few codes in one image. */
typedef enum gen { GEN_RANDOM, GEN_LANDSCAPE, GEN_SPLIT } gen;

typedef struct tcase {
    const char *name;
    winent_dtype dtype;
    int kx, ky;
    winent_base base;
    uint32_t bins;
    double lo, hi;
    int has_nodata;
    double nodata;
    gen g;
    uint64_t vmax;   /* integers: values 0..vmax-1 before the dtype's offset */
    int64_t vmin;    /* integers: added to each value */
    double nan_frac; /* floats: share of NaN samples */
    int w, h;
    int chunk_rows;  /* GPU chunk: output rows per chunk */
} tcase;

static unsigned long long seed = 0x5eedu;

/* The cases of disk_cases[] run as disks of radius kx / 2 (kx = ky). */
static int disk_mode;

/* A smooth surface with a little noise, in [0, 1). */
static double landscape(int x, int y, int w, int h)
{
    double u = (double)x / w, v = (double)y / h;
    double s = 0.5 + 0.25 * sin(6.1 * u + 1.3) * cos(4.7 * v) + 0.15 * sin(17.0 * u * v + 0.4) +
               0.05 * cos(31.0 * v - 11.0 * u);
    s += 0.02 * ((double)(harness_rand(&seed) % 1000) / 1000.0 - 0.5);
    return s < 0 ? 0 : s >= 1 ? 0.999999 : s;
}

static void put_int(void *buf, winent_dtype t, size_t i, int64_t v)
{
    switch (t) {
    case WINENT_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case WINENT_I8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case WINENT_U16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case WINENT_I16: ((int16_t *)buf)[i] = (int16_t)v; break;
    case WINENT_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case WINENT_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    default: break;
    }
}

static void *make_input(const tcase *tc)
{
    size_t n = (size_t)tc->w * (size_t)tc->h, ss = winent_dtype_size(tc->dtype);
    void *buf = malloc(n * ss);
    if (buf == NULL)
        return NULL;
    for (int y = 0; y < tc->h; y++)
        for (int x = 0; x < tc->w; x++) {
            size_t i = (size_t)y * tc->w + x;
            double u = tc->g == GEN_LANDSCAPE ? landscape(x, y, tc->w, tc->h)
                                              : (double)(harness_rand(&seed) >> 11) / 9007199254740992.0;
            if (winent_dtype_is_float(tc->dtype)) {
                double v = tc->lo - 0.1 * (tc->hi - tc->lo) + u * 1.2 * (tc->hi - tc->lo);
                if ((double)(harness_rand(&seed) % 100000) < tc->nan_frac * 100000)
                    v = NAN;
                else if (tc->has_nodata && harness_rand(&seed) % 50 == 0)
                    v = tc->nodata;
                if (tc->dtype == WINENT_F32)
                    ((float *)buf)[i] = (float)v;
                else
                    ((double *)buf)[i] = v;
            } else {
                int64_t v = (int64_t)(u * (double)tc->vmax);
                if (tc->g == GEN_RANDOM)
                    v = (int64_t)(harness_rand(&seed) % tc->vmax);
                if (tc->g == GEN_SPLIT)
                    v = (int64_t)(harness_rand(&seed) % (y < tc->h / 2 ? tc->vmax : 1000));
                v += tc->vmin;
                if (tc->has_nodata && harness_rand(&seed) % 20 == 0)
                    v = (int64_t)tc->nodata;
                put_int(buf, tc->dtype, i, v);
            }
        }
    return buf;
}

static int first_diff(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0)
            return (int)i;
    return -1;
}

static const char *const variants[] = {"auto", "thread", "warp",    "few",
                                       "cmp",  "groups", "colpack", "dense", "block",
                                       "sparse"};

static void run_gpu(const tcase *tc, int device, const winent_plan *p, const char *rows,
                    const float *ref, float *got, int pitch);

static void run_case(const tcase *tc, int device)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = tc->dtype;
    o.kx = tc->kx;
    o.ky = tc->ky;
    o.base = tc->base;
    o.bins = tc->bins;
    o.range_lo = tc->lo;
    o.range_hi = tc->hi;
    o.has_nodata = tc->has_nodata;
    o.nodata = tc->nodata;
    o.disk = disk_mode;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    winent_cpu_engine *cpu = NULL;
    const int W = tc->w, H = tc->h;
    const size_t n = (size_t)W * H, ss = winent_dtype_size(tc->dtype);
    void *in = make_input(tc);
    float *ref = malloc(n * sizeof *ref);
    /* Pinned output, and a row pitch wider than the image: the engine must
     * honour both strides. */
    const int pitch = W + 3;
    float *got = winent_cuda_host_alloc((size_t)pitch * H * sizeof *got);
    char *rows = winent_cuda_host_alloc((size_t)(W + 5) * ss * H);
    CHECK(in && ref && got && rows, "out of memory");
    if (!(in && ref && got && rows))
        goto done;
    for (int y = 0; y < H; y++)
        memcpy(rows + (size_t)y * (W + 5) * ss, (char *)in + (size_t)y * W * ss, (size_t)W * ss);

    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s: %s", tc->name, err.msg);
    if (p == NULL)
        goto done;
    CHECK(winent_cpu_engine_create(p, W, H, 2, &cpu, &err) == WINENT_OK, "%s", err.msg);
    winent_chunk whole = {in, (size_t)W * ss, W, H, 0, H, 0, H};
    CHECK(winent_cpu_engine_compute(cpu, &whole, ref, (size_t)W, &err) == WINENT_OK, "%s",
          err.msg);

    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        setenv("WINENT_GPU_KERNEL", variants[v], 1);
        run_gpu(tc, device, p, rows, ref, got, pitch);
    }
    unsetenv("WINENT_GPU_KERNEL");
done:
    winent_cpu_engine_free(cpu);
    winent_plan_free(p);
    winent_cuda_host_free(rows);
    winent_cuda_host_free(got);
    free(ref);
    free(in);
}

/* The GPU's map of the case in chunks, against the CPU's `ref`. */
static void run_gpu(const tcase *tc, int device, const winent_plan *p, const char *rows,
                    const float *ref, float *got, int pitch)
{
    winent_err err;
    winent_err_clear(&err);
    winent_gpu_engine *gpu = NULL;
    const int W = tc->w, H = tc->h;
    const size_t n = (size_t)W * H, ss = winent_dtype_size(tc->dtype);
    const int R = tc->chunk_rows, slots = 3;
    CHECK(winent_gpu_engine_create(p, device, W, R + 2 * p->ry, slots, &gpu, &err) == WINENT_OK,
          "%s: %s", tc->name, err.msg);
    if (gpu == NULL)
        goto done;
    /* Poison: every output pixel must be written. */
    memset(got, 0xEE, (size_t)pitch * H * sizeof *got);
    {
        int nchunks = (H + R - 1) / R;
        winent_status st = WINENT_OK;
        for (int k = 0; k < nchunks && st == WINENT_OK; k++) {
            int s = k % slots;
            if (k >= slots)
                st = winent_gpu_engine_wait(gpu, s, &err);
            int y0 = k * R, y1 = y0 + R < H ? y0 + R : H, a, h;
            winent_chunk_input_rows(y0, y1, p->ry, H, &a, &h);
            winent_chunk c = {rows + (size_t)a * (W + 5) * ss, (size_t)(W + 5) * ss, W, H, a, h,
                              y0, y1};
            if (st == WINENT_OK)
                st = winent_gpu_engine_submit(gpu, s, &c, got + (size_t)y0 * pitch,
                                              (size_t)pitch, &err);
        }
        for (int s = 0; s < slots; s++) {
            winent_status w = winent_gpu_engine_wait(gpu, s, &err);
            if (st == WINENT_OK)
                st = w;
        }
        CHECK(st == WINENT_OK, "%s: %s", tc->name, err.msg);
    }
    int bad = 0, first = -1;
    for (int y = 0; y < H; y++) {
        int d = first_diff(ref + (size_t)y * W, got + (size_t)y * pitch, (size_t)W);
        if (d >= 0) {
            if (first < 0)
                first = y * W + d;
            for (int x = 0; x < W; x++)
                bad += memcmp(&ref[(size_t)y * W + x], &got[(size_t)y * pitch + x], 4) != 0;
        }
    }
    CHECK(bad == 0, "%s on GPU %d (%s): %d of %zu pixels differ; first (%d, %d): cpu %.9g gpu %.9g",
          tc->name, device, winent_gpu_engine_path(gpu), bad, n, first < 0 ? 0 : first % W,
          first < 0 ? 0 : first / W, first < 0 ? 0.0 : ref[first],
          first < 0 ? 0.0 : got[(size_t)(first / W) * pitch + first % W]);
    printf("  %-40s gpu %d  %-6s %-40s %s\n", tc->name, device, getenv("WINENT_GPU_KERNEL"),
           winent_gpu_engine_path(gpu), bad ? "DIFFERS" : "identical");
done:
    winent_gpu_engine_free(gpu);
}

static const tcase cases[] = {
    /* name                         dtype     kx  ky  base   bins lo hi nd nodata gen vmax vmin nan w h R */
    {"u8 0..15 5x5", WINENT_U8, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 97, 83, 17},
    {"u8 0..15 5x5 landscape base2", WINENT_U8, 5, 5, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 16, 0, 0, 130, 70, 9},
    {"u8 0..19 landscape, chunks <16 and >=16", WINENT_U8, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 20, 0, 0, 97, 83, 9},
    {"u8 1x1", WINENT_U8, 1, 1, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 256, 0, 0, 40, 30, 7},
    {"u8 3x3 base10", WINENT_U8, 3, 3, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_RANDOM, 256, 0, 0, 97, 83, 20},
    {"u8 7x3", WINENT_U8, 7, 3, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 40, 0, 0, 97, 83, 11},
    {"u8 3x7", WINENT_U8, 3, 7, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 200, 0, 0, 97, 83, 11},
    {"u8 31x31", WINENT_U8, 31, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 150, 120, 25},
    /* The column-pack kernel (T in shared memory up to 6143 pixels): an
     * oblong window, 1023 pixels with counts near it (a landscape), three
     * slots, a wide short window. */
    {"colpack u8 16 values 13x21", WINENT_U8, 13, 21, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 120, 90, 20},
    {"colpack u8 16 classes 33x31 landscape (1023 pixels)", WINENT_U8, 33, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 16, 0, 0, 150, 130, 30},
    {"colpack u8 16 values 35x29 (three slots)", WINENT_U8, 35, 29, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 140, 100, 25},
    {"colpack u8 16 values 255x3", WINENT_U8, 255, 3, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 300, 40, 10},
    {"colpack u8 16 values 29x127 (pairs, 2 ky = 254)", WINENT_U8, 29, 127, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 110, 300, 60},
    {"colpack u8 16 values 17x129 (slots: 2 ky > 255)", WINENT_U8, 17, 129, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 90, 290, 70},
    {"colpack u8 16 classes 15x7 landscape (pairs, 4 byte steps)", WINENT_U8, 15, 7, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 16, 0, 0, 77, 50, 13},
    {"u8 255x255", WINENT_U8, 255, 255, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 256, 0, 0, 300, 280, 64},
    {"u8 nodata 3", WINENT_U8, 5, 5, WINENT_BASE_E, 0, 0, 0, 1, 3, GEN_RANDOM, 8, 0, 0, 97, 83, 17},
    {"u8 nodata 300 (unreachable)", WINENT_U8, 5, 5, WINENT_BASE_E, 0, 0, 0, 1, 300, GEN_RANDOM, 8, 0, 0, 50, 40, 17},
    {"u8 1x1 nodata", WINENT_U8, 1, 1, WINENT_BASE_E, 0, 0, 0, 1, 0, GEN_RANDOM, 4, 0, 0, 40, 30, 7},
    {"i8 5x5", WINENT_I8, 5, 5, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 256, -128, 0, 97, 83, 17},
    {"i8 nodata -5 9x9", WINENT_I8, 9, 9, WINENT_BASE_E, 0, 0, 0, 1, -5, GEN_LANDSCAPE, 20, -10, 0, 97, 83, 30},
    {"u16 65536 distinct 5x5", WINENT_U16, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 65536, 0, 0, 130, 90, 17},
    {"u16 landscape 31x31", WINENT_U16, 31, 31, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 3000, 0, 0, 150, 120, 40},
    {"u16 nodata 7x7", WINENT_U16, 7, 7, WINENT_BASE_10, 0, 0, 0, 1, 7, GEN_RANDOM, 60, 0, 0, 97, 83, 17},
    {"u16 bins 64 range 0:65535", WINENT_U16, 5, 5, WINENT_BASE_E, 64, 0, 65535, 0, 0, GEN_RANDOM, 65536, 0, 0, 97, 83, 17},
    {"i16 5x5", WINENT_I16, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 65536, -32768, 0, 97, 83, 17},
    {"i16 9x9 landscape", WINENT_I16, 9, 9, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 500, -250, 0, 97, 83, 23},
    {"u32 ~1e6 distinct 5x5", WINENT_U32, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 0, 0, 130, 90, 17},
    {"u32 ~1e6 distinct 15x15", WINENT_U32, 15, 15, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 0, 0, 97, 83, 30},
    {"u32 top values (NODATA code)", WINENT_U32, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 4, 4294967292LL, 0, 60, 50, 17},
    {"i32 nodata -1 7x3", WINENT_I32, 7, 3, WINENT_BASE_10, 0, 0, 0, 1, -1, GEN_RANDOM, 5, -2, 0, 97, 83, 13},
    {"i32 wide 5x5", WINENT_I32, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 4294967296ULL, -2147483648LL, 0, 97, 83, 17},
    {"u32 255x3 global hash", WINENT_U32, 255, 3, WINENT_BASE_E, 0, 0, 0, 1, 9, GEN_RANDOM, 1000000, 0, 0, 300, 60, 16},
    {"f32 bins 16 NaN", WINENT_F32, 5, 5, WINENT_BASE_E, 16, 0, 1, 0, 0, GEN_RANDOM, 0, 0, 0.05, 97, 83, 17},
    {"f32 bins 256 landscape nodata", WINENT_F32, 7, 7, WINENT_BASE_2, 256, -3, 5, 1, 0.25, GEN_LANDSCAPE, 0, 0, 0.01, 97, 83, 17},
    {"f32 bins 1000 11x11", WINENT_F32, 11, 11, WINENT_BASE_E, 1000, 0, 1, 0, 0, GEN_RANDOM, 0, 0, 0.02, 97, 83, 17},
    {"f64 bins 256 NaN nodata", WINENT_F64, 5, 5, WINENT_BASE_10, 256, -1, 1, 1, 0.5, GEN_RANDOM, 0, 0, 0.03, 97, 83, 17},
    {"f64 bins 100000 landscape", WINENT_F64, 5, 5, WINENT_BASE_E, 100000, 0, 1, 0, 0, GEN_LANDSCAPE, 0, 0, 0.01, 97, 83, 17},
    {"u16 255x255 global hash", WINENT_U16, 255, 255, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 65536, 0, 0, 280, 260, 130},
    /* pack16 (codes < 16, kx * ky <= 31): several warps' strips, every
     * radius, a bin holding the whole window, rows and columns alone. */
    {"pack16 u8 0..15 5x5 wide", WINENT_U8, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 301, 77, 19},
    {"pack16 u8 0..1 5x5 base2", WINENT_U8, 5, 5, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 2, 0, 0, 150, 60, 13},
    {"pack16 u8 0..15 7x3 base10", WINENT_U8, 7, 3, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 131, 70, 11},
    {"pack16 u8 0..15 3x9", WINENT_U8, 3, 9, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 16, 0, 0, 97, 83, 17},
    {"pack16 u8 0..15 15x1", WINENT_U8, 15, 1, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 97, 40, 9},
    {"pack16 u8 0..15 1x15", WINENT_U8, 1, 15, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 70, 97, 20},
    {"pack16 u8 0..15 1x1", WINENT_U8, 1, 1, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 40, 30, 7},
    {"pack16 u8 0..15 11x1 (kx 11)", WINENT_U8, 11, 1, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 16, 0, 0, 33, 20, 5},
    /* Large windows and many values (the warp and few kernels), each
     * table kind, the code equal to a hash table's empty key, nodata. */
    {"few u8 0..15 63x63 random", WINENT_U8, 63, 63, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 150, 140, 45},
    {"few u8 0..15 255x255 landscape", WINENT_U8, 255, 255, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 16, 0, 0, 300, 290, 100},
    {"few u8 0..3 255x17", WINENT_U8, 255, 17, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_RANDOM, 4, 0, 0, 260, 70, 30},
    {"u8 0..255 63x31", WINENT_U8, 63, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 256, 0, 0, 200, 120, 40},
    {"u16 4096 31x31", WINENT_U16, 31, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 4096, 0, 0, 150, 120, 40},
    {"u16 65536 31x31 random", WINENT_U16, 31, 31, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 65536, 0, 0, 150, 120, 40},
    {"u16 65530..65535 31x15 (empty key)", WINENT_U16, 31, 15, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 6, 65530, 0, 120, 90, 30},
    {"u16 nodata 0 63x63", WINENT_U16, 63, 63, WINENT_BASE_E, 0, 0, 0, 1, 0, GEN_RANDOM, 30000, 0, 0, 160, 150, 50},
    {"u16 65536 127x127", WINENT_U16, 127, 127, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 65536, 0, 0, 200, 180, 60},
    {"i32 1e6 31x31", WINENT_I32, 31, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 0, 0, 150, 120, 40},
    {"i32 1e6 nodata 15x15", WINENT_I32, 15, 15, WINENT_BASE_10, 0, 0, 0, 1, 5, GEN_RANDOM, 1000000, 0, 0, 130, 100, 30},
    {"u32 top codes 31x31 (empty key)", WINENT_U32, 31, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 5, 4294967291LL, 0, 120, 100, 30},
    {"i32 1e6 255x255 (global tables)", WINENT_I32, 255, 255, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 0, 0, 280, 270, 90},
    /* Ranks dense within a chunk (16-bit planes of more than 8192 possible
     * codes, from 31x31): each tier's table (up to 1024, 4096 and 8192
     * codes in a chunk), nodata, codes at the top of the range, chunks of
     * one image on both sides of the last tier. */
    {"dense u16 900 values 31x31", WINENT_U16, 31, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 900, 0, 0, 150, 120, 40},
    {"dense u16 3000 values 47x33", WINENT_U16, 47, 33, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 3000, 60000, 0, 170, 130, 30},
    {"dense u16 nodata 17, 6000 values 63x63", WINENT_U16, 63, 63, WINENT_BASE_10, 0, 0, 0, 1, 17, GEN_RANDOM, 6000, 0, 0, 200, 180, 50},
    {"dense u16 split 65536 / 1000 values 31x31", WINENT_U16, 31, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_SPLIT, 65536, 0, 0, 160, 200, 30},
    {"dense u16 12 classes landscape 63x63 (colpack)", WINENT_U16, 63, 63, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 12, 0, 0, 200, 170, 40},
    {"dense i16 16 values 127x31 (colpack, K = 16)", WINENT_I16, 127, 31, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, -8, 0, 230, 120, 30},
    {"dense u16 17 values 31x31 (K = 17)", WINENT_U16, 31, 31, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_RANDOM, 17, 40000, 0, 150, 110, 30},
    {"dense u16 nodata 65535, 10 values 31x31", WINENT_U16, 31, 31, WINENT_BASE_E, 0, 0, 0, 1, 65535, GEN_RANDOM, 10, 100, 0, 150, 110, 30},
    {"dense u16 nodata 65535, 15 values 63x31 (colpack, K = 15)", WINENT_U16, 63, 31, WINENT_BASE_2, 0, 0, 0, 1, 65535, GEN_RANDOM, 15, 7, 0, 170, 120, 30},
    {"dense u16 nodata 65535, 15 values 31x63 (colpack pairs, K = 15)", WINENT_U16, 31, 63, WINENT_BASE_2, 0, 0, 0, 1, 65535, GEN_RANDOM, 15, 7, 0, 140, 150, 30},
    {"dense u16 nodata 65535, 16 values 31x31 (K = 16)", WINENT_U16, 31, 31, WINENT_BASE_E, 0, 0, 0, 1, 65535, GEN_RANDOM, 16, 7, 0, 150, 110, 30},
    {"dense u16 nodata 0, 12 classes landscape 63x63", WINENT_U16, 63, 63, WINENT_BASE_10, 0, 0, 0, 1, 0, GEN_LANDSCAPE, 12, 0, 0, 200, 170, 40},
    {"dense f32 bins 30000 NaN landscape 63x63", WINENT_F32, 63, 63, WINENT_BASE_E, 30000, 0, 1, 0, 0, GEN_LANDSCAPE, 0, 0, 0.02, 160, 140, 50},
    {"dense i16 landscape 127x127", WINENT_I16, 127, 127, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 40000, -20000, 0, 220, 200, 70},
    {"dense u16 nodata 65535, 500 values 255x255", WINENT_U16, 255, 255, WINENT_BASE_2, 0, 0, 0, 1, 65535, GEN_RANDOM, 500, 65000, 0, 280, 270, 90},
    /* A block per window (16-bit planes past the groups kernel, 255 wide):
     * chunks of too many codes for the dense ranks, nodata, flat windows. */
    {"block u16 65536 random 255x255", WINENT_U16, 255, 255, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 65536, 0, 0, 290, 270, 90},
    {"block u16 nodata 65535, 40000 values 255x201", WINENT_U16, 255, 201, WINENT_BASE_2, 0, 0, 0, 1, 65535, GEN_RANDOM, 40000, 0, 0, 300, 230, 70},
    {"block i16 split 255x5", WINENT_I16, 255, 5, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_SPLIT, 65536, -32768, 0, 400, 120, 20},
    {"block i32 nodata 7, 1e6 values 255x255 (chunk ranks)", WINENT_I32, 255, 255, WINENT_BASE_E, 0, 0, 0, 1, 7, GEN_RANDOM, 1000000, 0, 0, 280, 270, 90},
    /* Equal-code cliques (32-bit planes past 127x127; any 32-bit plane when
     * asked for): chunks whose codes repeat too much go to the block
     * kernel, here within one image (split), nodata, oblong windows. */
    {"sparse i32 1e6 values 127x127", WINENT_I32, 127, 127, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 0, 0, 220, 200, 60},
    {"sparse i32 split 1e6 / 1000 values 255x255", WINENT_I32, 255, 255, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_SPLIT, 1000000, -500000, 0, 300, 320, 60},
    {"sparse u32 nodata 7, 200000 values 255x161", WINENT_U32, 255, 161, WINENT_BASE_10, 0, 0, 0, 1, 7, GEN_RANDOM, 200000, 0, 0, 290, 260, 45},
    {"sparse i32 top codes 31x255", WINENT_I32, 31, 255, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 2146483647LL, 0, 150, 300, 80},
    {"f32 bins 4096 NaN 31x31", WINENT_F32, 31, 31, WINENT_BASE_E, 4096, 0, 1, 0, 0, GEN_RANDOM, 0, 0, 0.03, 150, 120, 40},
    {"f32 bins 256 nodata 63x63", WINENT_F32, 63, 63, WINENT_BASE_2, 256, 0, 1, 1, 0.5, GEN_LANDSCAPE, 0, 0, 0.01, 160, 140, 50},
    /* The compare kernel (square windows 3 to 9 of wide codes): the plane's
     * all-ones sentinel as an ordinary code beside absent border entries,
     * images narrower and shorter than the window. */
    {"cmp u16 65530..65535 3x3 (sentinel code)", WINENT_U16, 3, 3, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 6, 65530, 0, 70, 50, 13},
    {"cmp u16 65533..65535 9x9 narrow", WINENT_U16, 9, 9, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 3, 65533, 0, 4, 30, 7},
    {"cmp u32 top codes 7x7 short", WINENT_U32, 7, 7, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_RANDOM, 3, 4294967293LL, 0, 40, 5, 3},
    {"cmp i16 nodata 9x9", WINENT_I16, 9, 9, WINENT_BASE_E, 0, 0, 0, 1, 2, GEN_RANDOM, 9, -4, 0, 90, 70, 19},
    {"narrow 1 column", WINENT_U8, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 16, 0, 0, 1, 50, 7},
    {"one row", WINENT_U16, 5, 5, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 65536, 0, 0, 200, 1, 1},
};

/* Disks (kx = ky = 2R + 1): 8-bit planes with 8- and 16-bit counters,
 * 16-bit planes with the sentinel (smem) and without (hash), 32-bit planes
 * (shared and global hash tables), floats with NaN, images smaller than
 * the disk, chunks of one row. */
static const tcase disk_cases[] = {
    {"disk u8 256 values r0", WINENT_U8, 1, 1, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 256, 0, 0, 40, 30, 7},
    {"disk u8 256 values r3", WINENT_U8, 7, 7, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 256, 0, 0, 97, 83, 17},
    {"disk u8 16 values r7 landscape", WINENT_U8, 15, 15, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 16, 0, 0, 130, 90, 23},
    {"disk u8 200 values r15 (cnt16)", WINENT_U8, 31, 31, WINENT_BASE_10, 0, 0, 0, 0, 0, GEN_RANDOM, 200, 0, 0, 150, 120, 25},
    {"disk u8 nodata 3 r2", WINENT_U8, 5, 5, WINENT_BASE_E, 0, 0, 0, 1, 3, GEN_RANDOM, 8, 0, 0, 97, 83, 1},
    {"disk u16 nodata 7 r5", WINENT_U16, 11, 11, WINENT_BASE_2, 0, 0, 0, 1, 7, GEN_RANDOM, 60, 0, 0, 97, 83, 17},
    {"disk u16 65536 values r4", WINENT_U16, 9, 9, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 65536, 0, 0, 130, 90, 17},
    {"disk i16 landscape r31", WINENT_I16, 63, 63, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_LANDSCAPE, 500, -250, 0, 160, 150, 40},
    {"disk u32 1e6 values r7", WINENT_U32, 15, 15, WINENT_BASE_2, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 0, 0, 97, 83, 30},
    {"disk i32 nodata -1 r2", WINENT_I32, 5, 5, WINENT_BASE_10, 0, 0, 0, 1, -1, GEN_RANDOM, 5, -2, 0, 97, 83, 13},
    {"disk i32 1e6 values r127 (global tables)", WINENT_I32, 255, 255, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 1000000, 0, 0, 280, 270, 90},
    {"disk f32 bins 256 NaN nodata r4", WINENT_F32, 9, 9, WINENT_BASE_2, 256, -3, 5, 1, 0.25, GEN_LANDSCAPE, 0, 0, 0.01, 97, 83, 17},
    {"disk f64 bins 100000 r3", WINENT_F64, 7, 7, WINENT_BASE_E, 100000, 0, 1, 0, 0, GEN_RANDOM, 0, 0, 0.02, 97, 83, 17},
    {"disk u8 narrower than the disk r10", WINENT_U8, 21, 21, WINENT_BASE_E, 0, 0, 0, 0, 0, GEN_RANDOM, 64, 0, 0, 6, 50, 9},
};

/* The course example of SPEC section 1 through the GPU. */
static void known_answer(int device)
{
    static const uint8_t input[25] = {7,  6,  9, 3, 1,  15, 10, 12, 9,  13, 10, 11, 2,
                                      11, 3,  6, 12, 2, 4,  8,  11, 8,  7,  13, 6};
    static const double expected[25] = {
        2.04319, 2.13833, 2.33837, 2.13833, 1.88916, 2.02281, 2.25273, 2.51053, 2.33937,
        2.13833, 2.15353, 2.41505, 2.51159, 2.44121, 2.33837, 2.02281, 2.30667, 2.41505,
        2.33937, 2.25386, 1.88916, 2.09473, 2.21107, 2.13833, 2.04319};
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.base = WINENT_BASE_E; /* the expected values are in nats */
    winent_plan *p = NULL;
    winent_gpu_engine *g = NULL;
    winent_err err;
    winent_err_clear(&err);
    float out[25];
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
    CHECK(winent_gpu_engine_create(p, device, 5, 5, 1, &g, &err) == WINENT_OK, "%s", err.msg);
    if (g) {
        winent_chunk c = {input, 5, 5, 5, 0, 5, 0, 5};
        CHECK(winent_gpu_engine_compute(g, &c, out, 5, &err) == WINENT_OK, "%s", err.msg);
        for (int i = 0; i < 25; i++)
            CHECK(fabs(out[i] - expected[i]) < 5e-6, "GPU %d pixel %d: %.6f, expected %.5f",
                  device, i, out[i], expected[i]);
    }
    winent_gpu_engine_free(g);
    winent_plan_free(p);
}

int main(void)
{
    int gpus = winent_cuda_device_count();
    if (gpus == 0) {
        printf("no usable GPU: skipped\n");
        return 77;
    }
    winent_err err;
    winent_err_clear(&err);
    /* A device that does not exist is a device error naming it. */
    {
        winent_compute_opts o;
        winent_compute_opts_default(&o);
        winent_plan *p = NULL;
        winent_gpu_engine *g = (winent_gpu_engine *)1;
        CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
        CHECK(winent_gpu_engine_create(p, gpus, 64, 64, 2, &g, &err) == WINENT_ERR_DEVICE,
              "device %d should not exist", gpus);
        CHECK(g == NULL, "engine pointer not cleared");
        CHECK(strstr(err.msg, "GPU") != NULL, "message: %s", err.msg);
        winent_plan_free(p);
    }
    for (int d = 0; d < gpus; d++) {
        char name[128];
        winent_err_clear(&err);
        CHECK(winent_cuda_device_name(d, name, sizeof name, &err) == WINENT_OK, "%s", err.msg);
        printf("GPU %d: %s\n", d, name);
        known_answer(d);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            run_case(&cases[i], d);
        disk_mode = 1;
        for (size_t i = 0; i < sizeof disk_cases / sizeof disk_cases[0]; i++)
            run_case(&disk_cases[i], d);
        disk_mode = 0;
    }
    return harness_end();
}
