/* SPDX-License-Identifier: BSD-3-Clause */
/* Libraries opened at first use (dynlib.h). */
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void say(char *why, size_t len, const char *what)
{
    if (why != NULL && len > 0)
        snprintf(why, len, "%s", what && *what ? what : "unknown error");
}

void *winent_dynlib_open(const char *path, char *why, size_t len)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h != NULL)
        return h;
    char first[512];
    say(first, sizeof first, dlerror());
    const char *base = strrchr(path, '/');
    if (base != NULL && (h = dlopen(base + 1, RTLD_NOW | RTLD_LOCAL)) != NULL)
        return h;
    say(why, len, first);
    return NULL;
}

void *winent_dynlib_sym(void *lib, const char *name, char *why, size_t len)
{
    dlerror();
    void *f = dlsym(lib, name);
    if (f == NULL) {
        const char *e = dlerror();
        if (why != NULL && len > 0)
            snprintf(why, len, "%s", e ? e : name);
    }
    return f;
}
