/* SPDX-License-Identifier: BSD-3-Clause */
/* Sink dispatch, above the formats: resolve the output's format in the
 * registry (sink_registry.c), check the output name, open the format's
 * sink, then forward every call to its operations. Nothing here knows
 * which formats there are: what differs between them is in their
 * descriptors (sink_internal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sink_internal.h"

/* The format `f` resolves to (WINENT_FORMAT_AUTO: none), else the one
 * that takes unnamed outputs: what a sink of an unknown format would be. */
static const winent_sink_format *format_or_unnamed(winent_format f)
{
    const winent_sink_format *d = winent_sink_format_find(f);
    for (const winent_sink_format *const *u = winent_sink_formats; d == NULL && *u; u++)
        if ((*u)->unnamed)
            d = *u;
    return d;
}

winent_format winent_sink_format_of(const winent_sink_opts *o)
{
    if (o->format != WINENT_FORMAT_AUTO)
        return o->format;
    const winent_sink_format *d = winent_sink_format_of_name(o->path);
    return d ? d->format : WINENT_FORMAT_AUTO; /* unknown: refused unless --format says */
}

/* The descriptor `format` (or, when AUTO, `output_path`'s name) picks;
 * NULL for an unknown extension. */
static const winent_sink_format *format_for(const char *output_path, winent_format format)
{
    return format != WINENT_FORMAT_AUTO ? winent_sink_format_find(format)
                                        : winent_sink_format_of_name(output_path);
}

/* "name it .zst, .tif, .raw (or .f32, .bin), or say --format zst|tif|raw|zarr":
 * the formats' hints and names, in the registry's order. */
static void unknown_extension_advice(char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "name it");
    const char *sep = " ";
    for (const winent_sink_format *const *d = winent_sink_formats; *d && n < cap; d++, sep = ", ")
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, (*d)->hint);
    sep = ", or say --format ";
    for (const winent_sink_format *const *d = winent_sink_formats; *d && n < cap; d++, sep = "|")
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, (*d)->name);
}

/* An output that is a folder: what is at its name (the format's
 * check_output decides whether it may be replaced), never the input. */
static winent_status probe_folder(const char *input_path, const char *output_path,
                                  winent_outfile_probe *out, winent_err *err)
{
    memset(out, 0, sizeof *out);
    out->what = "a folder";
    if (strcmp(output_path, "-") == 0) {
        out->in_place = 1;
        out->what = "standard output";
        return WINENT_OK;
    }
    if (stat(output_path, &out->st) != 0) {
        if (errno != ENOENT)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: %s", output_path, strerror(errno));
        return WINENT_OK;
    }
    out->exists = 1;
    struct stat in;
    if (input_path != NULL && strcmp(input_path, "-") != 0 && stat(input_path, &in) == 0 &&
        in.st_dev == out->st.st_dev && in.st_ino == out->st.st_ino)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s' is the input '%s': give another output name", output_path,
                          input_path);
    return WINENT_OK;
}

winent_status winent_output_check(const char *input_path, const char *output_path,
                                  winent_format format, winent_err *err)
{
    WINENT_TRY(winent_sink_check_name(output_path, err));
    const winent_sink_format *f = format_for(output_path, format);
    if (f == NULL && format == WINENT_FORMAT_AUTO) {
        char advice[256];
        unknown_extension_advice(advice, sizeof advice);
        return WINENT_ERR(err, WINENT_ERR_USAGE, "output '%s': unknown extension '.%s': %s",
                          output_path, winent_sink_extension_of(output_path), advice);
    }
    winent_outfile_probe out;
    if (f != NULL && f->folder)
        WINENT_TRY(probe_folder(input_path, output_path, &out, err));
    else
        WINENT_TRY(winent_sink_check_target(input_path, output_path, &out, err));
    if (f != NULL && f->check_output != NULL)
        WINENT_TRY(f->check_output(output_path, &out, err));
    return WINENT_OK;
}

winent_status winent_sidecar_check(const char *output_path, winent_format format, winent_err *err)
{
    const winent_sink_format *f = format_for(output_path, format);
    if (f != NULL && f->no_sidecar != NULL)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "%s", f->no_sidecar);
    winent_outfile_probe out;
    WINENT_TRY(winent_outfile_probe_path(output_path, &out, err));
    if (out.in_place)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--sidecar needs a raw output file to put OUTPUT.hdr beside, and '%s' is "
                          "%s: give a file name, or drop --sidecar",
                          output_path, out.what);
    return WINENT_OK;
}

/* One map file and, with --sidecar, its header PATH.hdr. */
static winent_status guard_map(const winent_sink_opts *o, const char *path, winent_file_guard *g,
                               winent_err *err)
{
    WINENT_TRY(winent_file_guard_write(g, path, "output", err));
    if (!o->sidecar)
        return WINENT_OK;
    size_t n = strlen(path);
    char *hdr = malloc(n + sizeof ".hdr");
    if (hdr == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    memcpy(hdr, path, n);
    memcpy(hdr + n, ".hdr", sizeof ".hdr");
    winent_status st = winent_file_guard_write(g, hdr, "--sidecar header", err);
    free(hdr);
    return st;
}

winent_status winent_sink_guard_files(const winent_sink_opts *o, winent_file_guard *g,
                                      winent_err *err)
{
    const int n = winent_sink_nmaps(o);
    const winent_sink_format *f = winent_sink_format_find(winent_sink_format_of(o));
    if (f != NULL && f->folder) {
        /* A store replaces the folder whole: its group file stands for it,
         * so that an input inside the folder (or the store read as the
         * input) is refused as for any file. */
        size_t len = strlen(o->path);
        char *mark = malloc(len + sizeof "/.zgroup");
        if (mark == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        memcpy(mark, o->path, len);
        memcpy(mark + len, "/.zgroup", sizeof "/.zgroup");
        winent_status st = winent_file_guard_write(g, mark, "output", err);
        free(mark);
        return st;
    }
    if (n == 1 || f == NULL || !f->file_per_map)
        return guard_map(o, o->path, g, err);
    for (int m = 0; m < n; m++) {
        const winent_compute_opts *c = o->maps[m].compute;
        char *path = winent_sink_map_path(o->path, o->maps[m].source_band, c);
        if (path == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        winent_status st = guard_map(o, path, g, err);
        free(path);
        WINENT_TRY(st);
    }
    return WINENT_OK;
}

winent_status winent_sink_open(const winent_sink_opts *o, winent_sink **out, winent_err *err)
{
    winent_status st;
    *out = NULL;
    WINENT_TRY(winent_output_check(o->input_path, o->path, o->format, err));
    if (o->sidecar)
        WINENT_TRY(winent_sidecar_check(o->path, o->format, err));
    winent_sink *s = calloc(1, sizeof *s);
    if (s == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->opts = *o;
    s->unit_rows = 1;
    s->nmaps = winent_sink_nmaps(o);
    st = format_or_unnamed(winent_sink_format_of(o))->open(s, err);
    if (st != WINENT_OK) {
        winent_sink_free(s);
        return st;
    }
    if (s->unit_rows < 1)
        s->unit_rows = 1;
    *out = s;
    return WINENT_OK;
}

size_t winent_sink_encoder_bytes_for(const winent_sink_opts *o)
{
    const winent_sink_format *f = format_or_unnamed(winent_sink_format_of(o));
    return f->encoder_bytes_for ? f->encoder_bytes_for(o) : 0;
}

size_t winent_sink_writer_bytes_for(const winent_sink_opts *o)
{
    const winent_sink_format *f = format_or_unnamed(winent_sink_format_of(o));
    return f->writer_bytes_for ? f->writer_bytes_for(o) : 0;
}

size_t winent_sink_unit_extra_bytes_for(const winent_sink_opts *o)
{
    const winent_sink_format *f = format_or_unnamed(winent_sink_format_of(o));
    return f->unit_extra_bytes_for ? f->unit_extra_bytes_for(o) : 0;
}

int winent_sink_unit_rows_for(const winent_sink_opts *o)
{
    int rows = format_or_unnamed(winent_sink_format_of(o))->unit_rows_for(o);
    return rows < 1 ? 1 : rows;
}

int winent_sink_unit_rows(const winent_sink *s)
{
    return s->unit_rows;
}

winent_status winent_sink_encoder_create(winent_sink *s, winent_sink_encoder **out,
                                         winent_err *err)
{
    winent_sink_encoder *e = calloc(1, sizeof *e);
    *out = NULL;
    if (e == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    e->sink = s;
    if (s->ops->encoder_create) {
        winent_status st = s->ops->encoder_create(s, &e->state, err);
        if (st != WINENT_OK) {
            free(e);
            return st;
        }
    }
    *out = e;
    return WINENT_OK;
}

void winent_sink_encoder_free(winent_sink_encoder *e)
{
    if (e == NULL)
        return;
    if (e->sink->ops->encoder_free)
        e->sink->ops->encoder_free(e->state);
    free(e);
}

winent_status winent_sink_encode(winent_sink_encoder *e, int64_t index, const float *rows,
                                 int nrows, winent_bytes *out, winent_err *err)
{
    winent_bytes_reset(out);
    return e->sink->ops->encode(e->sink, e->state, 0, index, rows, nrows, out, err);
}

winent_status winent_sink_write(winent_sink *s, int64_t index, const winent_bytes *encoded,
                                winent_err *err)
{
    return s->ops->write(s, 0, index, encoded, err);
}

winent_status winent_sink_finish(winent_sink *s, winent_err *err)
{
    return s->ops->finish(s, err);
}

void winent_sink_abort(winent_sink *s)
{
    if (s && s->ops && s->ops->abort)
        s->ops->abort(s);
}

uint64_t winent_sink_bytes_written(const winent_sink *s)
{
    return s->ops->bytes_written ? s->ops->bytes_written(s) : 0;
}

void winent_sink_free(winent_sink *s)
{
    if (s == NULL)
        return;
    if (s->ops && s->ops->free_impl)
        s->ops->free_impl(s->impl);
    free(s);
}

int winent_sink_unit_parts(const winent_sink *s)
{
    return s->ops->encode_part && s->parts > 1 ? s->parts : 1;
}

winent_status winent_sink_encode_part(winent_sink_encoder *e, int map, int64_t index, int part,
                                      const float *rows, int nrows, winent_bytes *out,
                                      winent_err *err)
{
    winent_sink *s = e->sink;
    if (map < 0 || map >= s->nmaps)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "map %d of %d", map, s->nmaps);
    winent_bytes_reset(out);
    if (winent_sink_unit_parts(s) == 1)
        return s->ops->encode(s, e->state, map, index, rows, nrows, out, err);
    return s->ops->encode_part(s, e->state, map, index, part, rows, nrows, out, err);
}

winent_status winent_sink_write_part(winent_sink *s, int map, int64_t index, int part,
                                     const winent_bytes *encoded, winent_err *err)
{
    if (map < 0 || map >= s->nmaps)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "map %d of %d", map, s->nmaps);
    if (winent_sink_unit_parts(s) == 1)
        return s->ops->write(s, map, index, encoded, err);
    return s->ops->write_part(s, map, index, part, encoded, err);
}

int winent_sink_takes_floats(const winent_sink *s)
{
    return s->ops->write_floats != NULL;
}

winent_status winent_sink_write_floats(winent_sink *s, int map, const float *rows, size_t n,
                                       winent_err *err)
{
    if (map < 0 || map >= s->nmaps)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "map %d of %d", map, s->nmaps);
    return s->ops->write_floats(s, map, rows, n, err);
}

int winent_sink_writes_at(const winent_sink *s)
{
    return s->ops->writes_at != NULL && s->ops->writes_at(s);
}

winent_status winent_sink_write_floats_at(winent_sink *s, int map, uint64_t at, const float *rows,
                                          size_t n, winent_err *err)
{
    if (map < 0 || map >= s->nmaps)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "map %d of %d", map, s->nmaps);
    return s->ops->write_floats_at(s, map, at, rows, n, err);
}
