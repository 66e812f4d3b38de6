/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_gdal_doors - a TIFF through every GDAL door (docs/SPEC.md section 3,
 * "Every door to a TIFF"): the input's first byte picks the door, the rest
 * is the TIFF. The TIFF is read directly (libtiff) and through the door
 * (GDAL, with the libtiff reader beside it over GDAL's VSI layer), every
 * row of band 1, and:
 *
 *   - any outcome but a crash, a leak or undefined behaviour is fine for
 *     either, as in fuzz_tiff and fuzz_gdal, but a failure must say why;
 *   - a TIFF that the direct path refuses must not be read to the end
 *     through the door (abort): the door's verdict is the file's.
 *
 * The doors (first byte modulo 7): GTIFF_DIR:1:, GTIFF_DIR:2: (the second
 * directory, when the file has one), vrt://...?bands=1 (a VRT over the
 * file's band 1), a VRT file naming it, /vsizip/ (a stored member of a zip written here),
 * /vsigzip/ (a .gz written here), /vsisubfile/ (the TIFF after 37 other
 * bytes). Images of more than 2^22 pixels are opened but not read.
 */
#include <zlib.h>

#include "fuzz_common.h"
#include "tiles/source.h"

#define MAX_READ_PIXELS ((uint64_t)1 << 22)
#define MAX_BATCH_BYTES ((uint64_t)1 << 20)
#define DOORS 7

static char side[4200]; /* the door's own file (zip, gz, box, vrt), or "" */

static void remove_side(void)
{
    if (side[0])
        unlink(side);
}

/* Open `path` and read band 1 to the end: 1 when every row was read, 0
 * when it was refused (with a message). */
static int read_all(const char *path)
{
    winent_source_opts o;
    memset(&o, 0, sizeof o);
    o.path = path;
    o.band = 1;
    o.threads = 1;
    o.mem_bytes = (uint64_t)64 << 20;
    winent_err err;
    winent_err_clear(&err);
    winent_source *s = NULL;
    if (winent_source_open(&o, &s, &err) != WINENT_OK) {
        if (s != NULL || err.status == WINENT_OK || err.msg[0] == '\0')
            abort(); /* a failure must leave no source and say why */
        return 0;
    }
    const winent_source_info *info = winent_source_get_info(s);
    const uint64_t ss = winent_dtype_size(info->dtype);
    const uint64_t row = (uint64_t)info->width * ss;
    if (info->width < 1 || info->height < 1 || ss == 0)
        abort(); /* an opened source has a size */
    int whole = 0;
    if ((uint64_t)info->width * (uint64_t)info->height <= MAX_READ_PIXELS) {
        int batch = (int)(MAX_BATCH_BYTES / row);
        batch = batch < 1 ? 1 : batch > 16 ? 16 : batch;
        uint8_t *buf = malloc((size_t)(row * (uint64_t)batch));
        whole = buf != NULL;
        for (int y = 0; buf != NULL && y < info->height; y += batch) {
            int n = info->height - y < batch ? info->height - y : batch;
            if (winent_source_read(s, n, buf, &err) != WINENT_OK) {
                if (err.msg[0] == '\0')
                    abort(); /* a failed read says why */
                whole = 0;
                break;
            }
        }
        free(buf);
    }
    winent_source_free(s);
    return whole;
}

static void put16(FILE *f, unsigned v)
{
    fputc((int)(v & 0xff), f);
    fputc((int)((v >> 8) & 0xff), f);
}

static void put32(FILE *f, uint32_t v)
{
    put16(f, v & 0xffff);
    put16(f, v >> 16);
}

/* A zip of one stored member "t.tif" holding the TIFF. */
static int write_zip(const char *name, const uint8_t *tif, size_t n)
{
    FILE *f = fopen(name, "wb");
    if (f == NULL)
        return -1;
    const uint32_t crc = (uint32_t)crc32(0L, tif, (uInt)n);
    /* local header */
    put32(f, 0x04034b50);
    put16(f, 20), put16(f, 0), put16(f, 0), put16(f, 0), put16(f, 0);
    put32(f, crc), put32(f, (uint32_t)n), put32(f, (uint32_t)n);
    put16(f, 5), put16(f, 0);
    fwrite("t.tif", 1, 5, f);
    fwrite(tif, 1, n, f);
    const long central = ftell(f);
    /* central directory */
    put32(f, 0x02014b50);
    put16(f, 20), put16(f, 20), put16(f, 0), put16(f, 0), put16(f, 0), put16(f, 0);
    put32(f, crc), put32(f, (uint32_t)n), put32(f, (uint32_t)n);
    put16(f, 5), put16(f, 0), put16(f, 0), put16(f, 0), put16(f, 0);
    put32(f, 0), put32(f, 0);
    fwrite("t.tif", 1, 5, f);
    const long end = ftell(f);
    /* end of central directory */
    put32(f, 0x06054b50);
    put16(f, 0), put16(f, 0), put16(f, 1), put16(f, 1);
    put32(f, (uint32_t)(end - central)), put32(f, (uint32_t)central);
    put16(f, 0);
    return fclose(f) == 0 ? 0 : -1;
}

static int write_gz(const char *name, const uint8_t *tif, size_t n)
{
    gzFile g = gzopen(name, "wb");
    if (g == NULL)
        return -1;
    int ok = n == 0 || gzwrite(g, tif, (unsigned)n) == (int)n;
    return gzclose(g) == Z_OK && ok ? 0 : -1;
}

static int write_box(const char *name, const uint8_t *tif, size_t n)
{
    FILE *f = fopen(name, "wb");
    if (f == NULL)
        return -1;
    static const uint8_t pad[37] = {0xee};
    fwrite(pad, 1, sizeof pad, f);
    fwrite(tif, 1, n, f);
    fwrite(pad, 1, 5, f);
    return fclose(f) == 0 ? 0 : -1;
}

static int write_vrt(const char *name, const char *tif)
{
    FILE *f = fopen(name, "wb");
    if (f == NULL)
        return -1;
    /* The VRT names the TIFF; GDAL takes its size from the source when
     * the VRT's own is that of the source: the harness does not know it,
     * so it nests a vrt:// of the file, whose size GDAL knows. */
    fprintf(f,
            "<VRTDataset rasterXSize=\"1\" rasterYSize=\"1\"><VRTRasterBand dataType=\"Byte\" "
            "band=\"1\"><SimpleSource><SourceFilename>%s</SourceFilename><SourceBand>1"
            "</SourceBand></SimpleSource></VRTRasterBand></VRTDataset>\n",
            tif);
    return fclose(f) == 0 ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        once = 1;
        setenv("GDAL_PAM_ENABLED", "NO", 1);
        setenv("GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR", 1);
        setenv("CPL_VSIL_CURL_ALLOWED_EXTENSIONS", ".none", 1);
        atexit(remove_side);
    }
    if (size < 9)
        return -1;
    const int door = data[0] % DOORS;
    const uint8_t *tif = data + 1;
    const size_t n = size - 1;
    const char *path = fuzz_file(tif, n);
    if (path == NULL)
        return 0;
    /* The direct path's verdict first (libtiff; GDAL where a mask may apply). */
    const int direct = read_all(path);
    remove_side();
    side[0] = '\0';
    char name[4400];
    int made = 0;
    switch (door) {
    case 0: snprintf(name, sizeof name, "GTIFF_DIR:1:%s", path); break;
    case 1: snprintf(name, sizeof name, "GTIFF_DIR:2:%s", path); break;
    /* vrt:// of band 1, the band read: a VRT of every band of a TIFF of
     * thousands of samples a pixel costs GDAL time quadratic in them
     * (VRTDataset::AddBand), GDAL's own, not the door's verdict. */
    case 2: snprintf(name, sizeof name, "vrt://%s?bands=1", path); break;
    case 3:
        snprintf(side, sizeof side, "%s.vrt", path);
        snprintf(name, sizeof name, "vrt://%s?bands=1", path);
        made = write_vrt(side, name);
        snprintf(name, sizeof name, "%s", side);
        break;
    case 4:
        snprintf(side, sizeof side, "%s.zip", path);
        made = write_zip(side, tif, n);
        snprintf(name, sizeof name, "/vsizip/%s/t.tif", side);
        break;
    case 5:
        snprintf(side, sizeof side, "%s.gz", path);
        made = write_gz(side, tif, n);
        snprintf(name, sizeof name, "/vsigzip/%s", side);
        break;
    default:
        snprintf(side, sizeof side, "%s.box", path);
        made = write_box(side, tif, n);
        snprintf(name, sizeof name, "/vsisubfile/37_%zu,%s", n, side);
        break;
    }
    if (made != 0)
        return 0;
    const int through = read_all(name);
    /* GTIFF_DIR:2: reads another image; a one-pixel VRT reads a corner:
     * only the doors that read the same image whole are held to the
     * direct verdict. */
    if (through && !direct && door != 1 && door != 3)
        abort(); /* a door read what the file itself refuses */
    return 0;
}
