/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_guard.h - the files a job reads and the files it will write, held
 * apart: no output may be a file the job reads (the input, its sidecars,
 * GDAL's file list of the dataset, a VRT's sources, an archive behind a
 * /vsizip/ name), nor another output of the same job. Compared by device
 * and inode (so by name, hard link, symbolic link, /proc/self/fd/N or bind
 * mount alike) and, for names that do not exist yet, by their canonical
 * name. Nor may a new output take a name GDAL looks up beside a file read
 * (sidecar_names.h: E.HDR beside e.bil, e.TFW beside e.tif, in any
 * letter case), which would change how the dataset reads from then on.
 * The job fills one guard before anything is created.
 *
 * A guard has one owner thread.
 */
#ifndef WINENT_FILE_GUARD_H
#define WINENT_FILE_GUARD_H

#include "base/werr.h"

typedef struct winent_file_guard winent_file_guard;

/* A guard for a job whose input the user named `input` ("-": standard
 * input), named so in messages. `input` is borrowed: it must outlive the
 * guard. Errors: WINENT_ERR_INTERNAL (out of memory). */
winent_status winent_file_guard_create(const char *input, winent_file_guard **out, winent_err *err);

/* A file the job reads: `path`, symbolic links followed, or, for a GDAL
 * name (/vsizip/a.zip/x.tif, NETCDF:"f.nc":v, HDF5:f.h5://x), the local
 * files it names (and /vsigzip/F's index F.properties, which GDAL reads
 * where it exists; /vsisparse/F.xml's sources; /vsistdin/'s standard
 * input). A name that does not exist (a network file, a sidecar
 * that is not there) is no file to overwrite and is left out. Errors:
 * WINENT_ERR_INTERNAL (out of memory). */
winent_status winent_file_guard_read(winent_file_guard *g, const char *path, winent_err *err);

/* A file the job will write: `path` as the output path resolves it
 * (outfile.h), `what` says which output in messages ("output", "--sidecar
 * header", "--preview"; copied). WINENT_ERR_USAGE, one line saying what to
 * do, when it is a file read (a character device or a socket both read
 * and written is no harm), a sidecar name of a file read (by the name
 * given and the name after symbolic links), or an output added before (the same file, pipe
 * or disk, or the same new name after following links); WINENT_ERR_OUTPUT
 * for a name that cannot be an output at all (outfile.h). Call it after
 * every winent_file_guard_read. */
winent_status winent_file_guard_write(winent_file_guard *g, const char *path, const char *what,
                                      winent_err *err);

void winent_file_guard_free(winent_file_guard *g);

#endif
