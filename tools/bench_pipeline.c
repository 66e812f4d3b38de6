/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * winent-bench pipeline: the whole pipeline (reader, compute workers,
 * encoders, ordered writer) from host RAM to host RAM, no files: what the
 * engines deliver once chunking, halos, copies and threads are paid for.
 *
 *   winent-bench pipeline [--size WxH] [--device D] [--window K | --disk R] [--values N]
 *                         [--dtype u8|u16] [--mem SIZE] [--threads N] [--repeat R]
 *                         [--pinned] [--measure M[,M...]] [--levels N] [--angles A[,A...]]
 *
 * --measure: the maps of these measures in one pass (winent_texture's job:
 * the buffer holds a map of each); --levels N quantizes [0, values) into N
 * levels (the co-occurrence measures' --levels); --angles in degrees.
 *
 * --pinned: the image and the map in page-locked memory (as a caller whose
 * buffers are already pinned hands them), which the job copies to and from
 * the GPUs directly instead of through its own pinned chunks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_pipeline.h"
#include "kernels/engine_cuda.h"
#include "pipeline/pipeline_bench.h"


int bench_pipeline_main(int argc, char **argv)
{
    int width = 10240, height = 10240, kx = 5, ky = 5, values = 16, repeat = 3, threads = 0;
    int disk = 0, pinned = 0, nm = 0, levels = 0;
    unsigned angles = 0;
    winent_measure ms[WINENT_MEASURE_COUNT];
    double mq[WINENT_MEASURE_COUNT];
    char mnames[256] = "";
    uint64_t mem = (uint64_t)4 << 30;
    const char *device = "auto";
    winent_dtype dtype = WINENT_U8;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--pinned")) {
            pinned = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "winent-bench pipeline: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--size") && sscanf(v, "%dx%d", &width, &height) == 2)
            i++;
        else if (!strcmp(a, "--device"))
            device = v, i++;
        else if (!strcmp(a, "--window") && sscanf(v, "%d", &kx) == 1)
            ky = kx, disk = 0, i++;
        else if (!strcmp(a, "--disk") && sscanf(v, "%d", &kx) == 1 && kx >= 0 && kx <= 127)
            kx = ky = 2 * kx + 1, disk = 1, i++; /* a circular window of radius R */
        else if (!strcmp(a, "--values") && sscanf(v, "%d", &values) == 1)
            i++;
        else if (!strcmp(a, "--repeat") && sscanf(v, "%d", &repeat) == 1)
            i++;
        else if (!strcmp(a, "--threads") && sscanf(v, "%d", &threads) == 1)
            i++;
        else if (!strcmp(a, "--mem"))
            mem = strtoull(v, NULL, 10) << 20, i++; /* MiB */
        else if (!strcmp(a, "--dtype") && (!strcmp(v, "u8") || !strcmp(v, "u16")))
            dtype = !strcmp(v, "u8") ? WINENT_U8 : WINENT_U16, i++;
        else if (!strcmp(a, "--levels") && sscanf(v, "%d", &levels) == 1)
            i++;
        else if (!strcmp(a, "--angles")) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ","))
                angles |= 1u << (atoi(t) / 45);
            i++;
        } else if (!strcmp(a, "--measure")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            snprintf(mnames, sizeof mnames, "%s", v);
            for (char *t = strtok(buf, ","); t != NULL && nm < WINENT_MEASURE_COUNT;
                 t = strtok(NULL, ","), nm++)
                if (winent_measure_parse(t, &ms[nm], &mq[nm], NULL) != WINENT_OK) {
                    fprintf(stderr, "winent-bench pipeline: --measure %s: unknown\n", t);
                    return 2;
                }
            i++;
        } else {
            fprintf(stderr,
                    "usage: winent-bench pipeline [--size WxH] [--device D] [--window K | --disk R] "
                    "[--values N] [--dtype u8|u16] [--mem MiB] [--threads N] [--repeat R] "
                    "[--pinned] [--measure M,...] [--levels N] [--angles A,...]\n");
            return 2;
        }
    }
    if (width < 1 || height < 1 || repeat < 1 || values < 1) {
        fprintf(stderr, "winent-bench pipeline: bad size, values or repeat\n");
        return 2;
    }
    size_t n = (size_t)width * (size_t)height, ss = winent_dtype_size(dtype);
    const size_t maps = nm > 0 ? (size_t)nm : 1;
    uint8_t *in = pinned ? winent_cuda_host_alloc(n * ss) : malloc(n * ss);
    float *out = pinned ? winent_cuda_host_alloc(n * maps * sizeof(float))
                        : malloc(n * maps * sizeof(float));
    if (in == NULL || out == NULL) {
        fprintf(stderr, "winent-bench pipeline: out of memory\n");
        return 1;
    }
    uint64_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned v = (unsigned)((s >> 33) % (unsigned)values);
        if (ss == 1)
            in[i] = (uint8_t)v;
        else
            ((uint16_t *)in)[i] = (uint16_t)v;
    }
    memset(out, 0, n * maps * sizeof(float)); /* touch the pages before timing */

    winent_job_opts o;
    winent_job_opts_default(&o);
    o.compute.kx = kx;
    o.compute.disk = disk;
    o.compute.ky = ky;
    o.compute.dtype = dtype;
    o.width = width;
    o.height = height;
    o.device = device;
    o.threads = threads;
    o.mem_bytes = mem;
    o.input = "memory";
    o.dtype_given = 1;
    if (levels > 0) {
        o.compute.bins = (uint32_t)levels;
        o.compute.range_lo = 0;
        o.compute.range_hi = values;
    }
    o.compute.glcm_angles = angles;
    o.measure_list = nm > 0 ? ms : NULL;
    o.measure_q = nm > 0 ? mq : NULL;
    o.nmeasure_list = nm;
    const winent_memory_io io = {in, 0, out, 0};
    double *t = calloc((size_t)repeat, sizeof *t);
    double *setup = calloc((size_t)repeat, sizeof *setup);
    winent_err err;
    winent_job_stats st;
    winent_error bad;
    winent_err_clear(&err);
    if (winent_job_opts_validate(&o, &bad) != WINENT_OK) {
        fprintf(stderr, "winent-bench pipeline: %s\n", bad.message);
        return (int)bad.status;
    }
    for (int r = 0; r < repeat; r++) {
        double t0 = now_s();
        winent_status rc = winent_run_stage(&o, WINENT_STAGE_JOB, &io, NULL, NULL, &st, &err);
        t[r] = now_s() - t0;
        setup[r] = st.setup_s;
        if (rc != WINENT_OK) {
            fprintf(stderr, "winent-bench pipeline: %s\n", err.msg);
            return (int)rc;
        }
    }
    /* Steady state: the flow once set up (GPU contexts, pinned pools and
     * engines are a one-time cost of each job, shown apart). */
    for (int r = 0; r < repeat; r++)
        setup[r] = t[r] - setup[r];
    qsort(t, (size_t)repeat, sizeof *t, cmp_double);
    qsort(setup, (size_t)repeat, sizeof *setup, cmp_double);
    /* The median; of an even count, the mean of the two middle runs (the
     * upper one alone was the slower, a cold first run of two). */
    const int lo = (repeat - 1) / 2, hi = repeat / 2;
    double med = (t[lo] + t[hi]) / 2, flow = (setup[lo] + setup[hi]) / 2;
    char win[32];
    if (disk)
        snprintf(win, sizeof win, "disk%d", kx / 2);
    else
        snprintf(win, sizeof win, "%dx%d", kx, ky);
    if (nm > 0) {
        const size_t k = strlen(win);
        snprintf(win + k, sizeof win - k, ", %d maps", nm);
        printf("| maps | %s, levels %d |\n", mnames, levels);
    }
    printf("| pipeline in memory | %s | %dx%d %s, %d values, %s | chunk rows %d | "
           "whole job %.3f s (%.2f Gpixel/s) | after setup %.3f s | %.2f Gpixel/s |%s\n",
           st.engine, width, height, winent_dtype_name(dtype), values, win, st.chunk_rows, med,
           (double)n / med / 1e9, flow, flow > 0 ? (double)n / flow / 1e9 : 0.0,
           pinned ? " pinned buffers |" : "");
    free(t);
    free(setup);
    if (pinned) {
        winent_cuda_host_free(in);
        winent_cuda_host_free(out);
    } else {
        free(in);
        free(out);
    }
    return 0;
}
