/* SPDX-License-Identifier: BSD-3-Clause */
/* GDAL's functions, looked up at first use (gdal_api.h). */
#include "gdal_api.h"

#include <pthread.h>
#include <stdio.h>

#include "dynlib.h"

/* Written once under pthread_once, then only read: the process's one view
 * of the libgdal it loaded (a library is loaded once per process). */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static winent_gdal_api api;
static int loaded;
static char load_error[600];

static void load(void)
{
    char why[512];
    void *lib = winent_dynlib_open(WINENT_GDAL_LIB, why, sizeof why);
    if (lib == NULL) {
        snprintf(load_error, sizeof load_error, "GDAL (%s) cannot be loaded: %s", WINENT_GDAL_LIB,
                 why);
        return;
    }
#define WINENT_GDAL_LOAD(f)                                                                        \
    if ((*(void **)&api.f = winent_dynlib_sym(lib, #f, why, sizeof why)) == NULL) {                \
        snprintf(load_error, sizeof load_error, "GDAL (%s) lacks %s: %s", WINENT_GDAL_LIB, #f,     \
                 why);                                                                             \
        return;                                                                                    \
    }
    WINENT_GDAL_FUNCTIONS(WINENT_GDAL_LOAD)
#undef WINENT_GDAL_LOAD
    /* HDF5 (optional): its error stack is read from 1.10 on, where hid_t
     * is 64 bits, the layout gdal_api.h declares. */
    int (*version)(unsigned *, unsigned *, unsigned *) = NULL;
    *(void **)&version = winent_dynlib_sym(lib, "H5get_libversion", NULL, 0);
    unsigned major = 0, minor = 0, release = 0;
    if (version != NULL && version(&major, &minor, &release) >= 0 &&
        (major > 1 || (major == 1 && minor >= 10))) {
        *(void **)&api.H5Eset_auto2 = winent_dynlib_sym(lib, "H5Eset_auto2", NULL, 0);
        *(void **)&api.H5Ewalk2 = winent_dynlib_sym(lib, "H5Ewalk2", NULL, 0);
        int (*threadsafe)(_Bool *) = NULL;
        *(void **)&threadsafe = winent_dynlib_sym(lib, "H5is_library_threadsafe", NULL, 0);
        _Bool ts = 0;
        api.h5_per_thread = threadsafe != NULL && threadsafe(&ts) >= 0 && ts;
    }
    loaded = 1;
}

const winent_gdal_api *winent_gdal_api_get(const char **why)
{
    pthread_once(&load_once, load);
    if (why != NULL)
        *why = loaded ? NULL : load_error;
    return loaded ? &api : NULL;
}
