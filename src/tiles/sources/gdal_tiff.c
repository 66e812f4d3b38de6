/* SPDX-License-Identifier: BSD-3-Clause */
/* Every TIFF a GDAL dataset reads, read by the libtiff reader too, and
 * every driver held to the checked list (gdal_tiff.h). */
#define _LARGEFILE64_SOURCE 1 /* GDAL's VSIStatBufL is struct stat64 */
#include "gdal_tiff.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gdal_msgs.h"
#include "tiff_common.h"

static inline const winent_gdal_api *gd(void)
{
    return winent_gdal_api_get(NULL);
}

/* ---- Drivers known to report a file cut short --------------------------- */

/* Drivers whose reads of a truncated file fail, or whose files are sized
 * against their header before reading (gdal_sizes.c), or whose bytes are
 * all TIFF read by the libtiff reader (GTiff; COG writes GTiff), or that
 * read nothing but other datasets, each held to this list in turn (VRT).
 * Made of the truncation sweep's results (tests/gdal/test_gdal_truncation.py cuts
 * a file of every driver GDAL can write here to half, by a block and by a
 * few bytes) and of the drivers the sizes check covers. A driver not
 * listed, whether it zero-fills a short file or was never tried, is
 * refused: a map of zeros read as data is the one thing the tool must
 * never write. */
static const char *const checked_drivers[] = {
    "GTiff", "VRT", "COG",
    /* size-checked before reading (gdal_sizes.c) */
    "ENVI", "EHdr", "ISCE", "GTX", "GenBin", "PAux", "ROI_PAC", "BT", "LAN", "CTable2", "NTv2",
    "KRO", "GSC", "DIPEx", "DOQ1", "DOQ2", "LOSLAS", "ACE2", "PNM", "netCDF",
    /* text grids whose file must end in white space (gdal_sizes.c): a
     * number cut short would otherwise read as another number */
    "AAIGrid", "GSAG", "XYZ", "ZMap", "USGSDEM",
    /* report a truncated file themselves (the sweep) */
    "BAG", "BMP", "BT", "DTED", "ELAS", "ERS", "FIT", "FITS", "GIF", "GRIB", "GS7BG", "GSBG", "HDF4",
    "HDF4Image", "HDF5", "HDF5Image", "HF2", "HFA", "ISIS2", "ISIS3", "JP2OpenJPEG", "JPEG", "MFF",
    "MRF", "NITF", "NWT_GRD", "PDF", "PDS4", "PNG", "R", "RMF", "RRASTER", "RST", "SAGA", "SGI",
    "SIGDEM", "VICAR", "WEBP", "XPM", "Zarr",
};

int winent_gdal_driver_checked(const char *driver)
{
    for (size_t i = 0; driver != NULL && i < sizeof checked_drivers / sizeof *checked_drivers; i++)
        if (strcmp(driver, checked_drivers[i]) == 0)
            return 1;
    return 0;
}

/* ---- A TIFF through GDAL's VSI layer ------------------------------------ */

/* Where the TIFF is: a GDAL file name and the directory GDAL reads. */
typedef struct vsi_tiff {
    char *file;   /* owned: what VSIFOpenL opens */
    long dir;     /* 0-based directory in the IFD chain (GTIFF_DIR:N: is N - 1) */
    uint64_t off; /* GTIFF_DIR:off:B: the IFD at byte B (then not 0) */
} vsi_tiff;

/* One libtiff handle's file. */
typedef struct vsi_file {
    VSILFILE *fp;
    uint64_t size;
} vsi_file;

static tmsize_t vsi_read(thandle_t h, void *buf, tmsize_t n)
{
    vsi_file *f = h;
    winent_gdal_msgs m;
    winent_gdal_msgs_begin(&m);
    size_t got = gd()->VSIFReadL(buf, 1, (size_t)n, f->fp);
    winent_gdal_msgs_end();
    /* GDAL's word that a read lost data (a corrupt .gz or .zip member, a
     * network failure) fails it, whatever came back. */
    return m.failures > 0 || m.warnings > 0 ? (tmsize_t)-1 : (tmsize_t)got;
}

static tmsize_t vsi_write(thandle_t h, void *buf, tmsize_t n)
{
    (void)h;
    (void)buf;
    (void)n;
    return -1;
}

static toff_t vsi_seek(thandle_t h, toff_t off, int whence)
{
    vsi_file *f = h;
    winent_gdal_msgs m;
    winent_gdal_msgs_begin(&m);
    toff_t at = (toff_t)-1;
    if (gd()->VSIFSeekL(f->fp, (vsi_l_offset)off, whence) == 0)
        at = (toff_t)gd()->VSIFTellL(f->fp);
    winent_gdal_msgs_end();
    return at;
}

static int vsi_close(thandle_t h)
{
    vsi_file *f = h;
    winent_gdal_msgs m;
    winent_gdal_msgs_begin(&m);
    gd()->VSIFCloseL(f->fp);
    winent_gdal_msgs_end();
    free(f);
    return 0;
}

static toff_t vsi_size(thandle_t h)
{
    return (toff_t)((vsi_file *)h)->size;
}

static int vsi_map(thandle_t h, void **base, toff_t *size)
{
    (void)h;
    (void)base;
    (void)size;
    return 0;
}

static void vsi_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

/* winent_tiff_io.open: a handle over the file, at the directory GDAL reads. */
static TIFF *vsi_open(void *ctx, struct winent_tiff_msgs *m)
{
    const vsi_tiff *t = ctx;
    winent_tiff_msgs_clear(m);
    vsi_file *f = calloc(1, sizeof *f);
    if (f == NULL) {
        snprintf(m->first_error, sizeof m->first_error, "out of memory");
        return NULL;
    }
    winent_gdal_msgs g;
    winent_gdal_msgs_begin(&g);
    f->fp = gd()->VSIFOpenL(t->file, "rb");
    if (f->fp != NULL && gd()->VSIFSeekL(f->fp, 0, SEEK_END) == 0) {
        f->size = (uint64_t)gd()->VSIFTellL(f->fp);
        gd()->VSIFSeekL(f->fp, 0, SEEK_SET);
    }
    winent_gdal_msgs_end();
    if (f->fp == NULL) {
        snprintf(m->first_error, sizeof m->first_error, "GDAL cannot open %.200s: %.250s", t->file,
                 g.first[0] ? g.first : "no such file");
        free(f);
        return NULL;
    }
    TIFF *tif = winent_tiff_client_open(t->file, "rm", (thandle_t)f, vsi_read, vsi_write, vsi_seek,
                                        vsi_close, vsi_size, vsi_map, vsi_unmap, m);
    if (tif == NULL) {
        vsi_close(f); /* libtiff closes nothing it failed to open */
        return NULL;
    }
    int ok = 1;
    if (t->off != 0)
        ok = TIFFSetSubDirectory(tif, (uint64_t)t->off);
    for (long d = 0; ok && d < t->dir; d++)
        ok = TIFFReadDirectory(tif);
    if (!ok) {
        char why[WINENT_MSG_MAX];
        snprintf(why, sizeof why, "%s", m->first_error);
        const long has = (long)TIFFNumberOfDirectories(tif);
        TIFFClose(tif);
        if (t->off != 0)
            snprintf(m->first_error, sizeof m->first_error, "no directory at byte %llu%s%.400s",
                     (unsigned long long)t->off, why[0] ? ": " : "", why);
        else
            snprintf(m->first_error, sizeof m->first_error, "no directory %ld (it has %ld)%s%.400s",
                     t->dir + 1, has, why[0] ? ": " : "", why);
        return NULL;
    }
    return tif;
}

static void vsi_free(void *ctx)
{
    vsi_tiff *t = ctx;
    if (t != NULL)
        free(t->file);
    free(t);
}

/* The file and directory the GTiff driver reads for the name `name`:
 * GTIFF_DIR:N:file (directory N, 1-based), GTIFF_DIR:off:B:file (the IFD
 * at byte B), GTIFF_RAW:file, or the file itself (a URL through
 * /vsicurl/, as GDAL reads it). NULL when out of memory
 * or not a name GDAL's GTiff driver takes. */
static vsi_tiff *gtiff_target(const char *name)
{
    vsi_tiff *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    const char *file = name;
    if (strncasecmp(name, "GTIFF_RAW:", 10) == 0) {
        file = name + 10;
    } else if (strncasecmp(name, "GTIFF_DIR:", 10) == 0) {
        const char *p = name + 10;
        const int absolute = strncasecmp(p, "off:", 4) == 0;
        if (absolute)
            p += 4;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || *end != ':' || (!absolute && v == 0)) {
            free(t);
            return NULL;
        }
        file = end + 1;
        if (absolute)
            t->off = v;
        else
            t->dir = (long)(v - 1);
    }
    /* GDAL reads a URL through /vsicurl/ (GDALOpenInfo). */
    const int url = strncmp(file, "http://", 7) == 0 || strncmp(file, "https://", 8) == 0 ||
                    strncmp(file, "ftp://", 6) == 0;
    const size_t n = strlen(file) + (url ? 10 : 1);
    if ((t->file = malloc(n)) == NULL) {
        free(t);
        return NULL;
    }
    snprintf(t->file, n, "%s%s", url ? "/vsicurl/" : "", file);
    return t;
}

/* A libtiff source over the TIFF `t` (owned from here on), named `label`
 * in messages, reading the bands `o` asks for; NULL in *out on failure. */
static winent_status open_vsi_source(const winent_source_opts *o, vsi_tiff *t, winent_source **out,
                                     winent_err *err)
{
    *out = NULL;
    winent_tiff_io io = {vsi_open, vsi_free, t};
    winent_source *s = calloc(1, sizeof *s);
    if (s == NULL) {
        vsi_free(t);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    s->spool_fd = -1;
    winent_status st = winent_source_tiff_open_io(o, &io, s, err);
    if (st != WINENT_OK) {
        winent_source_free(s);
        return st;
    }
    *out = s;
    return WINENT_OK;
}

/* ---- The datasets a dataset reads --------------------------------------- */

/* VRTs within VRTs followed so deep at most (GDAL's own limit is lower). */
#define NESTING_MAX 16

typedef struct tiff_walk {
    const winent_source_opts *o;
    const char *name; /* the input, for messages */
    char **seen;      /* owned: the names opened and the TIFFs read so far */
    int nseen, cap;
} tiff_walk;

/* 1 when `key` was met before; else it is recorded (-1 out of memory). */
static int seen_before(tiff_walk *w, const char *key)
{
    for (int i = 0; i < w->nseen; i++)
        if (strcmp(w->seen[i], key) == 0)
            return 1;
    if (w->nseen == w->cap) {
        int cap = w->cap ? 2 * w->cap : 16;
        char **more = realloc(w->seen, sizeof *more * (size_t)cap);
        if (more == NULL)
            return -1;
        w->seen = more;
        w->cap = cap;
    }
    if ((w->seen[w->nseen] = strdup(key)) == NULL)
        return -1;
    w->nseen++;
    return 0;
}

/* Read the TIFF `t` (owned) whole with the libtiff reader, every band,
 * named `label` in messages: its first failure, or WINENT_OK. */
static winent_status read_whole(tiff_walk *w, vsi_tiff *t, const char *label, winent_err *err)
{
    char key[4200];
    snprintf(key, sizeof key, "tiff %ld %llu %s", t->dir, (unsigned long long)t->off, t->file);
    int seen = seen_before(w, key);
    if (seen != 0) {
        vsi_free(t);
        return seen < 0 ? WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory") : WINENT_OK;
    }
    winent_source_opts o = *w->o;
    o.path = label;
    o.band = 1;
    o.band_list = NULL;
    o.nband_list = 0;
    o.band_all = 1;
    o.on_notice = NULL;
    /* On threads of its own: the job's workers are not started yet. */
    o.threads = w->o->par != NULL ? w->o->par->workers : w->o->threads;
    o.par = NULL;
    winent_source *s;
    WINENT_TRY(open_vsi_source(&o, t, &s, err));
    winent_status st = s->ops->skip(s, s->info.height, err);
    winent_source_free(s);
    return st;
}

static winent_status walk(tiff_walk *w, GDALDatasetH ds, const char *dsname, const char *via,
                          int depth, winent_err *err);

static int is_tiff_file(const char *f);

/* Directories of a file read whole at most (a COG has a few overviews). */
#define DIRS_MAX 64

/* The directories in the IFD chain of the TIFF file `file`, or 0. */
static long count_dirs(const char *file)
{
    vsi_tiff t = {(char *)file, 0, 0};
    winent_tiff_msgs m;
    TIFF *tif = vsi_open(&t, &m);
    if (tif == NULL)
        return 0;
    long n = (long)TIFFNumberOfDirectories(tif);
    TIFFClose(tif);
    return n;
}

/* Every directory of the TIFF file `file` but `skip` (-1: none), each
 * read whole: the overviews and masks GDAL may read for a source it
 * resamples or masks. */
static winent_status read_other_dirs(tiff_walk *w, const char *file, long skip,
                                     const char *label, winent_err *err)
{
    const long n = count_dirs(file);
    for (long d = 0; d < n && d < DIRS_MAX; d++) {
        if (d == skip)
            continue;
        vsi_tiff *o = calloc(1, sizeof *o);
        if (o == NULL || (o->file = strdup(file)) == NULL) {
            free(o);
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        }
        o->dir = d;
        char dlabel[4300];
        snprintf(dlabel, sizeof dlabel, "%s (its directory %ld)", label, d + 1);
        WINENT_TRY(read_whole(w, o, dlabel, err));
    }
    return WINENT_OK;
}

/* A TIFF that a VRT reads (`t`, owned): its image read whole, and every
 * other directory of its file and of the TIFFs beside it that GDAL lists
 * (an external .ovr, a .msk), since GDAL may read an overview or a mask
 * of a source instead of its image. */
static winent_status read_source_tiff(tiff_walk *w, GDALDatasetH ds, vsi_tiff *t,
                                      const char *label, winent_err *err)
{
    char *file = strdup(t->file);
    const long dir = t->off != 0 ? -1 : t->dir;
    if (file == NULL) {
        vsi_free(t);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    winent_status st = read_whole(w, t, label, err);
    if (st == WINENT_OK && dir >= 0)
        st = read_other_dirs(w, file, dir, label, err);
    char **files = gd()->GDALGetFileList(ds);
    for (char **f = files; st == WINENT_OK && f != NULL && *f != NULL; f++) {
        if (strcmp(*f, file) == 0 || !is_tiff_file(*f))
            continue;
        char flabel[4300];
        snprintf(flabel, sizeof flabel, "%s: its file %s", w->name, *f);
        st = read_other_dirs(w, *f, -1, flabel, err);
    }
    gd()->CSLDestroy(files);
    free(file);
    return st;
}

/* `name` relative to the folder of the VRT `vrt` where `relative` says so
 * (GDAL's relativeToVRT), into `out`. */
static void source_path(const char *vrt, const char *name, int relative, char *out, size_t cap)
{
    const char *slash = vrt != NULL && vrt[0] != '<' ? strrchr(vrt, '/') : NULL;
    if (relative && name[0] != '/' && slash != NULL)
        snprintf(out, cap, "%.*s/%s", (int)(slash - vrt), vrt, name);
    else
        snprintf(out, cap, "%s", name);
}

/* Every source a VRT names, anywhere in its XML (bands, masks, overviews,
 * a warped VRT's source dataset): each dataset walked in turn. */
static winent_status walk_xml(tiff_walk *w, CPLXMLNode *n, const char *vrt, int depth,
                              winent_err *err)
{
    for (; n != NULL; n = n->psNext) {
        if (n->eType != CXT_Element)
            continue;
        if (strcmp(n->pszValue, "SourceFilename") == 0 || strcmp(n->pszValue, "SourceDataset") == 0) {
            const char *src = gd()->CPLGetXMLValue(n, NULL, "");
            const int rel = atoi(gd()->CPLGetXMLValue(n, "relativeToVRT", "0"));
            char path[4096];
            source_path(vrt, src, rel, path, sizeof path);
            char key[4200];
            snprintf(key, sizeof key, "open %s", path);
            int seen = src[0] ? seen_before(w, key) : 1;
            if (seen < 0)
                return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
            if (seen)
                continue;
            GDALDatasetH sds =
                gd()->GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
            if (sds == NULL)
                continue; /* reading it fails, and says why */
            winent_status st = walk(w, sds, path, path, depth + 1, err);
            gd()->GDALClose(sds);
            WINENT_TRY(st);
            continue;
        }
        WINENT_TRY(walk_xml(w, n->psChild, vrt, depth, err));
    }
    return WINENT_OK;
}

/* 1 when the file `f` (any GDAL name) starts with a TIFF or BigTIFF header. */
static int is_tiff_file(const char *f)
{
    VSILFILE *fp = gd()->VSIFOpenL(f, "rb");
    if (fp == NULL)
        return 0;
    unsigned char b[4] = {0};
    size_t n = gd()->VSIFReadL(b, 1, 4, fp);
    gd()->VSIFCloseL(fp);
    return n == 4 && ((b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
                      (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43)));
}

/* The dataset `ds` (named `dsname`; `via`: how messages name it, NULL for
 * the input itself) and what it reads. */
static winent_status walk(tiff_walk *w, GDALDatasetH ds, const char *dsname, const char *via,
                          int depth, winent_err *err)
{
    const char *driver = gd()->GDALGetDriverShortName(gd()->GDALGetDatasetDriver(ds));
    char label[4200];
    if (via != NULL)
        snprintf(label, sizeof label, "%s: its source %s", w->name, via);
    else
        snprintf(label, sizeof label, "%s", w->name);
    if (!winent_gdal_driver_checked(driver))
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s is read by GDAL's %s driver, which is not among the drivers known "
                          "here to report a file cut short (it may read missing data as zeros): "
                          "convert it first (gdal_translate -of GTiff)",
                          label, driver ? driver : "unnamed");
    if (depth > NESTING_MAX)
        return WINENT_OK;
    if (driver != NULL && strcmp(driver, "GTiff") == 0) {
        if (via == NULL)
            return WINENT_OK; /* the input itself: read row for row beside GDAL */
        vsi_tiff *t = gtiff_target(dsname);
        if (t == NULL)
            return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: not a TIFF name the check can follow",
                              label);
        return read_source_tiff(w, ds, t, label, err);
    }
    if (driver != NULL && strcmp(driver, "VRT") == 0) {
        char **xml = gd()->GDALGetMetadata(ds, "xml:VRT");
        CPLXMLNode *root = xml != NULL && xml[0] != NULL ? gd()->CPLParseXMLString(xml[0]) : NULL;
        winent_status st = walk_xml(w, root, dsname, depth, err);
        if (root != NULL)
            gd()->CPLDestroyXMLNode(root);
        return st;
    }
    /* Any other driver: a TIFF among its files (a wrapper's measurement
     * files, a .msk beside it) is read whole as well. */
    char **files = gd()->GDALGetFileList(ds);
    winent_status st = WINENT_OK;
    for (char **f = files; f != NULL && *f != NULL && st == WINENT_OK; f++) {
        if (!is_tiff_file(*f))
            continue;
        vsi_tiff *t = calloc(1, sizeof *t);
        if (t == NULL || (t->file = strdup(*f)) == NULL) {
            free(t);
            st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
            break;
        }
        char flabel[4200];
        snprintf(flabel, sizeof flabel, "%s: its file %s", w->name, *f);
        st = read_whole(w, t, flabel, err);
    }
    gd()->CSLDestroy(files);
    return st;
}

winent_status winent_gdal_check_tiffs(const winent_source_opts *o, GDALDatasetH ds,
                                      const char *open_path, winent_source **verify,
                                      winent_err *err)
{
    *verify = NULL;
    tiff_walk w = {o, strcmp(o->path, "-") == 0 ? "standard input" : o->path, NULL, 0, 0};
    winent_status st = walk(&w, ds, open_path, NULL, 0, err);
    for (int i = 0; i < w.nseen; i++)
        free(w.seen[i]);
    free(w.seen);
    WINENT_TRY(st);
    const char *driver = gd()->GDALGetDriverShortName(gd()->GDALGetDatasetDriver(ds));
    if (driver == NULL || strcmp(driver, "GTiff") != 0)
        return WINENT_OK;
    vsi_tiff *t = gtiff_target(open_path);
    if (t == NULL)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: not a TIFF name the check can follow",
                          w.name);
    return open_vsi_source(o, t, verify, err);
}
