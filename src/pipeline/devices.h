/* SPDX-License-Identifier: BSD-3-Clause */
/* devices.h - the pipeline's one door to CUDA (pipeline/ only): which
 * GPUs a job gets, pinning host buffers for their copies, a GPU's release
 * at its end. Every winent_cuda_* call of src/pipeline is in devices.c;
 * the rest of the room reaches the GPUs through the engine table
 * (engine_ops, pipeline_internal.h) and these functions. */
#ifndef WINENT_DEVICES_H
#define WINENT_DEVICES_H

#include <stddef.h>

#include "base/werr.h"

#define WINENT_MAX_GPUS 64

/* --device ("auto", NULL too; "cpu"; "gpu"; a list of "cpu" and GPU
 * numbers), parsed once by the job's check (job_opts.c). */
typedef struct winent_device_list {
    int automatic;              /* auto */
    int all_gpus;               /* gpu: every GPU found */
    int cpu;                    /* cpu, alone or in a list */
    int ngpus;                  /* the list's GPUs, as named */
    int gpus[WINENT_MAX_GPUS];
} winent_device_list;

/* The GPUs of list `l` (not automatic) into ids[0..*n): every one found
 * (`gpu`), else the list's, each of which must be usable (device errors).
 * `release_gpus` (a process that is the job's alone) shows CUDA only the
 * GPUs named. */
winent_status winent_devices_pick(const winent_device_list *l, int release_gpus, int *ids, int *n,
                                  winent_err *err);

/* auto's policy (policy.c), in a process that is the job's alone, before the
 * process's first CUDA call: show CUDA the first GPU only (within the
 * user's CUDA_VISIBLE_DEVICES). 1 when done. */
int winent_devices_first_only(void);

/* GPUs usable now, and the host's number of the i-th (auto's policy). */
int winent_devices_count(void);
int winent_devices_host_id(int i);

/* Pin `bytes` at `ptr` for every GPU's asynchronous copies: 0 when
 * pinned. Unpin accepts NULL. (The GPU engine's pin hooks.) */
int winent_devices_pin(void *ptr, size_t bytes);

/* 1 when `bytes` at `ptr` are page-locked already (the caller's own pinned
 * buffers): the GPUs' copies reach them directly. Starts CUDA's driver:
 * only for a job whose GPUs are named. */
int winent_devices_pinned(const void *ptr, size_t bytes);
void winent_devices_unpin(void *ptr);

/* This build's CUDA (--version): 1 with CUDA, its runtime and the
 * architectures built for. */
int winent_devices_build_info(int *runtime, const char **archs);

/* GPU `device` is done with (release_gpus): its context goes now. */
void winent_devices_release(int device);

#endif
