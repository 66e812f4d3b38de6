/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * entropy_of_file: the smallest program on libwinent. It computes the 5 x 5
 * local entropy map (base 2) of a file, as `winent-stream INPUT OUTPUT`
 * does, through the library's one call for a whole job, winent_run():
 *
 *   entropy_of_file INPUT OUTPUT            INPUT a TIFF
 *   entropy_of_file INPUT OUTPUT WxH        INPUT raw 8-bit samples, W x H
 *
 * OUTPUT's name picks the format (.zst, .tif, .raw or "-"), as in the CLI.
 * Build it against an installed libwinent (README, "Install"):
 *
 *   cc entropy_of_file.c $(pkg-config --cflags --libs winent)
 *
 * or with CMake (examples/CMakeLists.txt): find_package(winent), then link
 * winent::winent (shared) or winent::winent_static.
 */
#include <stdio.h>
#include <winent.h>

/* The library calls this for a one-line notice (a fallback, say). */
static void print_notice(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "entropy_of_file: %s\n", line);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: entropy_of_file INPUT OUTPUT [WxH]\n");
        return WINENT_ERR_USAGE;
    }
    winent_job_opts opts;
    winent_job_opts_default(&opts); /* 5 x 5, base 2, every core, 1 GiB */
    opts.input = argv[1];
    opts.output = argv[2];
    opts.on_notice = print_notice;
    if (argc == 4) { /* raw input: its size and sample type (the CLI: --size, --dtype) */
        if (sscanf(argv[3], "%dx%d", &opts.width, &opts.height) != 2) {
            fprintf(stderr, "entropy_of_file: '%s': give the size as WxH\n", argv[3]);
            return WINENT_ERR_USAGE;
        }
        opts.compute.dtype = WINENT_U8;
        opts.dtype_given = 1;
    }

    winent_error err; /* status and one-line message */
    winent_job_stats stats;
    winent_status st = winent_run(&opts, &stats, &err);
    if (st != WINENT_OK) {
        fprintf(stderr, "entropy_of_file: %s (%s)\n", err.message, winent_status_name(st));
        return (int)st;
    }
    fprintf(stderr, "entropy_of_file: %llu pixels in %.3f s on %s, libwinent %s\n",
            (unsigned long long)stats.pixels, stats.wall_s, stats.engine, WINENT_VERSION_STRING);
    return 0;
}
