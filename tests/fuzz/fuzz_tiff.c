/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_tiff - the TIFF source on any bytes: the input is written to a file,
 * opened as a source (one decoding thread) and every row is read, in
 * batches as the pipeline's reader takes them. Any outcome but a crash, a
 * leak or undefined behaviour is fine: a corrupt file must be refused with
 * WINENT_ERR_INPUT or WINENT_ERR_USAGE, a good one read to the end.
 *
 * Small limits keep each input quick and within libFuzzer's 2 GiB: a
 * first look with libtiff skips images whose width times their height or
 * their block height (tile or strip rows) declares more than 2^26
 * samples (a 251-byte file declaring 2.7 G pixels in one strip, a
 * 345-byte one with tiles 65040 rows high: the source now reads them
 * within --mem, in slices or refused with what they need, tests/tiff/
 * test_tiff_known_bugs.sh and test_tiff_mem_bound.sh, but decoding them
 * takes the fuzzer's time), and images of more than 16 MiB are opened
 * (the header parsed and checked) but not read.
 */
#include <tiffio.h>

#include "fuzz_common.h"
#include "tiles/source.h"

#define MAX_DECLARED_SAMPLES ((uint64_t)1 << 26)
#define MAX_IMAGE_BYTES      ((uint64_t)16 << 20)
#define MAX_BATCH_BYTES      ((uint64_t)1 << 20)

/* Samples the first directory declares, for the whole image or for one
 * row of blocks, whichever is more; 0 when libtiff cannot say. */
static uint64_t declared_samples(const char *path)
{
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    TIFF *t = TIFFOpen(path, "r");
    uint32_t w = 0, h = 0, bh = 0;
    uint16_t spp = 1;
    if (t == NULL)
        return 0;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    if (TIFFIsTiled(t))
        TIFFGetField(t, TIFFTAG_TILELENGTH, &bh);
    else if (TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &bh) && bh > h)
        bh = h;
    TIFFClose(t);
    return (uint64_t)w * (bh > h ? bh : h) * spp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A TIFF is recognised by its first bytes; the rest goes to raw. */
    if (size < 8 || !((data[0] == 'I' && data[1] == 'I') || (data[0] == 'M' && data[1] == 'M')))
        return -1; /* not worth keeping in the corpus */
    const char *path = fuzz_file(data, size);
    if (path == NULL || declared_samples(path) > MAX_DECLARED_SAMPLES)
        return 0;
    winent_source_opts o;
    memset(&o, 0, sizeof o);
    o.path = path;
    o.band = 1;
    o.threads = 1;
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
    if (row * (uint64_t)info->height <= MAX_IMAGE_BYTES) {
        int batch = (int)(MAX_BATCH_BYTES / row);
        batch = batch < 1 ? 1 : batch > 16 ? 16 : batch;
        uint8_t *buf = malloc((size_t)(row * (uint64_t)batch));
        for (int y = 0; buf != NULL && y < info->height; y += batch) {
            int n = info->height - y < batch ? info->height - y : batch;
            if (winent_source_read(s, n, buf, &err) != WINENT_OK)
                break;
        }
        free(buf);
    }
    winent_source_free(s);
    return 0;
}
