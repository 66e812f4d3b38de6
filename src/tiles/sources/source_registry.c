/* SPDX-License-Identifier: BSD-3-Clause */
/* The input formats (source_internal.h): one descriptor each, defined in
 * the format's own file, listed here in the order the dispatch asks them
 * (docs/SPEC.md, section 3): a TIFF by its first bytes; then, built with
 * GDAL, whatever GDAL recognises (unless --size and --dtype make it raw);
 * then raw samples. A new format is its file and one line below. */
#include <stddef.h>

#include "source_internal.h"

const winent_source_format *const winent_source_formats[] = {
#ifdef WINENT_HAVE_GDAL
    &winent_source_format_tiff_gdal, /* libtiff, or GDAL where a mask may apply */
    &winent_source_format_gdal,
#else
    &winent_source_format_tiff,
#endif
    &winent_source_format_raw,
    NULL,
};
