/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_zst_readers - the three readers of a .zst on the same bytes, and
 * their verdicts compared: each input is written to a
 * file, then
 *
 *   --info --check  winent_info_check (every frame decompressed, held
 *                   against the seek table);
 *   --decode        the reader of a --decode job (winent_zst_reader_open,
 *                   then every map's rows in order through its cursor);
 *   Python          what winent.read_zst calls (winent_zst_open, then
 *                   winent_zst_read_frame for every frame of every map).
 *
 * A file accepted by one and refused by another aborts, as does a refusal
 * that is not an input error with a message. Frames of over 64 MiB are
 * not decompressed (the fuzzer's memory limit), nor files of over 4096
 * frames (its time).
 */
#include "fuzz_common.h"
#include "tiles/formats/zst_reader.h"
#include "winent.h"

#define FRAME_BYTES_MAX ((size_t)64 << 20)
#define FRAMES_MAX      4096

/* The verdict of a refusal: it must say why, as an input error. */
static int refused(winent_status st, const char *msg)
{
    if (st == WINENT_OK)
        return 0;
    if (st != WINENT_ERR_INPUT || msg[0] == '\0') {
        fprintf(stderr, "a refusal that is not an input error with a message: %d '%s'\n", (int)st,
                msg);
        abort();
    }
    return 1;
}

/* --decode: every map's rows through its own cursor, in bands of rows. */
static int decode_verdict(const char *path)
{
    winent_err err;
    winent_err_clear(&err);
    winent_zst_reader *r = NULL;
    winent_status st = winent_zst_reader_open(path, &r, &err);
    if (st == WINENT_OK) {
        const winent_zst_map *m = winent_zst_reader_map(r);
        const int band = m->rows_per_frame < 7 ? m->rows_per_frame : 7;
        float *rows = malloc(sizeof *rows * (size_t)m->width * (size_t)band);
        if (rows == NULL) {
            winent_zst_reader_free(r);
            return -1;
        }
        for (int k = 0; k < m->nmaps && st == WINENT_OK; k++)
            for (int y = 0; y < m->height && st == WINENT_OK; y += band)
                st = winent_zst_reader_read_map(r, k, m->height - y < band ? m->height - y : band,
                                                rows, &err);
        free(rows);
        winent_zst_reader_free(r);
    }
    if (st == WINENT_ERR_INTERNAL)
        return -1;
    return refused(st, err.msg);
}

/* Python's read_zst: winent_zst_open, then every frame on its own. */
static int python_verdict(const char *path)
{
    winent_error err;
    winent_zst *z = NULL;
    winent_status st = winent_zst_open(path, &z, &err);
    if (st == WINENT_OK) {
        winent_zst_reader *r = NULL;
        winent_err e;
        /* The sizes from the internal reader (Python parses the header
         * text for them: the same numbers, checked by the schema). */
        if (winent_zst_reader_open(path, &r, &e) != WINENT_OK) {
            fprintf(stderr, "winent_zst_open accepted what the reader refuses: %s\n", e.msg);
            abort();
        }
        const winent_zst_map *m = winent_zst_reader_map(r);
        float *rows = malloc(sizeof *rows * (size_t)m->width * (size_t)m->rows_per_frame);
        if (rows == NULL)
            st = WINENT_ERR_INTERNAL;
        for (int k = 0; k < m->nmaps && st == WINENT_OK; k++)
            for (int i = 0; i < m->frames && st == WINENT_OK; i++)
                st = winent_zst_read_frame(z, k, i, rows, &err);
        free(rows);
        winent_zst_reader_free(r);
        winent_zst_close(z);
    }
    if (st == WINENT_ERR_INTERNAL)
        return -1;
    return refused(st, err.message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
        return 0;
    const char *path = fuzz_file(data, size);
    if (path == NULL)
        return 0;
    /* Leave out what would only measure the machine: huge frames, many. */
    winent_zst_reader *r = NULL;
    winent_err e;
    winent_err_clear(&e);
    if (winent_zst_reader_open(path, &r, &e) == WINENT_OK) {
        const winent_zst_map *m = winent_zst_reader_map(r);
        const int big = (size_t)m->width * (size_t)m->rows_per_frame * 4 > FRAME_BYTES_MAX ||
                        (long long)m->frames * m->nmaps > FRAMES_MAX;
        winent_zst_reader_free(r);
        if (big)
            return 0;
    }
    winent_error err;
    const int check = refused(winent_info_check(path, devnull, &err), err.message);
    const int decode = decode_verdict(path);
    const int python = python_verdict(path);
    if (decode < 0 || python < 0)
        return 0; /* out of memory: no verdict */
    if (check != decode || check != python) {
        fprintf(stderr, "the readers disagree: --info --check %s, --decode %s, Python %s\n",
                check ? "refuses" : "accepts", decode ? "refuses" : "accepts",
                python ? "refuses" : "accepts");
        abort();
    }
    return 0;
}
