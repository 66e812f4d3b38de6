/* SPDX-License-Identifier: BSD-3-Clause */
/* Source dispatch (docs/SPEC.md, "Inputs"), above the formats: look at
 * what the input is (a name that is no local file, a folder, a file, a
 * pipe), sniff its first bytes, and hand it to the first format of the
 * registry (source_registry.c) that identifies it. A format read by name
 * gets a stream copied to an unnamed temporary file first, which it opens
 * again as /proc/self/fd/N. Nothing here knows which formats there are:
 * what differs between them is in their descriptors (source_internal.h).
 * Also the files a source reads (its sidecars) and the calls every
 * source answers through its operations. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "sidecar_names.h"
#include "source_internal.h"

/* The name under which libtiff and GDAL open descriptor `fd` again: a new
 * open file description of the same file, with an offset of its own. */
static void fd_path(int fd, char *buf, size_t cap)
{
    snprintf(buf, cap, "/proc/self/fd/%d", fd);
    if (access(buf, R_OK) != 0)
        snprintf(buf, cap, "/dev/fd/%d", fd);
}

static winent_status write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return WINENT_ERR_INPUT;
        }
        p += w;
        n -= (size_t)w;
    }
    return WINENT_OK;
}

/* Copy `head` and the rest of the stream `fd` into an unnamed file in
 * TMPDIR (default /tmp), kept open in s->spool_fd; s->fd_name is the name
 * the readers open it by. `what` names the format for the notice. */
static winent_status spool(const winent_source_opts *o, winent_source *s, int fd, const char *name,
                           const char *what, const uint8_t *head, size_t nhead, winent_err *err)
{
    const char *dir = winent_tmpdir();
    if (o->on_notice) {
        char line[WINENT_MSG_MAX];
        snprintf(line, sizeof line,
                 "%s is %s on a pipe: copying it to an unnamed temporary file in %s to read it "
                 "(removed at the end; TMPDIR picks the folder)",
                 name, what, dir);
        winent_one_line(line);
        o->on_notice(o->user, line);
    }
    s->spool_fd = winent_unnamed_file(dir);
    if (s->spool_fd < 0)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: cannot create a temporary file in %s to copy it to: %s (set TMPDIR "
                          "to a writable folder)",
                          name, dir, strerror(errno));
    const size_t cap = (size_t)1 << 20;
    uint8_t *buf = malloc(cap);
    if (buf == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    winent_status st = write_all(s->spool_fd, head, nhead);
    uint64_t total = nhead;
    for (long k = (long)cap; st == WINENT_OK && k == (long)cap;) {
        k = winent_source_read_fd(fd, buf, cap, o->stop);
        if (k == -2) {
            free(buf);
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        }
        if (k < 0) {
            int e = errno;
            free(buf);
            return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: read failed: %s", name, strerror(e));
        }
        st = write_all(s->spool_fd, buf, (size_t)k);
        total += (uint64_t)k;
    }
    /* The readers count what they take from the copy as bytes read. */
    free(buf);
    if (st != WINENT_OK)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: cannot copy it to a temporary file in %s (%llu bytes): %s (set "
                          "TMPDIR to a folder with room)",
                          name, dir, (unsigned long long)total, strerror(errno));
    fd_path(s->spool_fd, s->fd_name, sizeof s->fd_name);
    return WINENT_OK;
}

/* `name` with `suffix` appended, its letters in upper case when `upper`
 * (GDAL looks for either: scene.HDR, scene.TFW), recorded as read where
 * such a file exists. */
static int add_suffixed(winent_source *s, const char *name, size_t n, const char *suffix, int upper)
{
    size_t k = strlen(suffix);
    char *f = malloc(n + k + 1);
    if (f == NULL)
        return -1;
    memcpy(f, name, n);
    for (size_t i = 0; i <= k; i++)
        f[n + i] = upper ? (char)toupper((unsigned char)suffix[i]) : suffix[i];
    struct stat st;
    int r = stat(f, &st) == 0 ? winent_source_add_file(s, f) : 0;
    free(f);
    return r;
}

/* A folder's names, sorted without case, kept while the files read are
 * in that folder (a VRT mosaic's thousands of sources in one folder are
 * listed once, each file's names found by a binary search). */
typedef struct folder_names {
    char *dir;    /* owned: the folder listed ("" for none yet) */
    char **names; /* owned, `n` of them */
    size_t n;
    int unlisted; /* the folder could not be listed */
} folder_names;

static void folder_names_clear(folder_names *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->names[i]);
    free(f->names);
    free(f->dir);
    memset(f, 0, sizeof *f);
}

static int by_name_without_case(const void *a, const void *b)
{
    return strcasecmp(*(char *const *)a, *(char *const *)b);
}

/* `f` the names of the folder `dir` (listed unless it is already): 0; -1
 * out of memory; 1 where the folder cannot be listed. */
static int folder_names_of(folder_names *f, const char *dir)
{
    if (f->dir && strcmp(f->dir, dir) == 0)
        return f->unlisted;
    folder_names_clear(f);
    if ((f->dir = strdup(dir)) == NULL)
        return -1;
    DIR *d = opendir(dir);
    if (d == NULL) {
        f->unlisted = 1;
        return 1;
    }
    size_t cap = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d)) != NULL;) {
        if (f->n == cap) {
            cap = cap ? 2 * cap : 64;
            char **names = realloc(f->names, sizeof *names * cap);
            if (names == NULL) {
                rc = -1;
                break;
            }
            f->names = names;
        }
        if ((f->names[f->n] = strdup(e->d_name)) == NULL)
            rc = -1;
        else
            f->n++;
    }
    closedir(d);
    if (rc != 0) {
        folder_names_clear(f);
        return rc;
    }
    if (f->n > 0)
        qsort(f->names, f->n, sizeof *f->names, by_name_without_case);
    return 0;
}

/* The sidecars GDAL and other tools keep beside the file `path`, those
 * that exist, recorded as read. GDAL finds a sidecar among the folder's
 * names whatever their case (scene.Hdr for scene.bil, SCENE.HDR too), so
 * every name of the folder (`folder`, listed once per folder) equal to a
 * sidecar's but for case counts; where the folder cannot be listed, the
 * names in lower and upper case. */
static int add_sidecars(winent_source *s, const char *path, folder_names *folder)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* a GDAL name or a folder: GDAL's own list says what it reads */
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const size_t stem = winent_sidecar_stem(base);
    winent_sidecar_name names[WINENT_SIDECAR_NAMES_MAX];
    const int count = winent_sidecar_names(base, names, WINENT_SIDECAR_NAMES_MAX);
    const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0; /* with its '/' */
    char *dir = malloc(dir_len + 2);
    if (dir == NULL)
        return -1;
    memcpy(dir, path, dir_len);
    strcpy(dir + dir_len, dir_len ? "" : ".");
    int listed = folder_names_of(folder, dir);
    free(dir);
    if (listed < 0)
        return -1;
    if (listed > 0) {
        for (int upper = 0; upper < 2; upper++)
            for (int i = 0; i < count; i++)
                if (add_suffixed(s, path, (size_t)(base - path) + names[i].keep, names[i].suffix,
                                 upper) != 0)
                    return -1;
        return 0;
    }
    /* The names starting with the stem, whatever the case: one run of the
     * sorted list, from the first not below it. */
    size_t lo = 0, hi = folder->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strncasecmp(folder->names[mid], base, stem) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int rc = 0;
    for (size_t k = lo; rc == 0 && k < folder->n; k++) {
        const char *name = folder->names[k];
        if (strncasecmp(name, base, stem) != 0)
            break;
        const size_t len = strlen(name);
        for (int i = 0; i < count; i++) {
            const winent_sidecar_name *c = &names[i];
            if (len != c->keep + strlen(c->suffix) || strncasecmp(name, base, c->keep) != 0 ||
                strcasecmp(name + c->keep, c->suffix) != 0)
                continue;
            char *f = malloc(dir_len + len + 1);
            if (f == NULL) {
                rc = -1;
                break;
            }
            memcpy(f, path, dir_len);
            memcpy(f + dir_len, name, len + 1);
            rc = stat(f, &st) == 0 ? winent_source_add_file(s, f) : 0;
            free(f);
            break;
        }
    }
    return rc;
}

/* The files the source reads (winent_source_files): the input itself, what
 * its reader added (GDAL's list), and the sidecars beside each, for every
 * reader (an ENVI header beside raw samples read with --size is no less
 * the user's file; a VRT's source has its .msk and .ovr). */
static int add_files(winent_source *s, const char *path)
{
    if (s->fd_name[0] && winent_source_add_file(s, s->fd_name) != 0)
        return -1;
    if (winent_source_add_file(s, strcmp(path, "-") == 0 ? "/proc/self/fd/0" : path) != 0)
        return -1;
    folder_names folder = {0};
    int rc = 0;
    for (int i = 0, n = s->nfiles; i < n && rc == 0; i++) { /* not the sidecars added here */
        rc = add_sidecars(s, s->files[i], &folder);
        /* Beside the file itself too, where the name is a link to it
         * (/dev/fd/3, standard input's /proc/self/fd/0, a symlink). */
        struct stat ls;
        char *real = rc == 0 && lstat(s->files[i], &ls) == 0 && S_ISLNK(ls.st_mode)
                         ? realpath(s->files[i], NULL)
                         : NULL;
        if (real && strcmp(real, s->files[i]) != 0)
            rc = add_sidecars(s, real, &folder);
        free(real);
    }
    folder_names_clear(&folder);
    return rc != 0 ? -1 : 0;
}

const char *const *winent_source_files(const winent_source *s, int *n)
{
    *n = s->nfiles;
    return (const char *const *)s->files;
}

/* The first raw-input option `o` carries (its CLI name), or NULL. Options
 * left at their defaults cannot be told from options not given. */
static const char *raw_option(const winent_source_opts *o)
{
    if (o->width > 0 || o->height > 0)
        return "size";
    if (o->has_dtype)
        return "dtype";
    if (o->bands > 1)
        return "bands";
    if (o->interleave != WINENT_INTERLEAVE_BSQ)
        return "interleave";
    if (o->big_endian)
        return "byteorder";
    if (o->header_bytes > 0)
        return "header-bytes";
    return NULL;
}

/* The first format of the registry that says the input is its own. */
static const winent_source_format *identify(const winent_source_probe *p, char *what, size_t cap)
{
    for (const winent_source_format *const *f = winent_source_formats; *f; f++) {
        what[0] = '\0';
        if ((*f)->identify(p, what, cap))
            return *f;
    }
    return NULL;
}

/* Open the input with format `f`: a format read by name gets the name,
 * /proc/self/fd/0 for a file on standard input, or a stream's unnamed
 * copy; a format that reads the descriptor takes *fd (and `head`). */
static winent_status open_with(const winent_source_format *f, const winent_source_opts *o,
                               const winent_source_probe *p, const char *what, int *fd,
                               winent_source *s, winent_err *err)
{
    winent_source_input in = {o->path, o->path, -1, p->head, p->nhead};
    if (!f->needs_file) {
        in.fd = *fd;
        *fd = -1; /* the opener owns it now, even when it fails */
        in.open_path = in.file = NULL;
    } else if (!p->not_local && !p->is_dir) {
        if (!p->seekable) {
            WINENT_TRY(spool(o, s, *fd, o->path, what, p->head, p->nhead, err));
            in.open_path = s->fd_name;
            in.file = NULL;
        } else if (p->is_stdin) {
            in.open_path = s->fd_name;
            in.file = NULL;
        }
    }
    if (*fd > STDIN_FILENO)
        close(*fd);
    if (f->needs_file)
        *fd = -1;
    return f->open(o, &in, s, err);
}

winent_status winent_source_open(const winent_source_opts *opts, winent_source **out,
                                 winent_err *err)
{
    winent_status st = WINENT_OK;
    const int is_stdin = strcmp(opts->path, "-") == 0;
    const char *name = is_stdin ? "standard input" : opts->path;
    /* The readers name the input in their messages by its path. */
    winent_source_opts named = *opts;
    named.path = name;
    const winent_source_opts *o = &named;
    int fd = -1;
    uint8_t head[WINENT_SNIFF_BYTES];
    char what[96];
    struct stat sb;
    const winent_source_format *f = NULL;
    winent_source_probe p = {.path = o->path, .is_stdin = is_stdin, .fd_name = ""};
    p.raw_layout = o->width > 0 && o->height > 0 && o->has_dtype;
    winent_source *s = calloc(1, sizeof *s);
    *out = NULL;
    if (s == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->spool_fd = -1;
    if (is_stdin) {
        fd = STDIN_FILENO;
    } else {
        fd = open(o->path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            p.not_local = 1;
            if ((f = identify(&p, what, sizeof what)) != NULL) {
                WINENT_TRY_GOTO(st, open_with(f, o, &p, what, &fd, s, err));
                goto opened;
            }
            st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot open: %s", o->path, strerror(e));
            goto fail;
        }
    }
    if (fstat(fd, &sb) != 0) {
        st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot stat: %s", name, strerror(errno));
        goto fail;
    }
    /* A file is opened again by name (libtiff, GDAL); anything else (a
     * pipe, a FIFO, a terminal) is read once, front to back. */
    p.seekable = S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode);
    p.is_dir = S_ISDIR(sb.st_mode);
    if (p.is_dir && (f = identify(&p, what, sizeof what)) != NULL) {
        /* Some datasets are folders (Zarr, an ESRI grid, a .SAFE). */
        WINENT_TRY_GOTO(st, open_with(f, o, &p, what, &fd, s, err));
        goto opened;
    }
    if (p.seekable && is_stdin) {
        fd_path(STDIN_FILENO, s->fd_name, sizeof s->fd_name);
        p.fd_name = s->fd_name;
    }
    /* As many first bytes as the formats look at (a pipe without a raw
     * layout may hold a format known by its header). */
    size_t want = 0;
    for (const winent_source_format *const *g = winent_source_formats; *g; g++) {
        size_t n = (*g)->sniff_bytes ? (*g)->sniff_bytes(&p) : 0;
        want = n > want ? n : want;
    }
    long nhead = winent_source_read_fd(fd, head, want, o->stop);
    if (nhead == -2) {
        st = WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        goto fail;
    }
    if (nhead < 0) {
        st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot read: %s", name, strerror(errno));
        goto fail;
    }
    p.head = head;
    p.nhead = (size_t)nhead;
    if ((f = identify(&p, what, sizeof what)) == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "%s: no reader takes it", name);
        goto fail;
    }
    WINENT_TRY_GOTO(st, open_with(f, o, &p, what, &fd, s, err));
opened:
    if (!f->takes_raw_layout && raw_option(o)) {
        /* A TIFF or GDAL raster describes itself: a raw-input option would
         * be ignored, or half applied. */
        st = WINENT_ERR(err, WINENT_ERR_USAGE,
                        "--%s: %s is %s, which describes its own size, type and layout: leave "
                        "out --%s (--size, --dtype, --bands, --interleave, --byteorder and "
                        "--header-bytes are for raw samples)",
                        raw_option(o), name, s->what, raw_option(o));
        goto fail;
    }
    if (add_files(s, opts->path) != 0) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    s->info.name = opts->path;
    if (s->bands == NULL) /* an opener that did not select (cannot happen): the one band */
        WINENT_TRY_GOTO(st, winent_source_select(o, s->info.bands, name, s, err));
    if (!s->bands_nodata)
        for (int k = 0; k < s->nbands_read; k++) {
            s->bands[k].has_nodata = s->info.has_nodata;
            s->bands[k].nodata = s->info.nodata;
            s->bands[k].nodata_is_mask = s->info.nodata_is_mask;
        }
    s->info.nread = s->nbands_read;
    s->info.read = s->bands;
    *out = s;
    return WINENT_OK;
fail:
    if (fd > STDIN_FILENO)
        close(fd);
    winent_source_free(s);
    return st;
}

const winent_source_info *winent_source_get_info(const winent_source *s)
{
    return &s->info;
}

winent_status winent_source_read_bands(winent_source *s, int rows, void *const *dst,
                                       winent_err *err)
{
    if (rows <= 0)
        return WINENT_OK;
    if (s->next_row + rows > s->info.height)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "read past the last row");
    if (s->verify != NULL && s->verify->ops->skip != NULL) {
        WINENT_TRY(s->verify->ops->skip(s->verify, rows, err));
        s->verify->next_row += rows;
        s->verify->bytes_read = 0; /* the file is counted once: GDAL's share */
    }
    WINENT_TRY(s->ops->read(s, rows, dst, err));
    s->next_row += rows;
    return WINENT_OK;
}

winent_status winent_source_read(winent_source *s, int rows, void *dst, winent_err *err)
{
    if (s->nbands_read != 1)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "one band read from a source of %d",
                          s->nbands_read);
    return winent_source_read_bands(s, rows, &dst, err);
}

winent_status winent_source_stats(winent_source *s, int k, winent_band_stats *st, winent_err *err)
{
    memset(st, 0, sizeof *st);
    if (s->ops->stats == NULL || k < 0 || k >= s->nbands_read)
        return WINENT_OK;
    return s->ops->stats(s, k, st, err);
}

uint64_t winent_source_bytes_read(const winent_source *s)
{
    return s->bytes_read;
}
