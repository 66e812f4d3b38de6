/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_multimap_reference.c - several bands and windows in one pass
 * against the reference engine: a band-sequential raw file of three bands
 * (u16 with a nodata value; f32 with NaN and --bins over a range that
 * clamps), read as bands 3,1 at windows 3, 7x5, 1 and disk2 (a circular
 * window) in one job with raw
 * output, one file per map; each file must hold, bit for bit, the
 * reference engine's map of that band at that window, computed on the
 * whole band in one chunk. Small chunks (--mem, --frame-rows: unit rows)
 * and two threads make the job cut the image, so halos of the largest
 * window carry every smaller one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define W 203
#define H 157
#define NB 3

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The reference engine's map of `band` (W x H samples) with `o`. */
static int reference(const winent_compute_opts *o, const void *band, float *out)
{
    winent_engine *e;
    winent_error msg;
    if (winent_engine_create(o, WINENT_ENGINE_REFERENCE, 0, W, H, 1, &e, &msg) !=
        WINENT_OK) {
        fprintf(stderr, "reference engine: %s\n", msg.message);
        return -1;
    }
    size_t rb = (size_t)W * winent_dtype_size(o->dtype);
    winent_status st = winent_engine_compute(e, band, rb, W, H, 0, H, 0, H, out, W);
    winent_engine_free(e);
    return st == WINENT_OK ? 0 : -1;
}

static int read_file(const char *path, void *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t got = fread(buf, 1, n, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    return got == n && !extra ? 0 : -1;
}

/* One job of maps (bands 3,1) x (windows 3, 7x5, 1, disk2) on `dtype`
 * samples, each map held against the reference engine. */
static void run(const char *dir, winent_dtype dtype)
{
    const size_t ss = winent_dtype_size(dtype), plane = (size_t)W * H * ss;
    uint8_t *data = malloc(plane * NB);
    float *want = malloc(sizeof(float) * W * H), *got = malloc(sizeof(float) * W * H);
    char in[512], out[512], path[600];
    snprintf(in, sizeof in, "%s/in_%s.raw", dir, winent_dtype_name(dtype));
    snprintf(out, sizeof out, "%s/out_%s.raw", dir, winent_dtype_name(dtype));
    for (size_t i = 0; i < (size_t)W * H * NB; i++) {
        int b = (int)(i / ((size_t)W * H));
        uint64_t r = next_rand();
        /* Band b: few values (3 + 4 b), some nodata (u16: 7) or NaN. */
        int64_t v = (int64_t)(r % (uint64_t)(3 + 4 * b));
        int hole = (r >> 20) % 23 == 0;
        if (dtype == WINENT_U16)
            harness_put_sample(data, dtype, i, hole ? 7 : v, 0);
        else
            harness_put_sample(data, dtype, i, 0, hole ? NAN : (double)v * 0.37 - 0.2);
    }
    FILE *f = fopen(in, "wb");
    CHECK(f && fwrite(data, 1, plane * NB, f) == plane * NB && fclose(f) == 0, "%s", in);

    static const int bands[] = {3, 1};
    static const int windows[] = {3, 3, 7, 5, 1, 1, 5, 5};
    static const int disks[] = {0, 0, 0, 1}; /* the last: a disk of radius 2 */
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.input = in;
    o.output = out;
    o.width = W;
    o.height = H;
    o.dtype_given = 1;
    o.compute.dtype = dtype;
    o.bands = NB;
    o.band_list = bands;
    o.nband_list = 2;
    o.window_list = windows;
    o.window_disk = disks;
    o.nwindow_list = 4;
    o.threads = 2;
    o.device = "cpu";
    o.mem_bytes = 8u << 20;
    if (dtype == WINENT_U16) {
        o.compute.has_nodata = 1;
        o.compute.nodata = 7;
        o.nodata_given = 1;
    } else {
        o.compute.bins = 5;
        o.compute.range_lo = 0.0;
        o.compute.range_hi = 1.5; /* the largest samples are clamped */
    }
    winent_error msg;
    winent_job_stats stats;
    winent_status st = winent_run(&o, &stats, &msg);
    CHECK(st == WINENT_OK, "%s job: %s", winent_dtype_name(dtype), msg.message);
    CHECK(stats.maps == 8 && stats.nbands == 2 && stats.band[0].band == 3 &&
              stats.band[1].band == 1,
          "stats: %d maps, %d bands", stats.maps, stats.nbands);
    for (int m = 0; m < 8 && st == WINENT_OK; m++) {
        int b = bands[m / 4], kx = windows[2 * (m % 4)], ky = windows[2 * (m % 4) + 1];
        winent_compute_opts c = o.compute;
        c.kx = kx;
        c.ky = ky;
        c.disk = disks[m % 4];
        char stem[520];
        snprintf(stem, sizeof stem, "%s/out_%s", dir, winent_dtype_name(dtype));
        if (c.disk)
            snprintf(path, sizeof path, "%s_b%d_disk%d.raw", stem, b, kx / 2);
        else if (kx == ky)
            snprintf(path, sizeof path, "%s_b%d_w%d.raw", stem, b, kx);
        else
            snprintf(path, sizeof path, "%s_b%d_w%dx%d.raw", stem, b, kx, ky);
        int ok = reference(&c, data + plane * (size_t)(b - 1), want) == 0 &&
                 read_file(path, got, sizeof(float) * W * H) == 0;
        CHECK(ok && memcmp(want, got, sizeof(float) * W * H) == 0,
              "%s band %d window %dx%d: not the reference engine's map", winent_dtype_name(dtype),
              b, kx, ky);
        unlink(path);
    }
    unlink(in);
    free(data);
    free(want);
    free(got);
}

int main(void)
{
    char dir[] = "/tmp/winent-multimap-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        printf("no temporary folder: skipped\n");
        return 77;
    }
    run(dir, WINENT_U16);
    run(dir, WINENT_F32);
    rmdir(dir);
    return harness_end();
}
