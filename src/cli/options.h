/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h - the command line of winent-stream, parsed into job options.
 */
#ifndef WINENT_CLI_OPTIONS_H
#define WINENT_CLI_OPTIONS_H

#include "winent.h"

typedef struct cli_opts {
    winent_job_opts job;
    int progress;           /* -1: when stderr is a terminal; 0 off; 1 on */
    int quiet;
    int stats;
    int help, version;
    int info;               /* --info (or --test) */
    int check;              /* --check (or --test): decompress and verify */
    const char *info_path;  /* --info FILE, --test FILE */
    const char *compute_option; /* the first option of what is computed or of
                                   the raw input, without its "--" (--decode
                                   refuses them) */
    int window_code;        /* the option that gave the window (--window, --disk or
                               --footprint), or 0 */
    int range_given;        /* --range LO:HI (the last --range was not auto) */
    int levels_given;       /* --levels N (then --range is auto unless given) */
    char *command_line;     /* owned (cli_free): argv shell-quoted, for provenance */
    int *band_list;         /* owned (cli_free): --band B1,B2,... (job.band_list) */
    int *window_list;       /* owned (cli_free): --window K1,K2,... (job.window_list) */
    int *window_disk;       /* owned (cli_free): 1 for each diskR item (job.window_disk) */
    unsigned char *footprint; /* owned (cli_free): --footprint FILE's mask (job.compute.footprint) */
    const char *typed[96];  /* each long option's value as typed (by its row in the
                               library's table, winent_options), for the library's
                               messages to quote */
    int window_by_disk;     /* the windows came from --disk (typed[--window's]) */
    winent_measure *measure_list; /* owned (cli_free): --measure M1,M2,... (job.measure_list) */
    double *measure_q;      /* owned (cli_free): their renyi orders (job.measure_q) */
} cli_opts;

/* Parse argv into `c` with getopt_long (GNU: --name VALUE or --name=VALUE,
 * long options abbreviated to any unique prefix, -- ending the options),
 * then check the values with the library's winent_job_opts_validate, so
 * that a bad value gets the library's message. On a usage error returns
 * WINENT_ERR_USAGE with a one-line message in `msg` naming the option. Not
 * thread-safe (getopt's state is global); argv is not reordered. */
winent_status cli_parse(int argc, char **argv, cli_opts *c, char *msg, size_t msg_len);

/* Free what cli_parse allocated. */
void cli_free(cli_opts *c);

/* The --stats line: one JSON object (wall time, pixels, bytes, engines,
 * busy and waiting time of each stage), then a newline (stats_json.c). */
void cli_print_stats(FILE *f, const winent_job_stats *s);

/* The command line `argv` as the outputs record it: each word quoted for a
 * POSIX shell where it holds anything but letters, digits and _-+=/.,:@%
 * (pasted into a shell, it makes the same map), words separated by one
 * blank, without the options that only say how the job runs (--device,
 * --threads, --mem, --progress, --no-progress, --quiet, --stats): the
 * output's bytes never depend on those (SPEC section 5), so they must not
 * through its metadata either. malloc'ed, the caller frees it; NULL when
 * out of memory. */
char *cli_command_line(int argc, char **argv);

/* The --help text. */
void cli_print_help(FILE *f);

#endif
