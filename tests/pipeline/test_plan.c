/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plan: the job's plan (src/pipeline/plan.c) as tables of made-up
 * jobs, with no file opened: the input, the sink and the machine are plain
 * descriptors. Each case gives the options (size, type, bands, windows
 * even, rectangular or disks, measures, --mem, --preview, the output's
 * format, the devices) and the plan's fields it must come to, worked out
 * by hand below from the rules the plan follows (about 4 Mpixel of all
 * maps a chunk, whole units, halved while --mem cannot hold the chunks
 * the engines need); every case also checks what must hold of any plan.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "kernels/entropy_plan.h"
#include "pipeline/plan.h"
#include "pipeline/setup.h"

#define MIB ((uint64_t)1 << 20)

/* Made-up sinks: what each says of itself. */
static const job_sink_info ZST = {1, WINENT_FORMAT_ZST, 256, 1, 0, 0, MIB, 0, 0};
static const job_sink_info TIF = {1, WINENT_FORMAT_TIF, 512, 4, 0, 0, 2 * MIB, 8 * MIB, 4096};
static const job_sink_info RAW_FILE = {1, WINENT_FORMAT_RAW, 1, 1, 1, 1, 0, 0, 0};
static const job_sink_info RAW_PIPE = {1, WINENT_FORMAT_RAW, 1, 1, 1, 0, 0, 0, 0};
static const job_sink_info NO_SINK = {0, WINENT_FORMAT_RAW, 1, 1, 0, 0, 0, 0, 0};

typedef struct plan_case {
    const char *name;
    /* the job */
    int width, height, nbands;
    winent_dtype dtype;
    const char *windows; /* "5", "6x4", "5,9,d4": d = disk of that radius */
    int nmeasures;       /* 1: entropy; 2: entropy, simpson */
    uint32_t bins;       /* with range 0:1000 */
    uint64_t mem;        /* --mem; 0: automatic */
    int preview;
    const job_sink_info *sink;
    int threads;
    int device;          /* 0 cpu, 1 auto, 2 one GPU named */
    int memory;          /* a memory job: 1 packed rows, 2 rows 64 bytes longer */
    int pinned;          /* ... in the caller's pinned memory */
    uint64_t machine;    /* the machine's memory; 0: 64 GiB */
    /* what the plan must say */
    int nmaps, ry;
    int chunk_rows;      /* 0: too small (short_rows then says at what height) */
    int encodes, raw_floats, store_out, own_rows, own_map, fill_in, stage_all;
    int count_clamps;
} plan_case;

/* A made-up job's windows "5,6x4,d3" into the options' lists. */
static int parse_windows(const char *text, int *list, int *disk)
{
    int n = 0;
    for (const char *t = text; *t; n++) {
        char *end;
        disk[n] = *t == 'd';
        if (disk[n]) {
            const int r = (int)strtol(t + 1, &end, 10);
            list[2 * n] = list[2 * n + 1] = 2 * r + 1;
        } else {
            list[2 * n] = (int)strtol(t, &end, 10);
            list[2 * n + 1] = *end == 'x' ? (int)strtol(end + 1, &end, 10) : list[2 * n];
        }
        t = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* The maps of a case as setup makes them: bands x windows x measures,
 * each with its kernels' plan (no sharing: the plan reads only each
 * map's own). */
static job_map *make_maps(const winent_job_opts *o, winent_dtype dtype, int nbands, int *nmaps)
{
    int *win = NULL, nwin = 0;
    winent_err err;
    winent_err_clear(&err);
    if (winent_setup_windows(o, &win, &nwin, &err) != WINENT_OK)
        return NULL;
    *nmaps = nbands * nwin;
    job_map *maps = calloc((size_t)*nmaps, sizeof *maps);
    for (int m = 0; maps && m < *nmaps; m++) {
        winent_source_band band = {.band = 1 + m / nwin};
        maps[m].band = m / nwin;
        winent_job_plan_band(o, 0, dtype, &band, &maps[m].co);
        winent_job_plan_map_entry(o, win + WINENT_WIN_FIELDS * (m % nwin), &maps[m].co);
        maps[m].owner = 1;
        if (winent_plan_create(&maps[m].co, &maps[m].plan, &err) != WINENT_OK)
            fprintf(stderr, "map %d: %s\n", m, err.msg);
    }
    free(win);
    return maps;
}

/* What must hold of any plan that fits: the chunks cover the image in
 * whole units, their count and bytes are the plan's own sums, and --mem
 * holds the chunks the engines need. */
static void check_invariants(const plan_case *c, const job_plan *pl)
{
    CHECK(pl->chunk_rows % pl->unit_rows == 0 || pl->chunk_rows == pl->height, "%s: %d rows, "
          "units of %d", c->name, pl->chunk_rows, pl->unit_rows);
    CHECK(pl->nchunks == (pl->height + pl->chunk_rows - 1) / pl->chunk_rows, "%s", c->name);
    CHECK(pl->chunk_bytes == winent_plan_chunk_bytes(pl, (uint64_t)pl->chunk_rows), "%s", c->name);
    CHECK(pl->plane_bytes % 64 == 0 &&
              pl->plane_bytes >= pl->row_bytes * (size_t)(pl->chunk_rows + 2 * pl->ry),
          "%s", c->name);
    CHECK(pl->map_plane == (size_t)pl->width * (size_t)pl->chunk_rows, "%s", c->name);
    CHECK(pl->n_need <= pl->n_fit && pl->n_limit <= pl->n_max && pl->n_max <= pl->n_fit,
          "%s: need %d fit %d limit %d max %d", c->name, pl->n_need, pl->n_fit, pl->n_limit,
          pl->n_max);
    CHECK(pl->cpu_slots >= 2 && pl->cpu_slots <= 16, "%s", c->name);
    if (!pl->mem_auto) { /* --mem given: never grown, and it holds the chunks */
        CHECK(pl->mem_budget == c->mem, "%s", c->name);
        CHECK((uint64_t)pl->n_fit * pl->chunk_bytes <= pl->mem_budget, "%s", c->name);
    }
}

static void run_case(const plan_case *c)
{
    winent_job_opts o;
    winent_job_opts_default(&o);
    int list[32], disk[16];
    static const winent_measure measures[] = {WINENT_MEASURE_ENTROPY, WINENT_MEASURE_SIMPSON};
    o.nwindow_list = parse_windows(c->windows, list, disk);
    o.window_list = list;
    o.window_disk = disk;
    if (c->nmeasures > 1) {
        o.measure_list = measures;
        o.nmeasure_list = c->nmeasures;
    }
    o.compute.dtype = c->dtype;
    o.width = c->width;
    o.height = c->height;
    if (c->bins) {
        o.compute.bins = c->bins;
        o.compute.range_lo = 0;
        o.compute.range_hi = 1000;
    }
    o.mem_bytes = c->mem;
    o.threads = c->threads;
    o.preview = c->preview ? "preview.png" : NULL;
    /* the machine and the devices */
    job_host h = {.stage = WINENT_STAGE_JOB, .cores = 8};
    h.machine_bytes = c->machine ? c->machine : (uint64_t)64 << 30;
    h.want_cpu = c->device <= 1;
    h.auto_device = c->device == 1;
    h.ngpus = c->device == 2;
    /* a memory job's buffers (never read: the plan looks at none) */
    static uint8_t in[64];
    static float out[16];
    winent_memory_io mem = {in, 0, out, 0};
    if (c->memory == 2)
        mem.in_row_bytes = (size_t)c->width * winent_dtype_size(c->dtype) + 64;
    h.mem = c->memory ? &mem : NULL;
    /* the input */
    job_source_info src = {.width = c->width, .height = c->height, .nbands = c->nbands};
    src.mem_pinned = c->pinned;
    src.maps = make_maps(&o, c->dtype, c->nbands, &src.nmaps);
    const winent_plan *band_plan[8] = {0};
    src.band_plan = band_plan;
    job_plan pl;
    winent_err err;
    winent_err_clear(&err);
    CHECK(src.maps != NULL, "%s: its maps", c->name);
    if (src.maps == NULL)
        return;
    CHECK(winent_job_plan(&o, &h, &src, c->sink, &pl, &err) == WINENT_OK, "%s: %s", c->name,
          err.msg);
    CHECK(pl.nmaps == c->nmaps && src.nmaps == c->nmaps, "%s: %d maps", c->name, pl.nmaps);
    CHECK(pl.ry == c->ry, "%s: ry %d", c->name, pl.ry);
    CHECK(pl.encodes == c->encodes && pl.raw_floats == c->raw_floats &&
              pl.store_out == c->store_out,
          "%s: encodes %d raw %d store %d", c->name, pl.encodes, pl.raw_floats, pl.store_out);
    CHECK(pl.own_rows == c->own_rows && pl.own_map == c->own_map, "%s: owns rows %d map %d",
          c->name, pl.own_rows, pl.own_map);
    CHECK(pl.fill_in == c->fill_in && pl.stage_all == c->stage_all, "%s: fill %d stage_all %d",
          c->name, pl.fill_in, pl.stage_all);
    CHECK(pl.count_clamps == c->count_clamps, "%s: counts %d", c->name, pl.count_clamps);
    CHECK(pl.want_preview == c->preview, "%s", c->name);
    CHECK(pl.threads == (c->threads ? c->threads : 8), "%s", c->name);
    if (c->chunk_rows) {
        CHECK(pl.short_rows == 0 && pl.chunk_rows == c->chunk_rows, "%s: %d rows (short %lld)",
              c->name, pl.chunk_rows, (long long)pl.short_rows);
        if (pl.short_rows == 0)
            check_invariants(c, &pl);
    } else {
        CHECK(pl.short_rows > 0, "%s: too small, yet %d rows", c->name, pl.chunk_rows);
    }
    /* Pure: the same descriptors, the same plan. */
    job_plan again;
    CHECK(winent_job_plan(&o, &h, &src, c->sink, &again, &err) == WINENT_OK &&
              again.chunk_rows == pl.chunk_rows && again.n_max == pl.n_max &&
              again.mem_budget == pl.mem_budget && again.chunk_bytes == pl.chunk_bytes,
          "%s: planned twice", c->name);
    for (int m = 0; m < src.nmaps; m++)
        winent_plan_free(src.maps[m].plan);
    free(src.maps);
}

/* The cases. Widths of 4096 make chunks of 4 Mpixel 1024 rows (of one
 * map); a u8 chunk of 1024 rows with a 5 x 5 window owns 1028 input rows
 * (6 MiB in huge pages), 16 MiB of floats and 8 MiB of units (floats
 * counted half): 30 MiB; of 512 rows 4 + 8 + 4 = 16 MiB; of 256 rows
 * 2 + 4 + 2 = 8 MiB. The CPU needs 4 chunks (2 + its 2). */
static const plan_case cases[] = {
    /* name, W, H, bands, dtype, windows, measures, bins, mem, preview, sink, threads,
     * device, memory, pinned, machine; nmaps, ry, rows, encodes, raw, store, own rows,
     * own map, fill, stage_all, counts */
    {"zst auto", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 0, 0, &ZST, 4, 0, 0, 0, 0,
     1, 2, 1024, 1, 0, 0, 1, 1, 0, 0, 0},
    /* --mem 48M: 30 MiB chunks fit 1, 16 MiB 3 (4 needed), 8 MiB 6. */
    {"zst 48M", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 48 * MIB, 0, &ZST, 4, 0, 0, 0, 0,
     1, 2, 256, 1, 0, 0, 1, 1, 0, 0, 0},
    /* --mem 16M: 8 MiB chunks of one unit fit 2 of the 4 needed. */
    {"zst 16M", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 16 * MIB, 0, &ZST, 4, 0, 0, 0, 0,
     1, 2, 0, 1, 0, 0, 1, 1, 0, 0, 0},
    /* No --mem on a machine of 60 MiB: the least budget that holds the
     * 4 chunks of 30 MiB planned is over half of it. */
    {"machine too small", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 0, 0, &ZST, 4, 0, 0, 0,
     60 * MIB, 1, 2, 0, 1, 0, 0, 1, 1, 0, 0, 0},
    /* Three maps: 4 Mpixel of all of them is 341 rows, 256 in whole units. */
    {"windows 5,9,disk4", 4096, 10000, 1, WINENT_U8, "5,9,d4", 1, 0, 0, 0, &ZST, 4, 0, 0, 0,
     0, 3, 4, 256, 1, 0, 0, 1, 1, 0, 0, 0},
    /* Even and rectangular windows: the halo is half the tallest side. */
    {"windows 6x4,7x3", 4096, 10000, 1, WINENT_U8, "6x4,7x3", 1, 0, 0, 0, &ZST, 4, 0, 0, 0, 0,
     2, 2, 512, 1, 0, 0, 1, 1, 0, 0, 0},
    /* Three bands x two windows x two measures: 12 maps, 4 Mpixel of them
     * 85 rows, one unit of 256 at least. Quantized (--bins): counted. */
    {"3 bands x 2 windows x 2 measures", 4096, 10000, 3, WINENT_U16, "3,d2", 2, 64, 0, 0,
     &ZST, 4, 0, 0, 0, 0, 12, 2, 256, 1, 0, 0, 1, 1, 0, 0, 1},
    /* GeoTIFF: units of 512 rows in 4 parts; an image shorter than a chunk
     * is one chunk. */
    {"tif short image", 4096, 700, 1, WINENT_F32, "5", 1, 256, 0, 1, &TIF, 4, 0, 0, 0, 0,
     1, 2, 700, 1, 0, 0, 1, 1, 0, 0, 1},
    /* Raw floats to a file: stored at their place by the pool; to a pipe:
     * written in order; neither encodes. */
    {"raw file", 4096, 10000, 1, WINENT_U8, "15", 1, 0, 0, 0, &RAW_FILE, 2, 0, 0, 0, 0,
     1, 7, 1024, 0, 1, 1, 1, 1, 0, 0, 0},
    {"raw pipe", 4096, 10000, 1, WINENT_U8, "15", 1, 0, 0, 0, &RAW_PIPE, 2, 0, 0, 0, 0,
     1, 7, 1024, 0, 1, 0, 1, 1, 0, 0, 0},
    /* Memory jobs: the CPU computes in the caller's buffers; auto stages
     * only where rows are not packed; GPUs named stage every chunk, unless
     * the caller's buffers are pinned and packed. */
    {"memory cpu", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 0, 0, &NO_SINK, 4, 0, 1, 0, 0,
     1, 2, 1024, 0, 0, 0, 0, 0, 0, 0, 0},
    {"memory auto", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 0, 0, &NO_SINK, 4, 1, 1, 0, 0,
     1, 2, 1024, 0, 0, 1, 1, 1, 1, 0, 0},
    {"memory auto, rows apart", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 0, 0, &NO_SINK, 4, 1, 2,
     0, 0, 1, 2, 1024, 0, 0, 1, 1, 1, 1, 1, 0},
    {"memory gpu", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 0, 0, &NO_SINK, 4, 2, 1, 0, 0,
     1, 2, 1024, 0, 0, 1, 1, 1, 1, 1, 0},
    {"memory gpu pinned", 4096, 10000, 1, WINENT_U8, "5", 1, 0, 0, 0, &NO_SINK, 4, 2, 1, 1, 0,
     1, 2, 1024, 0, 0, 0, 0, 0, 0, 0, 0},
};

/* The preview: the largest entropy its colours stretch to is the log of
 * the window's pixels (a disk of radius 3 has 29) or of the bins,
 * whichever is fewer; an automatic budget grows to twice its image. */
static void check_preview(void)
{
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.compute.kx = o.compute.ky = 7;
    o.compute.disk = 1;
    o.preview = "p.png";
    o.input = "in.tif";
    job_host h = {.stage = WINENT_STAGE_JOB, .cores = 2, .want_cpu = 1,
                  .machine_bytes = (uint64_t)64 << 30};
    int nmaps = 0;
    job_source_info src = {.width = 1000, .height = 800, .nbands = 1};
    src.maps = make_maps(&o, WINENT_U16, 1, &nmaps);
    src.nmaps = nmaps;
    const winent_plan *bp[1];
    src.band_plan = bp;
    job_plan pl;
    winent_err err;
    winent_err_clear(&err);
    CHECK(src.maps && winent_job_plan(&o, &h, &src, &ZST, &pl, &err) == WINENT_OK, "preview");
    CHECK(fabs(pl.preview_opts.vmax - log2(29.0)) < 1e-12, "disk3: vmax %g", pl.preview_opts.vmax);
    CHECK(strstr(pl.preview_text, "of in.tif: the 1000x800 map") != NULL, "%s", pl.preview_text);
    CHECK(pl.tap_rows.bytes != NULL &&
              pl.chunk_bytes >= winent_preview_rows_bytes(&pl.preview_opts, pl.chunk_rows) +
                                    (uint64_t)pl.width * (uint64_t)pl.chunk_rows * 4,
          "a chunk counts the preview's open rows");
    /* 16 bins of a 7 x 7 square: log2(16) = 4 bits at most. */
    o.compute.disk = 0;
    o.compute.bins = 16;
    o.compute.range_lo = 0;
    o.compute.range_hi = 1;
    for (int m = 0; m < nmaps; m++)
        winent_plan_free(src.maps[m].plan);
    free(src.maps);
    src.maps = make_maps(&o, WINENT_F32, 1, &nmaps);
    CHECK(src.maps && winent_job_plan(&o, &h, &src, &ZST, &pl, &err) == WINENT_OK, "preview");
    CHECK(fabs(pl.preview_opts.vmax - 4.0) < 1e-12, "bins: vmax %g", pl.preview_opts.vmax);
    /* An image whose preview outgrows half the default budget: no --mem,
     * the budget grows to twice the image; with --mem, the plan keeps it
     * and says the chunks and preview do not fit. */
    o.preview_size = 16384;
    src.width = src.height = 20000;
    CHECK(winent_job_plan(&o, &h, &src, &ZST, &pl, &err) == WINENT_OK, "big preview");
    const uint64_t img = winent_preview_fixed_bytes(&pl.preview_opts);
    CHECK(img > WINENT_MEM_DEFAULT / 2 && pl.mem_budget >= 2 * img && pl.short_rows == 0,
          "big preview: image %llu, budget %llu", (unsigned long long)img,
          (unsigned long long)pl.mem_budget);
    o.mem_bytes = WINENT_MEM_DEFAULT;
    CHECK(winent_job_plan(&o, &h, &src, &ZST, &pl, &err) == WINENT_OK, "big preview, --mem");
    CHECK(pl.short_rows > 0 && pl.short_terms.preview == img, "big preview, --mem: refused");
    for (int m = 0; m < nmaps; m++)
        winent_plan_free(src.maps[m].plan);
    free(src.maps);
}

/* The start: a memory job's refusals, the stages that compute nothing. */
static void check_start(void)
{
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.width = 100;
    o.height = 10;
    job_host h = {.stage = WINENT_STAGE_JOB, .cores = 3, .want_cpu = 1, .auto_device = 1};
    job_plan pl;
    winent_err err;
    winent_err_clear(&err);
    winent_memory_io mem = {NULL, 0, NULL, 0};
    h.mem = &mem;
    CHECK(winent_job_plan_start(&o, &h, &pl, &err) == WINENT_ERR_USAGE &&
              strcmp(err.msg, "a memory job needs its input buffer") == 0,
          "%s", err.msg);
    static uint8_t in[1];
    mem.in = in;
    mem.in_row_bytes = 99;
    winent_err_clear(&err);
    CHECK(winent_job_plan_start(&o, &h, &pl, &err) == WINENT_ERR_USAGE &&
              strstr(err.msg, "rows 99 bytes apart cannot hold 100 samples") == err.msg,
          "%s", err.msg);
    mem.in_row_bytes = 128;
    winent_err_clear(&err);
    CHECK(winent_job_plan_start(&o, &h, &pl, &err) == WINENT_OK && pl.rows_stride == 128 &&
              pl.map_stride == 100 && pl.threads == 3 && pl.mem_auto &&
              pl.mem_budget == WINENT_MEM_DEFAULT,
          "strides %zu %zu", pl.rows_stride, pl.map_stride);
    h.mem = NULL;
    h.stage = WINENT_STAGE_ENCODE;
    winent_err_clear(&err);
    CHECK(winent_job_plan_start(&o, &h, &pl, &err) == WINENT_ERR_USAGE &&
              strcmp(err.msg, "the encode stage needs a map") == 0,
          "%s", err.msg);
    /* --decode in a whole job: nothing is computed, no engine runs. */
    h.stage = WINENT_STAGE_JOB;
    o.decode = 1;
    o.mem_bytes = 100 * MIB;
    int nmaps = 0;
    job_source_info src = {.width = 500, .height = 300, .nbands = 1};
    src.maps = make_maps(&o, WINENT_U8, 1, &nmaps);
    src.nmaps = nmaps;
    const winent_plan *bp[1];
    src.band_plan = bp;
    winent_err_clear(&err);
    CHECK(src.maps && winent_job_plan(&o, &h, &src, &ZST, &pl, &err) == WINENT_OK, "decode");
    CHECK(pl.decoding && !pl.want_cpu && !pl.auto_device && pl.ngpus == 0 && !pl.own_rows &&
              !pl.count_clamps && pl.mem_budget == 100 * MIB,
          "decode: cpu %d auto %d", pl.want_cpu, pl.auto_device);
    for (int m = 0; m < nmaps; m++)
        winent_plan_free(src.maps[m].plan);
    free(src.maps);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    check_preview();
    check_start();
    return harness_end();
}
