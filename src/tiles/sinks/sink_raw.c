/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw output: the samples of --ot (float32 by default; out_sample.h),
 * little-endian, row-major, no header, written in order as rows complete. With --sidecar, an ENVI
 * header beside it (envi_header.h), through a temporary file of its own that is put in place just
 * after the map, only when the map is.
 *
 * Several maps: one file each, NAME_bB_wK.EXT beside the name given
 * (winent_sink_map_path), each with its own header when asked; a raw
 * stream holds one map only, so they need a file name. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "envi_header.h"
#include "sink_internal.h"

/* Rows per unit of raw output (any value gives the same bytes). */
#define WINENT_RAW_UNIT_ROWS 16
/* Writers from which a raw map's file is mapped for them
 * (winent_outfile_map) rather than written with pwrite: buffered writes
 * to one file take its inode's lock one at a time, which bounds many
 * writers (2.1-2.4 GB/s on the 4 x H200 host's /dev/shm, where its
 * copies mapped took 12-19 GB/s), but a mapped page costs a fault where
 * pwrite's costs none: under a VM's shadow paging that fault doubled the
 * whole time of a 2-thread job of 8 maps on the 2-core VM. */
#define WINENT_RAW_MAP_WRITERS 4

/* One map's file and header. */
typedef struct raw_file {
    winent_outfile file;
    int open;
    winent_outfile hdr; /* --sidecar: OUTPUT.hdr, written at open, committed after the map */
    int hdr_open;
    char *path;         /* owned when several maps: the map's own name */
    /* Positional writes: the first one waits for the space reservation
     * (winent_outfile_settle), once, under `settle`. */
    pthread_mutex_t settle;
    int settled;
    uint8_t *map; /* the file mapped for writing (winent_outfile_map), or NULL */
} raw_file;

typedef struct raw_sink {
    int n;
    winent_out_sample q; /* the samples written (--ot) */
    raw_file f[]; /* one per map */
} raw_sink;

static winent_status raw_encode(winent_sink *s, void *enc, int map, int64_t index,
                                const float *rows, int nrows, winent_bytes *out, winent_err *err)
{
    (void)enc, (void)index, (void)map;
    const raw_sink *r = s->impl;
    size_t n = (size_t)s->opts.width * (size_t)nrows;
    if (winent_bytes_reserve(out, n * (size_t)r->q.bytes) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    if (r->q.type != WINENT_OT_FLOAT32) {
        winent_out_encode(&r->q, rows, n, out->data);
        out->size = n * (size_t)r->q.bytes;
        return WINENT_OK;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, rows + i, 4);
        v = __builtin_bswap32(v);
        memcpy(out->data + 4 * i, &v, 4);
    }
#else
    memcpy(out->data, rows, n * 4);
#endif
    out->size = n * 4;
    return WINENT_OK;
}

static winent_status raw_write(winent_sink *s, int map, int64_t index, const winent_bytes *encoded,
                               winent_err *err)
{
    raw_sink *r = s->impl;
    (void)index;
    return winent_outfile_write(&r->f[map].file, encoded->data, encoded->size, err);
}

static void abort_file(raw_file *f)
{
    winent_outfile_unmap(&f->file, f->map);
    f->map = NULL;
    if (f->open)
        winent_outfile_abort(&f->file);
    if (f->hdr_open)
        winent_outfile_abort(&f->hdr);
    f->open = 0;
    f->hdr_open = 0;
}

/* Each map's file, then its header, is put in place in turn. */
static winent_status raw_finish(winent_sink *s, winent_err *err)
{
    raw_sink *r = s->impl;
    for (int m = 0; m < r->n; m++) {
        raw_file *f = &r->f[m];
        f->open = 0;
        winent_outfile_unmap(&f->file, f->map);
        f->map = NULL;
        winent_status st = winent_outfile_commit(&f->file, err);
        if (st == WINENT_OK && f->hdr_open) {
            f->hdr_open = 0;
            st = winent_outfile_commit(&f->hdr, err);
        }
        if (st != WINENT_OK) {
            for (int k = m; k < r->n; k++)
                abort_file(&r->f[k]);
            return st;
        }
    }
    return WINENT_OK;
}

static void raw_abort(winent_sink *s)
{
    raw_sink *r = s->impl;
    for (int m = 0; r && m < r->n; m++)
        abort_file(&r->f[m]);
}

static uint64_t raw_bytes_written(const winent_sink *s)
{
    const raw_sink *r = s->impl;
    uint64_t n = 0;
    for (int m = 0; m < r->n; m++)
        n += r->f[m].file.written;
    return n;
}

static void raw_free(void *impl)
{
    raw_sink *r = impl;
    for (int m = 0; r && m < r->n; m++) {
        abort_file(&r->f[m]);
        free(r->f[m].path);
        pthread_mutex_destroy(&r->f[m].settle);
    }
    free(r);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RAW_WRITE_FLOATS NULL /* each float is swapped by raw_encode */
#define RAW_WRITES_AT NULL
#define RAW_WRITE_FLOATS_AT NULL
#else
/* The floats are already the file's bytes: written as they are. */
static winent_status raw_write_floats(winent_sink *s, int map, const float *rows, size_t n,
                                      winent_err *err)
{
    raw_sink *r = s->impl;
    return winent_outfile_write(&r->f[map].file, rows, n * 4, err);
}
#define RAW_WRITE_FLOATS raw_write_floats

/* Several writers: every map's file is a file with offsets. */
static int raw_writes_at(const winent_sink *s)
{
    const raw_sink *r = s->impl;
    for (int m = 0; m < r->n; m++)
        if (!r->f[m].open || !winent_outfile_positional(&r->f[m].file))
            return 0;
    return 1;
}

static winent_status raw_write_floats_at(winent_sink *s, int map, uint64_t at, const float *rows,
                                         size_t n, winent_err *err)
{
    raw_file *f = &((raw_sink *)s->impl)->f[map];
    winent_status st = WINENT_OK;
    pthread_mutex_lock(&f->settle);
    if (!f->settled) {
        st = winent_outfile_settle(&f->file, err);
        f->settled = st == WINENT_OK;
        if (f->settled && s->opts.writers >= WINENT_RAW_MAP_WRITERS)
            f->map = winent_outfile_map(&f->file);
    }
    pthread_mutex_unlock(&f->settle);
    if (st != WINENT_OK)
        return st;
    if (f->map == NULL)
        return winent_outfile_pwrite(&f->file, rows, n * 4, at * 4, err);
    winent_outfile_map_write(&f->file, f->map, at * 4, rows, n * 4);
    return WINENT_OK;
}
#define RAW_WRITES_AT raw_writes_at
#define RAW_WRITE_FLOATS_AT raw_write_floats_at
#endif

static const sink_ops raw_sink_ops = {
    .encode = raw_encode,
    .write = raw_write,
    .finish = raw_finish,
    .abort = raw_abort,
    .free_impl = raw_free,
    .bytes_written = raw_bytes_written,
    .write_floats = RAW_WRITE_FLOATS,
    .writes_at = RAW_WRITES_AT,
    .write_floats_at = RAW_WRITE_FLOATS_AT,
};

/* Another sample type than float32: every unit is converted by raw_encode. */
static const sink_ops raw_typed_sink_ops = {
    .encode = raw_encode,
    .write = raw_write,
    .finish = raw_finish,
    .abort = raw_abort,
    .free_impl = raw_free,
    .bytes_written = raw_bytes_written,
};

/* The ENVI header of the map `o` describes alone, written whole now into
 * its temporary file: it depends only on the options, and a failure then
 * comes before any pixel. */
static winent_status open_sidecar(const winent_sink_opts *o, raw_file *f, winent_err *err)
{
    winent_status st = WINENT_OK;
    winent_bytes text = {0};
    size_t n = strlen(o->path);
    char *name = malloc(n + sizeof ".hdr");
    if (name == NULL || winent_envi_header_text(o, &text) != 0) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    memcpy(name, o->path, n);
    memcpy(name + n, ".hdr", sizeof ".hdr");
    WINENT_TRY_GOTO(st, winent_outfile_open(&f->hdr, name, o->stop, err));
    winent_outfile_track(&f->hdr, o->temps);
    f->hdr_open = 1;
    WINENT_TRY_GOTO(st, winent_outfile_write(&f->hdr, text.data, text.size, err));
fail:
    free(name);
    winent_bytes_free(&text);
    return st;
}

/* Several maps: a file name to derive theirs from, each of them checked
 * as an output of its own (the input is never one of them). */
static winent_status check_names(const winent_sink_opts *o, raw_sink *r, winent_err *err)
{
    winent_outfile_probe probe;
    WINENT_TRY(winent_outfile_probe_path(o->path, &probe, err));
    if (probe.in_place)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "raw output of %d maps is one file per map (NAME_b1_w5.raw, ...), and "
                          "'%s' is %s: give a file name to derive them from, or write one .zst "
                          "or .tif holding every map",
                          r->n, o->path, probe.what);
    for (int m = 0; m < r->n; m++) {
        const winent_compute_opts *c = o->maps[m].compute;
        r->f[m].path = winent_sink_map_path(o->path, o->maps[m].source_band, c);
        if (r->f[m].path == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        /* winent_output_check of a raw output: no format of its own to ask. */
        winent_outfile_probe out;
        WINENT_TRY(winent_sink_check_name(r->f[m].path, err));
        WINENT_TRY(winent_sink_check_target(o->input_path, r->f[m].path, &out, err));
    }
    return WINENT_OK;
}

static winent_status raw_open(winent_sink *s, winent_err *err)
{
    const int n = s->nmaps;
    raw_sink *r = calloc(1, sizeof *r + (size_t)n * sizeof r->f[0]);
    if (r == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    r->n = n;
    for (int m = 0; m < n; m++)
        pthread_mutex_init(&r->f[m].settle, NULL);
    winent_sink_out_sample(&s->opts, &r->q);
    /* --ot other than float32: encoded in order by the one writer. */
    s->ops = r->q.type == WINENT_OT_FLOAT32 ? &raw_sink_ops : &raw_typed_sink_ops;
    s->impl = r;
    s->unit_rows = WINENT_RAW_UNIT_ROWS;
    if (n > 1)
        WINENT_TRY(check_names(&s->opts, r, err));
    for (int m = 0; m < n; m++) {
        winent_sink_opts one;
        winent_sink_map_opts(&s->opts, m, &one);
        if (r->f[m].path)
            one.path = r->f[m].path;
        WINENT_TRY(winent_outfile_open(&r->f[m].file, one.path, one.stop, err));
        winent_outfile_track(&r->f[m].file, one.temps);
        r->f[m].open = 1;
        /* Its exact size is known: the space is allocated while the job
         * starts (outfile.h). */
        winent_outfile_reserve(&r->f[m].file,
                               (uint64_t)one.width * (uint64_t)one.height * (uint64_t)r->q.bytes);
        if (one.sidecar)
            WINENT_TRY(open_sidecar(&one, &r->f[m], err));
    }
    return WINENT_OK;
}

static int raw_unit_rows_for(const winent_sink_opts *o)
{
    (void)o;
    return WINENT_RAW_UNIT_ROWS;
}

static const char *const raw_extensions[] = {"raw", "f32", "bin", NULL};

const winent_sink_format winent_sink_format_raw = {
    .format = WINENT_FORMAT_RAW,
    .name = "raw",
    .extensions = raw_extensions,
    .hint = ".raw (or .f32, .bin)",
    .unnamed = 1,
    .file_per_map = 1,
    .open = raw_open,
    .unit_rows_for = raw_unit_rows_for,
};
