/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_temporaries - winent_job_discard_temporaries (include/winent.h):
 * the last resort of a program that gives up on a run a cancel cannot end
 * (the CLI's signal watchdog).
 *
 * A job reads u8 samples from a FIFO into a raw map with a --sidecar
 * header and a --preview PNG, over an output that already exists. Fed half
 * its input, it is held mid-run with three temporary files beside the
 * output. discard_temporaries removes all three and touches nothing else
 * (the old output stays as it was); called twice it is no harm. Then the
 * job is cancelled and the rest of the run ends as ever: interrupted,
 * nothing left behind. A job that never ran has nothing to discard.
 *
 * No timing is asserted: waits are on conditions, each bounded (20 s).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define W 1000
#define H 1000

static char dir[240];

/* Files in `dir` whose name holds "tmp-". */
static int temporaries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, "tmp-") != NULL;
    closedir(d);
    return n;
}

static void nap(void)
{
    struct timespec t = {0, 20 * 1000000L};
    nanosleep(&t, NULL);
}

typedef struct run_arg {
    winent_job *job;
    winent_status st;
} run_arg;

static void *run(void *p)
{
    run_arg *r = p;
    r->st = winent_job_run(r->job);
    return NULL;
}

static int file_is(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/winent-temps-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    char fifo[300], out[300], png[300], hdr[310];
    snprintf(fifo, sizeof fifo, "%s/in.fifo", dir);
    snprintf(out, sizeof out, "%s/map.raw", dir);
    snprintf(png, sizeof png, "%s/map.png", dir);
    snprintf(hdr, sizeof hdr, "%s/map.raw.hdr", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    FILE *old = fopen(out, "wb");
    fputs("the old map", old);
    fclose(old);

    /* A job that never ran: nothing to discard. */
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.input = fifo;
    o.output = out;
    o.width = W;
    o.height = H;
    o.compute.dtype = WINENT_U8;
    o.dtype_given = 1;
    o.device = "cpu";
    o.threads = 2;
    o.sidecar = 1;
    o.preview = png;
    winent_error err;
    winent_job *idle = NULL;
    CHECK(winent_job_create(&o, &idle, &err) == WINENT_OK, "%s", err.message);
    winent_job_discard_temporaries(idle);
    winent_job_free(idle);
    CHECK(file_is(out, "the old map"), "an idle job's discard touched the output");

    winent_job *job = NULL;
    CHECK(winent_job_create(&o, &job, &err) == WINENT_OK, "%s", err.message);
    run_arg r = {job, WINENT_OK};
    pthread_t t;
    pthread_create(&t, NULL, run, &r);
    /* Half the samples, then silence: the run holds its temporary files. */
    int fd = open(fifo, O_WRONLY);
    CHECK(fd >= 0, "open the FIFO: %s", strerror(errno));
    static unsigned char half[W * H / 2];
    for (size_t i = 0; i < sizeof half; i++)
        half[i] = (unsigned char)(i * 7 % 13);
    CHECK(write(fd, half, sizeof half) == (ssize_t)sizeof half, "write: %s", strerror(errno));
    int n = 0;
    for (int i = 0; i < 1000 && (n = temporaries()) < 4; i++)
        nap();
    CHECK(n == 4, "%d temporary files mid-run, want 4 (map, sidecar, preview, its legend)", n);

    winent_job_discard_temporaries(job);
    CHECK(temporaries() == 0, "%d temporary files left after discard", temporaries());
    winent_job_discard_temporaries(job); /* again: no harm */
    CHECK(file_is(out, "the old map"), "the old output changed");
    CHECK(access(png, F_OK) != 0 && access(hdr, F_OK) != 0, "a preview or sidecar appeared");

    /* The run itself ends as a cancelled one does. */
    winent_job_cancel(job);
    close(fd);
    pthread_join(t, NULL);
    CHECK(r.st == WINENT_ERR_INTERRUPTED, "run returned %d, want %d", (int)r.st,
          (int)WINENT_ERR_INTERRUPTED);
    CHECK(temporaries() == 0, "%d temporary files after the run", temporaries());
    CHECK(file_is(out, "the old map"), "the old output changed after the run");
    winent_job_free(job);

    unlink(fifo);
    unlink(out);
    rmdir(dir);
    return harness_end();
}
