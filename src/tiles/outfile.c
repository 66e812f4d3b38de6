/* SPDX-License-Identifier: BSD-3-Clause */
/* Outputs by kind: a file through a temporary name and a rename, anything
 * else in place (outfile.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_TMPFILE (winent_unnamed_file) */
#endif
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#define PROC_FS_MAGIC 0x9fa0 /* linux/magic.h PROC_SUPER_MAGIC */
#endif

#define WINENT_WRITEBACK_STEP (8u << 20)
#define MAX_LINK_HOPS 40 /* as the kernel's own limit */
#define TEMP_SUFFIX   ".tmp-XXXXXX"
#define SHORT_TEMP    ".winent-XXXXXX" /* when NAME + TEMP_SUFFIX is too long */

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Length of the directory part of `p`, its last '/' included (0: none). */
static size_t dir_prefix_len(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? (size_t)(slash - p) + 1 : 0;
}

/* The directory of `p` as a name to open: "." or "/" where the prefix
 * alone would not do. */
static char *dir_of(const char *p)
{
    size_t k = dir_prefix_len(p);
    if (k == 0)
        return dup_n(".", 1);
    return dup_n(p, k == 1 ? 1 : k - 1);
}

/* A name under /proc/PID/fd or /dev/fd: the "magic" links to open
 * descriptors, which must be opened, never created or renamed over. */
static int in_fd_folder(const char *p)
{
    if (strncmp(p, "/dev/fd/", 8) == 0 || strcmp(p, "/dev/stdout") == 0 ||
        strcmp(p, "/dev/stderr") == 0)
        return 1;
#ifdef __linux__
    char *dir = dir_of(p);
    struct statfs sf;
    int proc = dir && statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == PROC_FS_MAGIC;
    free(dir);
    return proc;
#else
    return 0;
#endif
}

/* N for "/dev/fd/N", "/proc/self/fd/N", "/dev/stdout" and "/dev/stderr";
 * -1 otherwise. Used only where open() cannot reopen (a socket). */
static int self_fd_number(const char *p)
{
    if (strcmp(p, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(p, "/dev/stderr") == 0)
        return STDERR_FILENO;
    const char *n = NULL;
    if (strncmp(p, "/dev/fd/", 8) == 0)
        n = p + 8;
    else if (strncmp(p, "/proc/self/fd/", 14) == 0)
        n = p + 14;
    if (n == NULL || *n < '0' || *n > '9')
        return -1;
    char *end;
    long v = strtol(n, &end, 10);
    return *end == '\0' && v <= INT_MAX ? (int)v : -1;
}

/* The status flags (F_GETFL: the access mode, O_APPEND, O_PATH...) of the
 * open descriptor that `link` names: a link of a /proc/PID/fd folder (of
 * any process, or of a task), /dev/fd/N, /dev/stdout or /dev/stderr. This
 * process's own descriptors are asked with fcntl(F_GETFL); another
 * process's through the "flags:" line of its /proc/PID/fdinfo/N. -1 with
 * errno when they cannot be told. */
static int descriptor_flags(const char *link)
{
    int n = self_fd_number(link);
    if (n >= 0)
        return fcntl(n, F_GETFL);
    /* /proc/PID/fd/N, /proc/thread-self/fd/N, /proc/PID/task/TID/fd/N, or
     * the same under another mount of proc: the folder resolved. */
    const char *base = link + dir_prefix_len(link);
    char *end;
    errno = 0;
    long v = strtol(base, &end, 10);
    if (*base < '0' || *base > '9' || *end != '\0' || errno != 0 || v > INT_MAX) {
        errno = ENOENT;
        return -1;
    }
    char *dir = dir_of(link);
    char *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (real == NULL)
        return -1;
    struct stat at, self;
    int own = stat(real, &at) == 0 && ((stat("/proc/self/fd", &self) == 0 &&
                                        self.st_dev == at.st_dev && self.st_ino == at.st_ino) ||
                                       (stat("/proc/thread-self/fd", &self) == 0 &&
                                        self.st_dev == at.st_dev && self.st_ino == at.st_ino));
    size_t k = strlen(real);
    if (own || k < 3 || strcmp(real + k - 3, "/fd") != 0) {
        free(real);
        if (!own) {
            errno = ENOENT;
            return -1;
        }
        return fcntl((int)v, F_GETFL);
    }
    /* Another process's descriptor: its fdinfo says how it was opened. */
    char *info = malloc(k + 32);
    if (info == NULL) {
        free(real);
        errno = ENOMEM;
        return -1;
    }
    snprintf(info, k + 32, "%.*s/fdinfo/%ld", (int)(k - 3), real, v);
    free(real);
    FILE *f = fopen(info, "re");
    free(info);
    if (f == NULL)
        return -1;
    char line[128];
    long flags = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "flags:", 6) == 0) {
            flags = strtol(line + 6, NULL, 8);
            break;
        }
    fclose(f);
    if (flags < 0 || flags > INT_MAX) {
        errno = EINVAL;
        return -1;
    }
    return (int)flags;
}

/* A descriptor output must have been opened for writing: reopening by
 * name one opened for reading would give write access the descriptor never
 * had (root may reopen any file: `/dev/fd/0 <in.raw` truncated the input),
 * or the write end of the very pipe being read. `name` is the output as
 * the user gave it, `link` the descriptor's name it resolved to. */
static winent_status check_descriptor(const char *name, const char *link, int *append,
                                      winent_err *err)
{
    int flags = descriptor_flags(link);
    if (flags < 0)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT,
                          "%s: cannot tell how its descriptor was opened (%s): give a file name",
                          name, strerror(errno));
    int mode = flags & O_ACCMODE;
#ifdef O_PATH
    if (flags & O_PATH) /* no access at all */
        mode = O_RDONLY;
#endif
    *append = (flags & O_APPEND) != 0;
    if (mode == O_RDONLY)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT,
                          "%s: the descriptor is open for reading only: give a file name, or a "
                          "descriptor open for writing (N>FILE)",
                          name);
    return WINENT_OK;
}

static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "a pipe";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISREG(m))
        return "an open descriptor";
    return "not a file";
}

/* The target of the symbolic link `link`, as a name usable from here. */
static char *follow(const char *link, size_t size_hint)
{
    size_t cap = size_hint > 0 ? size_hint + 1 : 256;
    for (;;) {
        char *buf = malloc(cap);
        if (buf == NULL)
            return NULL;
        ssize_t r = readlink(link, buf, cap);
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)r < cap) {
            buf[r] = '\0';
            if (buf[0] == '/')
                return buf;
            /* Relative: from the link's own directory. */
            size_t k = dir_prefix_len(link);
            char *joined = malloc(k + (size_t)r + 1);
            if (joined) {
                memcpy(joined, link, k);
                memcpy(joined + k, buf, (size_t)r + 1);
            }
            free(buf);
            return joined;
        }
        free(buf);
        cap *= 2;
    }
}

/* Classify `path`; for a file (not in place), *final gets the target after
 * symlinks (owned by the caller). */
static winent_status resolve(const char *path, winent_outfile_probe *p, char **final,
                             winent_err *err)
{
    memset(p, 0, sizeof *p);
    *final = NULL;
    if (strcmp(path, "-") == 0) {
        p->in_place = 1;
        p->what = "standard output";
        int fl = fcntl(STDOUT_FILENO, F_GETFL);
        if (fl < 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT,
                              "standard output is not open: redirect it (>FILE) or give a file "
                              "name");
#ifdef O_PATH
        if (fl & O_PATH)
            fl = O_RDONLY;
#endif
        if ((fl & O_ACCMODE) == O_RDONLY)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT,
                              "standard output is open for reading only: redirect it (>FILE) or "
                              "give a file name");
        p->exists = fstat(STDOUT_FILENO, &p->st) == 0;
        return WINENT_OK;
    }
    char *cur = dup_n(path, strlen(path));
    if (cur == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int hops = 0;; hops++) {
        struct stat ls;
        if (lstat(cur, &ls) != 0) {
            int e = errno;
            if (e == ENOENT && !in_fd_folder(cur)) {
                /* A new name (or one whose folder is missing: creating
                 * the temporary file says so). */
                p->what = "a file";
                *final = cur;
                return WINENT_OK;
            }
            free(cur);
            if (e == ENOENT)
                return WINENT_ERR(err, WINENT_ERR_OUTPUT,
                                  "%s: no such open descriptor: give a file name or '-'", path);
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot write there: %s", path,
                              strerror(e));
        }
        if (S_ISLNK(ls.st_mode) && in_fd_folder(cur)) {
            /* /dev/fd/N and the like: whatever the descriptor is open on
             * (a pipe, a terminal, a file) is written in place, where the
             * descriptor was opened for writing. */
            winent_status ds = check_descriptor(path, cur, &p->append, err);
            free(cur);
            if (ds != WINENT_OK)
                return ds;
            if (stat(path, &p->st) != 0)
                return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot write there: %s", path,
                                  strerror(errno));
            if (S_ISDIR(p->st.st_mode))
                return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s is a folder: give a file name", path);
            p->in_place = 1;
            p->exists = 1;
            p->what = kind_of(p->st.st_mode);
            return WINENT_OK;
        }
        if (S_ISLNK(ls.st_mode)) {
            char *next = hops < MAX_LINK_HOPS ? follow(cur, (size_t)ls.st_size) : NULL;
            int e = hops < MAX_LINK_HOPS ? errno : ELOOP;
            free(cur);
            if (next == NULL)
                return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot follow the link: %s", path,
                                  strerror(e));
            cur = next;
            continue;
        }
        if (S_ISDIR(ls.st_mode)) {
            free(cur);
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s is a folder: give a file name", path);
        }
        p->exists = 1;
        p->st = ls;
        if (S_ISREG(ls.st_mode)) {
            p->what = "a file";
            *final = cur;
            return WINENT_OK;
        }
        free(cur);
        p->in_place = 1;
        p->what = kind_of(ls.st_mode);
        return WINENT_OK;
    }
}

winent_status winent_outfile_probe_path(const char *path, winent_outfile_probe *p, winent_err *err)
{
    char *final = NULL;
    winent_status st = resolve(path, p, &final, err);
    free(final);
    return st;
}

winent_status winent_outfile_target(const char *path, winent_outfile_probe *p, char **final,
                                    winent_err *err)
{
    return resolve(path, p, final, err);
}

const char *winent_outfile_reason(int e)
{
    switch (e) {
    case EPIPE: return "output pipe closed (its reader went away)";
    case EFBIG: return "file too large (a file size limit, see ulimit -f)";
    default: return strerror(e);
    }
}

static winent_status open_in_place(winent_outfile *of, const char *path,
                                   const winent_outfile_probe *p, winent_err *err)
{
    of->in_place = 1;
    of->sync = p->exists && (S_ISREG(p->st.st_mode) || S_ISBLK(p->st.st_mode));
    if (strcmp(path, "-") == 0) {
        of->fd = STDOUT_FILENO;
        return WINENT_OK;
    }
    /* As a shell's `>` would: never create; truncate a regular file only
     * (one reached through /dev/fd/N), unless its descriptor appends (`>>`:
     * then so does the output); a FIFO's open waits for a reader. */
    int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;
    if (p->append)
        flags |= O_APPEND;
    else if (p->exists && S_ISREG(p->st.st_mode))
        flags |= O_TRUNC;
    for (;;) {
        of->fd = open(path, flags);
        if (of->fd >= 0)
            break;
        int e = errno;
        if (e == EINTR)
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        int n = self_fd_number(path);
        if (e == ENXIO && p->exists && S_ISSOCK(p->st.st_mode) && n >= 0) {
            /* A socket cannot be reopened by name: share the descriptor. */
            of->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
            if (of->fd >= 0)
                break;
            e = errno;
        }
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s (%s): cannot open for writing: %s", path,
                          p->what, strerror(e));
    }
    of->owns_fd = 1;
    return WINENT_OK;
}

static winent_status open_file(winent_outfile *of, const char *final, const winent_outfile_probe *p,
                               winent_err *err)
{
    size_t k = dir_prefix_len(final), base_len = strlen(final) - k;
    char *dir = dir_of(final);
    of->temp_path = malloc(k + base_len + sizeof TEMP_SUFFIX + sizeof SHORT_TEMP);
    if (dir == NULL || of->temp_path == NULL) {
        free(dir);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    /* In the target's own folder, so that the rename stays on one file
     * system; a short hidden name where NAME.tmp-XXXXXX would be too long. */
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max <= 0)
        name_max = 255;
    memcpy(of->temp_path, final, k);
    if (base_len + strlen(TEMP_SUFFIX) <= (size_t)name_max)
        sprintf(of->temp_path + k, "%s" TEMP_SUFFIX, final + k);
    else
        strcpy(of->temp_path + k, SHORT_TEMP);
    free(dir);
    of->fd = mkstemp(of->temp_path);
    if (of->fd < 0) {
        int e = errno;
        free(of->temp_path);
        of->temp_path = NULL;
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot create: %s", of->name, strerror(e));
    }
    of->owns_fd = 1;
    of->sync = 1;
    of->final_path = dup_n(final, strlen(final));
    if (of->final_path == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    /* mkstemp makes 0600: a replaced file keeps its owner and mode (as a
     * shell's `>` would), a new one gets the usual permissions. */
    if (p->exists) {
        if (p->st.st_uid != geteuid() || p->st.st_gid != getegid())
            (void)!fchown(of->fd, p->st.st_uid, p->st.st_gid);
        fchmod(of->fd, p->st.st_mode & 07777);
    } else {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(of->fd, 0666 & ~mask);
    }
    return WINENT_OK;
}

winent_status winent_outfile_open(winent_outfile *of, const char *path, const volatile int *stop,
                                  winent_err *err)
{
    winent_outfile_probe p;
    char *final = NULL;
    winent_status st;
    memset(of, 0, sizeof *of);
    of->fd = -1;
    of->temp_slot = -1;
    of->stop = stop;
    const char *name = strcmp(path, "-") == 0 ? "standard output" : path;
    of->name = dup_n(name, strlen(name));
    if (of->name == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    WINENT_TRY_GOTO(st, resolve(path, &p, &final, err));
    if (p.in_place)
        WINENT_TRY_GOTO(st, open_in_place(of, path, &p, err));
    else
        WINENT_TRY_GOTO(st, open_file(of, final, &p, err));
    free(final);
    return WINENT_OK;
fail:
    free(final);
    winent_outfile_abort(of);
    return st;
}

static void *reserve_main(void *arg)
{
    winent_outfile *of = arg;
    int e = 0;
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    if (fallocate(of->fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)of->reserved) != 0)
        e = errno;
#else
    e = EOPNOTSUPP;
#endif
    of->reserve_errno = e;
    return NULL;
}

void winent_outfile_reserve(winent_outfile *of, uint64_t bytes)
{
    if (of->in_place || of->fd < 0 || bytes == 0 || of->reserving || of->written > 0 ||
        bytes > (uint64_t)INT64_MAX)
        return;
    of->reserved = bytes;
    of->reserve_errno = 0;
    of->reserving = pthread_create(&of->reserver, NULL, reserve_main, of) == 0;
}

/* Wait for the reservation. It fails the job only where it says the bytes
 * will not fit (no space, a quota); where the file system cannot reserve
 * (EOPNOTSUPP, ...) the writes go on as they would have. */
static winent_status reserve_join(winent_outfile *of, winent_err *err)
{
    if (!of->reserving)
        return WINENT_OK;
    pthread_join(of->reserver, NULL);
    of->reserving = 0;
    int e = of->reserve_errno;
    if (err != NULL && (e == ENOSPC || e == EDQUOT))
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: no room for the map's %llu bytes: %s",
                          of->name, (unsigned long long)of->reserved, winent_outfile_reason(e));
    return WINENT_OK;
}

/* Space reserved past what was written (a writer that wrote less than it
 * announced) is given back before commit: the file keeps no hidden blocks
 * past its end. */
static void release_unwritten(winent_outfile *of)
{
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
    if (of->reserved > of->written && of->fd >= 0)
        (void)fallocate(of->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)of->written,
                        (off_t)(of->reserved - of->written));
#endif
}

winent_status winent_outfile_write(winent_outfile *of, const void *buf, size_t n, winent_err *err)
{
    WINENT_TRY(reserve_join(of, err));
    const char *p = buf;
    while (n > 0) {
        /* A write blocked on a full pipe returns EINTR when a signal
         * arrives: give up if that signal stopped the job. */
        if (of->stop && __atomic_load_n(of->stop, __ATOMIC_RELAXED))
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        ssize_t w = write(of->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", of->name,
                              winent_outfile_reason(errno));
        }
        if (w == 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed", of->name);
        p += w;
        n -= (size_t)w;
        winent_outfile_wrote(of, (uint64_t)w);
    }
    return WINENT_OK;
}

void *winent_outfile_map(winent_outfile *of)
{
    if (of->in_place || of->fd < 0 || of->reserving || of->reserved == 0 ||
        of->reserve_errno != 0 || of->written != 0 || of->reserved > (uint64_t)SIZE_MAX)
        return NULL;
    if (ftruncate(of->fd, (off_t)of->reserved) != 0)
        return NULL;
    void *m = mmap(NULL, (size_t)of->reserved, PROT_WRITE, MAP_SHARED, of->fd, 0);
    if (m == MAP_FAILED) {
        (void)ftruncate(of->fd, 0);
        return NULL;
    }
    return m;
}

void winent_outfile_unmap(winent_outfile *of, void *map)
{
    if (map != NULL)
        munmap(map, (size_t)of->reserved);
}

void winent_outfile_map_write(winent_outfile *of, void *map, uint64_t offset, const void *buf,
                              size_t n)
{
    memcpy((uint8_t *)map + offset, buf, n);
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t a = (offset + page - 1) / page * page, b = (offset + n) / page * page;
    if (b > a) /* unmapped, not dropped: the pages stay in the file, dirty */
        (void)madvise((uint8_t *)map + a, (size_t)(b - a), MADV_DONTNEED);
    uint64_t was = __atomic_fetch_add(&of->written, (uint64_t)n, __ATOMIC_RELAXED);
#ifdef SYNC_FILE_RANGE_WRITE
    if (of->sync && was / WINENT_WRITEBACK_STEP != (was + (uint64_t)n) / WINENT_WRITEBACK_STEP)
        (void)sync_file_range(of->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)was;
#endif
}

int winent_outfile_positional(const winent_outfile *of)
{
    return !of->in_place && of->fd >= 0;
}

winent_status winent_outfile_settle(winent_outfile *of, winent_err *err)
{
    return reserve_join(of, err);
}

winent_status winent_outfile_pwrite(winent_outfile *of, const void *buf, size_t n, uint64_t offset,
                                    winent_err *err)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(of->fd, p, n, (off_t)offset);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", of->name,
                              winent_outfile_reason(errno));
        }
        if (w == 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed", of->name);
        p += w;
        n -= (size_t)w;
        offset += (uint64_t)w;
        uint64_t was = __atomic_fetch_add(&of->written, (uint64_t)w, __ATOMIC_RELAXED);
#ifdef SYNC_FILE_RANGE_WRITE
        /* As winent_outfile_wrote: writeback starts every step written. */
        if (of->sync && was / WINENT_WRITEBACK_STEP != (was + (uint64_t)w) / WINENT_WRITEBACK_STEP)
            (void)sync_file_range(of->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
        (void)was;
#endif
    }
    return WINENT_OK;
}

void winent_outfile_wrote(winent_outfile *of, uint64_t n)
{
    of->written += n;
#ifdef SYNC_FILE_RANGE_WRITE
    if (of->sync && of->written - of->queued >= WINENT_WRITEBACK_STEP) {
        /* Start the writeback of the file's dirty pages that are not on
         * their way yet, without waiting; an error shows again at the
         * fsync of commit. The whole file, not the last step's bytes: a
         * sink may seek, insert a range or copy into the file, and the
         * kernel visits only the dirty pages. */
        (void)sync_file_range(of->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
        of->queued = of->written;
    }
#endif
}

static void release(winent_outfile *of)
{
    free(of->name);
    free(of->final_path);
    of->name = NULL;
    of->final_path = NULL;
}

/* fsync the folder holding `path`, so that the rename itself is durable.
 * File systems that cannot sync a folder (EINVAL) are not an error. */
static int sync_dir_of(const char *path)
{
    char *dir = dir_of(path);
    if (dir == NULL)
        return ENOMEM;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return errno;
    int e = fsync(fd) == 0 || errno == EINVAL ? 0 : errno;
    close(fd);
    return e;
}

winent_status winent_outfile_commit(winent_outfile *of, winent_err *err)
{
    winent_status st = reserve_join(of, err);
    if (st != WINENT_OK)
        goto fail;
    release_unwritten(of);
    if (of->fd >= 0 && of->sync && fsync(of->fd) != 0 && errno != EINVAL) {
        st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", of->name,
                        winent_outfile_reason(errno));
        goto fail;
    }
    if (of->fd >= 0 && of->owns_fd) {
        int rc = close(of->fd);
        of->fd = -1;
        if (rc != 0) {
            st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", of->name,
                            winent_outfile_reason(errno));
            goto fail;
        }
    }
    of->fd = -1;
    if (of->temp_path) {
        if (rename(of->temp_path, of->final_path) != 0) {
            st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot rename the output into place: %s",
                            of->name, strerror(errno));
            goto fail;
        }
        free(of->temp_path);
        of->temp_path = NULL;
        winent_tempnames_forget(of->temps, of->temp_slot);
        of->temp_slot = -1;
        int e = sync_dir_of(of->final_path);
        if (e != 0) {
            st = WINENT_ERR(err, WINENT_ERR_OUTPUT,
                            "%s: written, but its folder cannot be synced: %s", of->name,
                            strerror(e));
            goto fail;
        }
    }
    release(of);
    return WINENT_OK;
fail:
    winent_outfile_abort(of);
    return st;
}

void winent_outfile_abort(winent_outfile *of)
{
    (void)reserve_join(of, NULL);
    if (of->fd >= 0 && of->owns_fd)
        close(of->fd);
    of->fd = -1;
    of->owns_fd = 0;
    if (of->temp_path) {
        unlink(of->temp_path);
        free(of->temp_path);
        of->temp_path = NULL;
        winent_tempnames_forget(of->temps, of->temp_slot);
        of->temp_slot = -1;
    }
    release(of);
}

void winent_outfile_track(winent_outfile *of, winent_tempnames *temps)
{
    of->temps = temps;
    if (of->temp_path != NULL && of->temp_slot < 0)
        of->temp_slot = winent_tempnames_add(temps, of->temp_path);
}

int winent_unnamed_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return -1;
#endif
    size_t len = strlen(dir);
    char *name = malloc(len + sizeof "/" SHORT_TEMP);
    if (name == NULL) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(name, len + sizeof "/" SHORT_TEMP, "%s/" SHORT_TEMP, dir);
    int t = mkstemp(name);
    if (t >= 0) {
        unlink(name);
        (void)fcntl(t, F_SETFD, FD_CLOEXEC);
    }
    int e = errno;
    free(name);
    errno = e;
    return t;
}

int winent_unnamed_file_beside(const char *path)
{
    char *dir = dir_of(path);
    if (dir == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int fd = winent_unnamed_file(dir);
    int e = errno;
    free(dir);
    errno = e;
    return fd;
}

const char *winent_tmpdir(void)
{
    const char *env = getenv("TMPDIR");
    return env != NULL && env[0] != '\0' ? env : "/tmp";
}
