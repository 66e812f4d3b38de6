/* Placeholder until the TIFF source lands. */
#include "source_internal.h"

winent_status winent_source_tiff_open(const winent_source_opts *o, winent_source *s,
                                      winent_err *err)
{
    (void)s;
    return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: TIFF input is not supported yet", o->path);
}
