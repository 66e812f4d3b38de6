/* SPDX-License-Identifier: BSD-3-Clause */
/* GeoTIFF output, plain tiled layout (--tif-layout tiled; the default
 * Cloud-Optimized layout is sink_cog.c): a tiled float32 (Big)TIFF. Encoder threads predict and
 * compress whole tiles (one unit = one row of tiles); the writer thread
 * only appends the finished tiles with TIFFWriteRawTile, in order. libtiff
 * writes through our own I/O procedures over the output file's descriptor,
 * so the file appears at its name only at the end (outfile.h). Several
 * maps are the bands of the file, in separate planes (each band's tiles
 * its own, as a single map's). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink_internal.h"
#include "tiff_common.h"
#include "tiff_meta.h"
#include "tile_codec.h"

/* Above this many bytes (worst case) the file is a BigTIFF: classic TIFF
 * offsets are 32-bit. */
#define CLASSIC_TIFF_MAX 4000000000ull

typedef struct tiff_sink {
    winent_outfile of; /* owned; of.fd is written by libtiff through our procs */
    int of_open;
    TIFF *tif;             /* owned; writer thread only */
    winent_tiff_msgs msgs; /* libtiff's messages about tif */
    int side;
    winent_out_sample q; /* the samples written (--ot) */
    uint32_t tiles_across, tiles_down;
    uint32_t tiles_per_plane; /* tiles of one map */
    int dropping;     /* aborting: writes are dropped, not made */
    int write_errno;  /* errno of the first failed write */
} tiff_sink;

typedef struct tiff_encoder {
    winent_tile_codec *codec; /* owned */
    float *tile;              /* owned: side x side floats */
} tiff_encoder;

/* ---- I/O procedures for libtiff over the output descriptor --------------- */

static tmsize_t proc_read(thandle_t h, void *buf, tmsize_t n)
{
    tiff_sink *t = h;
    ssize_t r;
    do
        r = read(t->of.fd, buf, (size_t)n);
    while (r < 0 && errno == EINTR);
    return r;
}

static tmsize_t proc_write(thandle_t h, void *buf, tmsize_t n)
{
    tiff_sink *t = h;
    if (t->dropping)
        return n;
    const char *p = buf;
    tmsize_t left = n;
    while (left > 0) {
        ssize_t w = write(t->of.fd, p, (size_t)left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (t->write_errno == 0)
                t->write_errno = w < 0 ? errno : ENOSPC;
            return -1;
        }
        p += w;
        left -= w;
        winent_outfile_wrote(&t->of, (uint64_t)w); /* counted there */
    }
    return n;
}

static toff_t proc_seek(thandle_t h, toff_t off, int whence)
{
    tiff_sink *t = h;
    off_t r = lseek(t->of.fd, (off_t)off, whence);
    return r < 0 ? (toff_t)-1 : (toff_t)r;
}

static int proc_close(thandle_t h)
{
    (void)h; /* the outfile owns and closes the descriptor */
    return 0;
}

static toff_t proc_size(thandle_t h)
{
    tiff_sink *t = h;
    struct stat st;
    return fstat(t->of.fd, &st) == 0 ? (toff_t)st.st_size : 0;
}

static int proc_map(thandle_t h, void **base, toff_t *size)
{
    (void)h;
    (void)base;
    (void)size;
    return 0;
}

static void proc_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

/* ---- Metadata -------------------------------------------------------------- */

/* Set an ASCII tag whether or not libtiff declares it with a count. */
static int set_ascii(TIFF *tif, uint32_t tag, const char *v)
{
    const TIFFField *f = TIFFFieldWithTag(tif, tag);
    if (f == NULL)
        return 0;
    if (TIFFFieldPassCount(f))
        return TIFFSetField(tif, tag, (uint32_t)(strlen(v) + 1), v);
    return TIFFSetField(tif, tag, v);
}

/* ---- Operations ------------------------------------------------------------ */

static winent_status tiff_encoder_create(winent_sink *s, void **enc, winent_err *err)
{
    tiff_sink *t = s->impl;
    tiff_encoder *e = calloc(1, sizeof *e);
    *enc = NULL;
    if (e == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    e->tile = malloc((size_t)t->side * (size_t)t->side * sizeof(float));
    winent_status st =
        e->tile ? winent_tile_codec_create(s->opts.compress, s->opts.level, t->side, &t->q,
                                           winent_sink_window_pixels(&s->opts), &e->codec, err)
                : WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    if (st != WINENT_OK) {
        free(e->tile);
        free(e);
        return st;
    }
    *enc = e;
    return WINENT_OK;
}

static void tiff_encoder_free(void *p)
{
    tiff_encoder *e = p;
    if (e == NULL)
        return;
    winent_tile_codec_free(e->codec);
    free(e->tile);
    free(e);
}

/* Tile `tx` of a tile row into `out`, as one part. Edge tiles are padded
 * to full size (TIFF stores whole tiles) with zeros, so the bytes depend on
 * the rows alone. */
static winent_status encode_tile(const winent_sink *s, tiff_encoder *e, uint32_t tx,
                                 const float *rows, int nrows, winent_bytes *out, winent_err *err)
{
    const tiff_sink *t = s->impl;
    size_t side = (size_t)t->side, width = (size_t)s->opts.width;
    size_t x0 = (size_t)tx * side;
    size_t cols = width - x0 < side ? width - x0 : side;
    for (size_t r = 0; r < side; r++) {
        float *d = e->tile + r * side;
        if ((int)r < nrows) {
            memcpy(d, rows + r * width + x0, cols * sizeof(float));
            memset(d + cols, 0, (side - cols) * sizeof(float));
        } else {
            memset(d, 0, side * sizeof(float));
        }
    }
    return winent_tile_codec_encode(e->codec, e->tile, out, err);
}

static winent_status tiff_encode(winent_sink *s, void *enc, int map, int64_t index,
                                 const float *rows, int nrows, winent_bytes *out, winent_err *err)
{
    tiff_sink *t = s->impl;
    (void)index, (void)map;
    for (uint32_t tx = 0; tx < t->tiles_across; tx++)
        WINENT_TRY(encode_tile(s, enc, tx, rows, nrows, out, err));
    return WINENT_OK;
}

static winent_status tiff_encode_part(winent_sink *s, void *enc, int map, int64_t index,
                                      int part, const float *rows, int nrows, winent_bytes *out,
                                      winent_err *err)
{
    (void)index, (void)map;
    return encode_tile(s, enc, (uint32_t)part, rows, nrows, out, err);
}

static winent_status write_failed(const winent_sink *s, tiff_sink *t, winent_err *err)
{
    if (t->write_errno)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", s->opts.path,
                          winent_outfile_reason(t->write_errno));
    return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", s->opts.path,
                      t->msgs.first_error[0] ? t->msgs.first_error : "libtiff error");
}

static winent_status tiff_write_part(winent_sink *s, int map, int64_t index, int part,
                                     const winent_bytes *encoded, winent_err *err)
{
    tiff_sink *t = s->impl;
    uint32_t tile = (uint32_t)map * t->tiles_per_plane + (uint32_t)index * t->tiles_across +
                    (uint32_t)part;
    if (TIFFWriteRawTile(t->tif, tile, encoded->data, (tmsize_t)encoded->size) !=
        (tmsize_t)encoded->size)
        return write_failed(s, t, err);
    return WINENT_OK;
}

static winent_status tiff_write(winent_sink *s, int map, int64_t index,
                                const winent_bytes *encoded, winent_err *err)
{
    tiff_sink *t = s->impl;
    if (encoded->nparts != (int)t->tiles_across)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "tile row %lld has %d tiles, want %u",
                          (long long)index, encoded->nparts, t->tiles_across);
    const uint8_t *p = encoded->data;
    for (uint32_t i = 0; i < t->tiles_across; i++) {
        size_t n = encoded->parts[i];
        uint32_t tile = (uint32_t)map * t->tiles_per_plane + (uint32_t)index * t->tiles_across + i;
        if (TIFFWriteRawTile(t->tif, tile, (void *)p, (tmsize_t)n) != (tmsize_t)n)
            return write_failed(s, t, err);
        p += n;
    }
    return WINENT_OK;
}

static void tiff_abort(winent_sink *s)
{
    tiff_sink *t = s->impl;
    if (t == NULL)
        return;
    if (t->tif) {
        /* Closing writes a directory: drop it, the file is going away. */
        t->dropping = 1;
        TIFFClose(t->tif);
        t->tif = NULL;
    }
    if (t->of_open) {
        winent_outfile_abort(&t->of);
        t->of_open = 0;
    }
}

static winent_status tiff_finish(winent_sink *s, winent_err *err)
{
    tiff_sink *t = s->impl;
    winent_status st = WINENT_OK;
    if (!TIFFFlush(t->tif)) {
        st = write_failed(s, t, err);
        tiff_abort(s);
        return st;
    }
    TIFFClose(t->tif);
    t->tif = NULL;
    if (t->write_errno) {
        st = write_failed(s, t, err);
        tiff_abort(s);
        return st;
    }
    t->of_open = 0;
    return winent_outfile_commit(&t->of, err);
}

static uint64_t tiff_bytes_written(const winent_sink *s)
{
    const tiff_sink *t = s->impl;
    return t->of.written;
}

static void tiff_free_impl(void *p)
{
    tiff_sink *t = p;
    if (t == NULL)
        return;
    if (t->tif) {
        t->dropping = 1;
        TIFFClose(t->tif);
    }
    if (t->of_open)
        winent_outfile_abort(&t->of);
    free(t);
}

static const sink_ops tiff_sink_ops = {
    .encoder_create = tiff_encoder_create,
    .encoder_free = tiff_encoder_free,
    .encode = tiff_encode,
    .write = tiff_write,
    .encode_part = tiff_encode_part,
    .write_part = tiff_write_part,
    .finish = tiff_finish,
    .abort = tiff_abort,
    .free_impl = tiff_free_impl,
    .bytes_written = tiff_bytes_written,
};

static winent_status tiff_open(winent_sink *s, winent_err *err)
{
    const winent_sink_opts *o = &s->opts;
    winent_status st = WINENT_OK;
    if (o->tif_layout == WINENT_TIF_COG)
        return winent_sink_cog_open(s, err);
    /* winent_output_check refused outputs written in place: seeks work. */
    int side = o->tile > 0 ? o->tile : 512;
    if (side % 16 != 0 || side > 65536)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--tile %d: a GeoTIFF tile side must be a multiple of 16", side);
    if (o->width <= 0 || o->height <= 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "empty output %dx%d", o->width, o->height);
    tiff_sink *t = calloc(1, sizeof *t);
    if (t == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->ops = &tiff_sink_ops;
    s->impl = t;
    s->unit_rows = side;
    t->side = side;
    winent_sink_out_sample(o, &t->q);
    t->tiles_across = (uint32_t)((o->width + side - 1) / side);
    s->parts = (int)t->tiles_across;
    t->tiles_down = (uint32_t)((o->height + side - 1) / side);
    t->tiles_per_plane = t->tiles_across * t->tiles_down;
    const int nmaps = s->nmaps;
    if ((uint64_t)t->tiles_per_plane * (uint64_t)nmaps > UINT32_MAX || nmaps > 65535)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: %d maps of %u tiles are too many for one GeoTIFF: give a larger "
                          "--tile, fewer maps, or a .zst",
                          o->path, nmaps, t->tiles_per_plane);

    uint64_t tiles = (uint64_t)t->tiles_across * t->tiles_down * (uint64_t)nmaps;
    uint64_t tile_bytes = (uint64_t)side * (uint64_t)side * 4;
    uint64_t worst =
        tiles * winent_tile_codec_bound(o->compress, tile_bytes) + tiles * 16 + (1u << 20);
    int big = worst > CLASSIC_TIFF_MAX || o->bigtiff;

    WINENT_TRY_GOTO(st, winent_outfile_open(&t->of, o->path, o->stop, err));
    winent_outfile_track(&t->of, o->temps);
    t->of_open = 1;
    t->tif =
        winent_tiff_client_open(o->path, big ? "w8l" : "wl", (thandle_t)t, proc_read, proc_write,
                                proc_seek, proc_close, proc_size, proc_map, proc_unmap, &t->msgs);
    if (t->tif == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot start the TIFF: %s", o->path,
                        t->write_errno ? winent_outfile_reason(t->write_errno)
                                       : t->msgs.first_error);
        goto fail;
    }
    TIFF *tif = t->tif;
    int ok = 1;
    ok &= TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)o->width);
    ok &= TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)o->height);
    ok &= TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, winent_tile_codec_tiff_bits(o->out_type));
    ok &= TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)nmaps);
    ok &=
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, winent_tile_codec_tiff_sample_format(o->out_type));
    ok &= TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    ok &= TIFFSetField(tif, TIFFTAG_PLANARCONFIG,
                       nmaps > 1 ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    if (nmaps > 1) {
        /* Grey and nmaps - 1 more bands of no particular meaning, as GDAL
         * writes a multi-band grey image. */
        uint16_t *extra = calloc((size_t)nmaps - 1, sizeof *extra);
        ok &= extra != NULL &&
              TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)(nmaps - 1), extra);
        free(extra);
    }
    ok &= TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)side);
    ok &= TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)side);
    ok &= TIFFSetField(tif, TIFFTAG_COMPRESSION, winent_tile_codec_tiff_compression(o->compress));
    if (o->compress != WINENT_COMPRESS_NONE)
        ok &= TIFFSetField(tif, TIFFTAG_PREDICTOR,
                           winent_tile_codec_tiff_predictor(o->compress, o->out_type,
                                                            winent_sink_window_pixels(o)));
    char software[64];
    snprintf(software, sizeof software, "winent-stream %s", WINENT_VERSION_STRING);
    ok &= TIFFSetField(tif, TIFFTAG_SOFTWARE, software);
    char *xml = winent_tiff_meta_main(o, &t->q);
    ok &= xml != NULL && set_ascii(tif, WINENT_TAG_GDAL_METADATA, xml);
    free(xml);
    if (o->nodata_in_play) {
        char nodata[32];
        winent_tiff_nodata_text(&t->q, nodata, sizeof nodata);
        ok &= set_ascii(tif, WINENT_TAG_GDAL_NODATA, nodata);
    }
    ok &= winent_tiff_georef_write(tif, o->georef);
    if (!ok) {
        st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot set the TIFF tags: %s", o->path,
                        t->msgs.first_error[0] ? t->msgs.first_error : "libtiff refused");
        goto fail;
    }
    return WINENT_OK;
fail:
    /* s->impl is freed by the caller (winent_sink_free), removing the file. */
    return st;
}

/* ---- The GeoTIFF format: both layouts --------------------------------- */

/* winent_output_check refuses outputs written in place: a GeoTIFF seeks. */
static winent_status tif_check_output(const char *output_path, const winent_outfile_probe *out,
                                      winent_err *err)
{
    if (!out->in_place)
        return WINENT_OK;
    if (strcmp(output_path, "-") == 0)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "a GeoTIFF cannot go to standard output: give a file name, or "
                          "--format raw|zst");
    return WINENT_ERR(err, WINENT_ERR_USAGE,
                      "output '%s' is %s: a GeoTIFF needs a seekable file of its own: give a "
                      "file name, or --format raw|zst",
                      output_path, out->what);
}

static int tif_unit_rows_for(const winent_sink_opts *o)
{
    return o->tile;
}

static size_t tif_encoder_bytes_for(const winent_sink_opts *o)
{
    size_t side = (size_t)(o->tile > 0 ? o->tile : 512);
    size_t tile = side * side * sizeof(float) * 2; /* predicted tile + codec output */
    /* A COG's encoder also reduces each tile for the overviews. */
    size_t cog = o->tif_layout == WINENT_TIF_COG ? winent_sink_cog_encoder_extra(o) : 0;
    if (o->compress == WINENT_COMPRESS_ZSTD) {
        /* A COG at the default level has a second context for its
         * overview tiles. */
        size_t ovr = o->tif_layout == WINENT_TIF_COG && o->level == 0
                         ? winent_sink_zstd_state_bytes(WINENT_COG_OVR_ZSTD_LEVEL)
                         : 0;
        return tile + cog + winent_sink_zstd_state_bytes(o->level > 0 ? o->level : 3) + ovr;
    }
    return tile + cog + ((size_t)1 << 20); /* deflate or LZW state */
}

static size_t tif_writer_bytes_for(const winent_sink_opts *o)
{
    if (o->tif_layout == WINENT_TIF_COG)
        return winent_sink_cog_writer_bytes(o, tif_encoder_bytes_for(o));
    /* libtiff's tile offsets and byte counts, of every map. */
    uint64_t side = (uint64_t)(o->tile > 0 ? o->tile : 512);
    uint64_t tiles =
        ((uint64_t)o->width + side - 1) / side * (((uint64_t)o->height + side - 1) / side);
    return (size_t)(tiles * 16 * (uint64_t)winent_sink_nmaps(o));
}

static size_t tif_unit_extra_bytes_for(const winent_sink_opts *o)
{
    return o->tif_layout == WINENT_TIF_COG ? winent_sink_cog_unit_extra(o) : 0;
}

static const char *const tif_extensions[] = {"tif", "tiff", NULL};

const winent_sink_format winent_sink_format_tif = {
    .format = WINENT_FORMAT_TIF,
    .name = "tif",
    .extensions = tif_extensions,
    .hint = ".tif",
    .no_sidecar = "--sidecar describes a raw output; a GeoTIFF carries its georeferencing "
                  "itself: drop --sidecar",
    .check_output = tif_check_output,
    .open = tiff_open,
    .unit_rows_for = tif_unit_rows_for,
    .encoder_bytes_for = tif_encoder_bytes_for,
    .writer_bytes_for = tif_writer_bytes_for,
    .unit_extra_bytes_for = tif_unit_extra_bytes_for,
};
