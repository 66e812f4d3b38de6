/* Source dispatch: sniff the first bytes, open the TIFF or raw reader. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_internal.h"

static int is_tiff_magic(const uint8_t *b, size_t n)
{
    if (n < 4)
        return 0;
    return (b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
           (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43));
}

winent_status winent_source_open(const winent_source_opts *o, winent_source **out, winent_err *err)
{
    winent_status st = WINENT_OK;
    int is_stdin = strcmp(o->path, "-") == 0;
    int fd = -1;
    uint8_t magic[4];
    long nmagic = 0;
    winent_source *s = calloc(1, sizeof *s);
    *out = NULL;
    if (s == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    if (is_stdin) {
        fd = STDIN_FILENO;
    } else {
        fd = open(o->path, O_RDONLY);
        if (fd < 0) {
            st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot open: %s", o->path,
                            strerror(errno));
            goto fail;
        }
    }
    nmagic = winent_source_read_fd(fd, magic, sizeof magic, o->stop);
    if (nmagic == -2) {
        st = WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        goto fail;
    }
    if (nmagic < 0) {
        st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot read: %s",
                        is_stdin ? "standard input" : o->path, strerror(errno));
        goto fail;
    }
    if (is_tiff_magic(magic, (size_t)nmagic)) {
        if (is_stdin) {
            st = WINENT_ERR(err, WINENT_ERR_INPUT,
                            "TIFF on standard input is not supported: give the file's name");
            goto fail;
        }
        close(fd);
        fd = -1;
        WINENT_TRY_GOTO(st, winent_source_tiff_open(o, s, err));
    } else {
        int raw = fd;
        fd = -1; /* the raw source owns it now, even when it fails */
        WINENT_TRY_GOTO(st, winent_source_raw_open(o, raw, magic, (size_t)nmagic, s, err));
    }
    if (s->info.name == NULL)
        s->info.name = o->path;
    *out = s;
    return WINENT_OK;
fail:
    if (fd > STDIN_FILENO)
        close(fd);
    winent_source_free(s);
    return st;
}

long winent_source_read_fd(int fd, void *dst, size_t n, const volatile int *stop)
{
    size_t got = 0;
    char *d = dst;
    while (got < n) {
        if (stop != NULL) {
            if (__atomic_load_n(stop, __ATOMIC_RELAXED))
                return -2;
            struct pollfd p = {fd, POLLIN, 0};
            int r = poll(&p, 1, 100);
            if (r == 0 || (r < 0 && errno == EINTR))
                continue;
        }
        ssize_t k = read(fd, d + got, n - got);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (long)got;
}

const winent_source_info *winent_source_get_info(const winent_source *s)
{
    return &s->info;
}

winent_status winent_source_read(winent_source *s, int rows, void *dst, winent_err *err)
{
    if (rows <= 0)
        return WINENT_OK;
    if (s->next_row + rows > s->info.height)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "read past the last row");
    WINENT_TRY(s->ops->read(s, rows, dst, err));
    s->next_row += rows;
    return WINENT_OK;
}

winent_status winent_source_stats(winent_source *s, winent_band_stats *st, winent_err *err)
{
    memset(st, 0, sizeof *st);
    if (s->ops->stats == NULL)
        return WINENT_OK;
    return s->ops->stats(s, st, err);
}

uint64_t winent_source_bytes_read(const winent_source *s)
{
    return s->bytes_read;
}

void winent_source_free(winent_source *s)
{
    if (s == NULL)
        return;
    if (s->ops && s->ops->free_impl)
        s->ops->free_impl(s->impl);
    free(s);
}
