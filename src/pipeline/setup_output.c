/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's output side before the plan: the sink's options, the guard of
 * every file read and written, the sink, and what it says of itself
 * (job_sink_info: its units, whether it takes float rows, the memory it
 * holds), from which the plan sizes the chunks. */
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

static void sink_opts(const pipeline *p, const winent_job_opts *o, const job_setup *s,
                      winent_sink_opts *so)
{
    const winent_compute_opts *co = &s->src.maps[0].co;
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    const winent_zst_map *map = p->map_in ? winent_zst_reader_map(p->map_in) : NULL;
    memset(so, 0, sizeof *so);
    so->path = o->output ? o->output : "-";
    so->input_path = p->plan.mem_in ? NULL : o->input;
    so->format = o->format;
    so->width = s->src.width;
    so->height = s->src.height;
    so->level = o->level;
    so->frame_rows = o->frame_rows > 0 ? o->frame_rows : default_frame_rows(s->src.width);
    so->tile = o->tile > 0 ? o->tile : 512;
    so->compress = o->compress;
    so->tif_layout = o->tif_layout;
    so->bigtiff = o->bigtiff;
    so->out_type = o->out_type;
    so->compute = co;
    so->par = &p->par_hook;
    so->writers = p->plan.threads; /* the pool stores the rows (output.c) */
    so->source_name = o->input == NULL || p->plan.mem_in ? "memory"
                      : strcmp(o->input, "-") == 0       ? "standard input"
                                                         : o->input;
    so->georef = info ? info->georef : NULL;
    so->nodata_in_play = co->has_nodata || winent_dtype_is_float(co->dtype);
    /* A map can be NaN with no nodata in the input: a co-occurrence window
     * without a pair, a majority of a footprint that counted no pixel. */
    for (int m = 0; s->src.maps != NULL && m < s->src.nmaps; m++)
        so->nodata_in_play |= winent_measure_can_be_nan(&s->src.maps[m].co);
    so->command_line = o->command_line;
    so->source_band = p->plan.mem_in || info == NULL ? 0 : info->read[0].band;
    so->sidecar = o->sidecar;
    so->stop = p->stop;
    so->temps = p->temps;
    so->nmaps = s->src.nmaps;
    so->maps = s->sink_maps;
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

/* The maps as the sink sees them (several): each one's band and options. */
static winent_status sink_maps(const pipeline *p, job_setup *s, winent_err *err)
{
    const job_source_info *src = &s->src;
    if (src->nmaps <= 1)
        return WINENT_OK;
    s->sink_maps = calloc((size_t)src->nmaps, sizeof *s->sink_maps);
    if (s->sink_maps == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int m = 0; m < src->nmaps; m++) {
        if (p->map_in) { /* --decode: the file's own maps */
            const winent_zst_map_entry *e = &winent_zst_reader_map(p->map_in)->maps[m];
            s->sink_maps[m].source_band = e->source_band;
            s->sink_maps[m].compute = &e->compute;
        } else if (p->source == NULL) { /* a memory job: no file's band */
            s->sink_maps[m].compute = &src->maps[m].co;
        } else {
            const winent_source_info *info = winent_source_get_info(p->source);
            s->sink_maps[m].source_band = info->read[src->maps[m].band].band;
            s->sink_maps[m].compute = &src->maps[m].co;
        }
    }
    return WINENT_OK;
}

/* The maps as the sink sees them, every file guarded, the sink opened
 * where one is written, and what it says of itself. */
winent_status winent_setup_output(pipeline *p, const winent_job_opts *o, job_setup *s,
                                  winent_err *err)
{
    const winent_stage stage = p->plan.stage;
    job_sink_info *k = &s->snk;
    winent_sink_opts so;
    if (p->map_in) /* --decode: the file's maps against --ot, as a job's */
        WINENT_TRY(winent_job_check_decode_types(
            winent_zst_reader_map(p->map_in), o->out_type,
            o->words == WINENT_WORDS_PYTHON ? WINENT_WORDS_PYTHON : WINENT_WORDS_CLI, err));
    WINENT_TRY(sink_maps(p, s, err));
    sink_opts(p, o, s, &so);
    k->format = winent_sink_format_of(&so);
    k->opened =
        (stage == WINENT_STAGE_JOB && p->plan.mem_out == NULL) || stage == WINENT_STAGE_ENCODE;
    if (k->opened || (o->preview && stage == WINENT_STAGE_JOB))
        WINENT_TRY(guard_files(p, o, &so, k->opened, err));
    if (k->opened) {
        WINENT_TRY(winent_sink_open(&so, &p->sink, err));
        k->unit_rows = winent_sink_unit_rows(p->sink);
        k->parts = winent_sink_unit_parts(p->sink);
        k->takes_floats = winent_sink_takes_floats(p->sink);
        k->writes_at = winent_sink_writes_at(p->sink);
        k->writer_bytes = winent_sink_writer_bytes_for(&so);
    } else {
        k->unit_rows = winent_sink_unit_rows_for(&so);
        k->parts = 1;
    }
    k->encoder_bytes = winent_sink_encoder_bytes_for(&so);
    k->unit_extra = winent_sink_unit_extra_bytes_for(&so);
    return WINENT_OK;
}
