/* EPSG code -> ESRI WKT through PROJ's database, when built with PROJ. */
#include "crs_wkt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef WINENT_HAVE_PROJ
#include <proj.h>

static void silent(void *data, int level, const char *msg)
{
    (void)data, (void)level, (void)msg; /* a library never prints */
}

char *winent_crs_esri_wkt(int epsg)
{
    char code[16], *out = NULL;
    if (epsg <= 0)
        return NULL;
    PJ_CONTEXT *ctx = proj_context_create();
    if (ctx == NULL)
        return NULL;
    proj_log_func(ctx, NULL, silent);
    snprintf(code, sizeof code, "%d", epsg);
    PJ *crs = proj_create_from_database(ctx, "EPSG", code, PJ_CATEGORY_CRS, 0, NULL);
    if (crs != NULL) {
        const char *wkt = proj_as_wkt(ctx, crs, PJ_WKT1_ESRI, NULL);
        if (wkt != NULL)
            out = strdup(wkt);
        proj_destroy(crs);
    }
    proj_context_destroy(ctx);
    return out;
}

int winent_crs_have_proj(void)
{
    return 1;
}

#else

char *winent_crs_esri_wkt(int epsg)
{
    (void)epsg;
    return NULL;
}

int winent_crs_have_proj(void)
{
    return 0;
}

#endif
