/* SPDX-License-Identifier: BSD-3-Clause */
/* Scratch files beside an output, and copies between files (spill.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* copy_file_range, fallocate */
#endif
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* Copies go in pieces, so that a stop is seen within a fraction of a second. */
#define COPY_PIECE ((uint64_t)64 << 20)
#define BOUNCE     ((size_t)1 << 20)

winent_status winent_spill_open(const char *beside, const char *what, int *fd, winent_err *err)
{
    *fd = winent_unnamed_file_beside(beside);
    if (*fd < 0)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot create a scratch file beside it: %s",
                          what, strerror(errno));
    return WINENT_OK;
}

winent_status winent_spill_append(int fd, const void *buf, size_t n, const char *what,
                                  uint64_t *written, winent_err *err)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", what,
                              winent_outfile_reason(w < 0 ? errno : ENOSPC));
        p += w;
        n -= (size_t)w;
        if (written)
            *written += (uint64_t)w;
    }
    return WINENT_OK;
}

winent_status winent_spill_pwrite(int fd, const void *buf, size_t n, uint64_t at, const char *what,
                                  winent_err *err)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", what,
                              winent_outfile_reason(w < 0 ? errno : ENOSPC));
        p += w;
        n -= (size_t)w;
        at += (uint64_t)w;
    }
    return WINENT_OK;
}

/* The read-and-write way, for what copy_file_range cannot do. */
static winent_status copy_by_hand(int in, uint64_t at, int out, uint64_t len,
                                  const volatile int *stop, const char *what, winent_err *err)
{
    char *buf = malloc(BOUNCE);
    if (buf == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    winent_status st = WINENT_OK;
    while (len > 0) {
        if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
            st = WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
            break;
        }
        size_t n = len < BOUNCE ? (size_t)len : BOUNCE;
        ssize_t r = pread(in, buf, n, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot read back its scratch file: %s",
                            what, r < 0 ? strerror(errno) : "it is shorter than written");
            break;
        }
        st = winent_spill_append(out, buf, (size_t)r, what, NULL, err);
        if (st != WINENT_OK)
            break;
        at += (uint64_t)r;
        len -= (uint64_t)r;
    }
    free(buf);
    return st;
}

winent_status winent_spill_copy(int in, uint64_t at, int out, uint64_t len,
                                const volatile int *stop, const char *what, winent_err *err)
{
#ifdef __linux__
    while (len > 0) {
        if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        off_t from = (off_t)at;
        size_t n = len < COPY_PIECE ? (size_t)len : (size_t)COPY_PIECE;
        ssize_t r = copy_file_range(in, &from, out, NULL, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == ENOSYS || errno == EXDEV || errno == EOPNOTSUPP || errno == EINVAL ||
                      errno == EBADF))
            break; /* not here: by hand, from where we are */
        if (r < 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", what,
                              winent_outfile_reason(errno));
        if (r == 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot read back its scratch file: %s",
                              what, "it is shorter than written");
        at += (uint64_t)r;
        len -= (uint64_t)r;
    }
#endif
    return len ? copy_by_hand(in, at, out, len, stop, what, err) : WINENT_OK;
}

int winent_spill_can_insert(int fd, unsigned *block)
{
    *block = 0;
#if defined(__linux__) && defined(FALLOC_FL_INSERT_RANGE)
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0 || st.st_blksize <= 0 ||
        st.st_blksize > (1 << 20))
        return 0;
    size_t b = (size_t)st.st_blksize;
    char *zeros = calloc(1, b);
    int ok = zeros && pwrite(fd, zeros, b, 0) == (ssize_t)b &&
             fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, (off_t)b) == 0;
    free(zeros);
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
        return 0;
    if (ok)
        *block = (unsigned)b;
    return ok;
#else
    (void)fd;
    return 0;
#endif
}

winent_status winent_spill_insert_front(int fd, uint64_t len, const char *what, winent_err *err)
{
#if defined(__linux__) && defined(FALLOC_FL_INSERT_RANGE)
    /* The file system checks its own limit only: a file size limit
     * (ulimit -f) must stop this growth as it stops a write. */
    struct rlimit rl;
    struct stat st;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && fstat(fd, &st) == 0 &&
        (uint64_t)st.st_size + len > (uint64_t)rl.rlim_cur)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", what,
                          winent_outfile_reason(EFBIG));
    if (len > 0 && fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, (off_t)len) != 0)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", what,
                          winent_outfile_reason(errno));
    if (lseek(fd, 0, SEEK_SET) != 0)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot seek: %s", what, strerror(errno));
    return WINENT_OK;
#else
    (void)fd;
    (void)len;
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "%s: no range insertion here", what);
#endif
}
