/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * winent-bench: throughput of the engines and the pipeline.
 *
 *   winent-bench [cpu] [--size WxH] [--threads N] [--repeat R] [--chunk-rows N] [--quick]
 *   winent-bench gpu ...        (tools/bench_gpu.c)
 *   winent-bench pipeline ...   (tools/bench_pipeline.c)
 *   winent-bench gpu-init       (tools/bench_gpu.c: what bringing up GPUs costs)
 *   winent-bench kernels ...    (tools/bench_kernels.c: GPU kernels and the CPU
 *                               engine over value sets x windows, Markdown tables)
 *   winent-bench stage decode|compute|encode [winent-stream options] IN OUT
 *                               (tools/bench_stage.c: one stage of a job alone)
 *
 * `cpu` times the CPU engine through the public engine API (winent.h), over
 * an image held in memory, chunk by chunk with halo rows as the pipeline
 * feeds it, beside a naive per-pixel baseline timed in the same run on the
 * same image: each window counted from scratch into a histogram, then the
 * sum of a c*log(c) table over its distinct values, OpenMP over rows (the
 * best CPU method of the course answer). The naive times are taken on a band
 * of rows when the whole image would take too long; every pixel costs the
 * same there, so the rate is the rate. The two maps are compared on that
 * band (float64 formula against the exact fixed-point one: within 1e-5).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_common.h"
#include "bench_gpu.h"
#include "bench_hostpath.h"
#include "bench_kernels.h"
#include "bench_pipeline.h"
#include "bench_stage.h"
#include "winent.h"

#define PROG "winent-bench"

/* The naive baseline gets at least this much work per measurement. */
#define NAIVE_TARGET_S 1.0

typedef struct bench_case {
    const char *name;
    winent_dtype dtype;
    int k;           /* square window side */
    uint32_t values; /* distinct values, uniform */
} bench_case;

static const bench_case cases[] = {
    {"u8, 16 values, 5x5", WINENT_U8, 5, 16},
    {"u8, 16 values, 31x31", WINENT_U8, 31, 16},
    {"u16, 4096 values, 5x5", WINENT_U16, 5, 4096},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

typedef struct cpu_opts {
    int width, height, threads, repeat, chunk_rows;
} cpu_opts;


static int cores(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

/* Uniform values in 0..values-1, a pure function of (seed, index). */
static void fill_image(void *img, winent_dtype t, size_t n, uint32_t values, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        uint32_t v = (uint32_t)(((z >> 32) * values) >> 32);
        if (t == WINENT_U8)
            ((uint8_t *)img)[i] = (uint8_t)v;
        else
            ((uint16_t *)img)[i] = (uint16_t)v;
    }
}

/* The naive method on output rows [y0, y1): count each cropped window from
 * scratch, then walk it again to sum clog[c] once per distinct value
 * (clearing the counts on the way, so the histogram stays zero). */
static void naive_rows(const void *img, winent_dtype t, int W, int H, int k, int y0, int y1,
                       const double *clog, const double *logn, float *out, int threads)
{
    const int r = k / 2;
    const size_t hist_len = t == WINENT_U8 ? 256 : 65536;
#pragma omp parallel num_threads(threads)
    {
        uint16_t *hist = calloc(hist_len, sizeof *hist);
#pragma omp for schedule(static)
        for (int y = y0; y < y1; y++) {
            int wy0 = y - r < 0 ? 0 : y - r, wy1 = y + r >= H ? H - 1 : y + r;
            for (int x = 0; x < W; x++) {
                int wx0 = x - r < 0 ? 0 : x - r, wx1 = x + r >= W ? W - 1 : x + r;
                int n = (wy1 - wy0 + 1) * (wx1 - wx0 + 1);
                double sum = 0.0;
                if (t == WINENT_U8) {
                    const uint8_t *p = img;
                    for (int yy = wy0; yy <= wy1; yy++)
                        for (int xx = wx0; xx <= wx1; xx++)
                            hist[p[(size_t)yy * W + xx]]++;
                    for (int yy = wy0; yy <= wy1; yy++)
                        for (int xx = wx0; xx <= wx1; xx++) {
                            uint8_t v = p[(size_t)yy * W + xx];
                            sum += clog[hist[v]];
                            hist[v] = 0;
                        }
                } else {
                    const uint16_t *p = img;
                    for (int yy = wy0; yy <= wy1; yy++)
                        for (int xx = wx0; xx <= wx1; xx++)
                            hist[p[(size_t)yy * W + xx]]++;
                    for (int yy = wy0; yy <= wy1; yy++)
                        for (int xx = wx0; xx <= wx1; xx++) {
                            uint16_t v = p[(size_t)yy * W + xx];
                            sum += clog[hist[v]];
                            hist[v] = 0;
                        }
                }
                out[(size_t)(y - y0) * W + x] = (float)(logn[n] - sum / n);
            }
        }
        free(hist);
    }
}

/* The CPU engine over the whole image, in chunks of `chunk_rows` output rows
 * with their halo rows, as the pipeline hands them over. */
static int engine_pass(winent_engine *e, const void *img, winent_dtype t, int W, int H, int k,
                       int chunk_rows, float *out)
{
    const size_t row_bytes = (size_t)W * winent_dtype_size(t);
    const int r = k / 2;
    for (int y0 = 0; y0 < H; y0 += chunk_rows) {
        int y1 = y0 + chunk_rows > H ? H : y0 + chunk_rows;
        int in_y0 = y0 - r < 0 ? 0 : y0 - r, in_y1 = y1 + r > H ? H : y1 + r;
        winent_status st =
            winent_engine_compute(e, (const uint8_t *)img + (size_t)in_y0 * row_bytes, row_bytes,
                                  W, H, in_y0, in_y1 - in_y0, y0, y1, out + (size_t)y0 * W, W);
        if (st != WINENT_OK) {
            fprintf(stderr, PROG ": CPU engine: %s\n", winent_engine_error(e)->message);
            return -1;
        }
    }
    return 0;
}

static void cpu_usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [cpu] [--size WxH] [--threads N] [--repeat R] [--chunk-rows N]"
               " [--quick]\n"
               "  CPU engine (chunks with halos, via winent.h) against a naive per-pixel\n"
               "  baseline, u8 and u16 uniform images; default 10240x10240, all cores.\n"
               "       " PROG " gpu --help | " PROG " pipeline --help | " PROG
               " kernels --help\n"
               "       " PROG " hostpath --help\n");
}

static int bench_cpu_main(int argc, char **argv)
{
    cpu_opts o = {10240, 10240, cores(), 3, 256};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            cpu_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            o.width = o.height = 1024;
            o.repeat = 1;
        } else if (v && !strcmp(a, "--size") && sscanf(v, "%dx%d", &o.width, &o.height) == 2) {
            i++;
        } else if (v && !strcmp(a, "--threads") && sscanf(v, "%d", &o.threads) == 1) {
            i++;
        } else if (v && !strcmp(a, "--repeat") && sscanf(v, "%d", &o.repeat) == 1) {
            i++;
        } else if (v && !strcmp(a, "--chunk-rows") && sscanf(v, "%d", &o.chunk_rows) == 1) {
            i++;
        } else {
            fprintf(stderr, PROG ": bad option or value: %s (see --help)\n", a);
            return 2;
        }
    }
    if (o.width < 1 || o.height < 1 || o.threads < 1 || o.repeat < 1 || o.chunk_rows < 1) {
        fprintf(stderr, PROG ": --size, --threads, --repeat and --chunk-rows must be positive\n");
        return 2;
    }

    const size_t npix = (size_t)o.width * (size_t)o.height;
    void *img = malloc(npix * 2);
    float *out = malloc(npix * sizeof *out);
    float *naive_out = malloc(npix * sizeof *naive_out);
    double rate[NCASES], naive_rate[NCASES];
    int rc = 0;
    if (img == NULL || out == NULL || naive_out == NULL) {
        fprintf(stderr, PROG ": out of memory for a %dx%d image\n", o.width, o.height);
        rc = 1;
        goto done;
    }
    memset(out, 0, npix * sizeof *out); /* fault the pages in before timing */

    printf("CPU engine vs naive: %dx%d, %d threads of %d cores, chunks of %d rows, best of %d\n\n",
           o.width, o.height, o.threads, cores(), o.chunk_rows, o.repeat);
    printf("| case | engine | Mpixel/s | Mpixel/s per core | speed-up over naive |\n");
    printf("|---|---|---|---|---|\n");
    for (int ci = 0; ci < NCASES; ci++) {
        const bench_case *bc = &cases[ci];
        fill_image(img, bc->dtype, npix, bc->values, o.threads);

        winent_compute_opts co;
        winent_compute_opts_default(&co);
        co.kx = co.ky = bc->k;
        co.dtype = bc->dtype;
        co.base = WINENT_BASE_2;
        winent_engine *e = NULL;
        winent_error err;
        int max_rows = o.chunk_rows + 2 * (bc->k / 2);
        if (winent_engine_create(&co, WINENT_ENGINE_CPU, 0, o.width, max_rows, o.threads, &e,
                                 &err) != WINENT_OK) {
            fprintf(stderr, PROG ": CPU engine: %s\n", err.message);
            rc = 1;
            goto done;
        }
        double best = 1e300;
        for (int r = 0; r < o.repeat; r++) {
            double t0 = now_s();
            if (engine_pass(e, img, bc->dtype, o.width, o.height, bc->k, o.chunk_rows, out)) {
                winent_engine_free(e);
                rc = 1;
                goto done;
            }
            double dt = now_s() - t0;
            best = dt < best ? dt : best;
        }
        winent_engine_free(e);
        rate[ci] = (double)npix / best / 1e6;

        /* Naive: tables as the course answer has them, in base 2 like ours. */
        int nmax = bc->k * bc->k;
        double *clog = malloc(sizeof *clog * (size_t)(nmax + 1));
        double *logn = malloc(sizeof *logn * (size_t)(nmax + 1));
        if (clog == NULL || logn == NULL) {
            free(clog);
            free(logn);
            rc = 1;
            goto done;
        }
        clog[0] = logn[0] = 0.0;
        for (int c = 1; c <= nmax; c++) {
            logn[c] = log2((double)c);
            clog[c] = c * logn[c];
        }
        /* A band in the middle sized from a first small try to last about
         * NAIVE_TARGET_S, never more than the image. */
        int band = o.threads * 4 < o.height ? o.threads * 4 : o.height;
        int ya = (o.height - band) / 2;
        double t0 = now_s();
        naive_rows(img, bc->dtype, o.width, o.height, bc->k, ya, ya + band, clog, logn, naive_out,
                   o.threads);
        double dt = now_s() - t0;
        double per_row = dt / band;
        int want = (int)(NAIVE_TARGET_S / (per_row > 0 ? per_row : 1e-9));
        band = want < band ? band : want > o.height ? o.height : want;
        ya = (o.height - band) / 2;
        double nbest = 1e300;
        for (int r = 0; r < o.repeat; r++) {
            t0 = now_s();
            naive_rows(img, bc->dtype, o.width, o.height, bc->k, ya, ya + band, clog, logn,
                       naive_out, o.threads);
            dt = now_s() - t0;
            nbest = dt < nbest ? dt : nbest;
        }
        naive_rate[ci] = (double)band * o.width / nbest / 1e6;
        double maxdiff = 0.0;
        for (size_t i = 0; i < (size_t)band * o.width; i++) {
            double d = fabs((double)naive_out[i] - out[(size_t)ya * o.width + i]);
            maxdiff = d > maxdiff ? d : maxdiff;
        }
        free(clog);
        free(logn);
        if (!(maxdiff < 1e-5)) {
            fprintf(stderr, PROG ": %s: engine and naive maps differ by %g\n", bc->name, maxdiff);
            rc = 1;
        }

        printf("| %s | sliding (winent) | %.1f | %.1f | %.1fx |\n", bc->name, rate[ci],
               rate[ci] / o.threads, rate[ci] / naive_rate[ci]);
        printf("| %s | naive (%d rows) | %.1f | %.1f | 1.0x |\n", bc->name, band,
               naive_rate[ci], naive_rate[ci] / o.threads);
        fflush(stdout);
    }
    printf("\n31x31 / 5x5 rate (u8): %.3f (sliding), %.3f (naive)\n", rate[1] / rate[0],
           naive_rate[1] / naive_rate[0]);
done:
    free(naive_out);
    free(out);
    free(img);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "gpu"))
        return bench_gpu_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "pipeline"))
        return bench_pipeline_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "gpu-init"))
        return bench_gpu_init_main();
    if (argc > 1 && !strcmp(argv[1], "hostpath"))
        return bench_hostpath_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "kernels"))
        return bench_kernels_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "stage"))
        return bench_stage_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "cpu"))
        return bench_cpu_main(argc - 1, argv + 1);
    return bench_cpu_main(argc, argv);
}
