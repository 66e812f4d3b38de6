/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_null - every function of winent.h given NULL for each pointer
 * argument in turn (winent.h's conventions): no crash; WINENT_ERR_USAGE
 * with "FUNC: ARG is NULL" in the winent_error where one is given (and the
 * status alone where none is); the _free and _close functions accept NULL;
 * the functions that return a value give the documented one. Each call
 * runs in a child process, so a crash is a failure of that call alone.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static char zst_path[4096];

/* A small .zst map of this build (in a temporary folder `dir`), for the
 * reader's calls: 0, or -1 where it cannot be made. */
static int make_zst(const char *dir)
{
    char raw[4096];
    snprintf(raw, sizeof raw, "%s/in.raw", dir);
    snprintf(zst_path, sizeof zst_path, "%s/map.zst", dir);
    FILE *f = fopen(raw, "wb");
    if (f == NULL)
        return -1;
    for (int i = 0; i < 16 * 16; i++)
        fputc((i * 37) % 11, f);
    fclose(f);
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.input = raw;
    o.output = zst_path;
    o.width = o.height = 16;
    o.dtype_given = 1;
    o.device = "cpu";
    o.threads = 1;
    winent_error e;
    if (winent_run(&o, NULL, &e) != WINENT_OK) {
        fprintf(stderr, "cannot make %s: %s\n", zst_path, e.message);
        return -1;
    }
    return 0;
}

/* Run `fn` in a child: its exit code (0 when every check in it held), or
 * 100 + the signal that ended it. */
static int in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn());
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 100 + WTERMSIG(st) : -1;
}

/* A usage error, and in `e` the function and the argument named. */
static int usage(winent_status st, const winent_error *e, const char *func, const char *arg)
{
    char want[128];
    snprintf(want, sizeof want, "%s: %s is NULL", func, arg);
    if (st != WINENT_ERR_USAGE || e->status != WINENT_ERR_USAGE || strcmp(e->message, want) != 0) {
        fprintf(stderr, "  got %d '%s', want %d '%s'\n", (int)st, e->message, WINENT_ERR_USAGE,
                want);
        return 1;
    }
    return 0;
}

static int compute_top(void)
{
    return winent_compute_top(NULL) == 0.0 ? 0 : 1;
}

static int opts_defaults(void)
{
    winent_compute_opts_default(NULL);
    winent_job_opts_default(NULL);
    return 0;
}

static int compute_validate(void)
{
    winent_error e;
    int bad = usage(winent_compute_opts_validate(NULL, &e), &e, "winent_compute_opts_validate", "o");
    return bad + (winent_compute_opts_validate(NULL, NULL) != WINENT_ERR_USAGE);
}

/* The options' table and its messages. */
static int options(void)
{
    winent_error e;
    int count = -1;
    int bad = winent_options(NULL) == NULL || winent_options(&count) == NULL || count < 1;
    bad += usage(winent_compute_opts_check(NULL, WINENT_WORDS_PYTHON, &e), &e,
                 "winent_compute_opts_check", "o");
    bad += usage(winent_option_refuse(NULL, "4", WINENT_WORDS_CLI, &e), &e,
                 "winent_option_refuse", "name");
    bad += usage(winent_option_conflict("disk", NULL, WINENT_WORDS_CLI, &e), &e,
                 "winent_option_conflict", "other");
    return bad + (winent_option_refuse("window", NULL, WINENT_WORDS_CLI, NULL) != WINENT_ERR_USAGE);
}

static int job_validate(void)
{
    winent_error e;
    int bad = usage(winent_job_opts_validate(NULL, &e), &e, "winent_job_opts_validate", "o");
    return bad + (winent_job_opts_validate(NULL, NULL) != WINENT_ERR_USAGE);
}

static int entropy(void)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    uint8_t in[16] = {0};
    float out[16];
    winent_error e;
    int bad = usage(winent_entropy(NULL, in, 0, 4, 4, out, 0, "cpu", 1, &e), &e, "winent_entropy",
                    "o");
    bad += usage(winent_entropy(&o, NULL, 0, 4, 4, out, 0, "cpu", 1, &e), &e, "winent_entropy", "in");
    bad += usage(winent_entropy(&o, in, 0, 4, 4, NULL, 0, "cpu", 1, &e), &e, "winent_entropy", "out");
    bad += winent_entropy(NULL, in, 0, 4, 4, out, 0, "cpu", 1, NULL) != WINENT_ERR_USAGE;
    /* A NULL device is "auto" (documented), not an error. */
    bad += winent_entropy(&o, in, 0, 4, 4, out, 0, NULL, 1, &e) != WINENT_OK;
    return bad;
}

static int engine(void)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    winent_engine *en = NULL;
    winent_error e;
    int bad = usage(winent_engine_create(NULL, WINENT_ENGINE_CPU, 0, 8, 8, 1, &en, &e), &e,
                    "winent_engine_create", "o");
    bad += en != NULL;
    bad += usage(winent_engine_create(&o, WINENT_ENGINE_CPU, 0, 8, 8, 1, NULL, &e), &e,
                 "winent_engine_create", "out");
    bad += winent_engine_compute(NULL, NULL, 0, 4, 4, 0, 4, 0, 4, NULL, 0) != WINENT_ERR_USAGE;
    const winent_error *none = winent_engine_error(NULL);
    bad += none == NULL || none->status != WINENT_OK;
    winent_engine_free(NULL);
    if (winent_engine_create(&o, WINENT_ENGINE_CPU, 0, 8, 8, 1, &en, &e) != WINENT_OK)
        return bad + 1;
    uint8_t rows[64] = {0};
    float out[64];
    bad += winent_engine_compute(en, NULL, 8, 8, 8, 0, 8, 0, 8, out, 8) != WINENT_ERR_USAGE;
    bad += strcmp(winent_engine_error(en)->message, "winent_engine_compute: rows is NULL") != 0;
    bad += winent_engine_compute(en, rows, 8, 8, 8, 0, 8, 0, 8, NULL, 8) != WINENT_ERR_USAGE;
    bad += strcmp(winent_engine_error(en)->message, "winent_engine_compute: out is NULL") != 0;
    winent_engine_free(en);
    return bad;
}

static int jobs(void)
{
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.input = "in.raw";
    winent_job *job = (winent_job *)&o; /* must be overwritten */
    winent_error e;
    int bad = usage(winent_job_create(NULL, &job, &e), &e, "winent_job_create", "o");
    bad += job != NULL;
    bad += usage(winent_job_create(&o, NULL, &e), &e, "winent_job_create", "job");
    bad += winent_job_run(NULL) != WINENT_ERR_USAGE;
    winent_job_cancel(NULL);
    winent_job_discard_temporaries(NULL);
    const winent_error *none = winent_job_error(NULL);
    bad += none == NULL || none->status != WINENT_OK || none->message[0] != '\0';
    winent_job_stats stats;
    memset(&stats, 0xff, sizeof stats);
    winent_job_get_stats(NULL, &stats);
    winent_job_stats zero;
    memset(&zero, 0, sizeof zero);
    bad += memcmp(&stats, &zero, sizeof stats) != 0;
    winent_job_get_stats(NULL, NULL);
    winent_job_free(NULL);
    bad += usage(winent_run(NULL, &stats, &e), &e, "winent_run", "o");
    bad += winent_run(NULL, NULL, NULL) != WINENT_ERR_USAGE;
    /* A real job: get_stats with no place to put them. */
    if (winent_job_create(&o, &job, &e) == WINENT_OK) {
        winent_job_get_stats(job, NULL);
        winent_job_free(job);
    }
    return bad;
}

static int build_and_info(void)
{
    winent_error e;
    int bad = winent_version_print(NULL) != WINENT_ERR_USAGE;
    bad += usage(winent_info_print(NULL, stdout, &e), &e, "winent_info_print", "path");
    bad += usage(winent_info_print(zst_path, NULL, &e), &e, "winent_info_print", "out");
    bad += usage(winent_info_check(NULL, stdout, &e), &e, "winent_info_check", "path");
    bad += usage(winent_info_check(zst_path, NULL, &e), &e, "winent_info_check", "out");
    bad += winent_info_check(NULL, NULL, NULL) != WINENT_ERR_USAGE;
    return bad;
}

static int zst(void)
{
    winent_error e;
    winent_zst *z = (winent_zst *)&e; /* must be overwritten */
    int bad = usage(winent_zst_open(NULL, &z, &e), &e, "winent_zst_open", "path");
    bad += z != NULL;
    bad += usage(winent_zst_open(zst_path, NULL, &e), &e, "winent_zst_open", "out");
    bad += strcmp(winent_zst_header(NULL), "") != 0;
    float row[64];
    bad += usage(winent_zst_read_frame(NULL, 0, 0, row, &e), &e, "winent_zst_read_frame", "z");
    winent_zst_close(NULL);
    if (winent_zst_open(zst_path, &z, &e) != WINENT_OK) {
        fprintf(stderr, "  %s: %s\n", zst_path, e.message);
        return bad + 1;
    }
    bad += usage(winent_zst_read_frame(z, 0, 0, NULL, &e), &e, "winent_zst_read_frame", "dst");
    bad += winent_zst_read_frame(z, 0, 0, NULL, NULL) != WINENT_ERR_USAGE;
    winent_zst_close(z);
    return bad;
}

int main(void)
{
    char dir[] = "/tmp/test_api_null.XXXXXX";
    if (mkdtemp(dir) == NULL || make_zst(dir) != 0) {
        fprintf(stderr, "no temporary .zst map\n");
        return 1;
    }
    static const struct {
        const char *name;
        int (*fn)(void);
    } cases[] = {
        {"winent_compute_top", compute_top},
        {"winent_compute_opts_default, winent_job_opts_default", opts_defaults},
        {"winent_compute_opts_validate", compute_validate},
        {"winent_job_opts_validate", job_validate},
        {"winent_options, winent_option_*, winent_compute_opts_check", options},
        {"winent_entropy", entropy},
        {"winent_engine_*", engine},
        {"winent_job_*, winent_run", jobs},
        {"winent_version_print, winent_info_*", build_and_info},
        {"winent_zst_*", zst},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = in_child(cases[i].fn);
        CHECK(rc == 0, "%s with NULLs: %s %d", cases[i].name,
              rc >= 100 ? "killed by signal" : "checks failed:", rc >= 100 ? rc - 100 : rc);
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return harness_end();
}
