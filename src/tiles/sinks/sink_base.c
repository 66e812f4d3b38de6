/* SPDX-License-Identifier: BSD-3-Clause */
/* What every output format shares, below the formats and their registry
 * (sink_internal.h): the maps of an output, their sample type and names,
 * the checks of an output name that know no format, and the memory of a
 * zstd context. Nothing here knows which formats there are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink_internal.h"

const char *winent_sink_extension_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot + 1 : "";
}

int winent_sink_nmaps(const winent_sink_opts *o)
{
    return o->nmaps > 1 && o->maps ? o->nmaps : 1;
}

winent_overview_rule winent_sink_overview_rule(const winent_sink_opts *o, int m)
{
    const winent_compute_opts *c = winent_sink_nmaps(o) > 1 ? o->maps[m].compute : o->compute;
    return c ? winent_measure_overview_rule(c->measure) : WINENT_OVERVIEW_MEAN;
}

/* Pixels of the window of `c`: KX x KY, or the disk's (scikit-image's
 * morphology.disk: dx^2 + dy^2 <= r^2). */
static int window_pixels(const winent_compute_opts *c)
{
    if (c->footprint != NULL) { /* a footprint: the pixels it holds */
        int n = 0;
        for (size_t i = 0; i < (size_t)c->kx * (size_t)c->ky; i++)
            n += c->footprint[i] != 0;
        return n;
    }
    if (!c->disk)
        return c->kx * c->ky;
    int r = c->kx / 2, n = 0;
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
            n += dx * dx + dy * dy <= r * r;
    return n;
}

int winent_sink_window_pixels(const winent_sink_opts *o)
{
    winent_compute_opts dflt;
    winent_compute_opts_default(&dflt);
    int least = window_pixels(o->compute ? o->compute : &dflt);
    for (int m = 0; o->nmaps > 1 && o->maps && m < o->nmaps; m++) {
        int n = o->maps[m].compute ? window_pixels(o->maps[m].compute) : least;
        least = n < least ? n : least;
    }
    return least;
}

/* The largest value any map of `o` can hold: its integer codes' scale. */
static double output_top(const winent_sink_opts *o)
{
    double top = 0.0;
    if (o->scale_top > 0.0)
        return o->scale_top;
    for (int m = 0; m < winent_sink_nmaps(o); m++) {
        const winent_compute_opts *c = winent_sink_nmaps(o) > 1 ? o->maps[m].compute : o->compute;
        double t = c ? winent_compute_top(c) : 0.0;
        top = t > top ? t : top;
    }
    return top;
}

void winent_sink_out_sample(const winent_sink_opts *o, winent_out_sample *q)
{
    winent_out_sample_init(q, o->out_type, output_top(o));
}

void winent_sink_map_opts(const winent_sink_opts *o, int m, winent_sink_opts *one)
{
    *one = *o;
    if (winent_sink_nmaps(o) > 1) {
        one->scale_top = output_top(o); /* the output's one scale: its codes' */
        one->compute = o->maps[m].compute;
        one->source_band = o->maps[m].source_band;
    }
    one->nmaps = 0;
    one->maps = NULL;
}

void winent_sink_window_name(const winent_compute_opts *c, char *buf, size_t cap)
{
    if (c->disk)
        snprintf(buf, cap, "disk%d", c->kx / 2);
    else if (c->footprint != NULL) /* its box: the pixels are the footprint's */
        snprintf(buf, cap, "footprint%dx%d", c->kx, c->ky);
    else
        snprintf(buf, cap, "%dx%d", c->kx, c->ky);
}

void winent_sink_map_name(const winent_compute_opts *c, char *buf, size_t cap)
{
    char m[48], w[32];
    winent_measure_text(c, m, sizeof m);
    winent_sink_window_name(c, w, sizeof w);
    snprintf(buf, cap, "%s %s", m, w);
}

char *winent_sink_map_path(const char *path, int band, const winent_compute_opts *c)
{
    const char *ext = winent_sink_extension_of(path);
    size_t stem = *ext ? (size_t)(ext - 1 - path) : strlen(path);
    char tag[128], m[48] = "";
    if (c->measure != WINENT_MEASURE_ENTROPY) { /* renyi:2 -> _renyi2 */
        char t[48];
        size_t k = 1;
        winent_measure_text(c, t, sizeof t);
        m[0] = '_';
        for (const char *q = t; *q && k + 1 < sizeof m; q++)
            if (*q != ':')
                m[k++] = *q;
        m[k] = '\0';
    }
    if (c->disk)
        snprintf(tag, sizeof tag, "_b%d_disk%d%s", band, c->kx / 2, m);
    else if (c->footprint != NULL)
        snprintf(tag, sizeof tag, "_b%d_fp%dx%d%s", band, c->kx, c->ky, m);
    else if (c->kx == c->ky)
        snprintf(tag, sizeof tag, "_b%d_w%d%s", band, c->kx, m);
    else
        snprintf(tag, sizeof tag, "_b%d_w%dx%d%s", band, c->kx, c->ky, m);
    size_t n = stem + strlen(tag) + (*ext ? strlen(ext) + 1 : 0) + 1;
    char *out = malloc(n);
    if (out == NULL)
        return NULL;
    snprintf(out, n, "%.*s%s%s%s", (int)stem, path, tag, *ext ? "." : "", ext);
    return out;
}

/* The input's file, symlinks followed; 0 when there is none to compare
 * (a name that does not exist, a GDAL virtual path). */
static int input_stat(const char *input_path, struct stat *st)
{
    if (strcmp(input_path, "-") == 0)
        return fstat(STDIN_FILENO, st) == 0;
    return stat(input_path, st) == 0;
}

/* 1 for a name of GDAL's virtual file systems (/vsis3/..., /vsicurl/...,
 * /vsimem/...) or a URL (https://..., s3://...): not a local path. */
static int remote_name(const char *p)
{
    const char *q;
    if (strncmp(p, "/vsi", 4) == 0) {
        q = p + 4;
        while ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_')
            q++;
        if (q > p + 4 && *q == '/')
            return 1;
    }
    const char *colon = strstr(p, "://");
    if (colon == NULL || colon == p)
        return 0;
    for (q = p; q < colon; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
              *q == '+' || *q == '.' || *q == '-'))
            return 0;
    return 1;
}

winent_status winent_sink_check_name(const char *output_path, winent_err *err)
{
    if (output_path == NULL || *output_path == '\0')
        return WINENT_ERR(err, WINENT_ERR_USAGE, "no output name: give one, or '-'");
    if (remote_name(output_path))
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s': winent-stream writes local files and streams, not GDAL's "
                          "virtual file systems (/vsis3/, /vsicurl/, ...) or URLs: write a local "
                          "file, then copy it (aws s3 cp, gsutil cp, curl -T)",
                          output_path);
    return WINENT_OK;
}

winent_status winent_sink_check_target(const char *input_path, const char *output_path,
                                       winent_outfile_probe *out, winent_err *err)
{
    int is_stdout = strcmp(output_path, "-") == 0;
    WINENT_TRY(winent_outfile_probe_path(output_path, out, err));
    /* Only a file or a disk can be overwritten while it is read: a
     * terminal or /dev/null both in and out is no harm. */
    struct stat in;
    if (input_path && out->exists && (S_ISREG(out->st.st_mode) || S_ISBLK(out->st.st_mode)) &&
        input_stat(input_path, &in) && in.st_dev == out->st.st_dev &&
        in.st_ino == out->st.st_ino) {
        if (is_stdout)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "standard output is the input '%s': redirect it elsewhere",
                              input_path);
        if (strcmp(input_path, output_path) == 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "output '%s' is the input: give another output name", output_path);
        if (strcmp(input_path, "-") == 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "output '%s' is the file on standard input: give another output "
                              "name",
                              output_path);
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s' is the input '%s' (the same file): give another output "
                          "name",
                          output_path, input_path);
    }
    return WINENT_OK;
}

size_t winent_sink_zstd_state_bytes(int level)
{
    return level <= 3 ? (size_t)4 << 20 : level <= 9 ? (size_t)16 << 20 : (size_t)64 << 20;
}
