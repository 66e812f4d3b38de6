/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * outfile.h - where an output's bytes go, by what the output name is.
 *
 * - A regular file, or a name where nothing exists yet: written to a
 *   temporary file in the directory of the final target (symbolic links
 *   followed, so the link survives and the rename stays on one file
 *   system), fsynced, renamed over the target at commit, and the directory
 *   fsynced. Abort removes the temporary file: the target is never touched
 *   unless the job completes.
 * - Anything else is written in place, never created, replaced or renamed
 *   over: "-" (standard output), a character or block device, a FIFO, a
 *   socket, /dev/fd/N, /dev/stdout, /proc/PID/fd/N, or a name that resolves
 *   to one of these. Opened O_WRONLY without O_CREAT, truncated only where
 *   a shell's `>` would (a regular file reached through /dev/fd/N). What
 *   was written cannot be taken back. A descriptor ("-", /dev/fd/N,
 *   /proc/PID/fd/N, ...) must be open for writing (O_WRONLY or O_RDWR, by
 *   fcntl(F_GETFL) or the process's /proc/PID/fdinfo/N): reopening one
 *   open read-only would give access it never had.
 *
 * An outfile has one owner thread (the sink's writer).
 */
#ifndef WINENT_OUTFILE_H
#define WINENT_OUTFILE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/werr.h"
#include "tempnames.h"

/* What an output name is, looked at without opening or creating anything. */
typedef struct winent_outfile_probe {
    int in_place;     /* 1: written in place (see above); 0: temporary + rename */
    int exists;       /* 1: `st` describes the final target (symlinks followed) */
    struct stat st;   /* valid when exists */
    const char *what; /* static: "standard output", "a FIFO", "a character
                         device", ... for messages; "a file" when !in_place */
    int append;       /* 1: a descriptor opened for appending (>>): the
                         output appends to its file instead of truncating it */
} winent_outfile_probe;

/* Classify `path` ("-" is standard output). Errors: WINENT_ERR_OUTPUT for
 * a name that cannot be an output (a directory, a symbolic link loop, a
 * folder that cannot be searched, /dev/fd/N of a descriptor not open, a
 * descriptor open read-only or O_PATH, standard output closed). */
winent_status winent_outfile_probe_path(const char *path, winent_outfile_probe *p, winent_err *err);

/* winent_outfile_probe_path, and for a file (not in place) the target the
 * temporary file will be renamed over, symbolic links followed, in *final
 * (malloc'ed, the caller frees it; NULL in place). */
winent_status winent_outfile_target(const char *path, winent_outfile_probe *p, char **final,
                                    winent_err *err);

typedef struct winent_outfile {
    char *name;               /* owned: the name as given, for messages */
    char *final_path;         /* owned; the target after symlinks; NULL in place */
    char *temp_path;          /* owned; NULL in place, after commit or abort */
    int fd;                   /* open descriptor (STDOUT_FILENO for "-") */
    int owns_fd;              /* close fd at commit or abort (not standard output) */
    int in_place;             /* written in place: nothing to rename or remove */
    int sync;                 /* fsync at commit (regular files, block devices) */
    const volatile int *stop; /* borrowed, may be NULL: a write blocked on a
                                 pipe that a signal interrupts gives up
                                 with WINENT_ERR_INTERRUPTED once *stop */
    uint64_t written;         /* bytes written so far (by winent_outfile_write
                                 and those winent_outfile_wrote counts) */
    uint64_t queued;          /* `written` at the last hand-off to writeback */
    uint64_t reserved;        /* bytes winent_outfile_reserve asked for */
    int reserving;            /* its helper thread runs: joined before the next
                                 write, commit or abort */
    int reserve_errno;        /* the helper's failure (0: none), read after the join */
    pthread_t reserver;
    winent_tempnames *temps;  /* borrowed, may be NULL: where temp_path is
                                 recorded (winent_outfile_track) */
    int temp_slot;            /* its slot there, -1 when none */
} winent_outfile;

/* Open the output for `path`: create the temporary file beside the final
 * target, or open the stream in place (a FIFO's open waits for its reader;
 * a signal then gives WINENT_ERR_INTERRUPTED). `stop` may be NULL.
 * Errors: WINENT_ERR_OUTPUT, WINENT_ERR_INTERRUPTED. */
winent_status winent_outfile_open(winent_outfile *of, const char *path, const volatile int *stop,
                                  winent_err *err);

/* Record the temporary name (if any) in `temps` (may be NULL) until the
 * commit renames it or the abort removes it, so that a program giving up
 * on a blocked job can remove it (tempnames.h). Call right after open. */
void winent_outfile_track(winent_outfile *of, winent_tempnames *temps);

/* The output will hold exactly `bytes` (a raw map): a file written
 * through a temporary name gets its space allocated by a helper thread
 * while the job starts (Linux fallocate, the size kept: the file grows
 * only as it is written), so the writes that follow only copy (on tmpfs
 * about a third faster) and a disk or tmpfs too small for the map fails at
 * the first write, not after most of it. Nothing happens in place, where
 * the file system cannot, or where the thread cannot start. */
void winent_outfile_reserve(winent_outfile *of, uint64_t bytes);

/* Write all of `buf`; a short write or failure is WINENT_ERR_OUTPUT with
 * the reason (disk full, file size limit, output pipe closed, ...). On an
 * output fsynced at commit, every 8 MiB written are handed to
 * the kernel's writeback as they are written (Linux), so the disk works
 * while the job computes and the fsync at commit finds little left. */
winent_status winent_outfile_write(winent_outfile *of, const void *buf, size_t n, winent_err *err);

/* `n` more bytes reached of->fd by other means (a library's I/O procs, a
 * sink's own writes or copies): counted, and handed to writeback every 8
 * MiB as winent_outfile_write does, so that a sink that writes the
 * descriptor itself does not leave the whole file to the fsync of commit
 * (or to a range insertion, which writes back and waits first). */
void winent_outfile_wrote(winent_outfile *of, uint64_t n);

/* Positional writes by several threads (a raw map's rows at their known
 * offsets): 1 when the output is a file written through a temporary name
 * (not in place: a stream has no offsets). */
int winent_outfile_positional(const winent_outfile *of);

/* Before the first winent_outfile_pwrite, from one thread: wait for the
 * space reservation's helper (its failure for want of room is reported). */
winent_status winent_outfile_settle(winent_outfile *of, winent_err *err);

/* Write all of `buf` at byte `offset` (pwrite): callable from several
 * threads at once, on disjoint ranges, once settled, with no
 * winent_outfile_write meanwhile. `written` counts the bytes (atomic);
 * errors as winent_outfile_write's. */
winent_status winent_outfile_pwrite(winent_outfile *of, const void *buf, size_t n, uint64_t offset,
                                    winent_err *err);

/* Once settled, where the space reservation succeeded: the file set to
 * its reserved size and mapped for writing (MAP_SHARED), so that several
 * threads copy into it at once (buffered writes to one file take its
 * inode's lock one writer at a time: 2.1-2.4 GB/s on the 4 x H200 host's
 * /dev/shm, where 16 files written at once took 22 GB/s). Its blocks are
 * reserved, so the copies cannot fail for want of room; the fsync of
 * commit writes them. NULL where it cannot: use winent_outfile_pwrite.
 * Write into it with winent_outfile_map_write; unmap before commit or
 * abort. */
void *winent_outfile_map(winent_outfile *of);
void winent_outfile_unmap(winent_outfile *of, void *map);
/* Copy `n` bytes to byte `offset` of the map (any thread, disjoint
 * ranges), counted; the whole pages written are then unmapped (they stay
 * in the file's page cache, dirty), so the process's resident memory does
 * not grow with the map, and handed to writeback as winent_outfile_write
 * does. */
void winent_outfile_map_write(winent_outfile *of, void *map, uint64_t offset, const void *buf,
                              size_t n);

/* Finish: fsync, close, rename into place, fsync the directory (a file); or
 * fsync where it means something and close (in place). On failure the
 * temporary file is removed. */
winent_status winent_outfile_commit(winent_outfile *of, winent_err *err);

/* Close and remove the temporary file; the final name is left untouched
 * (an in-place output keeps what it got). Safe to call twice and after
 * commit (then it does nothing). */
void winent_outfile_abort(winent_outfile *of);

/* The reason of a failed write with errno `e`, in words for the message
 * ("output pipe closed" for EPIPE, the file size limit for EFBIG, ...). */
const char *winent_outfile_reason(int e);

/* A new empty file with no name, open read-write, in folder `dir`:
 * O_TMPFILE where the file system has it, else mkstemp and an unlink at
 * once. Either way no name is left behind, even after SIGKILL or a power
 * cut. The descriptor closes on exec. -1 with errno on failure. */
int winent_unnamed_file(const char *dir);

/* winent_unnamed_file in the folder of `path` ("." for a bare name). */
int winent_unnamed_file_beside(const char *path);

/* The folder for temporary files: TMPDIR when set and not empty, else
 * /tmp. */
const char *winent_tmpdir(void);

#endif
