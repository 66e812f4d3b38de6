/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_hostpath.c - `winent-bench hostpath`: the bound under an in-memory
 * job's host path, with nothing of the pipeline in it.
 *
 * A job in memory moves, per pixel, `--in-bytes` from the caller's samples
 * to a GPU and `--out-bytes` of map back. Three things can bound it besides
 * the kernels: the GPUs' copy engines (pinned host memory <-> device, every
 * GPU at once), the host's copies between the caller's pageable memory and
 * the pinned buffers (T threads), and both at once, which share the host's
 * memory. Each is timed alone here, over the whole image, as Gpixel/s.
 * With --file PATH, also what bounds a raw map written to one file: the
 * map's bytes stored into PATH by N threads the way the raw sink stores
 * them (winent_outfile: space reserved, the file mapped, pieces copied in
 * at their offsets and unmapped), and by N threads with pwrite.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_hostpath.h"
#include "kernels/cuda_copies.h"
#include "kernels/engine_cuda.h"
#include "outfile.h"

#define MAX_DEV 16
#define MAX_THREADS 256

typedef struct hp_buffers {
    size_t npx, in_b, out_b;
    uint8_t *user_in, *user_out; /* pageable, touched */
    uint8_t *pin_in, *pin_out;   /* pinned */
} hp_buffers;

typedef struct copy_task {
    const hp_buffers *b;
    int k, n;
} copy_task;

static void share(size_t total, int k, int n, size_t *at, size_t *len)
{
    size_t a = total * (size_t)k / (size_t)n, e = total * (size_t)(k + 1) / (size_t)n;
    *at = a;
    *len = e - a;
}

/* Thread k of n: its share of the samples in, its share of the map out. */
static void *copy_share(void *arg)
{
    const copy_task *t = arg;
    const hp_buffers *b = t->b;
    size_t at, len;
    share(b->npx * b->in_b, t->k, t->n, &at, &len);
    memcpy(b->pin_in + at, b->user_in + at, len);
    share(b->npx * b->out_b, t->k, t->n, &at, &len);
    memcpy(b->user_out + at, b->pin_out + at, len);
    return NULL;
}

typedef struct copies_run {
    const hp_buffers *b;
    int threads;
    double seconds;
} copies_run;

static void *run_copies(void *arg)
{
    copies_run *r = arg;
    pthread_t th[MAX_THREADS];
    copy_task tk[MAX_THREADS];
    double t0 = now_s();
    for (int k = 0; k < r->threads; k++) {
        tk[k] = (copy_task){r->b, k, r->threads};
        pthread_create(&th[k], NULL, copy_share, &tk[k]);
    }
    for (int k = 0; k < r->threads; k++)
        pthread_join(th[k], NULL);
    r->seconds = now_s() - t0;
    return NULL;
}

static void dma_parts(const hp_buffers *b, const int *devs, int n, winent_copy_part *parts)
{
    for (int k = 0; k < n; k++) {
        size_t at, len;
        parts[k].device = devs[k];
        share(b->npx * b->in_b, k, n, &at, &len);
        parts[k].in = b->pin_in + at;
        parts[k].in_bytes = len;
        share(b->npx * b->out_b, k, n, &at, &len);
        parts[k].out = b->pin_out + at;
        parts[k].out_bytes = len;
    }
}

typedef struct file_task {
    winent_outfile *of;
    void *map; /* NULL: pwrite */
    const uint8_t *src;
    size_t bytes, piece;
    int k, n;
    int failed;
} file_task;

/* Thread k of n stores pieces k, k + n, ... of the map, as the pool's
 * workers store chunks at their offsets. */
static void *store_pieces(void *arg)
{
    file_task *t = arg;
    winent_err err;
    winent_err_clear(&err);
    for (size_t at = (size_t)t->k * t->piece; at < t->bytes; at += (size_t)t->n * t->piece) {
        size_t len = t->bytes - at < t->piece ? t->bytes - at : t->piece;
        if (t->map)
            winent_outfile_map_write(t->of, t->map, at, t->src + at, len);
        else if (winent_outfile_pwrite(t->of, t->src + at, len, at, &err) != WINENT_OK)
            t->failed = 1;
    }
    return NULL;
}

/* One store of `bytes` from `src` into `path`: the reservation's seconds
 * (fallocate, which the job overlaps with its start) and the stores'. */
static int time_file(const char *path, const uint8_t *src, size_t bytes, int threads, int mapped,
                     double *reserve_s, double *store_s)
{
    winent_outfile of;
    winent_err err;
    winent_err_clear(&err);
    unlink(path);
    if (winent_outfile_open(&of, path, NULL, &err) != WINENT_OK) {
        fprintf(stderr, "winent-bench hostpath: %s\n", err.msg);
        return 1;
    }
    double t0 = now_s();
    winent_outfile_reserve(&of, bytes);
    int rc = winent_outfile_settle(&of, &err) != WINENT_OK;
    double t1 = now_s();
    void *map = mapped && !rc ? winent_outfile_map(&of) : NULL;
    if (mapped && map == NULL)
        rc = 1;
    pthread_t th[MAX_THREADS];
    file_task tk[MAX_THREADS];
    for (int k = 0; k < threads && !rc; k++) {
        tk[k] = (file_task){&of, map, src, bytes, (size_t)4 << 20, k, threads, 0};
        pthread_create(&th[k], NULL, store_pieces, &tk[k]);
    }
    for (int k = 0; k < threads && !rc; k++) {
        pthread_join(th[k], NULL);
        rc |= tk[k].failed;
    }
    winent_outfile_unmap(&of, map);
    double t2 = now_s();
    if (rc || winent_outfile_commit(&of, &err) != WINENT_OK) {
        fprintf(stderr, "winent-bench hostpath: %s: %s\n", path, rc ? "store failed" : err.msg);
        winent_outfile_abort(&of);
        rc = 1;
    }
    unlink(path);
    *reserve_s = t1 - t0;
    *store_s = t2 - t1;
    return rc;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void usage(void)
{
    fprintf(stderr,
            "usage: winent-bench hostpath [--size WxH] [--in-bytes B] [--out-bytes B]\n"
            "         [--devices 0,1,...] [--threads N,N,...] [--repeat R] [--piece MiB]\n"
            "         [--file PATH]\n"
            "  the in-memory host path's bounds: every GPU's copy engines at once (pinned),\n"
            "  N threads copying between pageable and pinned memory, and both at once;\n"
            "  defaults 32768x32768, 2 bytes in, 4 out, every GPU, threads 16 and all cores.\n"
            "  --file PATH: also the map's bytes stored into one file PATH by N threads, as\n"
            "  the raw sink stores them (reserved, mapped) and with pwrite.\n");
}

static int parse_list(const char *s, int *v, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < 0)
            return -1;
        v[n++] = (int)x;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

int bench_hostpath_main(int argc, char **argv)
{
    int w = 32768, h = 32768, inb = 2, outb = 4, reps = 3, piece_mib = 32;
    int devs[MAX_DEV], ndev = -1, thr[8], nthr = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--size") && v && sscanf(v, "%dx%d", &w, &h) == 2)
            i++;
        else if (!strcmp(a, "--in-bytes") && v)
            inb = atoi(argv[++i]);
        else if (!strcmp(a, "--out-bytes") && v)
            outb = atoi(argv[++i]);
        else if (!strcmp(a, "--repeat") && v)
            reps = atoi(argv[++i]);
        else if (!strcmp(a, "--file") && v)
            file = argv[++i];
        else if (!strcmp(a, "--piece") && v)
            piece_mib = atoi(argv[++i]);
        else if (!strcmp(a, "--devices") && v && (ndev = parse_list(argv[++i], devs, MAX_DEV)) > 0)
            ;
        else if (!strcmp(a, "--threads") && v && (nthr = parse_list(argv[++i], thr, 8)) > 0)
            ;
        else {
            usage();
            return 2;
        }
    }
    if (w < 1 || h < 1 || inb < 1 || outb < 1 || reps < 1 || reps > 64 || piece_mib < 1) {
        usage();
        return 2;
    }
    int gpus = winent_cuda_device_count();
    if (gpus == 0 && file == NULL) {
        fprintf(stderr, "winent-bench hostpath: no usable GPU (--file PATH runs without one)\n");
        return 77;
    }
    if (gpus == 0)
        ndev = 0;
    else if (ndev < 0) {
        ndev = gpus < MAX_DEV ? gpus : MAX_DEV;
        for (int k = 0; k < ndev; k++)
            devs[k] = k;
    }
    if (nthr == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        thr[nthr++] = 16;
        if (c > 16)
            thr[nthr++] = (int)(c < MAX_THREADS ? c : MAX_THREADS);
    }
    for (int k = 0; k < nthr; k++)
        if (thr[k] < 1 || thr[k] > MAX_THREADS) {
            usage();
            return 2;
        }
    hp_buffers b = {.npx = (size_t)w * (size_t)h, .in_b = (size_t)inb, .out_b = (size_t)outb};
    b.user_in = malloc(b.npx * b.in_b);
    b.user_out = malloc(b.npx * b.out_b);
    b.pin_in = winent_cuda_host_alloc(b.npx * b.in_b);
    b.pin_out = winent_cuda_host_alloc(b.npx * b.out_b);
    if (!b.user_in || !b.user_out || !b.pin_in || !b.pin_out) {
        fprintf(stderr, "winent-bench hostpath: out of memory\n");
        return 1;
    }
    memset(b.user_in, 0x5A, b.npx * b.in_b);
    memset(b.user_out, 0xA5, b.npx * b.out_b);
    memset(b.pin_in, 0x3C, b.npx * b.in_b);
    memset(b.pin_out, 0xC3, b.npx * b.out_b);
    const size_t piece = (size_t)piece_mib << 20;
    const double gpx = (double)b.npx / 1e9, bytes = (double)b.npx * (inb + outb);
    winent_err err;
    winent_err_clear(&err);
    int rc = 0;
    printf("### winent-bench hostpath: %dx%d, %d byte(s) in and %d out per pixel, median of %d\n\n",
           w, h, inb, outb, reps);
    printf("| what | GPUs | threads | seconds | GB/s | Gpixel/s |\n|---|---|---|---|---|---|\n");
    winent_copy_part parts[MAX_DEV];
    double t[64];
    /* The copy engines: the first GPU alone, then every GPU at once. */
    for (int pass = 0; pass < 2 && ndev > 0; pass++) {
        int n = pass == 0 ? 1 : ndev;
        if (pass == 1 && ndev == 1)
            break;
        dma_parts(&b, devs, n, parts);
        for (int r = 0; r <= reps; r++) /* the first run warms: not counted */
            if (winent_cuda_time_copies(parts, n, piece, &t[r > 0 ? r - 1 : 0], &err) != WINENT_OK) {
                fprintf(stderr, "winent-bench hostpath: %s\n", err.msg);
                return 1;
            }
        double s = median(t, reps);
        printf("| copy engines (pinned) | %d | - | %.3f | %.1f | %.2f |\n", n, s, bytes / s / 1e9,
               gpx / s);
    }
    /* The host's copies, pageable <-> pinned. */
    for (int k = 0; k < nthr; k++) {
        copies_run cr = {&b, thr[k], 0};
        for (int r = 0; r <= reps; r++) {
            run_copies(&cr);
            t[r > 0 ? r - 1 : 0] = cr.seconds;
        }
        double s = median(t, reps);
        printf("| host copies (pageable <-> pinned) | - | %d | %.3f | %.1f | %.2f |\n", thr[k], s,
               bytes / s / 1e9, gpx / s);
    }
    /* Both at once: every GPU's copies while the threads copy. */
    dma_parts(&b, devs, ndev, parts);
    for (int k = 0; k < nthr && ndev > 0; k++) {
        for (int r = 0; r < reps; r++) {
            copies_run cr = {&b, thr[k], 0};
            pthread_t th;
            double t0 = now_s(), dma = 0;
            pthread_create(&th, NULL, run_copies, &cr);
            if (winent_cuda_time_copies(parts, ndev, piece, &dma, &err) != WINENT_OK) {
                fprintf(stderr, "winent-bench hostpath: %s\n", err.msg);
                rc = 1;
            }
            pthread_join(th, NULL);
            t[r] = now_s() - t0;
        }
        double s = median(t, reps);
        printf("| both at once (each pixel's bytes twice) | %d | %d | %.3f | %.1f | %.2f |\n", ndev,
               thr[k], s, 2 * bytes / s / 1e9, gpx / s);
    }
    /* One file, the map's bytes, as the raw sink stores them. */
    for (int k = 0; file && k < nthr && !rc; k++)
        for (int mapped = 1; mapped >= 0 && !rc; mapped--) {
            double res[64];
            for (int r = 0; r < reps && !rc; r++)
                rc = time_file(file, b.user_out, b.npx * b.out_b, thr[k], mapped, &res[r], &t[r]);
            if (rc)
                break;
            double s = median(t, reps), rs = median(res, reps);
            printf("| map to one file, %s (reserve %.3f s before) | - | %d | %.3f | %.1f | %.2f |\n",
                   mapped ? "mapped" : "pwrite", rs, thr[k], s,
                   (double)(b.npx * b.out_b) / s / 1e9, gpx / s);
        }
    winent_cuda_host_free(b.pin_in);
    winent_cuda_host_free(b.pin_out);
    free(b.user_in);
    free(b.user_out);
    return rc;
}
