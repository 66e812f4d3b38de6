/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_file_guard.c - the guard that keeps a job's outputs off the files
 * it reads and off each other (src/tiles/file_guard.h),
 * as a table of cases: what is read (files, links, GDAL names, folders,
 * devices, FIFOs), what is written, and the verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tiles/file_guard.h"

#define COMMA , /* a list as one macro argument */

static char dir[256];

static void touch(const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (f) {
        fputs("x", f);
        fclose(f);
    }
}

static char *at(const char *fmt, const char *name)
{
    static char bufs[4][600];
    static int k;
    char *b = bufs[k++ % 4];
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    snprintf(b, sizeof bufs[0], fmt, p);
    return b;
}

/* One case: read `reads` (NULL-terminated), write `writes` in order; the
 * status of the last write. */
static winent_status run(const char *const *reads, const char *const *writes, char *msg, size_t n)
{
    winent_file_guard *g = NULL;
    winent_err err;
    winent_err_clear(&err);
    winent_status st = winent_file_guard_create("in", &g, &err);
    for (int i = 0; st == WINENT_OK && reads[i]; i++)
        st = winent_file_guard_read(g, reads[i], &err);
    for (int i = 0; st == WINENT_OK && writes[i]; i++)
        st = winent_file_guard_write(g, writes[i], "output", &err);
    winent_file_guard_free(g);
    snprintf(msg, n, "%s", err.msg);
    return st;
}

#define CASE(want, name, R, Wr)                                                                    \
    do {                                                                                           \
        const char *const r_[] = {R, NULL};                                                        \
        const char *const w_[] = {Wr, NULL};                                                       \
        char m_[WINENT_MSG_MAX];                                                                   \
        winent_status got_ = run(r_, w_, m_, sizeof m_);                                           \
        CHECK(got_ == (want), "%s: got %d (%s), want %d", name, (int)got_, m_, (int)(want));       \
    } while (0)

int main(void)
{
    snprintf(dir, sizeof dir, "%s/winent-guard-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    touch("in.bil");
    touch("in.hdr");
    touch("a.zip");
    touch("f.nc");
    char p[600], q[600];
    snprintf(p, sizeof p, "%s/link.raw", dir);
    if (symlink("in.hdr", p) != 0)
        perror("symlink");
    snprintf(p, sizeof p, "%s/in.hdr", dir);
    snprintf(q, sizeof q, "%s/hard.raw", dir);
    if (link(p, q) != 0)
        perror("link");
    snprintf(p, sizeof p, "%s/z.zarr", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/fifo", dir);
    int have_fifo = mkfifo(p, 0600) == 0;
    snprintf(p, sizeof p, "%s/new-link.raw", dir);
    if (symlink("new.raw", p) != 0)
        perror("symlink");
    /* A GDAL sparse file taking bytes from two files, one named relative
     * to its folder (sub/sp.xml -> ../in.bil), one absolute (&amp; in it). */
    touch("a&b.tif");
    snprintf(p, sizeof p, "%s/sub", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sub/sp.xml", dir);
    FILE *sp = fopen(p, "w");
    if (sp) {
        fprintf(sp,
                "<VSISparseFile><Length>2</Length>\n"
                "<SubfileRegion><Filename relative=\"1\">../in.bil</Filename>"
                "<DestinationOffset>0</DestinationOffset><SourceOffset>0</SourceOffset>"
                "<RegionLength>1</RegionLength></SubfileRegion>\n"
                "<SubfileRegion><Filename relative=\"0\">%s/a&amp;b.tif</Filename>"
                "<DestinationOffset>1</DestinationOffset><SourceOffset>0</SourceOffset>"
                "<RegionLength>1</RegionLength></SubfileRegion></VSISparseFile>\n",
                dir);
        fclose(sp);
    }

    const winent_status OK = WINENT_OK, NO = WINENT_ERR_USAGE;
    /* Files read, by name, link, hard link. */
    CASE(NO, "the input", at("%s", "in.bil"), at("%s", "in.bil"));
    CASE(NO, "a sidecar by name", at("%s", "in.bil") COMMA at("%s", "in.hdr"), at("%s", "in.hdr"));
    CASE(NO, "a sidecar by symlink", at("%s", "in.hdr"), at("%s", "link.raw"));
    CASE(NO, "a sidecar by hard link", at("%s", "in.hdr"), at("%s", "hard.raw"));
    CASE(NO, "a sidecar through a ./ path", at("%s", "in.hdr"), at("%s", "./in.hdr"));
    CASE(OK, "another name", at("%s", "in.hdr"), at("%s", "out.raw"));
    CASE(OK, "a sidecar that does not exist", at("%s", "in.aux.xml"), at("%s", "in.aux.xml"));
    /* A name GDAL looks up beside a dataset read, in any case, existing
     * or not: never a new output (sidecar_names.h). */
    CASE(NO, "the header's name in upper case", at("%s", "in.bil"), at("%s", "IN.HDR"));
    CASE(NO, "a PAM file not there yet", at("%s", "in.bil"), at("%s", "In.Bil.Aux.Xml"));
    CASE(NO, "a world file not there yet", at("%s", "in.bil"), at("%s", "in.BLW"));
    CASE(NO, "a sidecar of NETCDF:f:v's file", at("NETCDF:%s:v", "f.nc"), at("%s", "F.NC.AUX.XML"));
    CASE(OK, "no sidecar of a zip's member's archive", at("/vsizip/%s/x.tif", "a.zip"),
         at("%s", "a.hdr"));
    CASE(OK, "a name that is no sidecar", at("%s", "in.bil"), at("%s", "in.bil.raw"));
    /* GDAL names: the local file behind them, never a folder. */
    CASE(NO, "/vsizip/", at("/vsizip/%s/x.tif", "a.zip"), at("%s", "a.zip"));
    CASE(NO, "/vsizip/{...}", at("/vsizip/{%s}/x.tif", "a.zip"), at("%s", "a.zip"));
    CASE(NO, "/vsigzip//vsitar/", at("/vsigzip//vsitar/%s/x.gz", "a.zip"), at("%s", "a.zip"));
    CASE(NO, "/vsisubfile/", at("/vsisubfile/0_1,%s", "a.zip"), at("%s", "a.zip"));
    CASE(NO, "NETCDF:\"f\":v", at("NETCDF:\"%s\":v", "f.nc"), at("%s", "f.nc"));
    CASE(NO, "NETCDF:f:v", at("NETCDF:%s:v", "f.nc"), at("%s", "f.nc"));
    CASE(NO, "HDF5:f://g/v", at("HDF5:%s://g/v", "f.nc"), at("%s", "f.nc"));
    CASE(OK, "WMS:http://host/x is no folder", "WMS:http://host/x", at("%s", "out.raw"));
    CASE(OK, "WMS:http://tmp is no folder", "WMS:http://tmp", "/tmp/winent-guard-out.raw");
    /* A folder dataset behind a driver's prefix (ZARR:"z.zarr":/array). */
    CASE(NO, "inside ZARR:\"f\":/a", at("ZARR:\"%s\":/a", "z.zarr"), at("%s", "z.zarr/map.raw"));
    CASE(NO, "inside ZARR:f", at("ZARR:%s", "z.zarr"), at("%s", "z.zarr/map.raw"));
    CASE(OK, "beside ZARR:f", at("ZARR:%s", "z.zarr"), at("%s", "z.raw"));
    CASE(OK, "/vsicurl/ is no local file", at("/vsicurl/http://h%s", "a.zip"), at("%s", "a.zip"));
    CASE(NO, "/vsisparse/: its XML", at("/vsisparse/%s", "sub/sp.xml"), at("%s", "sub/sp.xml"));
    CASE(NO, "/vsisparse/: a relative source", at("/vsisparse/%s", "sub/sp.xml"),
         at("%s", "in.bil"));
    CASE(NO, "/vsisparse/: an absolute source", at("/vsisparse/%s", "sub/sp.xml"),
         at("%s", "a&b.tif"));
    CASE(OK, "/vsisparse/: another name", at("/vsisparse/%s", "sub/sp.xml"), at("%s", "in.hdr"));
    /* /vsistdin/ reads the file on standard input. */
    snprintf(p, sizeof p, "%s/in.hdr", dir);
    if (freopen(p, "rb", stdin) != NULL) {
        CASE(NO, "/vsistdin/: the file on standard input", "/vsistdin/", at("%s", "in.hdr"));
        CASE(NO, "/vsistdin?options", "/vsistdin?buffer_limit=10", at("%s", "hard.raw"));
        CASE(OK, "/vsistdin/: another name", "/vsistdin/", at("%s", "in.bil"));
    }
    /* A folder dataset: nothing inside it. */
    CASE(NO, "inside a folder read", at("%s", "z.zarr"), at("%s", "z.zarr/map.raw"));
    CASE(OK, "beside a folder read", at("%s", "z.zarr"), at("%s", "z.raw"));
    /* Outputs against each other. */
    CASE(NO, "two outputs, one new name", at("%s", "in.bil"),
         at("%s", "new.raw") COMMA at("%s", "new.raw"));
    CASE(NO, "two outputs, one new name through a link", at("%s", "in.bil"),
         at("%s", "new.raw") COMMA at("%s", "new-link.raw"));
    CASE(NO, "two outputs, one existing file", at("%s", "in.bil"),
         at("%s", "f.nc") COMMA at("%s", "f.nc"));
    CASE(OK, "two outputs, two names", at("%s", "in.bil"),
         at("%s", "a.raw") COMMA at("%s", "b.raw"));
    /* Devices and pipes. */
    CASE(OK, "/dev/null read and written", "/dev/null", "/dev/null");
    CASE(OK, "/dev/null written twice", at("%s", "in.bil"), "/dev/null" COMMA "/dev/null");
    if (have_fifo)
        CASE(NO, "a FIFO read and written", at("%s", "fifo"), at("%s", "fifo"));

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return harness_end();
}
