/* SPDX-License-Identifier: BSD-3-Clause */
/* The linked libraries' versions, asked at run time (libversions.h). */
#include "libversions.h"

#include <png.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>
#include <zlib.h>
#include <zstd.h>
#ifdef WINENT_HAVE_GDAL
#include "sources/gdal_api.h"
#endif

static void set(winent_lib_version *v, const char *name, const char *version)
{
    v->name = name;
    snprintf(v->version, sizeof v->version, "%s", version && *version ? version : "?");
}

/* TIFFGetVersion() is "LIBTIFF, Version 4.5.0\nCopyright ...": the
 * number after "Version ". */
static void tiff_version(winent_lib_version *v)
{
    const char *s = TIFFGetVersion(), *k = s ? strstr(s, "Version ") : NULL;
    v->name = "libtiff";
    if (k == NULL) {
        snprintf(v->version, sizeof v->version, "?");
        return;
    }
    k += strlen("Version ");
    size_t n = strcspn(k, " \n\r\t");
    if (n == 0 || n >= sizeof v->version)
        n = n == 0 ? 0 : sizeof v->version - 1;
    memcpy(v->version, k, n);
    v->version[n] = '\0';
    if (n == 0)
        snprintf(v->version, sizeof v->version, "?");
}

int winent_lib_versions(winent_lib_version *out, int max)
{
    winent_lib_version all[5];
    int n = 0;
    set(&all[n++], "zstd", ZSTD_versionString());
    tiff_version(&all[n++]);
    set(&all[n++], "zlib", zlibVersion());
    set(&all[n++], "libpng", png_get_libpng_ver(NULL));
#ifdef WINENT_HAVE_GDAL
    /* Loads GDAL (gdal_api.h), which no job reading TIFF or raw does. */
    const winent_gdal_api *gd = winent_gdal_api_get(NULL);
    set(&all[n++], "GDAL", gd ? gd->GDALVersionInfo("RELEASE_NAME") : "not loadable");
#endif
    if (n > max)
        n = max;
    memcpy(out, all, sizeof *out * (size_t)(n > 0 ? n : 0));
    return n > 0 ? n : 0;
}
