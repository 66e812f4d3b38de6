/* SPDX-License-Identifier: BSD-3-Clause */
/* GDAL's messages, per thread, and the settings of every call into GDAL
 * (gdal_msgs.h). */
#include "gdal_msgs.h"

#include <stdio.h>
#include <string.h>

#include "gdal_api.h"

static inline const winent_gdal_api *gd(void)
{
    return winent_gdal_api_get(NULL);
}

/* ---- GDAL's messages, per thread --------------------------------------- */

typedef winent_gdal_msgs gdal_msgs;
#define MSGS_MAGIC 0x57474d53u

static void keep_message(gdal_msgs *m, const char *msg)
{
    snprintf(m->first, sizeof m->first, "%s", msg ? msg : "");
    /* One line: GDAL's messages may hold newlines. */
    for (char *c = m->first; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

static void CPL_STDCALL on_gdal_message(CPLErr cls, CPLErrorNum num, const char *msg)
{
    (void)num;
    gdal_msgs *m = gd()->CPLGetErrorHandlerUserData();
    if (m == NULL || cls == CE_None || cls == CE_Debug)
        return;
    if (cls >= CE_Failure) {
        if (m->failures++ == 0) {
            keep_message(m, msg);
            if (m->below[0]) /* the cause, as HDF5 gave it */
                snprintf(m->first + strlen(m->first), sizeof m->first - strlen(m->first),
                         " (HDF5: %s)", m->below);
        }
        m->below[0] = '\0';
        return;
    }
    m->below[0] = '\0';
    /* A network read that GDAL retries (/vsicurl/, /vsis3/: "HTTP error
     * code: 503 ... Retrying again in 2.0 secs") loses nothing: a retry
     * that fails in the end is an error of its own. */
    if (msg != NULL && (strstr(msg, "Retrying") != NULL || strstr(msg, "retrying") != NULL))
        return;
    if (m->warnings++ == 0 && m->failures == 0)
        keep_message(m, msg);
}

/* HDF5's error stack, instead of being printed: its innermost entry (the
 * cause: "incorrect metadata checksum after all read attempts") kept for
 * GDAL's next failure message on this thread, whose handler's user data
 * is the gdal_msgs (HDF5 calls come from GDAL, under our handler). */
typedef struct h5_error { /* H5E_error2_t, HDF5 1.10 and later */
    int64_t cls_id, maj_num, min_num;
    unsigned line;
    const char *func_name, *file_name, *desc;
} h5_error;

static int h5_innermost(unsigned n, const void *desc, void *client)
{
    const h5_error *e = desc;
    gdal_msgs *m = client;
    if (n == 0 && e->desc != NULL) {
        snprintf(m->below, sizeof m->below, "%s", e->desc);
        for (char *c = m->below; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
    }
    return 0;
}

static int h5_on_error(int64_t estack, void *client)
{
    (void)client;
    gdal_msgs *m = gd()->CPLGetErrorHandlerUserData();
    if (m != NULL && m->magic == MSGS_MAGIC && gd()->H5Ewalk2 != NULL)
        gd()->H5Ewalk2(estack, 0 /* H5E_WALK_UPWARD: the innermost first */, h5_innermost, m);
    return 0;
}

/* GDAL's HTTP reads (/vsicurl/, /vsis3/, a URL) have no time limit of
 * their own: a server that accepts and never answers holds a read forever.
 * Unless the user set any of GDAL's own options for it (environment,
 * GDAL's configuration file, CPLSetConfigOption), a connection must open
 * within 30 s and a transfer must not stay under 1 byte/s for 60 s; a
 * failed read is then an input error like any other. */
static const char *const http_user_options[] = {
    "GDAL_HTTP_CONNECTTIMEOUT", "GDAL_HTTP_TIMEOUT",   "GDAL_HTTP_LOW_SPEED_TIME",
    "GDAL_HTTP_LOW_SPEED_LIMIT", "GDAL_HTTP_MAX_RETRY",
};
static const char *const http_limits[][2] = {
    {"GDAL_HTTP_CONNECTTIMEOUT", "30"},
    {"GDAL_HTTP_LOW_SPEED_TIME", "60"},
    {"GDAL_HTTP_LOW_SPEED_LIMIT", "1"},
};

static int http_user_set(void)
{
    for (size_t i = 0; i < sizeof http_user_options / sizeof *http_user_options; i++)
        if (gd()->CPLGetConfigOption(http_user_options[i], NULL) != NULL)
            return 1;
    return 0;
}

/* Calls into GDAL on this thread report to `m` from here to msgs_end,
 * and decode on this thread alone (GDAL_NUM_THREADS, a thread-local
 * setting): the job's workers are the one thread budget. The HTTP time
 * limits above are thread-local settings too (GDAL reads them when it
 * opens a connection, on the calling thread): nothing changes for other
 * users of GDAL in the process. */
void winent_gdal_msgs_begin(winent_gdal_msgs *m)
{
    memset(m, 0, sizeof *m);
    m->magic = MSGS_MAGIC;
    if (gd()->h5_per_thread && gd()->H5Eset_auto2)
        gd()->H5Eset_auto2(0 /* H5E_DEFAULT: this thread's stack */, h5_on_error, NULL);
    gd()->CPLPushErrorHandlerEx(on_gdal_message, m);
    gd()->CPLSetThreadLocalConfigOption("GDAL_NUM_THREADS", "1");
    /* No file but the outputs is written: /vsigzip/ would otherwise save
     * its index as NAME.gz.properties beside the input when the handle
     * closes, replacing any file of that name. */
    gd()->CPLSetThreadLocalConfigOption("CPL_VSIL_GZIP_WRITE_PROPERTIES", "NO");
    if (!http_user_set()) {
        m->http_limits = 1;
        for (size_t i = 0; i < sizeof http_limits / sizeof *http_limits; i++)
            gd()->CPLSetThreadLocalConfigOption(http_limits[i][0], http_limits[i][1]);
    }
}

void winent_gdal_msgs_end(void)
{
    /* Silent again, not ours: HDF5 prints "infinite loop closing library"
     * at exit wherever a function is set. */
    if (gd()->h5_per_thread && gd()->H5Eset_auto2)
        gd()->H5Eset_auto2(0, NULL, NULL);
    const gdal_msgs *m = gd()->CPLGetErrorHandlerUserData();
    if (m != NULL && m->http_limits)
        for (size_t i = 0; i < sizeof http_limits / sizeof *http_limits; i++)
            gd()->CPLSetThreadLocalConfigOption(http_limits[i][0], NULL);
    gd()->CPLSetThreadLocalConfigOption("GDAL_NUM_THREADS", NULL);
    gd()->CPLSetThreadLocalConfigOption("CPL_VSIL_GZIP_WRITE_PROPERTIES", NULL);
    gd()->CPLPopErrorHandler();
}

