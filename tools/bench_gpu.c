/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_gpu.c - `winent-bench gpu [--device N] [--quick]`: what the GPU
 * engine does and what bounds it.
 *
 *   1. copy bandwidths of each GPU (pinned H2D, D2H, both at once, D2D);
 *   2. kernel-only Gpixel/s on device-resident data (CUDA events, warm-up,
 *      median of repeats): u8 0..15 5x5, u8 0..15 31x31, u16 with 65536
 *      distinct values 5x5, each spot-checked against the CPU engine;
 *   3. the in-memory chunk pipeline (pinned host RAM to pinned host RAM, no
 *      files): chunks rotate over the slots of one GPU, then over every GPU
 *      with one host thread per GPU, against the PCIe bound of 1 byte in and
 *      4 bytes out per u8 pixel.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_gpu.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"

#define MAX_GPUS 16

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static inline uint64_t rng(void)
{
    return xorshift64(&rng_state);
}


/* Random samples: u8 values 0..vmax-1 or u16 values 0..vmax-1. */
static void *make_image(winent_dtype t, int w, int h, uint32_t vmax)
{
    size_t n = (size_t)w * (size_t)h;
    void *buf = winent_cuda_host_alloc(n * winent_dtype_size(t));
    if (buf == NULL)
        return NULL;
    if (t == WINENT_U8) {
        uint8_t *p = buf;
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)(rng() % vmax);
    } else {
        uint16_t *p = buf;
        for (size_t i = 0; i < n; i++)
            p[i] = (uint16_t)(rng() % vmax);
    }
    return buf;
}

typedef struct kernel_result {
    const char *name;
    char path[64];
    double ms, gpix;
    int checked_ok;
} kernel_result;

/* Kernel-only time of one whole-image chunk, then the first rows checked
 * against the CPU engine. */
static int bench_kernel(int device, const char *name, winent_dtype t, uint32_t vmax, int k, int w,
                        int h, int reps, kernel_result *r)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = t;
    o.kx = o.ky = k;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    winent_gpu_engine *g = NULL;
    winent_cpu_engine *cpu = NULL;
    float *got = NULL, *ref = NULL;
    int rc = 1;
    memset(r, 0, sizeof *r);
    r->name = name;
    void *img = make_image(t, w, h, vmax);
    if (img == NULL || winent_plan_create(&o, &p, &err) != WINENT_OK ||
        winent_gpu_engine_create(p, device, w, h, 1, &g, &err) != WINENT_OK) {
        fprintf(stderr, "winent-bench: %s: %s\n", name, img ? err.msg : "out of memory");
        goto done;
    }
    snprintf(r->path, sizeof r->path, "%s", winent_gpu_engine_path(g));
    winent_chunk c = {img, (size_t)w * winent_dtype_size(t), w, h, 0, h, 0, h};
    if (winent_gpu_engine_time_kernel(g, &c, 2, reps, &r->ms, &err) != WINENT_OK) {
        fprintf(stderr, "winent-bench: %s: %s\n", name, err.msg);
        goto done;
    }
    r->gpix = (double)w * h / (r->ms * 1e-3) / 1e9;
    /* Spot check: the first rows, bit for bit. */
    int rows = h < 48 ? h : 48;
    got = malloc((size_t)w * h * sizeof *got);
    ref = malloc((size_t)w * rows * sizeof *ref);
    if (got == NULL || ref == NULL ||
        winent_gpu_engine_fetch_output(g, w, h, got, &err) != WINENT_OK ||
        winent_cpu_engine_create(p, w, rows + p->ry, 4, &cpu, &err) != WINENT_OK) {
        fprintf(stderr, "winent-bench: %s: check: %s\n", name, err.msg);
        goto done;
    }
    int a, n;
    winent_chunk_input_rows(0, rows, p->ry, h, &a, &n);
    winent_chunk cc = {img, c.row_bytes, w, h, a, n, 0, rows};
    if (winent_cpu_engine_compute(cpu, &cc, ref, (size_t)w, &err) != WINENT_OK) {
        fprintf(stderr, "winent-bench: %s: check: %s\n", name, err.msg);
        goto done;
    }
    r->checked_ok = memcmp(ref, got, (size_t)w * rows * sizeof *ref) == 0;
    rc = r->checked_ok ? 0 : 1;
done:
    free(got);
    free(ref);
    winent_cpu_engine_free(cpu);
    winent_gpu_engine_free(g);
    winent_plan_free(p);
    winent_cuda_host_free(img);
    return rc;
}

/* ---- In-memory pipeline ------------------------------------------------------ */

typedef struct pipe_job {
    const winent_plan *plan;
    const uint8_t *in;  /* pinned image */
    float *out;         /* pinned map */
    int w, h, chunk_rows, nchunks;
    int ngpus;
} pipe_job;

typedef struct pipe_worker {
    const pipe_job *job;
    int device, index; /* index among the GPUs of this run */
    winent_gpu_engine *g;
    pthread_barrier_t *start;
    winent_status st;
    winent_err err;
} pipe_worker;

/* One host thread per GPU: chunks index, index + ngpus, ... rotate over the
 * engine's slots; a slot is waited for just before it is reused. */
static void *pipe_thread(void *arg)
{
    pipe_worker *wk = arg;
    const pipe_job *j = wk->job;
    const int slots = winent_gpu_engine_slots(wk->g);
    int used = 0;
    pthread_barrier_wait(wk->start);
    wk->st = WINENT_OK;
    for (int k = wk->index; k < j->nchunks && wk->st == WINENT_OK; k += j->ngpus, used++) {
        int s = used % slots;
        if (used >= slots)
            wk->st = winent_gpu_engine_wait(wk->g, s, &wk->err);
        int y0 = k * j->chunk_rows, y1 = y0 + j->chunk_rows < j->h ? y0 + j->chunk_rows : j->h;
        int a, n;
        winent_chunk_input_rows(y0, y1, j->plan->ry, j->h, &a, &n);
        winent_chunk c = {j->in + (size_t)a * j->w, (size_t)j->w, j->w, j->h, a, n, y0, y1};
        if (wk->st == WINENT_OK)
            wk->st = winent_gpu_engine_submit(wk->g, s, &c, j->out + (size_t)y0 * j->w,
                                              (size_t)j->w, &wk->err);
    }
    for (int s = 0; s < slots && s < used; s++) {
        winent_status w = winent_gpu_engine_wait(wk->g, s, &wk->err);
        if (wk->st == WINENT_OK)
            wk->st = w;
    }
    return NULL;
}

/* Median Gpixel/s of `reps` runs of the whole image over `ngpus` GPUs. */
static int bench_pipeline(const int *devices, int ngpus, const winent_plan *p, const uint8_t *in,
                          float *out, int w, int h, int chunk_rows, int slots, int reps,
                          double *gpix)
{
    pipe_job j = {p, in, out, w, h, chunk_rows, (h + chunk_rows - 1) / chunk_rows, ngpus};
    pipe_worker wk[MAX_GPUS];
    pthread_t th[MAX_GPUS];
    double runs[16];
    int rc = 0;
    memset(wk, 0, sizeof wk);
    *gpix = 0;
    for (int i = 0; i < ngpus; i++) {
        winent_err_clear(&wk[i].err);
        if (winent_gpu_engine_create(p, devices[i], w, chunk_rows + 2 * p->ry, slots, &wk[i].g,
                                     &wk[i].err) != WINENT_OK) {
            fprintf(stderr, "winent-bench: pipeline: %s\n", wk[i].err.msg);
            rc = 1;
            goto done;
        }
    }
    for (int r = 0; r < reps + 1 && rc == 0; r++) {
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, (unsigned)ngpus + 1);
        for (int i = 0; i < ngpus; i++) {
            wk[i].job = &j;
            wk[i].device = devices[i];
            wk[i].index = i;
            wk[i].start = &start;
            pthread_create(&th[i], NULL, pipe_thread, &wk[i]);
        }
        pthread_barrier_wait(&start);
        double t0 = now_s();
        for (int i = 0; i < ngpus; i++)
            pthread_join(th[i], NULL);
        double t = now_s() - t0;
        pthread_barrier_destroy(&start);
        for (int i = 0; i < ngpus; i++)
            if (wk[i].st != WINENT_OK) {
                fprintf(stderr, "winent-bench: pipeline: %s\n", wk[i].err.msg);
                rc = 1;
            }
        if (r > 0) /* the first run is the warm-up */
            runs[r - 1] = (double)w * h / t / 1e9;
    }
    if (rc == 0) {
        qsort(runs, (size_t)reps, sizeof runs[0], cmp_double);
        *gpix = runs[reps / 2];
    }
done:
    for (int i = 0; i < ngpus; i++)
        winent_gpu_engine_free(wk[i].g);
    return rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: winent-bench gpu [--device N] [--quick]\n");
}

/* winent-bench gpu-init: what a job pays before a GPU can work: finding
 * the devices (driver start), then each device's context, one after the
 * other, then a second context call (already up: the floor). */
int bench_gpu_init_main(void)
{
    winent_err err;
    winent_err_clear(&err);
    double t0 = now_s();
    int gpus = winent_cuda_device_count();
    double t1 = now_s();
    printf("device count: %d in %.3f s (driver start)\n", gpus, t1 - t0);
    if (gpus == 0)
        return 77;
    for (int d = 0; d < gpus; d++) {
        double a = now_s();
        if (winent_cuda_context_init(d, &err) != WINENT_OK) {
            fprintf(stderr, "winent-bench: %s\n", err.msg);
            return 5;
        }
        double b = now_s();
        winent_cuda_context_init(d, &err);
        printf("GPU %d context: %.3f s (again: %.6f s)\n", d, b - a, now_s() - b);
    }
    return 0;
}

int bench_gpu_main(int argc, char **argv)
{
    int device = -1, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            device = atoi(argv[++i]);
        else {
            usage();
            return 2;
        }
    }
    int gpus = winent_cuda_device_count();
    if (gpus == 0) {
        fprintf(stderr, "winent-bench: no usable GPU\n");
        return 77;
    }
    if (device >= gpus) {
        fprintf(stderr, "winent-bench: --device %d: only %d GPU(s) visible\n", device, gpus);
        return 5;
    }
    if (gpus > MAX_GPUS)
        gpus = MAX_GPUS;
    const int d0 = device < 0 ? 0 : device;
    const int side = quick ? 4096 : 10240, reps = quick ? 3 : 7;
    const size_t bw_bytes = (size_t)(quick ? 64 : 256) << 20;
    winent_err err;
    winent_err_clear(&err);
    char name[128];
    int failed = 0;

    printf("# winent-bench gpu: %d GPU(s) visible; image %dx%d\n", gpus, side, side);
    winent_cuda_bandwidth bw[MAX_GPUS];
    memset(bw, 0, sizeof bw);
    for (int d = 0; d < gpus; d++) {
        if (device >= 0 && d != device)
            continue;
        winent_cuda_device_name(d, name, sizeof name, &err);
        if (winent_cuda_measure_bandwidth(d, bw_bytes, reps, &bw[d], &err) != WINENT_OK) {
            fprintf(stderr, "winent-bench: bandwidth: %s\n", err.msg);
            return 5;
        }
        printf("GPU %d %s: H2D %.1f GB/s, D2H %.1f GB/s, both %.1f GB/s, D2D %.0f GB/s\n", d,
               name, bw[d].h2d, bw[d].d2h, bw[d].both, bw[d].d2d);
    }

    kernel_result kr[3];
    failed |= bench_kernel(d0, "u8 0..15 5x5", WINENT_U8, 16, 5, side, side, reps, &kr[0]);
    failed |= bench_kernel(d0, "u8 0..15 31x31", WINENT_U8, 16, 31, side, side, reps, &kr[1]);
    failed |= bench_kernel(d0, "u16 65536-distinct 5x5", WINENT_U16, 65536, 5, side, side, reps,
                           &kr[2]);

    /* Pipeline: u8 0..15 5x5 from pinned RAM to pinned RAM. */
    double pipe1 = 0, pipe_all = 0;
    int ngpu_all = device >= 0 ? 1 : gpus;
    {
        winent_compute_opts o;
        winent_compute_opts_default(&o);
        winent_plan *p = NULL;
        uint8_t *in = make_image(WINENT_U8, side, side, 16);
        float *out = winent_cuda_host_alloc((size_t)side * side * sizeof(float));
        int devs[MAX_GPUS];
        for (int i = 0; i < gpus; i++)
            devs[i] = device >= 0 ? device : i;
        if (in == NULL || out == NULL || winent_plan_create(&o, &p, &err) != WINENT_OK) {
            fprintf(stderr, "winent-bench: pipeline: %s\n", in && out ? err.msg : "out of memory");
            failed = 1;
        } else {
            failed |= bench_pipeline(devs, 1, p, in, out, side, side, 256, 3, reps, &pipe1);
            if (ngpu_all > 1)
                failed |= bench_pipeline(devs, ngpu_all, p, in, out, side, side, 256, 3, reps,
                                         &pipe_all);
        }
        winent_plan_free(p);
        winent_cuda_host_free(in);
        winent_cuda_host_free(out);
    }

    /* The PCIe bound of the u8 pipeline: 1 byte in and 4 out per pixel,
     * through whichever of the three copy rates runs out first. */
    const winent_cuda_bandwidth *b = &bw[d0];
    double bound = b->h2d / 1.0;
    if (b->d2h / 4.0 < bound)
        bound = b->d2h / 4.0;
    if (b->both / 5.0 < bound)
        bound = b->both / 5.0;

    printf("\n%-26s %-28s %10s %12s %s\n", "kernel (device-resident)", "path", "ms", "Gpixel/s",
           "check");
    for (int i = 0; i < 3; i++)
        printf("%-26s %-28s %10.3f %12.1f %s\n", kr[i].name, kr[i].path, kr[i].ms, kr[i].gpix,
               kr[i].checked_ok ? "identical" : "FAILED");
    printf("%-26s %-28s %10s %12.1f %.0f%% of PCIe bound %.1f\n", "pipeline u8 5x5, 1 GPU",
           "3 slots, 256-row chunks", "", pipe1, bound > 0 ? 100 * pipe1 / bound : 0, bound);
    if (ngpu_all > 1)
        printf("%-26s %-28s %10s %12.1f %.2fx one GPU\n", "pipeline u8 5x5, all GPUs", "",
               "", pipe_all, pipe1 > 0 ? pipe_all / pipe1 : 0);
    printf("BENCH h2d_gbs=%.2f d2h_gbs=%.2f both_gbs=%.2f d2d_gbs=%.1f k5_gpix=%.2f "
           "k31_gpix=%.2f k16_gpix=%.2f pipe1_gpix=%.2f pipe_all_gpix=%.2f gpus=%d\n",
           b->h2d, b->d2h, b->both, b->d2d, kr[0].gpix, kr[1].gpix, kr[2].gpix, pipe1, pipe_all,
           ngpu_all);
    return failed ? 1 : 0;
}
