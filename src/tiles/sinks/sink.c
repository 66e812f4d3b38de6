/* SPDX-License-Identifier: BSD-3-Clause */
/* Sink dispatch: pick the format, then forward to its operations. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink_internal.h"

/* The extension of `path`'s last component, without the dot; "" when
 * there is none (a leading dot, as in ".out", starts no extension). */
static const char *extension_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot + 1 : "";
}

static winent_format format_of_name(const char *path)
{
    const char *ext = extension_of(path);
    if (strcmp(path, "-") == 0 || *ext == '\0' || strcasecmp(ext, "raw") == 0 ||
        strcasecmp(ext, "f32") == 0 || strcasecmp(ext, "bin") == 0)
        return WINENT_FORMAT_RAW;
    if (strcasecmp(ext, "zst") == 0)
        return WINENT_FORMAT_ZST;
    if (strcasecmp(ext, "tif") == 0 || strcasecmp(ext, "tiff") == 0)
        return WINENT_FORMAT_TIF;
    return WINENT_FORMAT_AUTO; /* unknown: refused unless --format says */
}

int winent_sink_nmaps(const winent_sink_opts *o)
{
    return o->nmaps > 1 && o->maps ? o->nmaps : 1;
}

void winent_sink_out_sample(const winent_sink_opts *o, winent_out_sample *q)
{
    double top = 0.0;
    for (int m = 0; m < winent_sink_nmaps(o); m++) {
        const winent_compute_opts *c = winent_sink_nmaps(o) > 1 ? o->maps[m].compute : o->compute;
        double t = c ? winent_compute_top(c) : 0.0;
        top = t > top ? t : top;
    }
    winent_out_sample_init(q, o->out_type, top);
}

void winent_sink_map_opts(const winent_sink_opts *o, int m, winent_sink_opts *one)
{
    *one = *o;
    if (winent_sink_nmaps(o) > 1) {
        one->compute = o->maps[m].compute;
        one->source_band = o->maps[m].source_band;
    }
    one->nmaps = 0;
    one->maps = NULL;
}

void winent_sink_window_name(const winent_compute_opts *c, char *buf, size_t cap)
{
    if (c->disk)
        snprintf(buf, cap, "disk%d", c->kx / 2);
    else
        snprintf(buf, cap, "%dx%d", c->kx, c->ky);
}

char *winent_sink_map_path(const char *path, int band, const winent_compute_opts *c)
{
    const char *ext = extension_of(path);
    size_t stem = *ext ? (size_t)(ext - 1 - path) : strlen(path);
    char tag[64];
    if (c->disk)
        snprintf(tag, sizeof tag, "_b%d_disk%d", band, c->kx / 2);
    else if (c->kx == c->ky)
        snprintf(tag, sizeof tag, "_b%d_w%d", band, c->kx);
    else
        snprintf(tag, sizeof tag, "_b%d_w%dx%d", band, c->kx, c->ky);
    size_t n = stem + strlen(tag) + (*ext ? strlen(ext) + 1 : 0) + 1;
    char *out = malloc(n);
    if (out == NULL)
        return NULL;
    snprintf(out, n, "%.*s%s%s%s", (int)stem, path, tag, *ext ? "." : "", ext);
    return out;
}

winent_format winent_sink_format_of(const winent_sink_opts *o)
{
    if (o->format != WINENT_FORMAT_AUTO)
        return o->format;
    return format_of_name(o->path);
}

/* The input's file, symlinks followed; 0 when there is none to compare
 * (a name that does not exist, a GDAL virtual path). */
static int input_stat(const char *input_path, struct stat *st)
{
    if (strcmp(input_path, "-") == 0)
        return fstat(STDIN_FILENO, st) == 0;
    return stat(input_path, st) == 0;
}

/* 1 for a name of GDAL's virtual file systems (/vsis3/..., /vsicurl/...,
 * /vsimem/...) or a URL (https://..., s3://...): not a local path. */
static int remote_name(const char *p)
{
    const char *q;
    if (strncmp(p, "/vsi", 4) == 0) {
        q = p + 4;
        while ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_')
            q++;
        if (q > p + 4 && *q == '/')
            return 1;
    }
    const char *colon = strstr(p, "://");
    if (colon == NULL || colon == p)
        return 0;
    for (q = p; q < colon; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
              *q == '+' || *q == '.' || *q == '-'))
            return 0;
    return 1;
}

winent_status winent_output_check(const char *input_path, const char *output_path,
                                  winent_format format, winent_err *err)
{
    if (output_path == NULL || *output_path == '\0')
        return WINENT_ERR(err, WINENT_ERR_USAGE, "no output name: give one, or '-'");
    if (remote_name(output_path))
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s': winent-stream writes local files and streams, not GDAL's "
                          "virtual file systems (/vsis3/, /vsicurl/, ...) or URLs: write a local "
                          "file, then copy it (aws s3 cp, gsutil cp, curl -T)",
                          output_path);
    int is_stdout = strcmp(output_path, "-") == 0;
    winent_format f = format != WINENT_FORMAT_AUTO ? format : format_of_name(output_path);
    if (f == WINENT_FORMAT_AUTO)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s': unknown extension '.%s': name it .zst, .tif, .raw "
                          "(or .f32, .bin), or say --format zst|tif|raw",
                          output_path, extension_of(output_path));

    winent_outfile_probe out;
    WINENT_TRY(winent_outfile_probe_path(output_path, &out, err));
    /* Only a file or a disk can be overwritten while it is read: a
     * terminal or /dev/null both in and out is no harm. */
    struct stat in;
    if (input_path && out.exists && (S_ISREG(out.st.st_mode) || S_ISBLK(out.st.st_mode)) &&
        input_stat(input_path, &in) && in.st_dev == out.st.st_dev && in.st_ino == out.st.st_ino) {
        if (is_stdout)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "standard output is the input '%s': redirect it elsewhere",
                              input_path);
        if (strcmp(input_path, output_path) == 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "output '%s' is the input: give another output name", output_path);
        if (strcmp(input_path, "-") == 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "output '%s' is the file on standard input: give another output "
                              "name",
                              output_path);
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s' is the input '%s' (the same file): give another output "
                          "name",
                          output_path, input_path);
    }
    if (f == WINENT_FORMAT_TIF && out.in_place) {
        if (is_stdout)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "a GeoTIFF cannot go to standard output: give a file name, or "
                              "--format raw|zst");
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s' is %s: a GeoTIFF needs a seekable file of its own: give a "
                          "file name, or --format raw|zst",
                          output_path, out.what);
    }
    return WINENT_OK;
}

winent_status winent_sidecar_check(const char *output_path, winent_format format, winent_err *err)
{
    winent_format f = format != WINENT_FORMAT_AUTO ? format : format_of_name(output_path);
    if (f == WINENT_FORMAT_ZST)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--sidecar describes a raw output; a .zst carries its own header: drop "
                          "--sidecar (winent-stream --decode MAP.zst MAP.tif makes a GeoTIFF of it)");
    if (f == WINENT_FORMAT_TIF)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--sidecar describes a raw output; a GeoTIFF carries its georeferencing "
                          "itself: drop --sidecar");
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
    if (n == 1 || winent_sink_format_of(o) != WINENT_FORMAT_RAW)
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
    switch (winent_sink_format_of(o)) {
    case WINENT_FORMAT_ZST: st = winent_sink_zst_open(s, err); break;
    case WINENT_FORMAT_TIF: st = winent_sink_tiff_open(s, err); break;
    default: st = winent_sink_raw_open(s, err); break;
    }
    if (st != WINENT_OK) {
        winent_sink_free(s);
        return st;
    }
    if (s->unit_rows < 1)
        s->unit_rows = 1;
    *out = s;
    return WINENT_OK;
}

/* A zstd compression context at `level` with frames of a few MiB: its
 * tables grow with the level's window and hash sizes. */
static size_t zstd_state_bytes(int level)
{
    return level <= 3 ? (size_t)4 << 20 : level <= 9 ? (size_t)16 << 20 : (size_t)64 << 20;
}

size_t winent_sink_encoder_bytes_for(const winent_sink_opts *o)
{
    switch (winent_sink_format_of(o)) {
    case WINENT_FORMAT_ZST: return zstd_state_bytes(o->level > 0 ? o->level : 2);
    case WINENT_FORMAT_TIF: {
        size_t side = (size_t)(o->tile > 0 ? o->tile : 512);
        size_t tile = side * side * sizeof(float) * 2; /* predicted tile + codec output */
        /* A COG's encoder also reduces each tile for the overviews. */
        size_t cog = o->tif_layout == WINENT_TIF_COG ? winent_sink_cog_encoder_extra(o) : 0;
        if (o->compress == WINENT_COMPRESS_ZSTD) {
            /* A COG at the default level has a second context for its
             * overview tiles. */
            size_t ovr = o->tif_layout == WINENT_TIF_COG && o->level == 0
                             ? zstd_state_bytes(WINENT_COG_OVR_ZSTD_LEVEL)
                             : 0;
            return tile + cog + zstd_state_bytes(o->level > 0 ? o->level : 3) + ovr;
        }
        return tile + cog + ((size_t)1 << 20); /* deflate or LZW state */
    }
    default: return 0;
    }
}

size_t winent_sink_writer_bytes_for(const winent_sink_opts *o)
{
    if (winent_sink_format_of(o) != WINENT_FORMAT_TIF)
        return 0;
    if (o->tif_layout == WINENT_TIF_COG)
        return winent_sink_cog_writer_bytes(o, winent_sink_encoder_bytes_for(o));
    /* libtiff's tile offsets and byte counts, of every map. */
    uint64_t side = (uint64_t)(o->tile > 0 ? o->tile : 512);
    uint64_t tiles =
        ((uint64_t)o->width + side - 1) / side * (((uint64_t)o->height + side - 1) / side);
    return (size_t)(tiles * 16 * (uint64_t)winent_sink_nmaps(o));
}

size_t winent_sink_unit_extra_bytes_for(const winent_sink_opts *o)
{
    if (winent_sink_format_of(o) == WINENT_FORMAT_TIF && o->tif_layout == WINENT_TIF_COG)
        return winent_sink_cog_unit_extra(o);
    return 0;
}

int winent_sink_unit_rows_for(const winent_sink_opts *o)
{
    int rows;
    switch (winent_sink_format_of(o)) {
    case WINENT_FORMAT_ZST: rows = o->frame_rows; break;
    case WINENT_FORMAT_TIF: rows = o->tile; break;
    default: rows = WINENT_RAW_UNIT_ROWS; break;
    }
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
