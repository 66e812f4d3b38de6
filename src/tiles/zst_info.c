/* Placeholder until the .zst reader lands. */
#include <stdio.h>
#include <string.h>

#include "winent.h"

winent_status winent_info_print(const char *path, FILE *out, char *msg, size_t msg_len)
{
    (void)out;
    snprintf(msg, msg_len, "%s: --info is not supported yet", path);
    return WINENT_ERR_USAGE;
}
