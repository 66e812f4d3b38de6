/* SPDX-License-Identifier: BSD-3-Clause */
/* winent-stream: the command line. The only place that prints, maps
 * statuses to exit codes, and exits. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "options.h"

/* The one job this program runs, for the signal handler: the program's own
 * static (the library keeps none). Set before the handlers are installed,
 * cleared once the signals are ignored again, before the job is freed. */
static winent_job *volatile running_job;

/* A cancel ends a job within a few tenths of a second, unless one of its
 * threads is blocked where no flag is polled (a GDAL read of a server that
 * never answers, a hung network file system): then, this long after the
 * signal, the watchdog removes the job's temporary files and exits 130
 * without waiting for it (SPEC section 6: within 1 s). */
#define WATCHDOG_GRACE_MS 500

/* The watchdog's state, the program's own statics like running_job: the
 * handler posts `signalled` (sem_post is async-signal-safe); `finish`
 * decides, once, whether main (the run returned) or the watchdog (the
 * grace ran out) ends the program. */
enum { RUNNING, RETURNED, GIVING_UP };
static sem_t signalled;
static int finish = RUNNING;   /* atomic access only */
static int progress_shown_any; /* a progress line is on the terminal */

static void on_signal(int sig)
{
    (void)sig;
    winent_job *job = running_job;
    if (job) {
        winent_job_cancel(job); /* one atomic store: async-signal-safe */
        sem_post(&signalled);
    }
}

static void *watchdog(void *arg)
{
    winent_job *job = arg;
    while (sem_wait(&signalled) != 0)
        if (errno != EINTR)
            return NULL;
    if (__atomic_load_n(&finish, __ATOMIC_ACQUIRE) != RUNNING)
        return NULL; /* woken by main: the run returned */
    struct timespec t = {WATCHDOG_GRACE_MS / 1000, (long)(WATCHDOG_GRACE_MS % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
    int running = RUNNING;
    if (!__atomic_compare_exchange_n(&finish, &running, GIVING_UP, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return NULL; /* the run returned meanwhile: main reports it */
    /* The run is stuck: nothing of it is waited for. Only async-signal-
     * safe calls from here (other threads may hold any lock). */
    winent_job_discard_temporaries(job);
    static const char nl[] = "\n", msg[] = "winent-stream: interrupted\n";
    if (__atomic_load_n(&progress_shown_any, __ATOMIC_RELAXED))
        (void)!write(STDERR_FILENO, nl, sizeof nl - 1);
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(130);
}

/* SIGINT, SIGTERM and SIGHUP to `handler` (SIG_IGN before the job is
 * freed). No SA_RESTART: a FIFO's open or a write blocked on a pipe returns
 * EINTR and sees the stop. */
static void stop_signals_to(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* SPEC section 6: SIGINT, SIGTERM and SIGHUP stop the job cleanly (exit
 * 130, the temporary output removed); a file size limit and a closed output
 * pipe are write errors (exit 4), not silent deaths. */
static void install_signals(void)
{
    stop_signals_to(on_signal);
}

/* Why a write to standard output failed, in the words the library uses
 * for an output's write (outfile.c), with what a closed or read-only
 * descriptor means. */
static const char *stdout_reason(int e)
{
    if (e == EPIPE)
        return "output pipe closed (its reader went away)";
    if (e == EFBIG)
        return "file too large (a file size limit, see ulimit -f)";
    if (e == EBADF) {
        int fl = fcntl(STDOUT_FILENO, F_GETFL);
        return fl < 0 ? "it is not open" : "it is open for reading only";
    }
    return strerror(e);
}

/* What --help, --version and --info print is gathered in memory, then
 * written here in one go: a closed pipe, a full disk, a closed or read-only
 * descriptor is exit 4 with the errors table's line (SPEC section 6), never
 * a silent exit 0 or a death by SIGPIPE. */
static winent_status write_stdout(const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "winent-stream: standard output: write failed: %s\n",
                    stdout_reason(w < 0 ? errno : EIO));
            return WINENT_ERR_OUTPUT;
        }
        buf += w;
        n -= (size_t)w;
    }
    return WINENT_OK;
}

/* Run one of the printing commands (--help, --version, --info) into
 * memory, then write what it printed to standard output and, on failure,
 * its one line to standard error: the exit status. */
static int print_command(const cli_opts *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL) {
        fprintf(stderr, "winent-stream: out of memory\n");
        return WINENT_ERR_INTERNAL;
    }
    winent_status st = WINENT_OK;
    winent_error err;
    err.message[0] = '\0';
    if (c->help)
        cli_print_help(m);
    else if (c->version)
        st = winent_version_print(m);
    else
        st = c->check ? winent_info_check(c->info_path, m, &err)
                      : winent_info_print(c->info_path, m, &err);
    if (fclose(m) != 0 || text == NULL) {
        free(text);
        fprintf(stderr, "winent-stream: out of memory\n");
        return WINENT_ERR_INTERNAL;
    }
    winent_status out = write_stdout(text, len);
    free(text);
    if (st != WINENT_OK) {
        fprintf(stderr, "winent-stream: %s\n",
                err.message[0] ? err.message : "standard output: write failed");
        return (int)st;
    }
    return (int)out;
}

typedef struct cli_state {
    int progress_shown;
} cli_state;

static void on_notice(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "winent-stream: %s\n", line);
}

static void on_progress(void *user, const winent_progress *p)
{
    cli_state *s = user;
    double mpx = p->seconds > 0 ? (double)p->rows_done * (double)p->width / p->seconds / 1e6 : 0;
    double frac = p->rows_total ? (double)p->rows_done / (double)p->rows_total : 1.0;
    double eta = frac > 0 ? p->seconds * (1.0 - frac) / frac : 0;
    fprintf(stderr, "\rwinent-stream: %lld/%lld rows (%3.0f%%), %.1f Mpixel/s, ETA %d:%02d   ",
            (long long)p->rows_done, (long long)p->rows_total, 100.0 * frac, mpx,
            (int)(eta / 60), (int)eta % 60);
    fflush(stderr);
    s->progress_shown = 1;
    __atomic_store_n(&progress_shown_any, 1, __ATOMIC_RELAXED);
}

/* Standard error closed (2>&-) would let the next file opened take
 * descriptor 2, the job's output among them: the progress line, a notice
 * or an error would then be written into the map. /dev/null holds the
 * place instead, open for reading only: what is printed is dropped, as it
 * was, and an output /dev/stderr is still refused (exit 4). */
static void hold_stderr(void)
{
    if (fcntl(STDERR_FILENO, F_GETFD) != -1 || errno != EBADF)
        return;
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && fd != STDERR_FILENO) {
        dup2(fd, STDERR_FILENO); /* 0 or 1 was closed too: it stays closed */
        close(fd);
    }
}

int main(int argc, char **argv)
{
    hold_stderr();
    /* A closed output pipe and a file size limit are write errors (exit 4),
     * for the job and for --help, --version and --info alike. */
    signal(SIGPIPE, SIG_IGN); /* write() fails with EPIPE */
    signal(SIGXFSZ, SIG_IGN); /* write() fails with EFBIG */
    cli_opts c;
    char msg[WINENT_MSG_LEN];
    winent_status st = cli_parse(argc, argv, &c, msg, sizeof msg);
    if (st != WINENT_OK) {
        fprintf(stderr, "winent-stream: %s\n", msg);
        cli_free(&c);
        return (int)st;
    }
    if (c.help || c.version || c.info) {
        int rc = print_command(&c);
        cli_free(&c);
        return rc;
    }
    winent_error err;
    cli_state state = {0};
    int show_progress = c.quiet ? 0 : c.progress >= 0 ? c.progress : isatty(STDERR_FILENO);
    c.job.user = &state;
    c.job.on_notice = c.quiet ? NULL : on_notice;
    c.job.on_progress = show_progress ? on_progress : NULL;
    c.job.release_gpus = 1; /* this process runs one job and no other CUDA work */
    winent_job *job = NULL;
    st = winent_job_create(&c.job, &job, &err);
    if (st != WINENT_OK) {
        fprintf(stderr, "winent-stream: %s\n", err.message);
        cli_free(&c);
        return (int)st;
    }
    pthread_t dog;
    int e = sem_init(&signalled, 0, 0) != 0 ? errno : pthread_create(&dog, NULL, watchdog, job);
    if (e != 0) {
        fprintf(stderr, "winent-stream: cannot start the signal watchdog: %s\n", strerror(e));
        winent_job_free(job);
        cli_free(&c);
        return (int)WINENT_ERR_INTERNAL;
    }
    running_job = job;
    install_signals();
    st = winent_job_run(job);
    /* The job is done: a signal now changes nothing. Ignored process-wide
     * (a signal may land on any thread, an idle OpenMP worker's too), so
     * no handler starts on the job once it is freed. */
    stop_signals_to(SIG_IGN);
    running_job = NULL;
    int running = RUNNING;
    if (!__atomic_compare_exchange_n(&finish, &running, RETURNED, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        for (;;) /* the watchdog gave up on the run a moment ago and exits */
            pause();
    sem_post(&signalled); /* wake the watchdog, which sees RETURNED and ends */
    pthread_join(dog, NULL);
    if (state.progress_shown)
        fputc('\n', stderr);
    if (st != WINENT_OK) {
        fprintf(stderr, "winent-stream: %s\n", winent_job_error(job)->message);
    } else if (c.stats) {
        winent_job_stats stats;
        winent_job_get_stats(job, &stats);
        cli_print_stats(stderr, &stats);
    }
    winent_job_free(job);
    cli_free(&c);
    return (int)st;
}
