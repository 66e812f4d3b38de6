/* SPDX-License-Identifier: BSD-3-Clause */
/* switches.h - the pipeline's debug switches from the environment, read
 * once per job into a plain struct that the stages are handed (pipeline/
 * only). They are for tests and measurements, never needed for a job;
 * docs/SPEC.md, "Debug switches", lists every WINENT_* variable. */
#ifndef WINENT_SWITCHES_H
#define WINENT_SWITCHES_H

typedef struct winent_switches {
    /* WINENT_TRACE=PATH: the job's timeline as CSV (trace.h); NULL: none.
     * Borrowed from the environment (valid while it is not changed). */
    const char *trace;
    /* WINENT_PREVIEW_AFTER=1: CPU chunks are added to the preview after
     * compute, as a GPU's are (tests of that path without a GPU). */
    int preview_after;
    /* WINENT_STAGE_MEMORY=1: a memory job that is not --device cpu stages
     * every chunk, as with GPUs named (tests of that path without a GPU). */
    int stage_memory;
} winent_switches;

/* Read every switch now (getenv: call before the job's threads start). */
void winent_switches_read(winent_switches *s);

#endif
