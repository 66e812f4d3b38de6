/* SPDX-License-Identifier: BSD-3-Clause */
/* The files a job reads and writes, held apart (file_guard.h). */
#include "file_guard.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "outfile.h"
#include "sidecar_names.h"

typedef struct guard_file {
    char *name;     /* owned: as given, for messages */
    char *what;     /* owned: which output (writes only) */
    char *canon;    /* owned: a new output's canonical name (folder resolved), or NULL */
    int exists;     /* st is valid */
    struct stat st; /* symbolic links followed */
} guard_file;

typedef struct guard_list {
    guard_file *f; /* owned */
    int n, cap;
} guard_list;

/* A folder and name where a file read lives (a file reached through a
 * symbolic link lives beside the link and beside its target): GDAL looks
 * up the file's sidecars there (sidecar_names.h). */
typedef struct guard_home {
    char *path;      /* owned: the file's name there, for messages */
    const char *base; /* in `path`: the name without folder */
    struct stat dir; /* the folder */
    int read;        /* the file read: an index into reads */
} guard_home;

struct winent_file_guard {
    const char *input; /* borrowed: the input as the user named it */
    guard_list reads, writes;
    guard_home *homes; /* owned, nhomes of them */
    int nhomes, homes_cap;
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static guard_file *list_add(guard_list *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        guard_file *f = realloc(l->f, sizeof *f * (size_t)cap);
        if (f == NULL)
            return NULL;
        l->f = f;
        l->cap = cap;
    }
    guard_file *f = &l->f[l->n++];
    memset(f, 0, sizeof *f);
    return f;
}

static void list_free(guard_list *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->f[i].name);
        free(l->f[i].what);
        free(l->f[i].canon);
    }
    free(l->f);
}

winent_status winent_file_guard_create(const char *input, winent_file_guard **out, winent_err *err)
{
    *out = calloc(1, sizeof **out);
    if (*out == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    (*out)->input = input ? input : "-";
    return WINENT_OK;
}

void winent_file_guard_free(winent_file_guard *g)
{
    if (g == NULL)
        return;
    list_free(&g->reads);
    list_free(&g->writes);
    for (int i = 0; i < g->nhomes; i++)
        free(g->homes[i].path);
    free(g->homes);
    free(g);
}

static int same_inode(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The folder of `path` (".": none named), stat'ed into `dir`; its name
 * without folder in *base (borrowed from `path`). 0, or -1 where the
 * folder cannot be stat'ed. */
static int folder_of(const char *path, struct stat *dir, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    char *d = slash ? dup_n(path, slash == path ? 1 : (size_t)(slash - path)) : dup_n(".", 1);
    int r = d && stat(d, dir) == 0 ? 0 : -1;
    free(d);
    return r;
}

static int add_home(winent_file_guard *g, const char *path, int read)
{
    struct stat dir;
    const char *base;
    if (folder_of(path, &dir, &base) != 0 || *base == '\0')
        return 0;
    for (int i = 0; i < g->nhomes; i++)
        if (same_inode(&g->homes[i].dir, &dir) && strcmp(g->homes[i].base, base) == 0)
            return 0;
    if (g->nhomes == g->homes_cap) {
        int cap = g->homes_cap ? 2 * g->homes_cap : 8;
        guard_home *h = realloc(g->homes, sizeof *h * (size_t)cap);
        if (h == NULL)
            return -1;
        g->homes = h;
        g->homes_cap = cap;
    }
    guard_home *h = &g->homes[g->nhomes];
    if ((h->path = dup_n(path, strlen(path))) == NULL)
        return -1;
    h->base = h->path + (base - path);
    h->dir = dir;
    h->read = read;
    g->nhomes++;
    return 0;
}

/* The homes of the regular file `path` read (reads.f[read]): beside the
 * name, and beside what a symbolic link on the way leads to. */
static int add_homes(winent_file_guard *g, const char *path, int read)
{
    if (add_home(g, path, read) != 0)
        return -1;
    char *real = realpath(path, NULL);
    int r = real && strcmp(real, path) != 0 ? add_home(g, real, read) : 0;
    free(real);
    return r;
}

/* Add the existing file `name` (its first `n` bytes) as read, once per
 * inode (a folder too, unless `no_folder`), and where GDAL opens it as a
 * dataset (`dataset`: not a source of bytes behind /vsizip/, /vsisparse/,
 * ...) the places of its sidecars; 1 when it exists, 0 when not, -1 out
 * of memory. */
static int add_read(winent_file_guard *g, const char *name, size_t n, int no_folder, int dataset)
{
    char *copy = dup_n(name, n);
    if (copy == NULL)
        return -1;
    struct stat st;
    if (stat(copy, &st) != 0 || (no_folder && S_ISDIR(st.st_mode))) {
        free(copy);
        return 0;
    }
    int at = 0;
    while (at < g->reads.n && !same_inode(&g->reads.f[at].st, &st))
        at++;
    guard_file *f = at < g->reads.n ? NULL : list_add(&g->reads);
    if (at == g->reads.n && f == NULL) {
        free(copy);
        return -1;
    }
    int r = dataset && S_ISREG(st.st_mode) ? add_homes(g, copy, at) : 0;
    if (f == NULL) {
        free(copy);
        return r < 0 ? -1 : 1;
    }
    f->name = copy;
    f->exists = 1;
    f->st = st;
    return r < 0 ? -1 : 1;
}

/* GDAL's virtual file systems that read another file of this machine
 * (an archive, a compressed file, a part of a file): the file follows
 * their prefix. Network and memory ones (/vsicurl/, /vsis3/, /vsimem/)
 * name no local file. */
static const char *const local_vsi[] = {"/vsizip/",   "/vsitar/",    "/vsigzip/",
                                        "/vsi7z/",    "/vsirar/",    "/vsisubfile/",
                                        "/vsicrypt/", "/vsicached?", "/vsisparse/"};

/* The part of GDAL name `p` after its virtual file system prefixes and
 * options (/vsisubfile/OFF_SIZE,PATH; /vsizip/{PATH}/member; nested
 * prefixes), or NULL when it names no local file. */
static const char *strip_vsi(const char *p)
{
    while (strncmp(p, "/vsi", 4) == 0) {
        const char *next = NULL;
        for (size_t k = 0; k < sizeof local_vsi / sizeof *local_vsi; k++)
            if (strncmp(p, local_vsi[k], strlen(local_vsi[k])) == 0)
                next = p + strlen(local_vsi[k]);
        if (next == NULL)
            return NULL;
        if (strncmp(p, "/vsisubfile/", 12) == 0 || strncmp(p, "/vsicrypt/", 10) == 0) {
            /* Options first, up to the comma before the file. */
            const char *c = strchr(next, ',');
            if (c == NULL)
                return NULL;
            next = c + 1;
        } else if (strncmp(p, "/vsicached?", 11) == 0) {
            const char *c = strstr(next, "/vsi");
            if (c == NULL)
                return NULL;
            next = c;
        }
        p = next;
    }
    return p;
}

/* The local files a GDAL name stands for: the longest part of each
 * candidate (the name, and what follows each ':' of it, quotes and braces
 * dropped) ending at a '/', ':', '"' or '}' that is an existing file, or a
 * folder where the name ends it whole (ZARR:"z.zarr":/array, ZARR:z.zarr:
 * a dataset that is a folder, read whole); a folder cut at a '/', or a
 * URL's //host, is no answer ("WMS:http://tmp/x" is not the folder "/"
 * nor /tmp). */
static int add_gdal_name(winent_file_guard *g, const char *name)
{
    const char *p = strip_vsi(name);
    if (p == NULL)
        return 0;
    for (const char *c = p; c != NULL; c = strchr(c, ':')) {
        if (*c == ':')
            c++;
        while (*c == '"' || *c == '{')
            c++;
        size_t len = strlen(c);
        for (size_t k = len; k > 0; k--) {
            if (k < len && c[k] != '/' && c[k] != ':' && c[k] != '"' && c[k] != '}')
                continue;
            const int whole = (k == len || c[k] == '"' || c[k] == ':' || c[k] == '}') &&
                              !(k == 1 && c[0] == '/') && strncmp(c, "//", 2) != 0;
            int r = add_read(g, c, k, !whole, p == name);
            if (r < 0)
                return -1;
            if (r > 0)
                break;
        }
        if (*c == '\0')
            break;
    }
    return 0;
}

static int add_name(winent_file_guard *g, const char *path, int depth);

/* XML's five entities in `t` (n bytes) decoded, into a new string. */
static char *xml_text(const char *t, size_t n)
{
    static const char *const ent[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
    char *out = malloc(n + 1), *o = out;
    for (size_t i = 0; out && i < n;) {
        size_t k = 0;
        while (k < 5 &&
               !(n - i >= strlen(ent[k][0]) && !strncmp(t + i, ent[k][0], strlen(ent[k][0]))))
            k++;
        *o++ = k < 5 ? ent[k][1][0] : t[i];
        i += k < 5 ? strlen(ent[k][0]) : 1;
    }
    if (out)
        *o = '\0';
    return out;
}

/* /vsisparse/F.xml: the files its <SubfileRegion>s take bytes from
 * (<Filename relative="1">, relative to F.xml's folder), as read. */
static int add_sparse_sources(winent_file_guard *g, const char *path, int depth)
{
    const char *xml = strncmp(path, "/vsisparse/", 11) == 0 ? path + 11 : NULL;
    FILE *f = xml ? fopen(xml, "rb") : NULL;
    if (f == NULL)
        return 0;
    enum { MAX = 1 << 20 }; /* GDAL's own sparse files are a few KiB */
    char *text = malloc(MAX + 1);
    size_t n = text ? fread(text, 1, MAX, f) : 0;
    fclose(f);
    if (text == NULL)
        return -1;
    text[n] = '\0';
    const char *slash = strrchr(xml, '/');
    const size_t dir = slash ? (size_t)(slash - xml) + 1 : 0;
    int rc = 0;
    for (const char *p = strstr(text, "<Filename"); p && rc == 0; p = strstr(p, "<Filename")) {
        const char *open_end = strchr(p, '>'), *close = strstr(p, "</Filename>");
        if (open_end == NULL || close == NULL || close < open_end)
            break;
        char *attrs = dup_n(p, (size_t)(open_end - p));
        char *name = xml_text(open_end + 1, (size_t)(close - open_end - 1));
        char *full = NULL;
        if (attrs && name) {
            const int relative = strstr(attrs, "relative=\"1\"") || strstr(attrs, "relative='1'");
            full = malloc(dir + strlen(name) + 1);
            if (full) {
                memcpy(full, xml, relative ? dir : 0);
                strcpy(full + (relative ? dir : 0), name);
            }
        }
        rc = full ? add_name(g, full, depth + 1) : -1;
        free(attrs);
        free(name);
        free(full);
        p = close;
    }
    free(text);
    return rc;
}

/* /vsigzip/F: GDAL reads F's index from F.properties when there is one. */
static int add_gzip_index(winent_file_guard *g, const char *path)
{
    const char *p = strncmp(path, "/vsigzip/", 9) == 0 ? strip_vsi(path) : NULL;
    if (p == NULL)
        return 0;
    size_t n = strlen(p);
    char *index = malloc(n + sizeof ".properties");
    if (index == NULL)
        return -1;
    memcpy(index, p, n);
    memcpy(index + n, ".properties", sizeof ".properties");
    int r = add_read(g, index, strlen(index), 1, 0);
    free(index);
    return r < 0 ? -1 : 0;
}

/* The files behind the name `path` (depth: sparse files within sparse
 * files); 0, or -1 out of memory. */
static int add_name(winent_file_guard *g, const char *path, int depth)
{
    if (depth > 8)
        return 0;
    /* /vsistdin/ (with its ?options) reads standard input, whatever it is. */
    if (strncmp(path, "/vsistdin", 9) == 0 && (path[9] == '/' || path[9] == '?'))
        return add_read(g, "/proc/self/fd/0", strlen("/proc/self/fd/0"), 0, 0) < 0 ? -1 : 0;
    int r = add_read(g, path, strlen(path), 0, depth == 0);
    if (r == 0 && (strncmp(path, "/vsi", 4) == 0 || strchr(path, ':') != NULL))
        r = add_gdal_name(g, path);
    if (r >= 0)
        r = add_gzip_index(g, path);
    if (r >= 0)
        r = add_sparse_sources(g, path, depth);
    return r < 0 ? -1 : 0;
}

winent_status winent_file_guard_read(winent_file_guard *g, const char *path, winent_err *err)
{
    if (add_name(g, path, 0) < 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    return WINENT_OK;
}

/* A new name with its folder resolved: "/real/folder/base"; NULL when the
 * folder cannot be resolved. */
static char *canonical_new_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? dup_n(path, slash == path ? 1 : (size_t)(slash - path)) : dup_n(".", 1);
    if (dir == NULL)
        return NULL;
    char *real = realpath(dir, NULL);
    free(dir);
    if (real == NULL)
        return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(real) + strlen(base) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", real, base);
    free(real);
    return out;
}

/* The folder read (a dataset that is a folder: a Zarr, an ESRI grid, a
 * .SAFE) that holds the output `target` at any depth, or NULL. */
static const guard_file *inside_folder_read(const winent_file_guard *g, const char *target)
{
    int any = 0;
    for (int i = 0; i < g->reads.n; i++)
        any = any || S_ISDIR(g->reads.f[i].st.st_mode);
    if (!any)
        return NULL;
    const char *slash = strrchr(target, '/');
    char *dir =
        slash ? dup_n(target, slash == target ? 1 : (size_t)(slash - target)) : dup_n(".", 1);
    char *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    const guard_file *found = NULL;
    for (char *end = real; real != NULL && found == NULL && end != NULL;) {
        struct stat st;
        if (stat(real, &st) == 0)
            for (int i = 0; i < g->reads.n && found == NULL; i++)
                if (S_ISDIR(g->reads.f[i].st.st_mode) && same_inode(&g->reads.f[i].st, &st))
                    found = &g->reads.f[i];
        end = strrchr(real, '/');
        if (end == NULL || end == real)
            break;
        *end = '\0';
    }
    free(real);
    return found;
}

static winent_status refuse_read(const winent_file_guard *g, const guard_file *w,
                                 const guard_file *r, winent_err *err)
{
    if (r == &g->reads.f[0] && strcmp(r->name, g->input) == 0) {
        if (strcmp(w->name, g->input) == 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE, "%s '%s' is the input: give another name",
                              w->what, w->name);
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s '%s' is the input '%s' (the same file): give another name", w->what,
                          w->name, g->input);
    }
    const char *input = strcmp(g->input, "-") == 0 ? "standard input" : g->input;
    if (strcmp(r->name, "/proc/self/fd/0") == 0)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s '%s' is the file on standard input: give another name", w->what,
                          w->name);
    if (strcmp(w->name, r->name) == 0)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s '%s' is a file read with the input '%s': give another name", w->what,
                          w->name, input);
    return WINENT_ERR(err, WINENT_ERR_USAGE,
                      "%s '%s' is '%s', a file read with the input '%s': give another name",
                      w->what, w->name, r->name, input);
}

/* WINENT_ERR_USAGE where the new output `path` (of `w`) would be, in
 * GDAL's eyes, a sidecar of a file read: a name GDAL looks up beside it,
 * whatever its letter case (sidecar_names.h). Once written, GDAL would
 * take it for the file's header, PAM, world file or overviews, and the
 * user's dataset would read differently or not at all. */
static winent_status refuse_shadow(const winent_file_guard *g, const guard_file *w,
                                   const char *path, winent_err *err)
{
    struct stat dir;
    const char *base;
    if (path == NULL || folder_of(path, &dir, &base) != 0)
        return WINENT_OK;
    for (int i = 0; i < g->nhomes; i++) {
        const guard_home *h = &g->homes[i];
        int which;
        if (!same_inode(&h->dir, &dir) || !winent_sidecar_match(h->base, base, &which))
            continue;
        winent_sidecar_name names[WINENT_SIDECAR_NAMES_MAX];
        winent_sidecar_names(h->base, names, WINENT_SIDECAR_NAMES_MAX);
        const guard_file *r = &g->reads.f[h->read];
        const char *input = strcmp(g->input, "-") == 0 ? "standard input" : g->input;
        if (h->read == 0 && strcmp(r->name, g->input) == 0 && strcmp(h->path, g->input) == 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "%s '%s' would be GDAL's '%.*s%s', a sidecar of the input '%s' "
                              "(GDAL looks it up in any letter case): give another name",
                              w->what, w->name, (int)names[which].keep, h->base,
                              names[which].suffix, h->path);
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s '%s' would be GDAL's '%.*s%s', a sidecar of '%s', read with the "
                          "input '%s' (GDAL looks it up in any letter case): give another name",
                          w->what, w->name, (int)names[which].keep, h->base, names[which].suffix,
                          h->path, input);
    }
    return WINENT_OK;
}

winent_status winent_file_guard_write(winent_file_guard *g, const char *path, const char *what,
                                      winent_err *err)
{
    winent_outfile_probe probe;
    char *final = NULL;
    WINENT_TRY(winent_outfile_target(path, &probe, &final, err));
    guard_file *w = list_add(&g->writes);
    if (w == NULL) {
        free(final);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    w->name = dup_n(path, strlen(path));
    w->what = dup_n(what, strlen(what));
    w->exists = probe.exists;
    w->st = probe.st;
    if (!probe.exists && !probe.in_place)
        w->canon = canonical_new_name(final ? final : path);
    const guard_file *folder = probe.in_place ? NULL : inside_folder_read(g, final ? final : path);
    if (w->name == NULL || w->what == NULL) {
        free(final);
        g->writes.n--;
        free(w->name);
        free(w->what);
        free(w->canon);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    /* Writing a terminal, /dev/null or a socket that is also read harms
     * nothing; a file, a disk or a pipe would be overwritten or fed back
     * into the input. */
    const int harmless = w->exists && (S_ISCHR(w->st.st_mode) || S_ISSOCK(w->st.st_mode));
    winent_status st = WINENT_OK;
    if (folder != NULL)
        st = WINENT_ERR(err, WINENT_ERR_USAGE,
                        "%s '%s' is inside '%s', a folder read with the input '%s': give a name "
                        "outside it",
                        w->what, w->name, folder->name,
                        strcmp(g->input, "-") == 0 ? "standard input" : g->input);
    for (int i = 0; i < g->reads.n && st == WINENT_OK && w->exists && !harmless; i++)
        if (same_inode(&g->reads.f[i].st, &w->st))
            st = refuse_read(g, w, &g->reads.f[i], err);
    if (st == WINENT_OK && !probe.in_place)
        st = refuse_shadow(g, w, path, err);
    if (st == WINENT_OK && !probe.in_place && final && strcmp(final, path) != 0)
        st = refuse_shadow(g, w, final, err);
    free(final);
    for (int i = 0; i + 1 < g->writes.n && st == WINENT_OK; i++) {
        const guard_file *o = &g->writes.f[i];
        int same = w->exists && o->exists ? same_inode(&o->st, &w->st) && !S_ISCHR(w->st.st_mode)
                   : !w->exists && !o->exists
                       ? strcmp(o->name, w->name) == 0 ||
                             (o->canon && w->canon && strcmp(o->canon, w->canon) == 0)
                       : 0;
        if (same)
            st = WINENT_ERR(err, WINENT_ERR_USAGE,
                            "%s '%s' and %s '%s' are the same file: give them different names",
                            o->what, o->name, w->what, w->name);
    }
    return st;
}
