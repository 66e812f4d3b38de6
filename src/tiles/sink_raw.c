/* Raw float32 output: little-endian, row-major, no header, written in
 * order as rows complete. With --sidecar, an ENVI header beside it
 * (envi_header.h), through a temporary file of its own that is put in
 * place just after the map, only when the map is. */
#include <stdlib.h>
#include <string.h>

#include "envi_header.h"
#include "sink_internal.h"

typedef struct raw_sink {
    winent_outfile file;
    int open;
    winent_outfile hdr; /* --sidecar: OUTPUT.hdr, written at open, committed after the map */
    int hdr_open;
} raw_sink;

static winent_status raw_encode(winent_sink *s, void *enc, int64_t index, const float *rows,
                                int nrows, winent_bytes *out, winent_err *err)
{
    (void)enc, (void)index;
    size_t n = (size_t)s->opts.width * (size_t)nrows;
    if (winent_bytes_reserve(out, n * 4) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
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

static winent_status raw_write(winent_sink *s, int64_t index, const winent_bytes *encoded,
                               winent_err *err)
{
    raw_sink *r = s->impl;
    (void)index;
    return winent_outfile_write(&r->file, encoded->data, encoded->size, err);
}

static winent_status raw_finish(winent_sink *s, winent_err *err)
{
    raw_sink *r = s->impl;
    r->open = 0;
    winent_status st = winent_outfile_commit(&r->file, err);
    if (st != WINENT_OK) {
        if (r->hdr_open)
            winent_outfile_abort(&r->hdr);
        r->hdr_open = 0;
        return st;
    }
    if (r->hdr_open) {
        r->hdr_open = 0;
        WINENT_TRY(winent_outfile_commit(&r->hdr, err));
    }
    return WINENT_OK;
}

static void raw_abort(winent_sink *s)
{
    raw_sink *r = s->impl;
    if (r->open)
        winent_outfile_abort(&r->file);
    if (r->hdr_open)
        winent_outfile_abort(&r->hdr);
    r->open = 0;
    r->hdr_open = 0;
}

static uint64_t raw_bytes_written(const winent_sink *s)
{
    const raw_sink *r = s->impl;
    return r->file.written;
}

static void raw_free(void *impl)
{
    raw_sink *r = impl;
    if (r && r->open)
        winent_outfile_abort(&r->file);
    if (r && r->hdr_open)
        winent_outfile_abort(&r->hdr);
    free(r);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RAW_WRITE_FLOATS NULL /* each float is swapped by raw_encode */
#else
/* The floats are already the file's bytes: written as they are. */
static winent_status raw_write_floats(winent_sink *s, const float *rows, size_t n,
                                      winent_err *err)
{
    raw_sink *r = s->impl;
    return winent_outfile_write(&r->file, rows, n * 4, err);
}
#define RAW_WRITE_FLOATS raw_write_floats
#endif

static const sink_ops raw_sink_ops = {
    .encode = raw_encode,
    .write = raw_write,
    .finish = raw_finish,
    .abort = raw_abort,
    .free_impl = raw_free,
    .bytes_written = raw_bytes_written,
    .write_floats = RAW_WRITE_FLOATS,
};

/* The ENVI header, written whole now into its temporary file: it depends
 * only on the options, and a failure then comes before any pixel. */
static winent_status open_sidecar(winent_sink *s, raw_sink *r, winent_err *err)
{
    winent_status st = WINENT_OK;
    winent_bytes text = {0};
    size_t n = strlen(s->opts.path);
    char *name = malloc(n + sizeof ".hdr");
    if (name == NULL || winent_envi_header_text(&s->opts, &text) != 0) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    memcpy(name, s->opts.path, n);
    memcpy(name + n, ".hdr", sizeof ".hdr");
    WINENT_TRY_GOTO(st, winent_outfile_open(&r->hdr, name, s->opts.stop, err));
    r->hdr_open = 1;
    WINENT_TRY_GOTO(st, winent_outfile_write(&r->hdr, text.data, text.size, err));
fail:
    free(name);
    winent_bytes_free(&text);
    return st;
}

winent_status winent_sink_raw_open(winent_sink *s, winent_err *err)
{
    raw_sink *r = calloc(1, sizeof *r);
    if (r == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->ops = &raw_sink_ops;
    s->impl = r;
    s->unit_rows = WINENT_RAW_UNIT_ROWS;
    WINENT_TRY(winent_outfile_open(&r->file, s->opts.path, s->opts.stop, err));
    r->open = 1;
    if (s->opts.sidecar)
        WINENT_TRY(open_sidecar(s, r, err));
    return WINENT_OK;
}
