/* Raw input: headerless samples in band-sequential, pixel- or
 * line-interleaved order, from a file or standard input, read front to
 * back exactly once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_internal.h"

typedef struct raw_impl {
    int fd;                  /* owned (standard input is not closed) */
    const volatile int *stop;/* borrowed, may be NULL */
    const char *name;        /* borrowed: path or "standard input" */
    uint8_t pushback[4];     /* bytes sniffed before we were opened */
    size_t npushback, pushback_pos;
    size_t sample;           /* bytes per sample */
    int bands, band;         /* band is 0-based */
    winent_interleave interleave;
    int swap;                /* byte order differs from the host's */
    size_t row_bytes_all;    /* bytes of one row of every band (BIP/BIL) */
    uint8_t *rowbuf;         /* owned: one interleaved row */
} raw_impl;

static int host_is_big_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 0;
}

static winent_status read_exact(winent_source *s, raw_impl *r, void *dst, size_t n,
                                winent_err *err)
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
    return WINENT_ERR(err, WINENT_ERR_INPUT,
                      "%s: input ends early, at row %d of %d: check --size, --dtype, --bands "
                      "and --header-bytes",
                      r->name, s->next_row, s->info.height);
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

static winent_status raw_read(winent_source *s, int rows, void *dst, winent_err *err)
{
    raw_impl *r = s->impl;
    const size_t W = (size_t)s->info.width;
    const size_t row_bytes = W * r->sample;
    uint8_t *d = dst;
    if (r->bands == 1 || r->interleave == WINENT_INTERLEAVE_BSQ) {
        WINENT_TRY(read_exact(s, r, d, row_bytes * (size_t)rows, err));
    } else {
        for (int y = 0; y < rows; y++, d += row_bytes) {
            WINENT_TRY(read_exact(s, r, r->rowbuf, r->row_bytes_all, err));
            if (r->interleave == WINENT_INTERLEAVE_BIL) {
                memcpy(d, r->rowbuf + (size_t)r->band * row_bytes, row_bytes);
            } else { /* BIP */
                const uint8_t *src = r->rowbuf + (size_t)r->band * r->sample;
                for (size_t x = 0; x < W; x++)
                    memcpy(d + x * r->sample, src + x * r->sample * (size_t)r->bands, r->sample);
            }
        }
        d = dst;
    }
    if (r->swap)
        swap_samples(dst, W * (size_t)rows, r->sample);
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

static const source_ops raw_ops = {raw_read, raw_free};

winent_status winent_source_raw_open(const winent_source_opts *o, int fd, const uint8_t *pushback,
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
                          "%s: not a TIFF, so it is read as raw samples: give --size WxH and "
                          "--dtype",
                          r->name);
    if (!o->has_dtype)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: raw input needs --dtype u8|i8|u16|i16|u32|i32|f32|f64", r->name);
    r->bands = o->bands > 0 ? o->bands : 1;
    r->band = (o->band > 0 ? o->band : 1) - 1;
    if (r->band >= r->bands)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--band: %d, but the input has %d band%s",
                          r->band + 1, r->bands, r->bands == 1 ? "" : "s");
    r->sample = winent_dtype_size(o->dtype);
    r->interleave = o->interleave;
    r->swap = (o->big_endian != 0) != host_is_big_endian() && r->sample > 1;
    memcpy(r->pushback, pushback, npushback);
    r->npushback = npushback;

    s->info.width = o->width;
    s->info.height = o->height;
    s->info.dtype = o->dtype;
    s->info.bands = r->bands;
    s->info.is_tiff = 0;
    s->info.name = o->path;

    const uint64_t plane = (uint64_t)o->width * (uint64_t)o->height * r->sample;
    const uint64_t need = o->header_bytes + plane * (uint64_t)r->bands;
    struct stat st;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular &&
        (uint64_t)st.st_size < need)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: %llu bytes, but --size %dx%d --dtype %s%s needs %llu: check the "
                          "options",
                          r->name, (unsigned long long)st.st_size, o->width, o->height,
                          winent_dtype_name(o->dtype), r->bands > 1 ? " with --bands" : "",
                          (unsigned long long)need);
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
    uint64_t skip = o->header_bytes;
    if (r->bands > 1 && r->interleave == WINENT_INTERLEAVE_BSQ)
        skip += plane * (uint64_t)r->band;
    return skip_bytes(s, r, skip, err);
}
