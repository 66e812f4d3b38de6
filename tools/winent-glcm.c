/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * winent-glcm: the co-occurrence engine (src/kernels/glcm.h) on a raw
 * raster, for tests and peer comparisons until the CLI's --measure takes
 * the glcm-* names. Reads a raw band, writes the measures' float32 planes
 * one after the other (computed and written in blocks of rows, so its
 * memory is the input's and a block's), reports the time spent computing
 * on stderr with --time.
 *
 *   winent-glcm --size WxH --dtype T [--window K|WxH] [--levels N --range LO:HI]
 *               [--distance D] [--angles 0,45,90,135] [--asymmetric]
 *               [--base 2|e|10] [--nodata V] [--measure NAME[,NAME...]]
 *               [--threads N] [--time] IN.raw OUT.f32
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels/glcm.h"

typedef struct args {
    winent_glcm_opts o;
    int w, h, threads, time;
    const char *in, *out;
} args;

static int usage(const char *why)
{
    fprintf(stderr, "winent-glcm: %s\n", why);
    return 2;
}

static int parse_dtype(const char *s)
{
    static const char *const n[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "f64"};
    for (int i = 0; i < 8; i++)
        if (strcmp(s, n[i]) == 0)
            return i;
    return -1;
}

static int parse_list(args *a, const char *opt, char *v)
{
    for (char *t = strtok(v, ","); t != NULL; t = strtok(NULL, ",")) {
        if (strcmp(opt, "--angles") == 0) {
            int deg = atoi(t);
            if (deg % 45 != 0 || deg < 0 || deg > 135)
                return usage("--angles: give degrees from 0, 45, 90 and 135");
            a->o.angles |= 1u << (deg / 45);
        } else {
            int m = winent_glcm_measure_parse(t);
            if (m < 0 || a->o.nmeasures >= WINENT_GLCM_MEASURES_MAX)
                return usage("--measure: unknown measure");
            a->o.measures[a->o.nmeasures++] = (winent_glcm_measure)m;
        }
    }
    return 0;
}

static int parse(int argc, char **argv, args *a)
{
    winent_glcm_opts_default(&a->o);
    a->o.nmeasures = 0;
    a->o.angles = 0;
    a->threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = 0;
        if (strcmp(s, "--asymmetric") == 0) {
            a->o.symmetric = 0;
            continue;
        }
        if (strcmp(s, "--time") == 0) {
            a->time = 1;
            continue;
        }
        if (s[0] != '-') {
            if (a->in == NULL)
                a->in = s;
            else
                a->out = s;
            continue;
        }
        if (v == NULL)
            return usage("an option lacks its value");
        i++;
        if (strcmp(s, "--size") == 0)
            r = sscanf(v, "%dx%d", &a->w, &a->h) == 2 ? 0 : usage("--size WxH");
        else if (strcmp(s, "--dtype") == 0)
            r = (a->o.compute.dtype = (winent_dtype)parse_dtype(v)) < 0 ? usage("--dtype") : 0;
        else if (strcmp(s, "--window") == 0) {
            if (sscanf(v, "%dx%d", &a->o.compute.kx, &a->o.compute.ky) != 2)
                a->o.compute.kx = a->o.compute.ky = atoi(v);
        } else if (strcmp(s, "--levels") == 0)
            a->o.compute.bins = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(s, "--range") == 0)
            r = sscanf(v, "%lf:%lf", &a->o.compute.range_lo, &a->o.compute.range_hi) == 2
                    ? 0
                    : usage("--range LO:HI");
        else if (strcmp(s, "--distance") == 0)
            a->o.distance = atoi(v);
        else if (strcmp(s, "--base") == 0)
            a->o.compute.base = v[0] == 'e' ? WINENT_BASE_E
                                : strcmp(v, "10") == 0 ? WINENT_BASE_10
                                                       : WINENT_BASE_2;
        else if (strcmp(s, "--nodata") == 0) {
            a->o.compute.has_nodata = 1;
            a->o.compute.nodata = strtod(v, NULL);
        } else if (strcmp(s, "--threads") == 0)
            a->threads = atoi(v) > 0 ? atoi(v) : 1;
        else if (strcmp(s, "--angles") == 0 || strcmp(s, "--measure") == 0)
            r = parse_list(a, s, v);
        else
            r = usage("unknown option");
        if (r)
            return r;
    }
    if (a->o.nmeasures == 0)
        a->o.measures[a->o.nmeasures++] = WINENT_GLCM_ENTROPY;
    /* --levels N on integers without a range: the values 0..N-1 as they are. */
    if (a->o.compute.bins > 0 && a->o.compute.range_lo == 0 && a->o.compute.range_hi == 0)
        a->o.compute.range_hi = a->o.compute.bins;
    if (a->in == NULL || a->out == NULL || a->w < 1 || a->h < 1)
        return usage("give --size WxH --dtype T IN.raw OUT.f32");
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Output rows [y0, y1) into planes of (y1 - y0) rows, in bands of 16
 * spread over the threads. */
static int compute(const args *a, winent_glcm_cpu *e, const void *in, int y0, int y1,
                   float *const *planes, winent_err *err)
{
    winent_chunk ch = {in, (size_t)a->w * winent_dtype_size(a->o.compute.dtype), a->w, a->h, 0,
                       a->h, y0, y1};
    const int nb = (y1 - y0 + 15) / 16;
    int bad = 0;
#pragma omp parallel for schedule(dynamic) num_threads(a->threads) reduction(| : bad)
    for (int b = 0; b < nb; b++) {
        int worker = 0;
#ifdef _OPENMP
        worker = omp_get_thread_num();
#endif
        const int ya = y0 + 16 * b, yb = ya + 16 < y1 ? ya + 16 : y1;
        bad |= winent_glcm_cpu_compute_rows(e, worker, &ch, ya, yb, planes, (size_t)a->w,
                                            err) != WINENT_OK;
    }
    return bad;
}

/* Rows [y0, y0 + rows) of every plane into their places in the output
 * file (plane k's rows start at float k w h). */
static int write_rows(const args *a, FILE *f, const float *buf, int y0, int rows, int brows)
{
    const size_t n = (size_t)a->w * a->h, row = (size_t)a->w;
    for (int k = 0; k < a->o.nmeasures; k++) {
        const size_t at = ((size_t)k * n + (size_t)y0 * row) * sizeof *buf;
        if (fseeko(f, (off_t)at, SEEK_SET) != 0 ||
            fwrite(buf + (size_t)k * brows * row, sizeof *buf, (size_t)rows * row, f) !=
                (size_t)rows * row)
            return 1;
    }
    return 0;
}

/* The image in blocks of rows, each computed into one reused buffer and
 * written out: the memory of a block, not of the whole map. */
static int run(const args *a, winent_glcm_cpu *e, const void *in, FILE *f, double *secs,
               winent_err *err)
{
    const int brows = 64 * (a->threads > 0 ? a->threads : 1);
    float *buf = malloc((size_t)brows * a->w * sizeof *buf * (size_t)a->o.nmeasures);
    if (buf == NULL)
        return 1;
    float *planes[WINENT_GLCM_MEASURES_MAX];
    for (int k = 0; k < a->o.nmeasures; k++)
        planes[k] = buf + (size_t)k * brows * a->w;
    int bad = 0;
    *secs = 0;
    for (int y0 = 0; y0 < a->h && !bad; y0 += brows) {
        const int y1 = y0 + brows < a->h ? y0 + brows : a->h;
        const double t0 = now();
        bad = compute(a, e, in, y0, y1, planes, err) ? 2 : 0;
        *secs += now() - t0;
        if (!bad && write_rows(a, f, buf, y0, y1 - y0, brows))
            bad = 1;
    }
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    args a;
    memset(&a, 0, sizeof a);
    int r = parse(argc, argv, &a);
    if (r)
        return r;
    const size_t n = (size_t)a.w * a.h, sz = winent_dtype_size(a.o.compute.dtype);
    void *in = malloc(n * sz);
    FILE *f = fopen(a.in, "rb");
    if (in == NULL || f == NULL || fread(in, sz, n, f) != n) {
        fprintf(stderr, "winent-glcm: cannot read %s\n", a.in);
        return 1;
    }
    fclose(f);
    winent_err err;
    winent_err_clear(&err);
    winent_glcm_plan *p = NULL;
    winent_glcm_cpu *e = NULL;
    if (winent_glcm_plan_create(&a.o, &p, &err) != WINENT_OK ||
        winent_glcm_cpu_create(p, a.w, a.threads, &e, &err) != WINENT_OK) {
        fprintf(stderr, "winent-glcm: %s\n", err.msg);
        return err.status == WINENT_ERR_USAGE ? 2 : 1;
    }
    f = fopen(a.out, "wb");
    double secs = 0;
    const int bad = f == NULL ? 1 : run(&a, e, in, f, &secs, &err);
    if ((f != NULL && fclose(f) != 0) || bad) {
        if (bad == 2)
            fprintf(stderr, "winent-glcm: %s\n", err.msg);
        else
            fprintf(stderr, "winent-glcm: cannot write %s\n", a.out);
        return 1;
    }
    if (a.time)
        fprintf(stderr, "winent-glcm: %.3f s computing (%d threads)\n", secs, a.threads);
    winent_glcm_cpu_free(e);
    winent_glcm_plan_free(p);
    free(in);
    return 0;
}
