/* SPDX-License-Identifier: BSD-3-Clause */
/* EPSG code -> ESRI WKT through PROJ's database, when built with PROJ. */
#include "crs_wkt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef WINENT_HAVE_PROJ
#include <proj.h>
#include <pthread.h>

#include "dynlib.h"

/* PROJ's functions, opened at first use (dynlib.h), not linked: only
 * --sidecar's ENVI header asks for a CRS. Written once under pthread_once,
 * then only read (a library is loaded once per process). */
#define PROJ_FUNCTIONS(X)                                                                          \
    X(proj_context_create)                                                                         \
    X(proj_context_destroy)                                                                        \
    X(proj_log_func)                                                                               \
    X(proj_create_from_database)                                                                   \
    X(proj_as_wkt)                                                                                 \
    X(proj_destroy)
static struct {
#define PROJ_SLOT(f) __typeof__(&f) f;
    PROJ_FUNCTIONS(PROJ_SLOT)
#undef PROJ_SLOT
} pj;
static int pj_loaded;
static pthread_once_t pj_once = PTHREAD_ONCE_INIT;

static void pj_load(void)
{
    void *lib = winent_dynlib_open(WINENT_PROJ_LIB, NULL, 0);
    if (lib == NULL)
        return;
#define PROJ_LOAD(f)                                                                               \
    if ((*(void **)&pj.f = winent_dynlib_sym(lib, #f, NULL, 0)) == NULL)                           \
        return;
    PROJ_FUNCTIONS(PROJ_LOAD)
#undef PROJ_LOAD
    pj_loaded = 1;
}

static void silent(void *data, int level, const char *msg)
{
    (void)data, (void)level, (void)msg; /* a library never prints */
}

char *winent_crs_esri_wkt(int epsg)
{
    char code[16], *out = NULL;
    if (epsg <= 0 || !winent_crs_have_proj())
        return NULL;
    PJ_CONTEXT *ctx = pj.proj_context_create();
    if (ctx == NULL)
        return NULL;
    pj.proj_log_func(ctx, NULL, silent);
    snprintf(code, sizeof code, "%d", epsg);
    PJ *crs = pj.proj_create_from_database(ctx, "EPSG", code, PJ_CATEGORY_CRS, 0, NULL);
    if (crs != NULL) {
        const char *wkt = pj.proj_as_wkt(ctx, crs, PJ_WKT1_ESRI, NULL);
        if (wkt != NULL)
            out = strdup(wkt);
        pj.proj_destroy(crs);
    }
    pj.proj_context_destroy(ctx);
    return out;
}

int winent_crs_have_proj(void)
{
    pthread_once(&pj_once, pj_load);
    return pj_loaded;
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
