/* SPDX-License-Identifier: BSD-3-Clause */
/* The names GDAL looks up beside a data file (sidecar_names.h). */
#include "sidecar_names.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

size_t winent_sidecar_stem(const char *base)
{
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? (size_t)(dot - base) : strlen(base);
}

int winent_sidecar_names(const char *base, winent_sidecar_name *out, int max)
{
    /* After the whole name: PAM, overviews (GDAL's F.ovr, HFA's F.aux),
     * mask, headers of raw formats (ENVI's F.hdr, ER Mapper's F.ers,
     * ROI_PAC's F.rsc, ISCE's F.xml), a raster attribute table. */
    static const char *const of_name[] = {
        ".aux.xml", ".msk", ".ovr", ".hdr",         ".xml",         ".prj",     ".wld", ".rpb",
        ".ers",     ".rsc", ".aux", ".ovr.aux.xml", ".msk.aux.xml", ".vat.dbf", ".tab"};
    /* After the stem: ENVI and EHdr headers, .prj, world files, RPCs,
     * statistics (.sta, .stx), colour tables, HFA overviews (.rrd, .aux),
     * MapInfo .tab, DigitalGlobe .imd and .pvl, PDS and ISIS labels. */
    static const char *const of_stem[] = {".aux.xml", ".hdr", ".prj", ".wld", ".tfw",
                                          ".rpb",     "_rpc.txt", ".sta", ".stx", ".ovr",
                                          ".clr",     ".aux", ".rrd", ".imd", ".pvl",
                                          ".tab",     ".ers", ".lbl"};
    const size_t n = strlen(base), stem = winent_sidecar_stem(base);
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
        /* World files as GDAL derives them (GDALReadWorldFile with no
         * extension given): .tif -> .tfw and .tifw, .bil -> .blw and .bilw. */
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

int winent_sidecar_match(const char *base, const char *name, int *which)
{
    winent_sidecar_name names[WINENT_SIDECAR_NAMES_MAX];
    const int count = winent_sidecar_names(base, names, WINENT_SIDECAR_NAMES_MAX);
    const size_t len = strlen(name);
    for (int i = 0; i < count; i++) {
        const winent_sidecar_name *c = &names[i];
        if (len == c->keep + strlen(c->suffix) && strncasecmp(name, base, c->keep) == 0 &&
            strcasecmp(name + c->keep, c->suffix) == 0) {
            if (which)
                *which = i;
            return 1;
        }
    }
    return 0;
}
