/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast CPU engine against the reference engine, bit for bit, on random
 * inputs: awkward sizes (1x1, 1xN, Nx1, smaller than the window, 257x263),
 * windows from 1x1 to 255x255, all three bases, every dtype, distinct
 * values (up to 100k of them in 32-bit) and --bins/--range (up to 70000
 * bins: the remap path), nodata and NaN, misaligned 16-bit rows, 1 and 2
 * threads, and each image computed whole and as chunks of several heights
 * with their halo rows. The reference's own float64 formula checks the
 * exact one to 1e-6.
 *
 * Codes below 16 take the engine's few-values path (engine_cpu_simd.c);
 * those cases run once per path forced through WINENT_CPU_PATH (unset:
 * the fastest, then portable and avx2), each against the reference, so the
 * paths also match each other; chunks holding a code >= 16 fall back to the
 * sliding engine. A path the CPU lacks is lowered to one it has: on a
 * machine without AVX-512 VBMI (CI's may lack it) the unset runs test AVX2,
 * without AVX2 the portable kernel, and they still must pass.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_cases.h"
#include "harness.h"

/* `special`: floats' share of NaN, and every type's share of nodata. */
typedef value_case vcase;

static const vcase vcases[] = {
    {"u8 16 values", WINENT_U8, 0, 0, 0, 0, 0, 0, 16, 0, 0},
    {"u8 256 values, nodata 7", WINENT_U8, 0, 0, 0, 1, 7, 0, 256, 0.05, 0},
    {"u8 nodata 300 (never matches)", WINENT_U8, 0, 0, 0, 1, 300, 0, 256, 0, 0},
    {"i8 full range, nodata -1", WINENT_I8, 0, 0, 0, 1, -1, -128, 256, 0.05, 0},
    {"u16 4096 values", WINENT_U16, 0, 0, 0, 0, 0, 0, 4096, 0, 0},
    {"u16 full range, nodata 65535", WINENT_U16, 0, 0, 0, 1, 65535, 0, 65536, 0.05, 0},
    {"u16 misaligned, nodata 3", WINENT_U16, 0, 0, 0, 1, 3, 0, 9, 0.05, 1},
    {"i16 full range, nodata -32768", WINENT_I16, 0, 0, 0, 1, -32768, -32768, 65536, 0.05, 0},
    {"u32 100k values, nodata", WINENT_U32, 0, 0, 0, 1, 4000000007.0, 4000000000LL, 100000,
     0.05, 0},
    {"i32 100k values", WINENT_I32, 0, 0, 0, 0, 0, -50000, 100000, 0, 0},
    {"i32 8 values near the limits", WINENT_I32, 0, 0, 0, 1, 2147483647.0, 2147483640LL, 8,
     0.05, 0},
    {"u8 bins 5 range 10:200", WINENT_U8, 5, 10, 200, 0, 0, 0, 256, 0, 0},
    {"i16 bins 300 range -1000:1000, nodata 0", WINENT_I16, 300, -1000, 1000, 1, 0, -1200,
     2400, 0.02, 0},
    {"u16 bins 65536 range 0:65536, nodata 9", WINENT_U16, 65536, 0, 65536, 1, 9, 0, 65536,
     0.05, 0},
    {"f32 bins 256 range 0:1, NaN, nodata 0.5", WINENT_F32, 256, 0, 1, 1, 0.5, 0, 0, 0.05, 0},
    {"f32 bins 1000 range -3:5", WINENT_F32, 1000, -3, 5, 0, 0, 0, 0, 0.02, 0},
    {"f64 bins 70000 range -1:1, NaN", WINENT_F64, 70000, -1, 1, 0, 0, 0, 0, 0.05, 0},
    {"f64 bins 65536 range 0:1, NaN, nodata 0.25", WINENT_F64, 65536, 0, 1, 1, 0.25, 0, 0, 0.05,
     0},
    {"f64 bins 3 range 0:1", WINENT_F64, 3, 0, 1, 0, 0, 0, 0, 0, 0},
};

/* Codes below 16: nodata inside the 16 bins (handled in the path), nodata
 * outside them (chunks holding one fall back to the sliding engine), i8,
 * and narrowed --bins codes with NaN. */
static const vcase few_cases[] = {
    {"u8 16 values (few)", WINENT_U8, 0, 0, 0, 0, 0, 0, 16, 0, 0},
    {"u8 16 values, nodata 9 (few)", WINENT_U8, 0, 0, 0, 1, 9, 0, 16, 0.05, 0},
    {"u8 16 values, nodata 255 (few)", WINENT_U8, 0, 0, 0, 1, 255, 0, 16, 0.002, 0},
    {"u8 3 values (few)", WINENT_U8, 0, 0, 0, 0, 0, 5, 3, 0, 0},
    {"i8 0..15, nodata 15 (few)", WINENT_I8, 0, 0, 0, 1, 15, 0, 16, 0.1, 0},
    {"u8 bins 12 range 0:256, nodata 7 (few)", WINENT_U8, 12, 0, 256, 1, 7, 0, 256, 0.05, 0},
    {"f64 bins 10 range 0:1, NaN (few)", WINENT_F64, 10, 0, 1, 0, 0, 0, 0, 0.05, 0},
    {"f32 bins 16 range 0:1, rare NaN (few)", WINENT_F32, 16, 0, 1, 0, 0, 0, 0, 0.001, 0},
};

/* n <= 63 (byte kernels: 63 = 7x9, 9x7, 63x1, 1x63) and over (wide). */
/* AVX2 looks counts up in blocks of 16: n of 9, 21, 35, 63 take 1 to 4. */
static const int few_windows[][2] = {{1, 1}, {3, 3}, {5, 5}, {7, 3}, {7, 5}, {7, 9}, {9, 7},
                                     {63, 1}, {1, 63}, {9, 9}, {65, 1}, {5, 13}};
static const int few_sizes[][2] = {{1, 1}, {2, 3}, {13, 7}, {61, 47}};
/* "" is the fastest the CPU has (AVX-512 VBMI here for n <= 63); the
 * sliding engine ("slide") is what the vcases above test. */
static const char *const few_paths[] = {"", "portable", "avx2"};

static const int windows[][2] = {{1, 1}, {3, 3}, {5, 5}, {7, 3}, {3, 7}};
static const int sizes[][2] = {{1, 1}, {1, 13}, {13, 1}, {4, 3}, {61, 47}};

static unsigned long long seed = 0x7e57u;

/* Engines of 1 and of up to this many threads run each case; the many small
 * few-values cases use 1 only (an OpenMP team per chunk is slow on a busy
 * CI machine), their big images 2. */
static int threads_tested = 2;

/* Random samples of the case, floats 10 % beyond the range on each side;
 * `extra` bytes in front for misalignment. */
static uint8_t *make_input(const vcase *vc, int w, int h, size_t extra)
{
    return vc_make_input(vc, w, h, 0.1, extra, &seed);
}

/* One image, one window: reference vs engine, whole and in chunks. */
static void run_case(const vcase *vc, int kx, int ky, winent_base base, int w, int h)
{
    winent_compute_opts o = vc_opts(vc, kx, ky);
    o.base = base;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    size_t n = (size_t)w * h, ss = winent_dtype_size(vc->dtype), extra = vc->misalign ? 1 : 0;
    uint8_t *buf = make_input(vc, w, h, extra);
    const uint8_t *in = buf + extra;
    float *ref = malloc(n * sizeof *ref);
    double *f64 = malloc(n * sizeof *f64);
    if (!buf || !ref || !f64) {
        CHECK(0, "out of memory");
        goto done;
    }
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
    if (p == NULL)
        goto done;
    const size_t row_bytes = (size_t)w * ss;
    winent_chunk whole = {in, row_bytes, w, h, 0, h, 0, h};
    CHECK(winent_reference_compute(p, &whole, ref, (size_t)w, &err) == WINENT_OK, "%s", err.msg);
    /* The float64 formula costs another sort per pixel: small cases only. */
    int check_f64 = (double)n * p->nmax < 4e5;
    if (check_f64)
        CHECK(winent_reference_compute_f64(p, &whole, f64, (size_t)w, &err) == WINENT_OK, "%s",
              err.msg);
    double worst = 0;
    for (size_t i = 0; check_f64 && i < n; i++) {
        if (isnan(ref[i]) || isnan(f64[i])) {
            CHECK(isnan(ref[i]) && isnan(f64[i]), "%s: pixel %zu NaN in one formula only",
                  vc->name, i);
            continue;
        }
        double d = fabs(ref[i] - f64[i]);
        worst = d > worst ? d : worst;
    }
    CHECK(worst <= 1e-6, "%s %dx%d: exact vs float64 formula differ by %g", vc->name, kx, ky,
          worst);

    /* Whole image, then chunks of several heights (each with its halo). */
    char label[200];
    snprintf(label, sizeof label, "%s, %dx%d window, base %d, %dx%d image, path '%s'", vc->name,
             kx, ky, (int)base, w, h, getenv("WINENT_CPU_PATH") ? getenv("WINENT_CPU_PATH") : "");
    static const int bands[] = {0, 1, 3, 17};
    vc_check_cpu(p, in, row_bytes, w, h, ref, bands, 4, threads_tested, label);
done:
    winent_plan_free(p);
    free(buf);
    free(ref);
    free(f64);
}

int main(void)
{
    const int nv = (int)(sizeof vcases / sizeof vcases[0]);
    int turn = 0;
    for (int v = 0; v < nv; v++) {
        for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                run_case(&vcases[v], windows[wi][0], windows[wi][1], (winent_base)(turn++ % 3),
                         sizes[si][0], sizes[si][1]);
        /* The big odd image, every case. */
        run_case(&vcases[v], v % 2 ? 3 : 5, 5, (winent_base)(turn++ % 3), 257, 263);
    }
    /* Large windows: 31x31 on the big image (direct, remap, quantized), and
     * 255x255 on images both smaller and larger than the window. */
    run_case(&vcases[0], 31, 31, WINENT_BASE_2, 131, 97);
    run_case(&vcases[8], 31, 31, WINENT_BASE_E, 97, 71);
    run_case(&vcases[14], 31, 31, WINENT_BASE_10, 71, 53);
    run_case(&vcases[1], 255, 255, WINENT_BASE_2, 37, 29);
    run_case(&vcases[9], 255, 255, WINENT_BASE_E, 270, 5);
    run_case(&vcases[4], 255, 3, WINENT_BASE_10, 300, 7);
    run_case(&vcases[16], 3, 255, WINENT_BASE_2, 9, 280);

    /* The few-values path, every path forced in turn (the engine reads
     * WINENT_CPU_PATH when it is created). */
    const int nf = (int)(sizeof few_cases / sizeof few_cases[0]);
    for (size_t pi = 0; pi < sizeof few_paths / sizeof few_paths[0]; pi++) {
        setenv("WINENT_CPU_PATH", few_paths[pi], 1);
        for (int v = 0; v < nf; v++) {
            threads_tested = 1;
            for (size_t wi = 0; wi < sizeof few_windows / sizeof few_windows[0]; wi++)
                for (size_t si = 0; si < sizeof few_sizes / sizeof few_sizes[0]; si++)
                    run_case(&few_cases[v], few_windows[wi][0], few_windows[wi][1],
                             (winent_base)(turn++ % 3), few_sizes[si][0], few_sizes[si][1]);
            threads_tested = 2;
            run_case(&few_cases[v], 5, 5, (winent_base)(turn++ % 3), 257, 263);
            run_case(&few_cases[v], 7, 9, (winent_base)(turn++ % 3), 203, 67);
            run_case(&few_cases[v], 31, 31, (winent_base)(turn++ % 3), 97, 71);
        }
    }
    unsetenv("WINENT_CPU_PATH");
    return harness_end();
}
