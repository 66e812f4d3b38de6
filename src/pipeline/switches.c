/* SPDX-License-Identifier: BSD-3-Clause */
#include "switches.h"

#include <stdlib.h>

void winent_switches_read(winent_switches *s)
{
    const char *v = getenv("WINENT_TRACE");
    s->trace = v && *v ? v : NULL;
    v = getenv("WINENT_PREVIEW_AFTER");
    s->preview_after = v && *v == '1';
    v = getenv("WINENT_STAGE_MEMORY");
    s->stage_memory = v && *v == '1';
}
