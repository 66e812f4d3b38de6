/* SPDX-License-Identifier: BSD-3-Clause */
/* Source dispatch (docs/SPEC.md, "Inputs"): look at what the input is (a
 * file, a pipe, a name only GDAL understands), sniff its first bytes, and
 * open the libtiff, GDAL or raw reader. A TIFF or GDAL format on a pipe is
 * first copied to an unnamed temporary file, which the readers open again
 * as /proc/self/fd/N. */
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
#include "source_internal.h"

static int is_tiff_magic(const uint8_t *b, size_t n)
{
    if (n < 4)
        return 0;
    return (b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
           (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43));
}

/* The name under which libtiff and GDAL open descriptor `fd` again: a new
 * open file description of the same file, with an offset of its own. */
static void fd_path(int fd, char *buf, size_t cap)
{
    snprintf(buf, cap, "/proc/self/fd/%d", fd);
    if (access(buf, R_OK) != 0)
        snprintf(buf, cap, "/dev/fd/%d", fd);
}

#ifdef WINENT_HAVE_GDAL
/* A name that GDAL may open although it is no local file: a virtual file
 * system (/vsizip/, /vsicurl/, /vsis3/...), a URL, a driver prefix
 * (NETCDF:f.nc:var, HDF5:...), or VRT XML given inline. */
static int is_gdal_name(const char *p)
{
    if (strncmp(p, "/vsi", 4) == 0 || strstr(p, "://") != NULL || p[0] == '<')
        return 1;
    size_t k = 0;
    while (isalnum((unsigned char)p[k]) || p[k] == '_')
        k++;
    return k >= 2 && p[k] == ':';
}
#endif

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

/* A TIFF by name (`open_path`; `path` when it is a file of that name):
 * libtiff, unless GDAL is built in and must or was asked to read it. */
static winent_status open_tiff(const winent_source_opts *o, const char *open_path, const char *path,
                               winent_source *s, winent_err *err)
{
#ifdef WINENT_HAVE_GDAL
    /* Benchmarks and tests: WINENT_TIFF_READER=gdal|libtiff forces one. */
    const char *force = getenv("WINENT_TIFF_READER");
    int gdal = force != NULL && strcmp(force, "gdal") == 0;
    if (!gdal && !(force != NULL && strcmp(force, "libtiff") == 0))
        gdal = winent_source_tiff_mask_hint(open_path, path);
    if (gdal) {
        /* libtiff checks the file as strictly as ever (a block index that
         * lost entries, blocks past the end, which GDAL would read as
         * empty) and decodes every block too, before GDAL, so a block that
         * libtiff refuses (a stream corrupt past its pixels, a bad
         * checksum) is the same error through either reader; GDAL's
         * decode, with its mask, makes the map. */
        winent_source *check = calloc(1, sizeof *check);
        if (check == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        check->spool_fd = -1;
        winent_status st = winent_source_tiff_open(o, open_path, check, err);
        if (st != WINENT_OK) {
            winent_source_free(check);
            return st;
        }
        s->verify = check;
        return winent_source_gdal_open(o, open_path, 1, s, err);
    }
#else
    (void)path;
#endif
    return winent_source_tiff_open(o, open_path, s, err);
}

int winent_source_add_file(winent_source *s, const char *name)
{
    for (int i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i], name) == 0)
            return 0;
    if (s->nfiles == s->files_cap) {
        int cap = s->files_cap ? 2 * s->files_cap : 16;
        char **f = realloc(s->files, sizeof *f * (size_t)cap);
        if (f == NULL)
            return -1;
        s->files = f;
        s->files_cap = cap;
    }
    if ((s->files[s->nfiles] = strdup(name)) == NULL)
        return -1;
    s->nfiles++;
    return 0;
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

/* One sidecar name: the first `keep` bytes of the file's name (all of it,
 * or its stem) and a suffix. */
typedef struct sidecar_name {
    size_t keep;
    char suffix[16];
} sidecar_name;

/* The sidecars beside `base` (a file name without folder, `stem` bytes
 * before its extension, or all of it): up to `max` into `out`. */
static int sidecar_names(const char *base, size_t stem, sidecar_name *out, int max)
{
    /* Headers of raw formats too: ER Mapper's NAME.ers or STEM.ers,
     * ROI_PAC's NAME.rsc, PDS and ISIS labels STEM.lbl. */
    static const char *const of_name[] = {".aux.xml", ".msk", ".ovr",         ".hdr",
                                          ".xml",     ".prj", ".wld",         ".rpb",
                                          ".ers",     ".rsc", ".ovr.aux.xml", ".vat.dbf"};
    static const char *const of_stem[] = {".aux.xml", ".hdr", ".prj", ".wld", ".tfw", ".rpb",
                                          "_rpc.txt", ".sta", ".stx", ".ovr", ".clr", ".aux",
                                          ".rrd",     ".imd", ".tab", ".ers", ".lbl"};
    const size_t n = strlen(base);
    int k = 0;
    for (size_t i = 0; i < sizeof of_name / sizeof *of_name && k < max; i++, k++) {
        out[k].keep = n;
        snprintf(out[k].suffix, sizeof out[k].suffix, "%s", of_name[i]);
    }
    for (size_t i = 0; i < sizeof of_stem / sizeof *of_stem && stem < n && k < max; i++, k++) {
        out[k].keep = stem;
        snprintf(out[k].suffix, sizeof out[k].suffix, "%s", of_stem[i]);
    }
    if (stem < n && n - stem >= 3 && k + 2 <= max) {
        /* World files: .tif -> .tfw and .tifw, .bil -> .blw and .bilw. */
        const char *ext = base + stem + 1;
        out[k].keep = stem;
        snprintf(out[k++].suffix, sizeof out->suffix, ".%c%cw", ext[0], ext[strlen(ext) - 1]);
        if (strlen(ext) < 10) {
            out[k].keep = stem;
            snprintf(out[k++].suffix, sizeof out->suffix, ".%sw", ext);
        }
    }
    return k;
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
    const char *dot = strrchr(base, '.');
    const size_t n = strlen(base), stem = dot && dot != base ? (size_t)(dot - base) : n;
    sidecar_name names[40];
    const int count = sidecar_names(base, stem, names, 40);
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
            const sidecar_name *c = &names[i];
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
    const int raw_layout = o->width > 0 && o->height > 0 && o->has_dtype;
    int fd = -1;
    uint8_t head[WINENT_SNIFF_BYTES];
    long nhead = 0;
    struct stat sb;
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
#ifdef WINENT_HAVE_GDAL
            if (is_gdal_name(o->path)) {
                WINENT_TRY_GOTO(st, winent_source_gdal_open(o, o->path, 0, s, err));
                goto opened;
            }
#endif
            st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot open: %s", o->path, strerror(errno));
            goto fail;
        }
    }
    if (fstat(fd, &sb) != 0) {
        st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot stat: %s", name, strerror(errno));
        goto fail;
    }
    /* A file is opened again by name (libtiff, GDAL); anything else (a
     * pipe, a FIFO, a terminal) is read once, front to back. */
    const int seekable = S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode);
#ifdef WINENT_HAVE_GDAL
    if (S_ISDIR(sb.st_mode) && !is_stdin) {
        /* Some GDAL datasets are folders (Zarr, an ESRI grid, a .SAFE). */
        close(fd);
        fd = -1;
        WINENT_TRY_GOTO(st, winent_source_gdal_open(o, o->path, 0, s, err));
        goto opened;
    }
    /* A pipe without a raw layout may hold a format GDAL knows by its
     * first bytes. */
    size_t want = !seekable && !raw_layout ? WINENT_SNIFF_BYTES : 4;
#else
    size_t want = 4;
#endif
    nhead = winent_source_read_fd(fd, head, want, o->stop);
    if (nhead == -2) {
        st = WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        goto fail;
    }
    if (nhead < 0) {
        st = WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot read: %s", name, strerror(errno));
        goto fail;
    }
    if (is_tiff_magic(head, (size_t)nhead)) {
        /* A file given by name is opened by that name (so that a PATH.msk
         * beside it is seen); standard input and pipes by descriptor. */
        const char *tiff_path = o->path, *file = o->path;
        if (!seekable) {
            WINENT_TRY_GOTO(st, spool(o, s, fd, name, "a TIFF", head, (size_t)nhead, err));
            tiff_path = s->fd_name;
            file = NULL;
        } else if (is_stdin) {
            fd_path(STDIN_FILENO, s->fd_name, sizeof s->fd_name);
            tiff_path = s->fd_name;
            file = NULL;
        }
        if (fd > STDIN_FILENO)
            close(fd);
        fd = -1;
        WINENT_TRY_GOTO(st, open_tiff(o, tiff_path, file, s, err));
        goto opened;
    }
#ifdef WINENT_HAVE_GDAL
    if (!raw_layout) {
        if (seekable && !is_stdin && winent_source_gdal_identify(o->path, NULL, 0)) {
            close(fd);
            fd = -1;
            WINENT_TRY_GOTO(st, winent_source_gdal_open(o, o->path, 0, s, err));
            goto opened;
        }
        if (seekable && is_stdin) {
            fd_path(STDIN_FILENO, s->fd_name, sizeof s->fd_name);
            if (winent_source_gdal_identify(s->fd_name, NULL, 0)) {
                WINENT_TRY_GOTO(st, winent_source_gdal_open(o, s->fd_name, 0, s, err));
                goto opened;
            }
        }
        const char *driver =
            seekable ? NULL : winent_source_gdal_identify(NULL, head, (size_t)nhead);
        if (driver != NULL) {
            char what[64];
            snprintf(what, sizeof what, "a GDAL raster (%s)", driver);
            WINENT_TRY_GOTO(st, spool(o, s, fd, name, what, head, (size_t)nhead, err));
            if (fd > STDIN_FILENO)
                close(fd);
            fd = -1;
            WINENT_TRY_GOTO(st, winent_source_gdal_open(o, s->fd_name, 0, s, err));
            goto opened;
        }
    }
#endif
    {
        /* Raw: without --size and --dtype its opener says what is missing. */
        int raw = fd;
        fd = -1; /* the raw source owns it now, even when it fails */
        WINENT_TRY_GOTO(st, winent_source_raw_open(o, raw, head, (size_t)nhead, s, err));
    }
opened:
    if (s->info.reader && strcmp(s->info.reader, "raw") != 0 && raw_option(o)) {
        /* A TIFF or GDAL raster describes itself: a raw-input option would
         * be ignored, or half applied. */
        char what[96];
        if (s->info.is_tiff)
            snprintf(what, sizeof what, "a TIFF");
        else
            snprintf(what, sizeof what, "a GDAL raster (%s)",
                     s->info.driver ? s->info.driver : "?");
        st = WINENT_ERR(err, WINENT_ERR_USAGE,
                        "--%s: %s is %s, which describes its own size, type and layout: leave "
                        "out --%s (--size, --dtype, --bands, --interleave, --byteorder and "
                        "--header-bytes are for raw samples)",
                        raw_option(o), name, what, raw_option(o));
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

winent_status winent_source_select(const winent_source_opts *o, int count, const char *name,
                                   winent_source *s, winent_err *err)
{
    int n = o->band_all ? count : o->nband_list > 0 ? o->nband_list : 1;
    free(s->bands);
    s->nbands_read = 0;
    s->bands = calloc((size_t)(n > 0 ? n : 1), sizeof *s->bands);
    if (s->bands == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int k = 0; k < n; k++) {
        int b = o->band_all         ? k + 1
                : o->nband_list > 0 ? o->band_list[k]
                : o->band > 0       ? o->band
                                    : 1;
        if (b < 1 || b > count)
            return WINENT_ERR(err, WINENT_ERR_USAGE, "--band %d: %s has %d band%s", b, name, count,
                              count == 1 ? "" : "s");
        s->bands[k].band = b;
    }
    s->nbands_read = n;
    return WINENT_OK;
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

void winent_source_free(winent_source *s)
{
    if (s == NULL)
        return;
    if (s->ops && s->ops->free_impl)
        s->ops->free_impl(s->impl);
    winent_source_free(s->verify);
    if (s->spool_fd >= 0)
        close(s->spool_fd);
    for (int i = 0; i < s->nfiles; i++)
        free(s->files[i]);
    free(s->files);
    free(s->bands);
    free(s);
}
