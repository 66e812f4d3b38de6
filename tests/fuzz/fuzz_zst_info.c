/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_zst_info - the .zst reader behind --info on any bytes: the input is
 * written to a file and winent_info_print describes it (to /dev/null) or
 * refuses it with WINENT_ERR_INPUT and a message.
 */
#include "fuzz_common.h"
#include "winent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
        return 0;
    const char *path = fuzz_file(data, size);
    if (path == NULL)
        return 0;
    winent_error err;
    winent_status st = winent_info_print(path, devnull, &err);
    if (st != err.status || (st != WINENT_OK && (st != WINENT_ERR_INPUT || err.message[0] == '\0')))
        abort(); /* refusals are input errors that say why */
    return 0;
}
