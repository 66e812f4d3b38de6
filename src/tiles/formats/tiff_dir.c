/* SPDX-License-Identifier: BSD-3-Clause */
/* TIFF directories laid out by hand (tiff_dir.h). */
#include "tiff_dir.h"

#include <stdlib.h>
#include <string.h>

typedef struct dir_entry {
    uint16_t tag;
    winent_tiff_type type;
    uint64_t count;
    void *values; /* owned: count host values (ASCII: the bytes, NUL included) */
} dir_entry;

struct winent_tiff_dir {
    dir_entry *e; /* owned; in ascending tag order */
    int n, cap;
};

winent_status winent_tiff_dir_create(winent_tiff_dir **out, winent_err *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? WINENT_OK : WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
}

void winent_tiff_dir_free(winent_tiff_dir *d)
{
    if (d == NULL)
        return;
    for (int i = 0; i < d->n; i++)
        free(d->e[i].values);
    free(d->e);
    free(d);
}

/* Bytes of one value in the file. */
static size_t file_size_of(winent_tiff_type t, int big)
{
    switch (t) {
    case WINENT_TIFF_ASCII: return 1;
    case WINENT_TIFF_SHORT: return 2;
    case WINENT_TIFF_LONG: return 4;
    case WINENT_TIFF_DOUBLE: return 8;
    case WINENT_TIFF_LONG8: return 8;
    case WINENT_TIFF_OFFSETS: return big ? 8 : 4;
    }
    return 0;
}

/* Bytes of one value in memory. */
static size_t host_size_of(winent_tiff_type t)
{
    switch (t) {
    case WINENT_TIFF_ASCII: return 1;
    case WINENT_TIFF_SHORT: return 2;
    case WINENT_TIFF_LONG: return 4;
    case WINENT_TIFF_DOUBLE: return 8;
    case WINENT_TIFF_LONG8: return 8;
    case WINENT_TIFF_OFFSETS: return 8;
    }
    return 0;
}

int winent_tiff_dir_add(winent_tiff_dir *d, uint16_t tag, winent_tiff_type type, uint64_t count,
                        const void *values)
{
    size_t hs = host_size_of(type);
    if (hs == 0)
        return -1;
    if (type == WINENT_TIFF_ASCII)
        count = strlen(values) + 1;
    void *copy = malloc(count * hs > 0 ? count * hs : 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, values, count * hs);
    for (int i = 0; i < d->n; i++)
        if (d->e[i].tag == tag) {
            free(d->e[i].values);
            d->e[i] = (dir_entry){tag, type, count, copy};
            return 0;
        }
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 32;
        dir_entry *e = realloc(d->e, (size_t)cap * sizeof *e);
        if (e == NULL) {
            free(copy);
            return -1;
        }
        d->e = e;
        d->cap = cap;
    }
    /* Kept in ascending tag order, as TIFF wants them written. */
    int at = d->n;
    while (at > 0 && d->e[at - 1].tag > tag) {
        d->e[at] = d->e[at - 1];
        at--;
    }
    d->e[at] = (dir_entry){tag, type, count, copy};
    d->n++;
    return 0;
}

int winent_tiff_dir_add_short(winent_tiff_dir *d, uint16_t tag, uint16_t v)
{
    return winent_tiff_dir_add(d, tag, WINENT_TIFF_SHORT, 1, &v);
}

int winent_tiff_dir_add_long(winent_tiff_dir *d, uint16_t tag, uint32_t v)
{
    return winent_tiff_dir_add(d, tag, WINENT_TIFF_LONG, 1, &v);
}

/* The entry table: count, entries, next offset. */
static uint64_t table_size(int n, int big)
{
    return big ? 8 + 20 * (uint64_t)n + 8 : 2 + 12 * (uint64_t)n + 4;
}

static uint64_t value_bytes(const dir_entry *e, int big)
{
    return e->count * file_size_of(e->type, big);
}

uint64_t winent_tiff_dir_size(const winent_tiff_dir *d, int big)
{
    uint64_t size = table_size(d->n, big);
    size_t inline_max = big ? 8 : 4;
    for (int i = 0; i < d->n; i++) {
        uint64_t b = value_bytes(&d->e[i], big);
        if (b > inline_max)
            size += (b + 1) & ~(uint64_t)1;
    }
    return size;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The values of `e` in file order into `dst`; -1 when an OFFSETS value
 * does not fit a classic LONG. */
static int put_values(const dir_entry *e, int big, uint8_t *dst)
{
    for (uint64_t i = 0; i < e->count; i++) {
        switch (e->type) {
        case WINENT_TIFF_ASCII: dst[i] = ((const uint8_t *)e->values)[i]; break;
        case WINENT_TIFF_SHORT: put16(dst + 2 * i, ((const uint16_t *)e->values)[i]); break;
        case WINENT_TIFF_LONG: put32(dst + 4 * i, ((const uint32_t *)e->values)[i]); break;
        case WINENT_TIFF_DOUBLE: {
            uint64_t bits;
            memcpy(&bits, (const double *)e->values + i, 8);
            put64(dst + 8 * i, bits);
            break;
        }
        case WINENT_TIFF_LONG8: put64(dst + 8 * i, ((const uint64_t *)e->values)[i]); break;
        case WINENT_TIFF_OFFSETS: {
            uint64_t v = ((const uint64_t *)e->values)[i];
            if (big) {
                put64(dst + 8 * i, v);
            } else {
                if (v > UINT32_MAX)
                    return -1;
                put32(dst + 4 * i, (uint32_t)v);
            }
            break;
        }
        }
    }
    return 0;
}

int winent_tiff_dir_write(const winent_tiff_dir *d, int big, uint64_t at, uint64_t next,
                          uint8_t *dst)
{
    uint64_t size = winent_tiff_dir_size(d, big);
    memset(dst, 0, size);
    uint8_t *p = dst;
    if (big) {
        put64(p, (uint64_t)d->n);
        p += 8;
    } else {
        put16(p, (uint16_t)d->n);
        p += 2;
    }
    uint64_t extra = table_size(d->n, big); /* where the next out-of-line value goes */
    size_t inline_max = big ? 8 : 4;
    for (int i = 0; i < d->n; i++) {
        const dir_entry *e = &d->e[i];
        winent_tiff_type ft =
            e->type == WINENT_TIFF_OFFSETS ? (big ? WINENT_TIFF_LONG8 : WINENT_TIFF_LONG) : e->type;
        put16(p, e->tag);
        put16(p + 2, (uint16_t)ft);
        uint8_t *field;
        if (big) {
            put64(p + 4, e->count);
            field = p + 12;
        } else {
            put32(p + 4, (uint32_t)e->count);
            field = p + 8;
        }
        uint64_t b = value_bytes(e, big);
        if (b <= inline_max) {
            if (put_values(e, big, field) != 0)
                return -1;
        } else {
            if (big)
                put64(field, at + extra);
            else
                put32(field, (uint32_t)(at + extra));
            if (put_values(e, big, dst + extra) != 0)
                return -1;
            extra += (b + 1) & ~(uint64_t)1;
        }
        p += big ? 20 : 12;
    }
    if (big)
        put64(p, next);
    else
        put32(p, (uint32_t)next);
    return 0;
}

size_t winent_tiff_header(int big, uint64_t first_ifd, uint8_t *dst)
{
    dst[0] = 'I';
    dst[1] = 'I';
    if (big) {
        put16(dst + 2, 43);
        put16(dst + 4, 8); /* bytes per offset */
        put16(dst + 6, 0);
        put64(dst + 8, first_ifd);
        return 16;
    }
    put16(dst + 2, 42);
    put32(dst + 4, (uint32_t)first_ifd);
    return 8;
}
