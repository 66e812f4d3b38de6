/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's output side: the sink's options, the guard of every file
 * read and written, the sink and the output (the first tap), the
 * preview's options (its tap is opened with the chunks), and the job's
 * size in memory (setup_memory.c sizes the chunks from it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"
#include "kernels/measure.h"
#include "tiles/georef.h"

/* Default rows per .zst frame: about 4 MiB of floats, a multiple of 16
 * rows; a function of the width alone, so the same for every machine. */
static int default_frame_rows(int width)
{
    int64_t rows = ((int64_t)4 << 20) / (4 * (int64_t)(width > 0 ? width : 1));
    rows -= rows % 16;
    return rows < 16 ? 16 : rows > 4096 ? 4096 : (int)rows;
}

/* Every file the job will write (the sink's, the preview) against every
 * file it reads (the source's list: the input, its sidecars, GDAL's file
 * list; a --decode map) and against each other, once the input is open
 * and before anything is created (file_guard.h). */
static winent_status guard_files(const pipeline *p, const winent_job_opts *o,
                                 const winent_sink_opts *so, int sink, winent_err *err)
{
    winent_file_guard *g = NULL;
    winent_status st;
    WINENT_TRY(winent_file_guard_create(o->input, &g, err));
    if (p->source) {
        int n;
        const char *const *files = winent_source_files(p->source, &n);
        for (int i = 0; i < n; i++)
            WINENT_TRY_GOTO(st, winent_file_guard_read(g, files[i], err));
    } else if (p->map_in && o->input) {
        WINENT_TRY_GOTO(st, winent_file_guard_read(g, o->input, err));
    }
    if (sink)
        WINENT_TRY_GOTO(st, winent_sink_guard_files(so, g, err));
    if (o->preview && p->plan.stage == WINENT_STAGE_JOB)
        WINENT_TRY_GOTO(st, winent_tap_preview_guard(o->preview, g, err));
    st = WINENT_OK;
fail:
    winent_file_guard_free(g);
    return st;
}

static void sink_opts(const pipeline *p, const winent_job_opts *o, const winent_compute_opts *co,
                      winent_sink_opts *so)
{
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    const winent_zst_map *map = p->map_in ? winent_zst_reader_map(p->map_in) : NULL;
    memset(so, 0, sizeof *so);
    so->path = o->output ? o->output : "-";
    so->input_path = p->plan.mem_in ? NULL : o->input;
    so->format = o->format;
    so->width = p->plan.width;
    so->height = p->plan.height;
    so->level = o->level;
    so->frame_rows = o->frame_rows > 0 ? o->frame_rows : default_frame_rows(p->plan.width);
    so->tile = o->tile > 0 ? o->tile : 512;
    so->compress = o->compress;
    so->tif_layout = o->tif_layout;
    so->bigtiff = o->bigtiff;
    so->out_type = o->out_type;
    so->compute = co;
    so->par = &p->par_hook;
    so->source_name = o->input == NULL || p->plan.mem_in ? "memory"
                      : strcmp(o->input, "-") == 0       ? "standard input"
                                                         : o->input;
    so->georef = info ? info->georef : NULL;
    so->nodata_in_play = co->has_nodata || winent_dtype_is_float(co->dtype);
    /* A map can be NaN with no nodata in the input: a co-occurrence window
     * without a pair, a majority of a footprint that counted no pixel. */
    for (int m = 0; p->plan.maps != NULL && m < p->plan.nmaps; m++)
        so->nodata_in_play |= winent_measure_can_be_nan(&p->plan.maps[m].co);
    so->command_line = o->command_line;
    so->source_band = p->plan.mem_in || info == NULL ? 0 : info->read[0].band;
    so->sidecar = o->sidecar;
    so->stop = p->stop;
    so->temps = p->temps;
    so->nmaps = p->plan.nmaps;
    so->maps = p->plan.sink_maps;
    if (map) {
        /* --decode: the map's own facts, as its header recorded them. */
        so->compute = &map->compute;
        so->source_name = map->source;
        so->georef = winent_georef_present(&map->georef) ? &map->georef : NULL;
        so->nodata_in_play = map->nodata_in_play;
        so->command_line = map->command_line;
        so->source_band = map->source_band;
    }
}

/* The preview's options (--preview in a whole job): the image's size; the
 * colours' stretch, --preview-range or else the image's own 2nd-98th
 * percentiles (found by the preview at the end), beside the largest
 * entropy the options allow, log of min(window pixels, bins); the map's
 * geotransform and EPSG code, for the world file and PAM file. */
static void preview_opts(pipeline *p, const winent_job_opts *o, const winent_compute_opts *co)
{
    winent_preview_opts *v = &p->plan.preview_opts;
    static const char *const units[] = {"nat", "bit", "ban"};
    static const char *const bases[] = {"e", "2", "10"};
    /* The window's pixels (a disk's: fewer), or the codes the data can
     * take, whichever is fewer: --bins, or 256 distinct values of 8-bit
     * samples (a u8 31x31 map holds at most 8 bits, not log2(961)). */
    double n = (double)p->plan.first_plan->area;
    if ((double)p->plan.first_plan->ncodes < n)
        n = (double)p->plan.first_plan->ncodes;
    memset(v, 0, sizeof *v);
    v->path = o->preview;
    v->map_width = p->plan.width;
    v->map_height = p->plan.height;
    v->size = o->preview_size > 0 ? o->preview_size : WINENT_PREVIEW_SIZE_DEFAULT;
    v->vmax = co->base == WINENT_BASE_2 ? log2(n) : co->base == WINENT_BASE_10 ? log10(n) : log(n);
    v->unit = units[co->base];
    if (co->measure != WINENT_MEASURE_ENTROPY && co->measure != WINENT_MEASURE_RENYI) {
        v->vmax = winent_compute_top(co); /* simpson, evenness: 0..1; richness: a count */
        v->unit = "";
    }
    v->stop = p->stop;
    v->range_given = o->preview_range;
    v->lo = o->preview_lo;
    v->hi = o->preview_hi;
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    if (info && info->georef) {
        v->has_geotransform = winent_georef_geotransform(info->georef, v->gt);
        v->epsg = winent_georef_epsg(info->georef);
    }
    v->temps = p->temps;
    int pw, ph;
    char win[32];
    winent_preview_dims(p->plan.width, p->plan.height, v->size, &pw, &ph);
    char what[64];
    winent_sink_window_name(co, win, sizeof win);
    if (co->measure == WINENT_MEASURE_ENTROPY)
        snprintf(what, sizeof what, "Local Shannon entropy");
    else
        winent_measure_text(co, what, sizeof what);
    snprintf(p->plan.preview_text, sizeof p->plan.preview_text,
             "%s (base %s), %s window, of %s: the %dx%d map at %dx%d, each "
             "pixel the mean of the valid map pixels of its block (at most %.6g %s), "
             "transparent where no pixel is valid",
             what, bases[co->base], win,
             o->input == NULL || p->plan.mem_in ? "memory"
             : strcmp(o->input, "-") == 0       ? "standard input"
                                                : o->input,
             p->plan.width, p->plan.height, pw, ph, v->vmax, v->unit);
    v->description = p->plan.preview_text;
}

/* The maps as the sink sees them, and the sink: its units, and whether the
 * pool stores the rows at their place (raw floats to files, a staged
 * memory job). */
winent_status winent_setup_output(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                  int decoding, const winent_compute_opts *co, winent_err *err)
{
    if (p->plan.nmaps > 1) {
        p->plan.sink_maps = calloc((size_t)p->plan.nmaps, sizeof *p->plan.sink_maps);
        if (p->plan.sink_maps == NULL) {
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        }
        for (int m = 0; m < p->plan.nmaps; m++) {
            if (p->map_in) { /* --decode: the file's own maps */
                const winent_zst_map_entry *e = &winent_zst_reader_map(p->map_in)->maps[m];
                p->plan.sink_maps[m].source_band = e->source_band;
                p->plan.sink_maps[m].compute = &e->compute;
            } else {
                const winent_source_info *info = winent_source_get_info(p->source);
                p->plan.sink_maps[m].source_band = info->read[p->plan.maps[m].band].band;
                p->plan.sink_maps[m].compute = &p->plan.maps[m].co;
            }
        }
    }
    {
        winent_sink_opts so;
        sink_opts(p, o, co, &so);
        p->plan.format = winent_sink_format_of(&so);
        const int sink =
            (stage == WINENT_STAGE_JOB && p->plan.mem_out == NULL) || stage == WINENT_STAGE_ENCODE;
        if (sink || (o->preview && stage == WINENT_STAGE_JOB))
            WINENT_TRY(guard_files(p, o, &so, sink, err));
        if (sink) {
            WINENT_TRY(winent_sink_open(&so, &p->sink, err));
            p->plan.unit_rows = winent_sink_unit_rows(p->sink);
            p->plan.parts = winent_sink_unit_parts(p->sink);
            p->plan.raw_floats = stage == WINENT_STAGE_JOB && winent_sink_takes_floats(p->sink);
            /* Raw floats to files: the pool's threads write them by
             * offset (one writer thread tops out near 2-3 GB/s). */
            p->plan.store_out = p->plan.raw_floats && !decoding && winent_sink_writes_at(p->sink);
        } else {
            p->plan.unit_rows = winent_sink_unit_rows_for(&so);
        }
    }
    if (stage == WINENT_STAGE_JOB && p->plan.mem_out == NULL && p->map_in == NULL && o->on_notice &&
        winent_job_count_saturation(p) != WINENT_OK)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    p->plan.store_out |= p->plan.store_mem;
    /* Where the maps go, picked once (output.c). */
    winent_output_open(&p->plan, p->sink, &p->out);
    p->taps[p->ntaps++] = &p->out.tap;
    p->plan.encodes = p->out.units;
    /* Copies in pieces of about 2 MiB (input rows) and 4 MiB (floats). */
    p->plan.fill_rows = (int)(((size_t)2 << 20) / (p->plan.row_bytes ? p->plan.row_bytes : 1));
    p->plan.fill_rows = p->plan.fill_rows < 1 ? 1 : p->plan.fill_rows;
    p->plan.store_rows = (int)(((size_t)1 << 20) / (p->plan.width > 0 ? (size_t)p->plan.width : 1));
    p->plan.store_rows = p->plan.store_rows < 1 ? 1 : p->plan.store_rows;
    return WINENT_OK;
}

/* --preview in a whole job: its options, and room for its image. */
winent_status winent_setup_preview(pipeline *p, const winent_job_opts *o,
                                   const winent_compute_opts *co, winent_err *err)
{
    p->plan.want_preview = 1;
    preview_opts(p, o, co);
    /* Tests: every chunk to the preview after compute, as a GPU's
     * are, so that path runs on machines without one. */
    p->plan.taps_after = p->plan.sw.preview_after;
    winent_tap_preview_plan(&p->plan);
    /* The image is held whole: at most half the budget, the rest is
     * the pipeline's (a --mem given too small is told by winent_setup_chunks,
     * with the least budget that holds the image and the chunks). */
    uint64_t img = winent_preview_fixed_bytes(&p->plan.preview_opts);
    if (img > p->plan.mem_budget / 2 && p->plan.mem_auto)
        p->plan.mem_budget = 2 * img; /* no --mem given: room for it */
    (void)err;
    return WINENT_OK;
}

/* The chunks' height and how many, within --mem, once every thread's own
 * state and what the source and the sink hold are counted. */
winent_status winent_setup_size(pipeline *p, const winent_job_opts *o,
                                const winent_compute_opts *co, winent_err *err)
{
    winent_sink_opts so;
    sink_opts(p, o, co, &so);
    /* Every CPU engine has a scratch per worker. */
    uint64_t scratch = 0;
    for (int m = 0; m < p->plan.nmaps && p->plan.want_cpu; m++)
        if (p->plan.maps[m].owner)
            scratch += winent_cpu_scratch_bytes(p->plan.maps[m].plan, p->plan.width);
    uint64_t per_worker =
        (p->plan.encodes ? winent_sink_encoder_bytes_for(&so) : 0) + scratch +
        (p->plan.want_preview ? winent_preview_scratch_bytes(&p->plan.preview_opts) : 0);
    /* What the source holds (GDAL's block cache) comes out of --mem. */
    const uint64_t held = p->source ? winent_source_get_info(p->source)->mem_held : 0;
    uint64_t writer = p->sink ? winent_sink_writer_bytes_for(&so) : 0;
    if (p->plan.encodes)
        p->plan.unit_extra = winent_sink_unit_extra_bytes_for(&so);
    WINENT_TRY(winent_setup_chunks(p, held, per_worker, writer, err));
    p->plan.plane_bytes = (size_t)winent_ring_plane_bytes(&p->plan, (uint64_t)p->plan.chunk_rows);
    p->plan.map_plane = (size_t)p->plan.width * (size_t)p->plan.chunk_rows;
    return WINENT_OK;
}
