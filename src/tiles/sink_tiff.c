/* Placeholder until the GeoTIFF sink lands. */
#include "sink_internal.h"

winent_status winent_sink_tiff_open(winent_sink *s, winent_err *err)
{
    return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: TIFF output is not supported yet", s->opts.path);
}
