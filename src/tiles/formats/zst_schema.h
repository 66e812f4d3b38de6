/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zst_schema.h - what a valid JSON header of a winent-stream .zst is: its
 * members, their types and ranges, and the facts that tie them together
 * (the frame count, the list of maps), in one table (zst_schema.c). Every
 * reader of a .zst goes through it (zst_layout.c: --info, --info --check,
 * --decode, and the public winent_zst_open that the Python package reads
 * with), so a header is refused by all of them or by none.
 * docs/FORMATS.md gives the same schema for users.
 */
#ifndef WINENT_ZST_SCHEMA_H
#define WINENT_ZST_SCHEMA_H

#include <stddef.h>

#include "base/json.h"

/* What every reader needs from the header's top-level object. A file of
 * several maps lists them ("maps"): `frames` counts every map's, `maps`
 * is the list's length (1 without the list). */
typedef struct winent_zst_facts {
    long long width, height, rows_per_frame, frames;
    long long maps;
    int sample_bytes; /* of "dtype" (--ot): 4 float32 (also when absent), 2
                         float16 and uint16, 1 uint8 */
} winent_zst_facts;

/* Check the parsed header `root` against the schema: 0 with its facts in
 * *facts, or -1 with the reason in `why` (n bytes: "the header's
 * \"bins\" is not a whole number from 1 to 1073741824, or null"). Members
 * the schema does not know are allowed (a later version may add some); a
 * member given twice is not. Thread-safe. */
int winent_zst_header_check(const cJSON *root, winent_zst_facts *facts, char *why, size_t n);

#endif
