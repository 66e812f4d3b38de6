/* SPDX-License-Identifier: BSD-3-Clause */
/* Files shorter than their headers demand, found before any pixel is read
 * (gdal_sizes.h). Some GDAL drivers read what lies past the end of such a
 * file as zeros and say nothing: ENVI (GDAL lets ENVI files be sparse),
 * classic NetCDF (the netCDF library pads), and the other raw layouts
 * where GDAL reads in one call. Their sizes are worked out here from what
 * the header declares. */
#define _LARGEFILE64_SOURCE 1 /* GDAL's VSIStatBufL is struct stat64 */
#include "gdal_sizes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static inline const winent_gdal_api *gd(void)
{
    return winent_gdal_api_get(NULL);
}

/* Size in bytes of the file `path` (any GDAL name), or -1. */
static int64_t file_size(const char *path)
{
    VSIStatBufL st;
    if (gd()->VSIStatL(path, &st) != 0 || !VSI_ISREG(st.st_mode))
        return -1;
    return (int64_t)st.st_size;
}

/* ---- Raw layouts ---------------------------------------------------------- */

/* Drivers whose pixels are raw samples of every band in the first file of
 * their file list, the data file (GDAL's RawDataset family, less those
 * that keep bands in files of their own, MFF, CPG, NDF, RRASTER, or list
 * their header first, EIR, SNODAS), with the bytes before the first
 * sample where their header is known to hold them (else 0: the check is
 * then a lower bound). */
static const char *const raw_drivers[] = {
    "ENVI", "EHdr", "ISCE",  "GTX",  "GenBin", "PAux", "ROI_PAC", "BT",    "LAN",
    "CTable2", "NTv2", "KRO", "GSC", "DIPEx", "DOQ1", "DOQ2", "LOSLAS", "ACE2", "PNM",
};

static int is_raw_driver(const char *d)
{
    for (size_t i = 0; d != NULL && i < sizeof raw_drivers / sizeof *raw_drivers; i++)
        if (strcmp(d, raw_drivers[i]) == 0)
            return 1;
    return 0;
}

/* EHdr's SKIPBYTES (bytes before the first sample) from its .hdr, or 0. */
static int64_t ehdr_skip(char **files)
{
    for (char **f = files; f != NULL && *f != NULL; f++) {
        size_t n = strlen(*f);
        if (n < 4 || strcasecmp(*f + n - 4, ".hdr") != 0)
            continue;
        VSILFILE *fp = gd()->VSIFOpenL(*f, "rb");
        if (fp == NULL)
            return 0;
        char buf[8192];
        size_t k = gd()->VSIFReadL(buf, 1, sizeof buf - 1, fp);
        gd()->VSIFCloseL(fp);
        buf[k] = '\0';
        for (char *line = strtok(buf, "\r\n"); line != NULL; line = strtok(NULL, "\r\n")) {
            while (*line == ' ' || *line == '\t')
                line++;
            if (strncasecmp(line, "SKIPBYTES", 9) == 0 && (line[9] == ' ' || line[9] == '\t'))
                return strtoll(line + 9, NULL, 10) > 0 ? strtoll(line + 9, NULL, 10) : 0;
        }
        return 0;
    }
    return 0;
}

/* The first delivered-looking row lost past `size` bytes, for the message:
 * band (1-based) and row of the sample at byte `size`. */
static void lost_row(const char *interleave, int64_t data, int64_t w, int64_t h, int64_t bands,
                     int64_t row_bytes, int *band, int64_t *row)
{
    int64_t q = data / (row_bytes > 0 ? row_bytes : 1); /* whole rows of one band there */
    if (interleave != NULL && strcasecmp(interleave, "BAND") == 0) {
        *band = (int)(q / h) + 1;
        *row = q % h;
    } else if (interleave != NULL && strcasecmp(interleave, "LINE") == 0) {
        *band = (int)(q % bands) + 1;
        *row = q / bands;
    } else { /* pixel interleaved: a row holds every band */
        *band = 1;
        *row = data / (row_bytes * bands > 0 ? row_bytes * bands : 1);
    }
    (void)w;
}

static winent_status check_raw(GDALDatasetH ds, const char *driver, const char *name,
                               char **files, winent_err *err)
{
    if (files == NULL || files[0] == NULL)
        return WINENT_OK;
    const int64_t w = gd()->GDALGetRasterXSize(ds), h = gd()->GDALGetRasterYSize(ds);
    const int64_t bands = gd()->GDALGetRasterCount(ds);
    if (w <= 0 || h <= 0 || bands <= 0)
        return WINENT_OK;
    GDALRasterBandH b = gd()->GDALGetRasterBand(ds, 1);
    int64_t bits = 8 * (int64_t)gd()->GDALGetDataTypeSizeBytes(gd()->GDALGetRasterDataType(b));
    const char *nbits = gd()->GDALGetMetadataItem(b, "NBITS", "IMAGE_STRUCTURE");
    if (nbits != NULL && atoi(nbits) > 0 && atoi(nbits) < bits)
        bits = atoi(nbits); /* packed samples: whole bytes per row at least */
    if (bits <= 0 || w > INT64_MAX / bits / h / bands)
        return WINENT_OK;
    int64_t offset = 0;
    const char *compressed = gd()->GDALGetMetadataItem(ds, "file_compression", "ENVI");
    if (compressed != NULL && atoi(compressed) != 0)
        return WINENT_OK; /* gzip: GDAL reads it through /vsigzip/, which fails on a short one */
    if (strcmp(driver, "ENVI") == 0) {
        const char *ho = gd()->GDALGetMetadataItem(ds, "header_offset", "ENVI");
        offset = ho != NULL && strtoll(ho, NULL, 10) > 0 ? strtoll(ho, NULL, 10) : 0;
    } else if (strcmp(driver, "EHdr") == 0) {
        offset = ehdr_skip(files);
    } else if (strcmp(driver, "GTX") == 0) {
        offset = 40; /* the GTX header */
    }
    const int64_t row_bytes = (w * bits + 7) / 8;
    const int64_t need = offset + (w * h * bands * bits) / 8;
    const int64_t have = file_size(files[0]);
    if (have < 0 || have >= need)
        return WINENT_OK;
    const char *interleave = gd()->GDALGetMetadataItem(ds, "INTERLEAVE", "IMAGE_STRUCTURE");
    int band = 1;
    int64_t row = 0;
    lost_row(interleave, have > offset ? have - offset : 0, w, h, bands, row_bytes, &band, &row);
    return WINENT_ERR(err, WINENT_ERR_INPUT,
                      "%s: %s%s holds %lld bytes where its header declares %lld (%lld x %lld, "
                      "%lld band%s from byte %lld): band %d is lost from row %lld on (a truncated "
                      "file)",
                      name, strcmp(name, files[0]) == 0 ? "it" : "its file ",
                      strcmp(name, files[0]) == 0 ? "" : files[0], (long long)have, (long long)need, (long long)w,
                      (long long)h, (long long)bands, bands == 1 ? "" : "s", (long long)offset,
                      band, (long long)row);
}

/* ---- Text grids ------------------------------------------------------------ */

/* Grids written as numbers in text: a file cut inside its last number
 * reads that number as another one (1234 as 12), without a word. */
static const char *const text_drivers[] = {"AAIGrid", "GSAG", "XYZ", "ZMap", "USGSDEM"};

static int is_text_driver(const char *d)
{
    for (size_t i = 0; d != NULL && i < sizeof text_drivers / sizeof *text_drivers; i++)
        if (strcmp(d, text_drivers[i]) == 0)
            return 1;
    return 0;
}

/* Every writer of these grids ends the file with a line end (USGS DEM
 * with the blanks that pad its records): a file whose last byte is not
 * white space ends inside a value, so it is cut short. */
static winent_status check_text(const char *name, char **files, winent_err *err)
{
    if (files == NULL || files[0] == NULL)
        return WINENT_OK;
    VSILFILE *fp = gd()->VSIFOpenL(files[0], "rb");
    if (fp == NULL)
        return WINENT_OK; /* reading it fails, and says why */
    unsigned char last = ' ';
    if (gd()->VSIFSeekL(fp, 0, SEEK_END) == 0) {
        vsi_l_offset size = gd()->VSIFTellL(fp);
        if (size > 0 && gd()->VSIFSeekL(fp, size - 1, SEEK_SET) == 0 &&
            gd()->VSIFReadL(&last, 1, 1, fp) != 1)
            last = ' ';
    }
    gd()->VSIFCloseL(fp);
    if (last == ' ' || last == '\t' || last == '\r' || last == '\n')
        return WINENT_OK;
    return WINENT_ERR(err, WINENT_ERR_INPUT,
                      "%s: %s%s ends inside a value (a whole grid ends with a line end): the "
                      "file is cut short, and its last value would read as another number",
                      name, strcmp(name, files[0]) == 0 ? "it" : "its file ",
                      strcmp(name, files[0]) == 0 ? "" : files[0]);
}

/* ---- Classic NetCDF (CDF-1, CDF-2, CDF-5) ---------------------------------- */

typedef struct cdf {
    const uint8_t *p;
    size_t n, at;
    int version; /* 1, 2 or 5 */
    int bad;     /* ran out of the bytes read, or met nonsense */
    int unsure;  /* past what is looked at here (dimensions, sizes): no verdict */
} cdf;

static uint64_t cdf_uint(cdf *c, int bytes)
{
    if (c->bad || c->n - c->at < (size_t)bytes) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | c->p[c->at++];
    return v;
}

/* NON_NEG: 8 bytes in CDF-5, else 4. */
static uint64_t cdf_count(cdf *c)
{
    return cdf_uint(c, c->version == 5 ? 8 : 4);
}

static void cdf_skip(cdf *c, uint64_t bytes)
{
    if (c->bad || bytes > c->n - c->at) {
        c->bad = 1;
        return;
    }
    c->at += (size_t)bytes;
}

static uint64_t cdf_pad4(uint64_t v)
{
    return (v + 3) & ~(uint64_t)3;
}

/* Bytes of an element of type `t`: the six classic types, and CDF-5's
 * five more; 0 for anything else. */
static int cdf_type_size(const cdf *c, uint64_t t)
{
    static const int sizes[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    if (c->version != 5 && t > 6)
        return 0;
    return t < sizeof sizes / sizeof *sizes ? sizes[t] : 0;
}

/* A name: its length, then the bytes padded to 4. */
static void cdf_name(cdf *c, char *out, size_t cap)
{
    uint64_t len = cdf_count(c);
    if (c->bad || len > c->n - c->at) {
        c->bad = 1;
        return;
    }
    size_t k = len < cap - 1 ? (size_t)len : cap - 1;
    memcpy(out, c->p + c->at, k);
    out[k] = '\0';
    cdf_skip(c, cdf_pad4(len));
}

/* A list's tag and count (ABSENT: 0 and 0), each element taking at least
 * `least` bytes: a count the bytes left cannot hold runs out (the netCDF
 * library would size a table from it first). */
static uint64_t cdf_list(cdf *c, uint32_t tag, uint64_t least)
{
    uint32_t t = (uint32_t)cdf_uint(c, 4);
    uint64_t n = cdf_count(c);
    if (t != tag && !(t == 0 && n == 0))
        c->bad = 1;
    if (!c->bad && t == tag && n > (c->n - c->at) / least)
        c->bad = 1;
    return t == tag && !c->bad ? n : 0;
}

static void cdf_attrs(cdf *c)
{
    uint64_t n = cdf_list(c, 0x0C, 12);
    char name[8];
    for (uint64_t i = 0; i < n && !c->bad; i++) {
        cdf_name(c, name, sizeof name);
        int sz = cdf_type_size(c, cdf_uint(c, 4));
        uint64_t k = cdf_count(c);
        if (sz == 0 || k > c->n)
            c->bad = 1;
        else
            cdf_skip(c, cdf_pad4(k * (uint64_t)sz));
    }
}

#define CDF_MAX_DIMS 1024

/* Bytes the header at `c` says the file holds, and the variable whose data
 * end there; 0 when the header cannot be read (no verdict). */
static uint64_t cdf_need(cdf *c, char *var, size_t cap)
{
    uint64_t numrecs = cdf_uint(c, c->version == 5 ? 8 : 4);
    const int streaming = c->version == 5 ? numrecs == UINT64_MAX : numrecs == 0xFFFFFFFFu;
    uint64_t ndims = cdf_list(c, 0x0A, 8);
    if (c->bad)
        return 0;
    if (ndims > CDF_MAX_DIMS) {
        c->unsure = 1;
        return 0;
    }
    uint64_t dims[CDF_MAX_DIMS];
    int64_t rec_dim = -1;
    char name[256];
    for (uint64_t i = 0; i < ndims && !c->bad; i++) {
        cdf_name(c, name, sizeof name);
        dims[i] = cdf_count(c);
        if (dims[i] == 0)
            rec_dim = (int64_t)i;
    }
    cdf_attrs(c);
    uint64_t nvars = cdf_list(c, 0x0B, 28);
    if (c->bad)
        return 0;
    /* Two passes over the variables: the record size needs them all. */
    const size_t vars_at = c->at;
    uint64_t recsize = 0, nrecvars = 0, need = 0;
    for (int pass = 0; pass < 2 && !c->bad; pass++) {
        c->at = vars_at;
        for (uint64_t v = 0; v < nvars && !c->bad; v++) {
            cdf_name(c, name, sizeof name);
            uint64_t nd = cdf_count(c);
            if (!c->bad && nd > (c->n - c->at) / 4) {
                c->bad = 1; /* more dimension ids than bytes */
                return 0;
            }
            if (nd > CDF_MAX_DIMS) {
                c->unsure = 1;
                return 0;
            }
            int is_rec = 0;
            uint64_t elems = 1;
            for (uint64_t d = 0; d < nd && !c->bad; d++) {
                uint64_t id = cdf_count(c);
                if (id >= ndims) {
                    c->bad = 1;
                    break;
                }
                if (d == 0 && (int64_t)id == rec_dim) {
                    is_rec = 1;
                    continue;
                }
                if (dims[id] != 0 && elems > UINT64_MAX / 16 / dims[id]) {
                    c->unsure = 1;
                    return 0;
                }
                elems *= dims[id];
            }
            cdf_attrs(c);
            int sz = cdf_type_size(c, cdf_uint(c, 4));
            (void)cdf_count(c); /* vsize: may be clipped for big variables; worked out below */
            uint64_t begin = cdf_uint(c, c->version == 1 ? 4 : 8);
            if (sz == 0)
                c->bad = 1; /* a type no NetCDF file has */
            if (c->bad)
                return 0;
            const uint64_t bytes = elems * (uint64_t)sz;
            if (pass == 0) {
                if (is_rec) {
                    recsize += cdf_pad4(bytes);
                    nrecvars++;
                }
                continue;
            }
            uint64_t end;
            if (!is_rec) {
                end = begin + bytes;
            } else {
                if (streaming || numrecs == 0)
                    continue;
                /* One record variable alone is not padded. */
                const uint64_t rs = nrecvars == 1 ? bytes : recsize;
                if (numrecs - 1 > (UINT64_MAX / 2 - begin) / (rs ? rs : 1))
                    return 0;
                end = begin + (numrecs - 1) * rs + bytes;
            }
            if (end > need) {
                need = end;
                snprintf(var, cap, "%s", name);
            }
        }
    }
    return c->bad ? 0 : need;
}

/* The classic NetCDF header of `path`: 1 when it parses, with the bytes the
 * file must hold in *need and the variable that ends there in `var`; -1
 * when it is corrupt (it declares more than the whole file holds, or
 * nonsense); 0 when there is no verdict (not classic NetCDF, or past what
 * is looked at here). The header is read in growing pieces, to 64 MiB. */
static int cdf_header(const char *path, uint64_t *need, char *var, size_t var_cap)
{
    VSILFILE *fp = gd()->VSIFOpenL(path, "rb");
    if (fp == NULL)
        return 0;
    int verdict = 0;
    size_t cap = 4096, n = 0;
    uint8_t *buf = NULL;
    for (;;) {
        uint8_t *nb = realloc(buf, cap);
        if (nb == NULL)
            break;
        buf = nb;
        gd()->VSIFSeekL(fp, 0, SEEK_SET);
        n = gd()->VSIFReadL(buf, 1, cap, fp);
        if (n < 4 || memcmp(buf, "CDF", 3) != 0 || (buf[3] != 1 && buf[3] != 2 && buf[3] != 5))
            break;
        cdf c = {buf, n, 4, buf[3], 0, 0};
        *need = cdf_need(&c, var, var_cap);
        if (c.unsure)
            break;
        if (!c.bad) {
            verdict = 1;
            break;
        }
        if (n < cap) { /* the whole file was read: it is the header that is wrong */
            verdict = -1;
            break;
        }
        if (cap >= ((size_t)64 << 20))
            break;
        cap *= 4;
    }
    free(buf);
    gd()->VSIFCloseL(fp);
    return verdict;
}

winent_status winent_gdal_check_netcdf_header(const char *path, const char *name,
                                              winent_err *err)
{
    uint64_t need = 0;
    char var[256] = "";
    if (cdf_header(path, &need, var, sizeof var) >= 0)
        return WINENT_OK;
    return WINENT_ERR(err, WINENT_ERR_INPUT,
                      "%s: its NetCDF header is corrupt (it declares more than the file's %lld "
                      "bytes hold, or values no NetCDF file has)",
                      name, (long long)file_size(path));
}

static winent_status check_netcdf(const char *name, char **files, winent_err *err)
{
    for (char **f = files; f != NULL && *f != NULL; f++) {
        uint64_t need = 0;
        char var[256] = "";
        if (cdf_header(*f, &need, var, sizeof var) <= 0)
            continue;
        const int64_t have = file_size(*f);
        if (need > 0 && have >= 0 && (uint64_t)have < need)
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: %s%s holds %lld bytes where its NetCDF header declares %llu "
                              "(variable '%s' ends there): its data past byte %lld are lost (a "
                              "truncated file)",
                              name, strcmp(name, *f) == 0 ? "it" : "its file ",
                              strcmp(name, *f) == 0 ? "" : *f, (long long)have,
                              (unsigned long long)need, var, (long long)have);
    }
    return WINENT_OK;
}

/* ---- A VRT's raw bands (VRTRawRasterBand) --------------------------------- */

/* A raw band of a VRT reads its file at ImageOffset + y * LineOffset + x *
 * PixelOffset; GDAL reads past the end of a short one as zeros. */
static winent_status check_vrt_raw(GDALDatasetH ds, const char *name, char **files,
                                   winent_err *err)
{
    char **xml = gd()->GDALGetMetadata(ds, "xml:VRT");
    if (xml == NULL || xml[0] == NULL)
        return WINENT_OK;
    CPLXMLNode *root = gd()->CPLParseXMLString(xml[0]);
    CPLXMLNode *vrt = root != NULL ? gd()->CPLGetXMLNode(root, "=VRTDataset") : NULL;
    const int64_t w = gd()->GDALGetRasterXSize(ds), h = gd()->GDALGetRasterYSize(ds);
    winent_status st = WINENT_OK;
    for (CPLXMLNode *n = vrt ? vrt->psChild : NULL; n != NULL && st == WINENT_OK; n = n->psNext) {
        if (n->eType != CXT_Element || strcmp(n->pszValue, "VRTRasterBand") != 0 ||
            strcmp(gd()->CPLGetXMLValue(n, "subClass", ""), "VRTRawRasterBand") != 0)
            continue;
        const char *src = gd()->CPLGetXMLValue(n, "SourceFilename", NULL);
        const int band = atoi(gd()->CPLGetXMLValue(n, "band", "0"));
        GDALRasterBandH b = band >= 1 && band <= gd()->GDALGetRasterCount(ds)
                                ? gd()->GDALGetRasterBand(ds, band)
                                : NULL;
        if (src == NULL || b == NULL || w <= 0 || h <= 0)
            continue;
        const int64_t size = gd()->GDALGetDataTypeSizeBytes(gd()->GDALGetRasterDataType(b));
        const int64_t off = strtoll(gd()->CPLGetXMLValue(n, "ImageOffset", "0"), NULL, 10);
        const char *po = gd()->CPLGetXMLValue(n, "PixelOffset", NULL);
        const char *lo = gd()->CPLGetXMLValue(n, "LineOffset", NULL);
        const int64_t pixel = po ? strtoll(po, NULL, 10) : size;
        const int64_t line = lo ? strtoll(lo, NULL, 10) : size * w;
        if (off < 0 || pixel < 0 || line <= 0 || size <= 0 || h > INT64_MAX / 4 / line ||
            w > INT64_MAX / 4 / (pixel + 1))
            continue; /* negative strides: no simple end to check */
        const int64_t need = off + (h - 1) * line + (w - 1) * pixel + size;
        /* A name relative to the VRT is relative to the VRT file's folder. */
        char path[4096];
        const int rel = atoi(gd()->CPLGetXMLValue(n, "SourceFilename.relativeToVRT", "0"));
        const char *slash = files != NULL && files[0] != NULL && files[0][0] != '<'
                                ? strrchr(files[0], '/')
                                : NULL;
        if (rel && src[0] != '/' && slash != NULL)
            snprintf(path, sizeof path, "%.*s/%s", (int)(slash - files[0]), files[0], src);
        else
            snprintf(path, sizeof path, "%s", src);
        const int64_t have = file_size(path);
        if (have >= 0 && have < need)
            st = WINENT_ERR(err, WINENT_ERR_INPUT,
                            "%s: its raw file %s holds %lld bytes where band %d needs %lld: the "
                            "band is lost from row %lld on (a truncated file)",
                            name, path, (long long)have, band, (long long)need,
                            (long long)(have > off ? (have - off) / line : 0));
    }
    if (root != NULL)
        gd()->CPLDestroyXMLNode(root);
    return st;
}

/* ---- The dataset, and the files a VRT reads ----------------------------- */

static winent_status check_dataset(GDALDatasetH ds, const char *name, int depth, winent_err *err);

/* Every file a VRT (or another dataset made of others) names that GDAL
 * recognises as one of the layouts above is checked as a dataset of its
 * own: a short source is as lost as a short input. */
static winent_status check_sources(char **files, const char *name, int depth, winent_err *err)
{
    static const char *const checked[] = {"netCDF", "VRT"};
    for (char **f = files; f != NULL && *f != NULL; f++) {
        GDALDriverH d = gd()->GDALIdentifyDriverEx(*f, GDAL_OF_RASTER, NULL, NULL);
        const char *dn = d != NULL ? gd()->GDALGetDriverShortName(d) : NULL;
        if (f == files && dn != NULL && strcmp(dn, "VRT") == 0)
            continue; /* the VRT itself */
        int wanted = is_raw_driver(dn) || is_text_driver(dn);
        for (size_t i = 0; dn != NULL && i < sizeof checked / sizeof *checked; i++)
            wanted |= strcmp(dn, checked[i]) == 0;
        if (!wanted)
            continue;
        GDALDatasetH src =
            gd()->GDALOpenEx(*f, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
        if (src == NULL)
            continue; /* GDAL reports what it cannot open when it reads it */
        winent_status st = check_dataset(src, name, depth + 1, err);
        gd()->GDALClose(src);
        if (st != WINENT_OK)
            return st;
    }
    return WINENT_OK;
}

static winent_status check_dataset(GDALDatasetH ds, const char *name, int depth, winent_err *err)
{
    const char *driver = gd()->GDALGetDriverShortName(gd()->GDALGetDatasetDriver(ds));
    if (driver == NULL || depth > 4)
        return WINENT_OK;
    char **files = gd()->GDALGetFileList(ds);
    winent_status st = WINENT_OK;
    if (is_raw_driver(driver))
        st = check_raw(ds, driver, name, files, err);
    else if (strcmp(driver, "netCDF") == 0)
        st = check_netcdf(name, files, err);
    else if (is_text_driver(driver))
        st = check_text(name, files, err);
    else if (strcmp(driver, "VRT") == 0) {
        st = check_vrt_raw(ds, name, files, err);
        if (st == WINENT_OK && files != NULL)
            st = check_sources(files, name, depth, err);
    }
    gd()->CSLDestroy(files);
    return st;
}

winent_status winent_gdal_check_sizes(GDALDatasetH ds, const char *name, winent_err *err)
{
    return check_dataset(ds, name, 0, err);
}
