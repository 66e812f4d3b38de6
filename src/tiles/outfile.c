#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

winent_status winent_outfile_open(winent_outfile *of, const char *path, winent_err *err)
{
    memset(of, 0, sizeof *of);
    of->fd = -1;
    if (strcmp(path, "-") == 0) {
        of->fd = STDOUT_FILENO;
        return WINENT_OK;
    }
    size_t n = strlen(path);
    of->final_path = malloc(n + 1);
    of->temp_path = malloc(n + 32);
    if (of->final_path == NULL || of->temp_path == NULL) {
        winent_outfile_abort(of);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    memcpy(of->final_path, path, n + 1);
    /* Beside the final name, so that the rename stays on one file system. */
    snprintf(of->temp_path, n + 32, "%s.tmp-XXXXXX", path);
    of->fd = mkstemp(of->temp_path);
    if (of->fd < 0) {
        int e = errno;
        free(of->temp_path);
        of->temp_path = NULL;
        winent_outfile_abort(of);
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot create: %s", path, strerror(e));
    }
    /* mkstemp makes 0600; outputs get the usual permissions. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(of->fd, 0666 & ~mask);
    return WINENT_OK;
}

static const char *display_name(const winent_outfile *of)
{
    return of->final_path ? of->final_path : "standard output";
}

winent_status winent_outfile_write(winent_outfile *of, const void *buf, size_t n, winent_err *err)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(of->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", display_name(of),
                              strerror(errno));
        }
        if (w == 0)
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed", display_name(of));
        p += w;
        n -= (size_t)w;
        of->written += (uint64_t)w;
    }
    return WINENT_OK;
}

winent_status winent_outfile_commit(winent_outfile *of, winent_err *err)
{
    if (of->final_path == NULL)
        return WINENT_OK; /* standard output: nothing to rename */
    if (of->fd >= 0) {
        int rc = close(of->fd);
        of->fd = -1;
        if (rc != 0) {
            WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: write failed: %s", display_name(of),
                       strerror(errno));
            winent_outfile_abort(of);
            return WINENT_ERR_OUTPUT;
        }
    }
    if (rename(of->temp_path, of->final_path) != 0) {
        int e = errno;
        winent_outfile_abort(of);
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "cannot rename the output into place: %s",
                          strerror(e));
    }
    free(of->temp_path);
    of->temp_path = NULL;
    free(of->final_path);
    of->final_path = NULL;
    return WINENT_OK;
}

void winent_outfile_abort(winent_outfile *of)
{
    if (of->fd >= 0 && of->fd != STDOUT_FILENO)
        close(of->fd);
    of->fd = -1;
    if (of->temp_path) {
        unlink(of->temp_path);
        free(of->temp_path);
        of->temp_path = NULL;
    }
    free(of->final_path);
    of->final_path = NULL;
}
