/* Placeholder until the .zst sink lands. */
#include "sink_internal.h"

winent_status winent_sink_zst_open(winent_sink *s, winent_err *err)
{
    return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: .zst output is not supported yet", s->opts.path);
}
