/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * opttable.h - the options of every door in one table (winent_options),
 * and the helpers that word a refusal in the words of the door that asked:
 * the command line's ("--window: '4': ...") or Python's ("window=4: ...").
 * Every check of an option's value says its line through these, once.
 */
#ifndef WINENT_OPTTABLE_H
#define WINENT_OPTTABLE_H

#include <stddef.h>

#include "werr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The table's row of option `name` (its CLI word or its Python keyword),
 * or NULL. */
const winent_option *winent_opt_row(const char *name);

/* The option as door `w` names it: "--frame-rows" or "frame_rows". */
const char *winent_opt_name(winent_words w, const char *name);

/* A usage error for a value of option `name` that is not one: "--NAME:
 * 'VALUE': ADVICE" (CLI) or "KEYWORD=VALUE: ADVICE" (Python), the advice
 * the table's for that door. `value` as the door shows it. */
winent_status winent_opt_refuse(winent_err *err, winent_words w, const char *name,
                                const char *value);

/* A usage error worded for door `w`: `cli_fmt` or `py_fmt`, which take the
 * same arguments in the same order. */
winent_status winent_opt_say(winent_err *err, winent_words w, const char *cli_fmt,
                             const char *py_fmt, ...);

/* `v` as the shortest text that reads back as `v` ("2.5", "1e-310",
 * "70000", "inf", "-0"), as Python's repr and strtod agree on it. */
void winent_num_text(double v, char *buf, size_t n);

/* The name of sample type `t` in door `w`'s words: "u16" or "uint16". */
const char *winent_dtype_word(winent_words w, winent_dtype t);

#ifdef __cplusplus
}
#endif

#endif
