/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_common.h - shared by the libFuzzer harnesses of tests/fuzz: the
 * entry point's declaration and a scratch file that holds the current
 * input for code that reads files by name.
 */
#ifndef WINENT_FUZZ_COMMON_H
#define WINENT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_path[4096];
static int fuzz_fd = -1;

static inline void fuzz_remove_file(void)
{
    if (fuzz_fd >= 0) {
        close(fuzz_fd);
        unlink(fuzz_path);
    }
}

/* The file that holds `data` now: created once per process in TMPDIR (and
 * removed at exit), rewritten for every input. NULL when it cannot be. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    if (fuzz_fd < 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_path, sizeof fuzz_path, "%s/winent-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        fuzz_fd = mkstemp(fuzz_path);
        if (fuzz_fd < 0)
            return NULL;
        atexit(fuzz_remove_file);
    }
    if (ftruncate(fuzz_fd, 0) != 0)
        return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t k = pwrite(fuzz_fd, data + done, size - done, (off_t)done);
        if (k <= 0)
            return NULL;
        done += (size_t)k;
    }
    return fuzz_path;
}

#endif
