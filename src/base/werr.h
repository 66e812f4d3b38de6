/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * werr.h - error context: the first error with its message, kept in an
 * object passed down the call chain (never a process-global buffer).
 */
#ifndef WINENT_WERR_H
#define WINENT_WERR_H

#include <stdarg.h>
#include "winent.h"

#define WINENT_MSG_MAX WINENT_MSG_LEN

#ifdef __cplusplus
extern "C" {
#endif

typedef struct winent_err {
    winent_status status;       /* WINENT_OK until the first error */
    char msg[WINENT_MSG_MAX];   /* one line, no "winent-stream: " prefix */
    const char *file;           /* where it was raised (for debugging) */
    int line;
} winent_err;

void winent_err_clear(winent_err *e);

/* Record an error unless one is already recorded; returns `st`.
 * Not thread-safe: each thread owns its own winent_err, and the pipeline
 * merges them under its lock. */
winent_status winent_err_set_at(winent_err *e, const char *file, int line, winent_status st,
                                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
winent_status winent_err_vset_at(winent_err *e, const char *file, int line, winent_status st,
                                 const char *fmt, va_list ap);

/* Copy `src` into `dst` unless `dst` already holds an error. */
void winent_err_merge(winent_err *dst, const winent_err *src);

/* `msg` made one line in place: each control character (newline,
 * carriage return, vertical tab, escape, ...; a file name may hold one)
 * and each of Unicode's line breaks (NEL, U+2028, U+2029) becomes a space.
 * Every error message and notice line goes through it. */
void winent_one_line(char *msg);

/* Text from a file or a user (a tag's value, a name) for a message:
 * valid UTF-8 as it is, in any script; each control character (C0, DEL,
 * C1), Unicode line break (U+2028, U+2029) and byte that is not valid
 * UTF-8 as \xNN; at most `max` bytes of `s` (then "..."), cut between
 * characters. Into `out` (`cap` bytes, NUL-terminated, cut there too). */
void winent_quote_text(const char *s, size_t max, char *out, size_t cap);

/* The public form (winent.h) of an internal error, for a function of the
 * API returning `st`: WINENT_OK clears `out`; a failure copies `e`'s
 * message (or names the status when `e` holds none). `out` may be NULL.
 * Returns `st`. */
winent_status winent_err_export(const winent_err *e, winent_status st, winent_error *out);

/* Clear a public error (NULL is fine). */
void winent_error_clear(winent_error *out);

/* A function of the API given NULL for a pointer it needs (winent.h's
 * conventions): WINENT_ERR_USAGE, "FUNC: ARG is NULL" into `out` (may be
 * NULL). Returns WINENT_ERR_USAGE. */
winent_status winent_err_null(winent_error *out, const char *func, const char *arg);

#define WINENT_ERR(e, st, ...) winent_err_set_at((e), __FILE__, __LINE__, (st), __VA_ARGS__)

/* Return-if-error and forward: `st` is evaluated once. */
#define WINENT_TRY(expr)                   \
    do {                                   \
        winent_status try_st_ = (expr);    \
        if (try_st_ != WINENT_OK)          \
            return try_st_;                \
    } while (0)

/* Jump to the function's `fail:` label on error, keeping the status in `st`. */
#define WINENT_TRY_GOTO(st, expr)          \
    do {                                   \
        (st) = (expr);                     \
        if ((st) != WINENT_OK)             \
            goto fail;                     \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
