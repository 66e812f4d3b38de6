/* SPDX-License-Identifier: BSD-3-Clause */
/* What every input format shares, below the formats and their registry
 * (source_internal.h): the files a source reads, the bands it delivers,
 * a read of a descriptor that a stop flag interrupts, and freeing a
 * source whatever its format. Nothing here knows which formats there are. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_internal.h"

int winent_source_add_file(winent_source *s, const char *name)
{
    for (int i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i], name) == 0)
            return 0;
    if (s->nfiles == s->files_cap) {
        int cap = s->files_cap ? 2 * s->files_cap : 16;
        char **f = realloc(s->files, sizeof *f * (size_t)cap);
        if (f == NULL)
            return -1;
        s->files = f;
        s->files_cap = cap;
    }
    if ((s->files[s->nfiles] = strdup(name)) == NULL)
        return -1;
    s->nfiles++;
    return 0;
}

winent_status winent_source_select(const winent_source_opts *o, int count, const char *name,
                                   winent_source *s, winent_err *err)
{
    int n = o->band_all ? count : o->nband_list > 0 ? o->nband_list : 1;
    free(s->bands);
    s->nbands_read = 0;
    s->bands = calloc((size_t)(n > 0 ? n : 1), sizeof *s->bands);
    if (s->bands == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int k = 0; k < n; k++) {
        int b = o->band_all         ? k + 1
                : o->nband_list > 0 ? o->band_list[k]
                : o->band > 0       ? o->band
                                    : 1;
        if (b < 1 || b > count)
            return WINENT_ERR(err, WINENT_ERR_USAGE, "--band %d: %s has %d band%s", b, name, count,
                              count == 1 ? "" : "s");
        s->bands[k].band = b;
    }
    s->nbands_read = n;
    return WINENT_OK;
}

long winent_source_read_fd(int fd, void *dst, size_t n, const volatile int *stop)
{
    size_t got = 0;
    char *d = dst;
    while (got < n) {
        if (stop != NULL) {
            if (__atomic_load_n(stop, __ATOMIC_RELAXED))
                return -2;
            struct pollfd p = {fd, POLLIN, 0};
            int r = poll(&p, 1, 100);
            if (r == 0 || (r < 0 && errno == EINTR))
                continue;
        }
        ssize_t k = read(fd, d + got, n - got);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (long)got;
}

void winent_source_free(winent_source *s)
{
    if (s == NULL)
        return;
    if (s->ops && s->ops->free_impl)
        s->ops->free_impl(s->impl);
    winent_source_free(s->verify);
    if (s->spool_fd >= 0)
        close(s->spool_fd);
    for (int i = 0; i < s->nfiles; i++)
        free(s->files[i]);
    free(s->files);
    free(s->bands);
    free(s);
}
