/* SPDX-License-Identifier: BSD-3-Clause */
/* A TIFF where GDAL is built in (docs/SPEC.md, "Masks"): libtiff reads it,
 * unless the file may carry a mask that GDAL applies (an alpha
 * ExtraSample, a mask IFD, a PATH.msk beside it) or WINENT_TIFF_READER=gdal
 * asks: then GDAL reads it, with a libtiff source beside it
 * (winent_source.verify) that decodes every block first, so both readers
 * of a TIFF fail alike. Above source_tiff.c and source_gdal.c; the
 * registry lists it instead of the plain TIFF format. */
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"

static size_t tiff_gdal_sniff_bytes(const winent_source_probe *p)
{
    return winent_source_format_tiff.sniff_bytes(p);
}

static int tiff_gdal_identify(const winent_source_probe *p, char *what, size_t cap)
{
    return winent_source_format_tiff.identify(p, what, cap);
}

static winent_status tiff_gdal_open(const winent_source_opts *o, const winent_source_input *in,
                                    winent_source *s, winent_err *err)
{
    /* Benchmarks and tests: WINENT_TIFF_READER=gdal|libtiff forces one. */
    const char *force = getenv("WINENT_TIFF_READER");
    int gdal = force != NULL && strcmp(force, "gdal") == 0;
    if (!gdal && !(force != NULL && strcmp(force, "libtiff") == 0))
        gdal = winent_source_tiff_mask_hint(in->open_path, in->file);
    if (!gdal)
        return winent_source_tiff_open(o, in->open_path, s, err);
    /* libtiff checks the file as strictly as ever (a block index that
     * lost entries, blocks past the end, which GDAL would read as empty)
     * and decodes every block too, before GDAL, so a block that libtiff
     * refuses (a stream corrupt past its pixels, a bad checksum) is the
     * same error through either reader; GDAL's decode, with its mask,
     * makes the map. */
    winent_source *check = calloc(1, sizeof *check);
    if (check == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    check->spool_fd = -1;
    winent_status st = winent_source_tiff_open(o, in->open_path, check, err);
    if (st != WINENT_OK) {
        winent_source_free(check);
        return st;
    }
    s->verify = check;
    return winent_source_gdal_open(o, in->open_path, 1, s, err);
}

const winent_source_format winent_source_format_tiff_gdal = {
    .name = "tiff",
    .sniff_bytes = tiff_gdal_sniff_bytes,
    .identify = tiff_gdal_identify,
    .needs_file = 1,
    .open = tiff_gdal_open,
};
