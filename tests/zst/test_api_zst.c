/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_zst - the public .zst reader (winent_zst_open, _header,
 * _read_frame, _close; what Python's read_zst and open_zst call): a file
 * of several maps written by a job reads back as the same job's raw maps,
 * frame by frame from four threads at once; a frame or map that is not
 * there is a usage error; a file cut while open is an input error
 * ("truncated"), not a signal; a file --info refuses, winent_zst_open
 * refuses with the same words.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define W    37
#define H    29
#define ROWS 6 /* rows per frame: 5 frames a map, the last of 5 rows */
#define MAPS 4 /* 2 bands x 2 windows */

static char dir[] = "/tmp/test_api_zst-XXXXXX";
static char path_zst[256], path_raw[256];
static float want[MAPS][H * W];

static const float *raw_map(int band, int window)
{
    static float m[H * W];
    char name[300];
    snprintf(name, sizeof name, "%s/out_b%d_w%d.raw", dir, band, window);
    FILE *f = fopen(name, "rb");
    size_t n = f ? fread(m, sizeof *m, H * W, f) : 0;
    if (f)
        fclose(f);
    CHECK(n == H * W, "%s: %zu floats", name, n);
    return m;
}

/* The maps: one job to .zst, one to raw files (NAME_bB_wK.raw). */
static int make_maps(void)
{
    char in[256];
    snprintf(in, sizeof in, "%s/in.raw", dir);
    FILE *f = fopen(in, "wb");
    if (f == NULL)
        return -1;
    for (int i = 0; i < 2 * W * H; i++)
        fputc((i * 7 + i / W * 3 + i / (W * H)) % 11, f);
    fclose(f);
    static const int bands[] = {1, 2}, windows[] = {3, 3, 7, 5};
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.input = in;
    o.width = W;
    o.height = H;
    o.bands = 2;
    o.compute.dtype = WINENT_U8;
    o.dtype_given = 1;
    o.band_list = bands;
    o.nband_list = 2;
    o.window_list = windows;
    o.nwindow_list = 2;
    o.frame_rows = ROWS;
    o.device = "cpu";
    winent_error err;
    o.output = path_zst;
    CHECK(winent_run(&o, NULL, &err) == WINENT_OK, ".zst job: %s", err.message);
    o.output = path_raw;
    CHECK(winent_run(&o, NULL, &err) == WINENT_OK, "raw job: %s", err.message);
    for (int b = 0; b < 2; b++) {
        memcpy(want[2 * b], raw_map(b + 1, 3), sizeof want[0]);
        /* 7x5: the raw file is named _w7x5. */
        char name[300];
        snprintf(name, sizeof name, "%s/out_b%d_w7x5.raw", dir, b + 1);
        FILE *g = fopen(name, "rb");
        size_t n = g ? fread(want[2 * b + 1], sizeof(float), H * W, g) : 0;
        if (g)
            fclose(g);
        CHECK(n == H * W, "%s", name);
    }
    return 0;
}

typedef struct reader_arg {
    winent_zst *z;
    int first; /* frames first, first + 4, ... of every map */
    int bad;
} reader_arg;

static void *read_frames(void *p)
{
    reader_arg *a = p;
    float rows[ROWS * W];
    for (int round = 0; round < 20; round++)
        for (int k = 0; k < MAPS; k++)
            for (int i = a->first; i * ROWS < H; i += 4) {
                winent_error err;
                const int n = (H - i * ROWS < ROWS ? H - i * ROWS : ROWS) * W;
                if (winent_zst_read_frame(a->z, k, i, rows, &err) != WINENT_OK ||
                    memcmp(rows, want[k] + i * ROWS * W, sizeof(float) * (size_t)n) != 0)
                    a->bad++;
            }
    return NULL;
}

int main(void)
{
    if (mkdtemp(dir) == NULL)
        return 77;
    snprintf(path_zst, sizeof path_zst, "%s/out.zst", dir);
    snprintf(path_raw, sizeof path_raw, "%s/out.raw", dir);
    make_maps();

    winent_zst *z = NULL;
    winent_error err;
    CHECK(winent_zst_open(path_zst, &z, &err) == WINENT_OK && z != NULL, "open: %s", err.message);
    if (z == NULL)
        return harness_end();
    const char *h = winent_zst_header(z);
    CHECK(strstr(h, "\"maps\"") && strstr(h, "\"rows_per_frame\":\t6"), "header: %.200s", h);

    /* Four threads, each its share of every map's frames, twenty times. */
    pthread_t t[4];
    reader_arg a[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (reader_arg){z, i, 0};
        pthread_create(&t[i], NULL, read_frames, &a[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(a[i].bad == 0, "thread %d: %d frames wrong or refused", i, a[i].bad);
    }

    float rows[ROWS * W];
    CHECK(winent_zst_read_frame(z, 4, 0, rows, &err) == WINENT_ERR_USAGE, "map 5 of 4");
    CHECK(winent_zst_read_frame(z, 0, 5, rows, &err) == WINENT_ERR_USAGE, "frame 5 of 5");
    CHECK(winent_zst_read_frame(z, 0, -1, rows, &err) == WINENT_ERR_USAGE, "frame -1");

    /* Cut while open: the frames past the cut are an input error. */
    CHECK(truncate(path_zst, 600) == 0, "truncate");
    CHECK(winent_zst_read_frame(z, 3, 4, rows, &err) == WINENT_ERR_INPUT &&
              strstr(err.message, "truncated"),
          "a frame past the cut: '%s'", err.message);
    winent_zst_close(z);
    winent_zst_close(NULL);

    /* Refused at open with --info's words. */
    char want_msg[WINENT_MSG_LEN];
    FILE *devnull = fopen("/dev/null", "w");
    winent_info_print(path_zst, devnull, &err);
    fclose(devnull);
    snprintf(want_msg, sizeof want_msg, "%s", err.message);
    z = NULL;
    CHECK(winent_zst_open(path_zst, &z, &err) == WINENT_ERR_INPUT && z == NULL &&
              strcmp(err.message, want_msg) == 0,
          "cut: '%s', --info '%s'", err.message, want_msg);
    CHECK(winent_zst_open(dir, &z, &err) == WINENT_ERR_INPUT && strstr(err.message, "regular"),
          "a folder: '%s'", err.message);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return harness_end();
}
