/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_gdal - the GDAL source on any bytes: the input is
 * written to a file and opened as a source, which GDAL reads (one decoding
 * thread); every row is read, in batches as the pipeline's reader takes
 * them. Any outcome but a crash, a leak or undefined behaviour is fine: a
 * file GDAL cannot read, or one shorter than its header declares, must be
 * refused with WINENT_ERR_INPUT or WINENT_ERR_USAGE and a message, a good
 * one read to the end.
 *
 * The bytes are one file (a VRT, a NetCDF, any format GDAL recognises by
 * its content), or, when they start with "ENVI", an ENVI header and its
 * samples: the header up to the first NUL byte goes to NAME.hdr, the rest
 * to NAME.
 *
 * Kept local and small: inputs naming other files or the network (/vsi,
 * http, /dev/, /proc/) are skipped (a VRT may name any path), as are
 * TIFFs (fuzz_tiff's); images of more than 2^22 pixels or 16 bands are
 * opened (header, sizes checked) but not read. GDAL's HTTP and PAM
 * side-files are turned off through its environment.
 */
#include "fuzz_common.h"
#include "tiles/source.h"

#define MAX_READ_PIXELS ((uint64_t)1 << 22)
#define MAX_BATCH_BYTES ((uint64_t)1 << 20)

static char hdr_path[4200];

static void remove_hdr(void)
{
    if (hdr_path[0])
        unlink(hdr_path);
}

/* 1 when `data` holds `word` (case-insensitive), anywhere. */
static int holds(const uint8_t *data, size_t size, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= size; i++) {
        size_t k = 0;
        while (k < n && (data[i + k] | 0x20) == (word[k] | 0x20))
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        once = 1;
        /* Nothing beside the file but its own .hdr; no network. */
        setenv("GDAL_PAM_ENABLED", "NO", 1);
        setenv("GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR", 1);
        setenv("GDAL_HTTP_TIMEOUT", "1", 1);
        setenv("CPL_VSIL_CURL_ALLOWED_EXTENSIONS", ".none", 1);
        setenv("GDAL_VRT_ENABLE_PYTHON", "NO", 1);
        atexit(remove_hdr);
    }
    if (size < 4 || (data[0] == 'I' && data[1] == 'I') || (data[0] == 'M' && data[1] == 'M'))
        return -1; /* TIFFs are fuzz_tiff's */
    static const char *const banned[] = {"/vsi", "http", "ftp:", "/dev/", "/proc/", "/sys/"};
    for (size_t i = 0; i < sizeof banned / sizeof *banned; i++)
        if (holds(data, size, banned[i]))
            return -1;
    const uint8_t *body = data;
    size_t nbody = size, nhdr = 0;
    const int envi = memcmp(data, "ENVI", 4) == 0;
    if (envi) {
        const uint8_t *nul = memchr(data, 0, size);
        nhdr = nul ? (size_t)(nul - data) : size;
        body = nul ? nul + 1 : data + size;
        nbody = size - nhdr - (nul ? 1 : 0);
    }
    const char *path = fuzz_file(body, nbody);
    if (path == NULL)
        return 0;
    snprintf(hdr_path, sizeof hdr_path, "%s.hdr", path);
    if (envi) {
        FILE *h = fopen(hdr_path, "wb");
        if (h == NULL)
            return 0;
        fwrite(data, 1, nhdr, h);
        fclose(h);
    } else {
        unlink(hdr_path);
    }
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
    if ((uint64_t)info->width * (uint64_t)info->height <= MAX_READ_PIXELS && info->bands <= 16) {
        int batch = (int)(MAX_BATCH_BYTES / row);
        batch = batch < 1 ? 1 : batch > 16 ? 16 : batch;
        uint8_t *buf = malloc((size_t)(row * (uint64_t)batch));
        for (int y = 0; buf != NULL && y < info->height; y += batch) {
            int n = info->height - y < batch ? info->height - y : batch;
            winent_status st = winent_source_read(s, n, buf, &err);
            if (st != WINENT_OK) {
                if (err.msg[0] == '\0')
                    abort(); /* a failed read says why */
                break;
            }
        }
        free(buf);
    }
    winent_source_free(s);
    return 0;
}
