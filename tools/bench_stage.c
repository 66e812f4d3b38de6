/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * winent-bench stage decode|compute|encode [winent-stream options] INPUT OUTPUT
 *
 * One stage of a winent-stream job alone, with the job's own options,
 * threads, pool and chunk geometry (winent_run_stage), for the job harness
 * (tools/bench-job.sh). Prints one JSON line on stdout, shaped like
 * `winent-stream --stats`, whose wall_s is the stage's time:
 *   decode   the input into the pipeline's buffers, nothing else;
 *   compute  the input, read into memory first (not timed), through the
 *            engines of --device into the pipeline's buffers;
 *   encode   the map, computed into memory first (not timed), encoded by
 *            the sink of OUTPUT on every worker (bytes counted, not written).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stage.h"
#include "cli/options.h"
#include "pipeline/pipeline_bench.h"

#define PROG "winent-bench stage"

/* The job's input band in memory, as the pipeline would see it. */
static int load_input(const winent_job_opts *j, void **data, winent_source_info *info_out)
{
    winent_source_opts so;
    winent_source *s = NULL;
    winent_err err;
    winent_err_clear(&err);
    winent_job_source_opts(j, &so);
    if (winent_source_open(&so, &s, &err) != WINENT_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err.msg);
        return (int)err.status;
    }
    const winent_source_info *info = winent_source_get_info(s);
    size_t bytes = (size_t)info->width * (size_t)info->height * winent_dtype_size(info->dtype);
    *data = malloc(bytes ? bytes : 1);
    if (*data == NULL || winent_source_read(s, info->height, *data, &err) != WINENT_OK) {
        fprintf(stderr, "%s: %s\n", PROG, *data ? err.msg : "out of memory");
        winent_source_free(s);
        return *data ? (int)err.status : 1;
    }
    *info_out = *info;
    info_out->georef = NULL;
    info_out->name = NULL;
    winent_source_free(s);
    return 0;
}

int bench_stage_main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: %s decode|compute|encode [winent-stream options] INPUT OUTPUT\n"
                "One stage of the job alone, with the job's pool, chunks and threads; prints\n"
                "one JSON line shaped like winent-stream --stats (wall_s: the stage's time).\n",
                PROG);
        return argc < 2 ? 2 : 0;
    }
    const char *name = argv[1];
    winent_stage stage = !strcmp(name, "decode")    ? WINENT_STAGE_DECODE
                         : !strcmp(name, "compute") ? WINENT_STAGE_COMPUTE
                         : !strcmp(name, "encode")  ? WINENT_STAGE_ENCODE
                                                    : WINENT_STAGE_JOB;
    if (stage == WINENT_STAGE_JOB) {
        fprintf(stderr, "%s: '%s': give decode, compute or encode\n", PROG, name);
        return 2;
    }
    cli_opts c;
    char msg[WINENT_MSG_LEN];
    /* argv[1] (the stage) stands where the program name would. */
    if (cli_parse(argc - 1, argv + 1, &c, msg, sizeof msg) != WINENT_OK) {
        fprintf(stderr, "%s: %s\n", PROG, msg);
        cli_free(&c);
        return 2;
    }
    winent_job_opts j = c.job;
    winent_job_stats st;
    winent_err err;
    void *in = NULL;
    float *map = NULL;
    int rc = 0;
    winent_err_clear(&err);
    if (stage == WINENT_STAGE_DECODE) {
        rc = (int)winent_run_stage(&j, stage, NULL, NULL, NULL, &st, &err);
        goto done;
    }
    winent_source_info info;
    memset(&info, 0, sizeof info);
    if ((rc = load_input(&j, &in, &info)) != 0)
        goto out;
    winent_memory_io io = {in, 0, NULL, 0};
    j.width = info.width;
    j.height = info.height;
    j.compute.dtype = info.dtype;
    if (info.nodata_is_mask || (!j.nodata_given && info.has_nodata)) {
        j.compute.has_nodata = info.has_nodata;
        j.compute.nodata = info.nodata;
    }
    if (stage == WINENT_STAGE_COMPUTE) {
        rc = (int)winent_run_stage(&j, stage, &io, NULL, NULL, &st, &err);
        goto done;
    }
    map = malloc((size_t)info.width * (size_t)info.height * sizeof(float) + 4);
    if (map == NULL) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        rc = 1;
        goto out;
    }
    io.out = map;
    if ((rc = (int)winent_run_stage(&j, WINENT_STAGE_JOB, &io, NULL, NULL, &st, &err)) != 0)
        goto done;
    rc = (int)winent_run_stage(&j, stage, NULL, map, NULL, &st, &err);
done:
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", PROG, err.msg);
    else
        cli_print_stats(stdout, &st);
out:
    free(in);
    free(map);
    cli_free(&c);
    return rc;
}
