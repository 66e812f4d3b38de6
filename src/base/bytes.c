/* SPDX-License-Identifier: BSD-3-Clause */
#include "bytes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int winent_bytes_reserve(winent_bytes *b, size_t extra)
{
    if (b->cap - b->size >= extra)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->size < extra)
        cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (d == NULL)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int winent_bytes_append(winent_bytes *b, const void *src, size_t n)
{
    if (winent_bytes_reserve(b, n) != 0)
        return -1;
    memcpy(b->data + b->size, src, n);
    b->size += n;
    return 0;
}

int winent_bytes_printf(winent_bytes *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || winent_bytes_reserve(b, (size_t)n + 1) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
    return 0;
}

int winent_bytes_add_part(winent_bytes *b, size_t n)
{
    if (b->nparts == b->parts_cap) {
        int cap = b->parts_cap ? 2 * b->parts_cap : 16;
        size_t *p = realloc(b->parts, sizeof *p * (size_t)cap);
        if (p == NULL)
            return -1;
        b->parts = p;
        b->parts_cap = cap;
    }
    b->parts[b->nparts++] = n;
    return 0;
}

void winent_bytes_reset(winent_bytes *b)
{
    b->size = 0;
    b->nparts = 0;
}

void winent_bytes_free(winent_bytes *b)
{
    free(b->data);
    free(b->parts);
    memset(b, 0, sizeof *b);
}

void winent_copy_rows(void *dst, size_t dst_step, const void *src, size_t src_step,
                      size_t row_bytes, size_t n)
{
    if (dst_step == row_bytes && src_step == row_bytes) {
        memcpy(dst, src, row_bytes * n);
        return;
    }
    uint8_t *d = dst;
    const uint8_t *s = src;
    for (size_t y = 0; y < n; y++, d += dst_step, s += src_step)
        memcpy(d, s, row_bytes);
}
