/* SPDX-License-Identifier: BSD-3-Clause */
/* The output formats (sink_internal.h): one descriptor each, defined in
 * the format's own file, listed here in the order messages name them. A
 * new format is its file and one line below. */
#include <string.h>
#include <strings.h>

#include "sink_internal.h"

const winent_sink_format *const winent_sink_formats[] = {
    &winent_sink_format_zst,
    &winent_sink_format_tif,
    &winent_sink_format_raw,
    &winent_sink_format_zarr,
    NULL,
};

const winent_sink_format *winent_sink_format_find(winent_format f)
{
    for (const winent_sink_format *const *d = winent_sink_formats; *d; d++)
        if ((*d)->format == f)
            return *d;
    return NULL;
}

const winent_sink_format *winent_sink_format_of_name(const char *path)
{
    const char *ext = winent_sink_extension_of(path);
    for (const winent_sink_format *const *d = winent_sink_formats; *d; d++) {
        if ((*d)->unnamed && (strcmp(path, "-") == 0 || *ext == '\0'))
            return *d;
        for (const char *const *e = (*d)->extensions; e && *e; e++)
            if (strcasecmp(ext, *e) == 0)
                return *d;
    }
    return NULL;
}
