/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw input: headerless samples in band-sequential, pixel- or
 * line-interleaved order, from a file or standard input, read front to
 * back exactly once. Several bands of a band-sequential file are read at
 * their own offsets (pread); of an interleaved input, from each row read
 * once.
 *
 * The input must hold what the options declare: header bytes, then every
 * band in full. A regular file is measured when it is opened; a pipe (or
 * any other stream) is read to the declared end, the bands after the one
 * used included, so that a stream cut short fails the same way as a short
 * file (exit 3, naming the bytes declared and found). Bytes beyond the
 * declared end are accepted and ignored, as GDAL's raw drivers (ENVI,
 * EHdr) do: a regular file is never read past it, a stream is left unread
 * there. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_internal.h"

typedef struct raw_impl {
    int fd;                   /* owned (standard input is not closed) */
    const volatile int *stop; /* borrowed, may be NULL */
    const char *name;         /* borrowed: path or "standard input" */
    /* Bytes sniffed before we were opened. */
    uint8_t pushback[WINENT_SNIFF_BYTES];
    size_t npushback, pushback_pos;
    size_t sample;   /* bytes per sample */
    int bands;       /* in the input */
    const winent_source_band *sel; /* borrowed: the bands delivered */
    int nsel;
    uint64_t plane;  /* bytes of one band (BSQ) */
    uint64_t header; /* --header-bytes */
    winent_interleave interleave;
    int swap;             /* byte order differs from the host's */
    size_t row_bytes_all; /* bytes of one row of every band (BIP/BIL) */
    uint8_t *rowbuf;      /* owned: one interleaved row */
    int regular;          /* a regular file, measured at open */
    uint64_t need;        /* bytes the options declare, header included
                             (UINT64_MAX when that overflows) */
    char layout[192];     /* the options behind `need`, for messages */
} raw_impl;

static int host_is_big_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 0;
}

/* "N bytes", or what stands for a size past 64 bits. */
static void need_text(const raw_impl *r, char *buf, size_t n)
{
    if (r->need == UINT64_MAX)
        snprintf(buf, n, "more than 2^64 bytes");
    else
        snprintf(buf, n, "%llu bytes", (unsigned long long)r->need);
}

static winent_status read_exact(winent_source *s, raw_impl *r, void *dst, size_t n, winent_err *err)
{
    size_t got = 0;
    uint8_t *d = dst;
    while (r->pushback_pos < r->npushback && got < n)
        d[got++] = r->pushback[r->pushback_pos++];
    if (got < n) {
        long k = winent_source_read_fd(r->fd, d + got, n - got, r->stop);
        if (k == -2)
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        if (k < 0)
            return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: read failed: %s", r->name,
                              strerror(errno));
        got += (size_t)k;
    }
    s->bytes_read += got;
    if (got == n)
        return WINENT_OK;
    /* End of input: everything it held has been counted. */
    char need[48];
    need_text(r, need, sizeof need);
    return WINENT_ERR(err, WINENT_ERR_INPUT,
                      "%s: ended after %llu bytes, but %s needs %s: the input is cut short, or "
                      "the options do not describe it",
                      r->name, (unsigned long long)s->bytes_read, r->layout, need);
}

/* Skip `n` bytes: seek where possible, else read and drop. */
static winent_status skip_bytes(winent_source *s, raw_impl *r, uint64_t n, winent_err *err)
{
    while (r->pushback_pos < r->npushback && n > 0) {
        r->pushback_pos++;
        n--;
        s->bytes_read++;
    }
    if (n == 0)
        return WINENT_OK;
    if (r->fd != STDIN_FILENO && lseek(r->fd, (off_t)n, SEEK_CUR) >= 0) {
        s->bytes_read += n;
        return WINENT_OK;
    }
    uint8_t buf[65536];
    while (n > 0) {
        size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
        WINENT_TRY(read_exact(s, r, buf, k, err));
        n -= k;
    }
    return WINENT_OK;
}

/* a * b and a + b, or UINT64_MAX where the result does not fit. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void swap_samples(void *p, size_t count, size_t size)
{
    uint8_t *b = p;
    for (size_t i = 0; i < count; i++, b += size)
        for (size_t j = 0; j < size / 2; j++) {
            uint8_t t = b[j];
            b[j] = b[size - 1 - j];
            b[size - 1 - j] = t;
        }
}

/* Rows of the bands of a band-sequential file, each from its own plane. */
static winent_status read_planes(winent_source *s, raw_impl *r, int rows, void *const *dst,
                                 winent_err *err)
{
    const uint64_t row_bytes = (uint64_t)s->info.width * r->sample;
    for (int k = 0; k < r->nsel; k++) {
        uint64_t at = r->header + r->plane * (uint64_t)(r->sel[k].band - 1) +
                      row_bytes * (uint64_t)s->next_row;
        uint8_t *d = dst[k];
        size_t n = (size_t)(row_bytes * (uint64_t)rows);
        while (n > 0) {
            ssize_t got = pread(r->fd, d, n, (off_t)at);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: read failed: %s", r->name,
                                  strerror(errno));
            if (got == 0)
                return WINENT_ERR(err, WINENT_ERR_INPUT,
                                  "%s: ended at byte %llu, but %s needs more: the file was cut "
                                  "short while it was read",
                                  r->name, (unsigned long long)at, r->layout);
            d += got;
            at += (uint64_t)got;
            n -= (size_t)got;
            s->bytes_read += (uint64_t)got;
        }
    }
    return WINENT_OK;
}

static winent_status raw_read(winent_source *s, int rows, void *const *dst, winent_err *err)
{
    raw_impl *r = s->impl;
    const size_t W = (size_t)s->info.width;
    const size_t row_bytes = W * r->sample;
    if (r->bands > 1 && r->interleave == WINENT_INTERLEAVE_BSQ && r->nsel > 1) {
        WINENT_TRY(read_planes(s, r, rows, dst, err));
    } else if (r->bands == 1 || r->interleave == WINENT_INTERLEAVE_BSQ) {
        WINENT_TRY(read_exact(s, r, dst[0], row_bytes * (size_t)rows, err));
    } else {
        for (int y = 0; y < rows; y++) {
            WINENT_TRY(read_exact(s, r, r->rowbuf, r->row_bytes_all, err));
            for (int k = 0; k < r->nsel; k++) {
                uint8_t *d = (uint8_t *)dst[k] + (size_t)y * row_bytes;
                const size_t band = (size_t)(r->sel[k].band - 1);
                if (r->interleave == WINENT_INTERLEAVE_BIL) {
                    memcpy(d, r->rowbuf + band * row_bytes, row_bytes);
                } else { /* BIP */
                    const uint8_t *src = r->rowbuf + band * r->sample;
                    for (size_t x = 0; x < W; x++)
                        memcpy(d + x * r->sample, src + x * r->sample * (size_t)r->bands,
                               r->sample);
                }
            }
        }
    }
    if (r->swap)
        for (int k = 0; k < r->nsel; k++)
            swap_samples(dst[k], W * (size_t)rows, r->sample);
    /* After the last row, a stream is read to its declared end (the bands
     * after ours), so that one cut short there is not taken as whole. */
    if (!r->regular && s->next_row + rows == s->info.height && s->bytes_read < r->need)
        WINENT_TRY(skip_bytes(s, r, r->need - s->bytes_read, err));
    return WINENT_OK;
}

static void raw_free(void *impl)
{
    raw_impl *r = impl;
    if (r == NULL)
        return;
    if (r->fd > STDIN_FILENO)
        close(r->fd);
    free(r->rowbuf);
    free(r);
}

/* --range auto: a raw file's statistics can only be in a GDAL .aux.xml
 * beside it (GDAL writes one for a raw file it reads through an ENVI or
 * EHdr header); standard input and pipes have none. */
static winent_status raw_stats(winent_source *s, int k, winent_band_stats *st, winent_err *err)
{
    const raw_impl *r = s->impl;
    (void)err;
    if (r->regular && r->fd != STDIN_FILENO &&
        winent_stats_from_aux_xml(s->info.name, r->sel[k].band, &st->min, &st->max)) {
        st->found = 1;
        snprintf(st->from, sizeof st->from, "%s.aux.xml", s->info.name);
    }
    return WINENT_OK;
}

static const source_ops raw_ops = {raw_read, raw_free, raw_stats, NULL};

/* Raw source over an open descriptor (0 for standard input); `pushback`
 * holds bytes already taken from it (the sniffed magic, at most
 * WINENT_SNIFF_BYTES), delivered first.
 * Takes ownership of `fd` (standard input is not closed). */
static winent_status raw_open_fd(const winent_source_opts *o, int fd, const uint8_t *pushback,
                                 size_t npushback, winent_source *s, winent_err *err)
{
    raw_impl *r = calloc(1, sizeof *r);
    if (r == NULL) {
        if (fd > STDIN_FILENO)
            close(fd);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    r->fd = fd;
    r->stop = o->stop;
    s->ops = &raw_ops;
    s->impl = r;
    r->name = fd == STDIN_FILENO ? "standard input" : o->path;
    if (o->width <= 0 || o->height <= 0)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
#ifdef WINENT_HAVE_GDAL
                          "%s: not a TIFF nor a raster GDAL recognises, so it is read as raw "
                          "samples: give --size WxH and --dtype",
#else
                          "%s: not a TIFF, so it is read as raw samples: give --size WxH and "
                          "--dtype (this build reads no other format: it has no GDAL)",
#endif
                          r->name);
    if (!o->has_dtype)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: raw input needs --dtype u8|i8|u16|i16|u32|i32|f32|f64", r->name);
    r->bands = o->bands > 0 ? o->bands : 1;
    WINENT_TRY(winent_source_select(o, r->bands, r->name, s, err));
    r->sel = s->bands;
    r->nsel = s->nbands_read;
    r->sample = winent_dtype_size(o->dtype);
    r->interleave = o->interleave;
    if (npushback > sizeof r->pushback)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "raw source: %zu bytes sniffed", npushback);
    r->swap = (o->big_endian != 0) != host_is_big_endian() && r->sample > 1;
    memcpy(r->pushback, pushback, npushback);
    r->npushback = npushback;

    s->info.width = o->width;
    s->info.height = o->height;
    s->info.dtype = o->dtype;
    s->info.bands = r->bands;
    s->info.is_tiff = 0;
    s->info.reader = "raw";
    s->info.name = o->path;

    /* 2^31 x 2^31 samples of 8 bytes do not fit in 64 bits: saturate, so
     * that no file is long enough. */
    const uint64_t plane = mul_sat(mul_sat((uint64_t)o->width, (uint64_t)o->height), r->sample);
    r->plane = plane;
    r->header = o->header_bytes;
    r->need = add_sat(o->header_bytes, mul_sat(plane, (uint64_t)r->bands));
    int k = snprintf(r->layout, sizeof r->layout, "--size %dx%d --dtype %s", o->width, o->height,
                     winent_dtype_name(o->dtype));
    if (r->bands > 1 && k > 0 && (size_t)k < sizeof r->layout)
        k += snprintf(r->layout + k, sizeof r->layout - (size_t)k, " --bands %d", r->bands);
    if (o->header_bytes > 0 && k > 0 && (size_t)k < sizeof r->layout)
        snprintf(r->layout + k, sizeof r->layout - (size_t)k, " --header-bytes %llu",
                 (unsigned long long)o->header_bytes);
    struct stat st;
    r->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const int regular = r->regular;
    if (regular && (uint64_t)st.st_size < r->need) {
        char need[48];
        need_text(r, need, sizeof need);
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: %llu bytes, but %s needs %s: the file is cut short, or the "
                          "options do not describe it",
                          r->name, (unsigned long long)st.st_size, r->layout, need);
    }
    if (r->nsel > 1 && r->bands > 1 && r->interleave == WINENT_INTERLEAVE_BSQ && !regular)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: band-sequential samples on a stream come band after band, so "
                          "several bands cannot be read in one pass: give a file, or one band",
                          r->name);
    if (r->bands > 1 && r->interleave != WINENT_INTERLEAVE_BSQ) {
        r->row_bytes_all = (size_t)o->width * r->sample * (size_t)r->bands;
        r->rowbuf = malloc(r->row_bytes_all);
        if (r->rowbuf == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    /* Sniffed bytes were taken from a file we can rewind: do so. */
    if (regular && lseek(fd, 0, SEEK_SET) == 0) {
        r->npushback = 0;
        s->bytes_read = 0;
    }
    if (r->nsel > 1 && r->bands > 1 && r->interleave == WINENT_INTERLEAVE_BSQ)
        return WINENT_OK; /* each band read at its own offset */
    uint64_t skip = o->header_bytes;
    if (r->bands > 1 && r->interleave == WINENT_INTERLEAVE_BSQ)
        skip = add_sat(skip, mul_sat(plane, (uint64_t)(r->sel[0].band - 1)));
    return skip_bytes(s, r, skip, err);
}

/* ---- The raw format ---------------------------------------------------- */

/* Anything local that no other format took (the registry asks raw last):
 * its opener says what is missing when --size and --dtype are not given. */
static int raw_identify(const winent_source_probe *p, char *what, size_t cap)
{
    (void)what;
    (void)cap;
    return !p->not_local && !p->is_dir;
}

static winent_status raw_open(const winent_source_opts *o, const winent_source_input *in,
                              winent_source *s, winent_err *err)
{
    return raw_open_fd(o, in->fd, in->head, in->nhead, s, err);
}

const winent_source_format winent_source_format_raw = {
    .name = "raw",
    .identify = raw_identify,
    .takes_raw_layout = 1,
    .open = raw_open,
};
