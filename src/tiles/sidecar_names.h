/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sidecar_names.h - the names GDAL (and the tools around it) look up
 * beside a data file: its PAM .aux.xml, overviews (.ovr, .rrd, .aux),
 * mask (.msk), headers (.hdr, .ers, .lbl, .rsc), projection (.prj),
 * world files (.wld, .tfw, and the spellings derived from the extension:
 * .tif -> .tfw and .tifw, .bil -> .blw and .bilw), RPCs, statistics and
 * colour tables. Each is the file's name or its stem (the name without its
 * last extension) with a suffix. GDAL matches them against the folder's
 * names whatever their letter case (scene.HDR, Scene.Hdr), so the
 * comparisons here ignore case.
 *
 * One list serves both sides: the sidecars a source records as read
 * (those that exist), and the names no new output may take (file_guard.h:
 * a new SCENE.HDR beside scene.bil would be GDAL's header from then on).
 */
#ifndef WINENT_SIDECAR_NAMES_H
#define WINENT_SIDECAR_NAMES_H

#include <stddef.h>

/* One sidecar name: the first `keep` bytes of the file's name (all of it,
 * or its stem) and a suffix. */
typedef struct winent_sidecar_name {
    size_t keep;
    char suffix[16];
} winent_sidecar_name;

/* Room enough for every name winent_sidecar_names gives. */
#define WINENT_SIDECAR_NAMES_MAX 40

/* The length of the stem of `base` (a name without folder): the bytes
 * before its last '.', or all of it when it has no extension (or is a
 * dot file). */
size_t winent_sidecar_stem(const char *base);

/* The sidecar names of the file named `base` (no folder): up to `max`
 * into `out`; returns how many. */
int winent_sidecar_names(const char *base, winent_sidecar_name *out, int max);

/* 1 when `name` (no folder) is, but for letter case, a sidecar name of
 * the file `base` (no folder); then `*which` (may be NULL) is that
 * sidecar's index in winent_sidecar_names' list. */
int winent_sidecar_match(const char *base, const char *name, int *which);

#endif
