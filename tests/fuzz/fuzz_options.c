/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_options - the command line parser (src/cli/options.c) on argv made
 * from the input: the bytes split at each NUL into arguments, each in its
 * own allocation of its exact size (so a read past an argument's end is
 * caught), after argv[0] = "winent-stream".
 *
 * What cli_parse accepts must be what the library accepts: the window,
 * dtype, range and memory checks below abort on a value that slipped
 * through.
 */
#include <math.h>

#include "cli/options.h"
#include "fuzz_common.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = strdup("winent-stream");
    size_t start = 0;
    for (size_t i = 0; i <= size && argc <= MAX_ARGS; i++) {
        if (i == size || data[i] == '\0') {
            if (i == size && i == start && argc > 1)
                break; /* a final NUL ends the last argument */
            char *a = malloc(i - start + 1);
            if (a == NULL)
                break;
            memcpy(a, data + start, i - start);
            a[i - start] = '\0';
            argv[argc++] = a;
            start = i + 1;
        }
    }
    argv[argc] = NULL;
    cli_opts c;
    char msg[WINENT_MSG_LEN];
    msg[0] = '\0';
    winent_status st = cli_parse(argc, argv, &c, msg, sizeof msg);
    if (st != WINENT_OK) {
        if (st != WINENT_ERR_USAGE || msg[0] == '\0' || strlen(msg) >= sizeof msg)
            abort(); /* usage errors, with a message */
    } else if (!c.help && !c.version && c.info_path == NULL) {
        const winent_compute_opts *o = &c.job.compute;
        if (c.job.input == NULL || c.job.output == NULL)
            abort();
        /* Sides 1..255 of either parity (an even side's centre at its
         * half, as scikit-image's); a disk's odd and square. */
        if (o->kx < 1 || o->kx > 255 || o->ky < 1 || o->ky > 255 ||
            (o->disk && (o->kx != o->ky || o->kx % 2 == 0)))
            abort();
        if ((unsigned)o->dtype >= WINENT_DTYPE_COUNT || (unsigned)o->base > WINENT_BASE_10)
            abort();
        /* --range auto leaves the range to the job (the band's statistics). */
        if (o->bins > 0 && !c.job.range_auto &&
            !(isfinite(o->range_lo) && isfinite(o->range_hi) && o->range_hi > o->range_lo))
            abort();
        /* --mem: 0 (not given: automatic) or at least 1M. */
        if ((c.job.mem_bytes != 0 && c.job.mem_bytes < ((uint64_t)1 << 20)) ||
            c.job.threads < 0 || c.job.bands < 1 ||
            c.job.band < 1)
            abort();
        /* Lists of windows and bands: every item valid, none twice. */
        for (int i = 0; i < c.job.nwindow_list; i++) {
            int kx = c.job.window_list[2 * i], ky = c.job.window_list[2 * i + 1];
            int disk = c.job.window_disk != NULL && c.job.window_disk[i];
            if (kx < 1 || kx > 255 || ky < 1 || ky > 255 ||
                (disk && (kx != ky || kx % 2 == 0)))
                abort();
            /* A disk and the square of its diameter are two windows. */
            for (int j = 0; j < i; j++)
                if (c.job.window_list[2 * j] == kx && c.job.window_list[2 * j + 1] == ky &&
                    (c.job.window_disk != NULL && c.job.window_disk[j]) == disk)
                    abort();
        }
        for (int i = 0; i < c.job.nband_list; i++) {
            if (c.job.band_list[i] < 1 || c.job.band_list[i] > 65535)
                abort();
            for (int j = 0; j < i; j++)
                if (c.job.band_list[j] == c.job.band_list[i])
                    abort();
        }
    }
    cli_free(&c);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return 0;
}
