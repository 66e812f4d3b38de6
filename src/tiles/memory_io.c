#include "memory_io.h"

#include <stdlib.h>
#include <string.h>

#include "sink_internal.h"
#include "source_internal.h"

typedef struct memory_source {
    const uint8_t *data;
    size_t row_bytes;
} memory_source;

static winent_status memory_read(winent_source *s, int rows, void *dst, winent_err *err)
{
    const memory_source *m = s->impl;
    (void)err;
    size_t n = m->row_bytes * (size_t)rows;
    memcpy(dst, m->data + m->row_bytes * (size_t)s->next_row, n);
    s->bytes_read += n;
    return WINENT_OK;
}

static const source_ops memory_source_ops = {memory_read, free};

winent_status winent_source_memory_open(const void *data, int width, int height,
                                        winent_dtype dtype, winent_source **out, winent_err *err)
{
    winent_source *s = calloc(1, sizeof *s);
    memory_source *m = calloc(1, sizeof *m);
    *out = NULL;
    if (s == NULL || m == NULL) {
        free(s);
        free(m);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    m->data = data;
    m->row_bytes = (size_t)width * winent_dtype_size(dtype);
    s->ops = &memory_source_ops;
    s->impl = m;
    s->info.width = width;
    s->info.height = height;
    s->info.dtype = dtype;
    s->info.bands = 1;
    s->info.name = "memory";
    *out = s;
    return WINENT_OK;
}

typedef struct memory_sink {
    float *dst;
    uint64_t written;
} memory_sink;

static winent_status memory_encode(winent_sink *s, void *enc, int64_t index, const float *rows,
                                   int nrows, winent_bytes *out, winent_err *err)
{
    memory_sink *m = s->impl;
    (void)enc, (void)out, (void)err;
    size_t w = (size_t)s->opts.width;
    memcpy(m->dst + (size_t)index * (size_t)s->unit_rows * w, rows,
           sizeof(float) * w * (size_t)nrows);
    return WINENT_OK;
}

static winent_status memory_write(winent_sink *s, int64_t index, const winent_bytes *encoded,
                                  winent_err *err)
{
    memory_sink *m = s->impl;
    (void)encoded, (void)err;
    int64_t rows = s->opts.height - index * s->unit_rows;
    if (rows > s->unit_rows)
        rows = s->unit_rows;
    m->written += sizeof(float) * (uint64_t)s->opts.width * (uint64_t)rows;
    return WINENT_OK;
}

static winent_status memory_finish(winent_sink *s, winent_err *err)
{
    (void)s, (void)err;
    return WINENT_OK;
}

static uint64_t memory_bytes_written(const winent_sink *s)
{
    const memory_sink *m = s->impl;
    return m->written;
}

static const sink_ops memory_sink_ops = {
    .encode = memory_encode,
    .write = memory_write,
    .finish = memory_finish,
    .free_impl = free,
    .bytes_written = memory_bytes_written,
};

winent_status winent_sink_memory_open(float *dst, int width, int height, winent_sink **out,
                                      winent_err *err)
{
    winent_sink *s = calloc(1, sizeof *s);
    memory_sink *m = calloc(1, sizeof *m);
    *out = NULL;
    if (s == NULL || m == NULL) {
        free(s);
        free(m);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    m->dst = dst;
    s->ops = &memory_sink_ops;
    s->impl = m;
    s->opts.path = "memory";
    s->opts.format = WINENT_FORMAT_RAW;
    s->opts.width = width;
    s->opts.height = height;
    s->unit_rows = 16;
    *out = s;
    return WINENT_OK;
}
