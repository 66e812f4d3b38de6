/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a winent-stream .zst: the header frame (its JSON parsed by
 * cJSON), the seek table, and the frames' own headers held against the
 * table. */
#include "zst_layout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "base/werr.h"
#include "out_sample.h"
#include "zst_format.h"

/* The largest zstd frame header (ZSTD_FRAMEHEADERSIZE_MAX, which zstd.h
 * exposes only to static linking). */
#define FRAME_HEADER_MAX 18

/* ---- the file ------------------------------------------------------- */

const char *winent_zst_frame_header_why(const uint8_t *fh, size_t n, uint64_t want)
{
    if (n < 5 || winent_zst_get32(fh) != WINENT_ZST_FRAME_MAGIC)
        return "not a zstd frame";
    unsigned long long content = ZSTD_getFrameContentSize(fh, n);
    if (content == ZSTD_CONTENTSIZE_ERROR)
        return "damaged frame header";
    if (content == ZSTD_CONTENTSIZE_UNKNOWN)
        return "the frame does not give its content size";
    if (content != want)
        return "the frame's content size is not its band of rows";
    /* Frame_Header_Descriptor, bit 2: Content_Checksum_flag. */
    if (!(fh[4] & 0x04))
        return "the frame has no checksum";
    return NULL;
}

winent_status winent_zst_layout_open(winent_zst_file *f, winent_zst_layout *l)
{
    uint64_t csum, dsum;
    WINENT_TRY(winent_zst_read_header(f, l));
    WINENT_TRY(winent_zst_read_table(f, l));
    WINENT_TRY(winent_zst_check_frames(f, &l->h, (uint32_t)l->header_end,
                                       l->table + WINENT_ZST_SKIP_HEADER, l->nentries, &csum,
                                       &dsum));
    if (l->header_end + csum + l->tsize != f->size)
        return winent_zst_bad(f, "the frames and the file size disagree");
    return WINENT_OK;
}

winent_status winent_zst_bad(winent_zst_file *f, const char *why)
{
    snprintf(f->msg, f->msg_len, "%s: not a winent-stream .zst file: %s", f->path, why);
    f->why = why;
    return WINENT_ERR_INPUT;
}

winent_status winent_zst_read_at(winent_zst_file *f, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    if (off > f->size || n > f->size - off)
        return winent_zst_bad(f, "truncated");
    while (n > 0) {
        ssize_t r = pread(f->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(f->msg, f->msg_len, "%s: cannot read: %s", f->path, strerror(errno));
            return WINENT_ERR_INPUT;
        }
        if (r == 0)
            return winent_zst_bad(f, "truncated");
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return WINENT_OK;
}

/* Check the seek table against the header and each frame's own header;
 * sums of the data frames go to *csum and *dsum. */
winent_status winent_zst_check_frames(winent_zst_file *f, const winent_zst_facts *h, uint32_t header_frame,
                                  const uint8_t *entries, uint32_t nentries, uint64_t *csum,
                                  uint64_t *dsum)
{
    uint64_t off = 0, row_bytes = (uint64_t)h->width * (uint64_t)h->sample_bytes;
    const uint64_t per_map = (uint64_t)(h->frames / h->maps); /* each map's frames */
    *csum = *dsum = 0;
    if (winent_zst_get32(entries) != header_frame || winent_zst_get32(entries + 4) != 0 ||
        winent_zst_get32(entries + 8) != WINENT_ZST_EMPTY_CHECKSUM)
        return winent_zst_bad(f, "the seek table does not start with the header frame");
    off = header_frame;
    for (uint32_t i = 1; i < nentries; i++) {
        const uint8_t *e = entries + (size_t)i * WINENT_ZST_ENTRY;
        uint32_t c = winent_zst_get32(e), d = winent_zst_get32(e + 4);
        uint64_t y0 = (uint64_t)(i - 1) % per_map * (uint64_t)h->rows_per_frame;
        uint64_t rows = (uint64_t)h->height - y0 < (uint64_t)h->rows_per_frame
                            ? (uint64_t)h->height - y0
                            : (uint64_t)h->rows_per_frame;
        uint8_t fh[FRAME_HEADER_MAX];
        const char *why;
        if (d != rows * row_bytes)
            return winent_zst_bad(f, "a frame of the seek table does not hold its band of rows");
        if (c < 4 || off + c > f->size)
            return winent_zst_bad(f, "the seek table points past the end of the file");
        size_t n = c < sizeof fh ? c : sizeof fh;
        winent_status st = winent_zst_read_at(f, fh, n, off);
        if (st != WINENT_OK)
            return st;
        if ((why = winent_zst_frame_header_why(fh, n, d)) != NULL) {
            snprintf(f->why_text, sizeof f->why_text, "the frame at byte %llu: %s",
                     (unsigned long long)off, why);
            return winent_zst_bad(f, f->why_text);
        }
        off += c;
        *csum += c;
        *dsum += d;
    }
    if (*dsum !=
        (uint64_t)h->width * (uint64_t)h->height * (uint64_t)h->sample_bytes * (uint64_t)h->maps)
        return winent_zst_bad(f, "the frames do not hold the whole image");
    return WINENT_OK;
}


void winent_zst_layout_free(winent_zst_layout *l)
{
    free(l->table);
    cJSON_Delete(l->root);
    free(l->json);
    memset(l, 0, sizeof *l);
}

winent_status winent_zst_oom(winent_zst_file *f)
{
    snprintf(f->msg, f->msg_len, "out of memory");
    return WINENT_ERR_INTERNAL;
}

/* The header frame: a winent-stream JSON object whose sizes add up. */
winent_status winent_zst_read_header(winent_zst_file *f, winent_zst_layout *l)
{
    uint8_t b8[WINENT_ZST_SKIP_HEADER];
    WINENT_TRY(winent_zst_read_at(f, b8, sizeof b8, 0));
    /* A TIFF (a GeoTIFF map of ours, most likely): say what reads it. */
    if (!memcmp(b8, "II*\0", 4) || !memcmp(b8, "MM\0*", 4) || !memcmp(b8, "II+\0", 4) ||
        !memcmp(b8, "MM\0+", 4))
        return winent_zst_bad(f, "it is a TIFF: for a GeoTIFF map, gdalinfo shows its metadata "
                                 "(and gdalinfo -stats its values)");
    if (winent_zst_get32(b8) != WINENT_ZST_HEADER_MAGIC)
        return winent_zst_bad(f, winent_zst_get32(b8) == WINENT_ZST_FRAME_MAGIC
                          ? "a zstd stream without the winent-stream header"
                          : "no winent-stream header");
    l->jlen = winent_zst_get32(b8 + 4);
    if (l->jlen > WINENT_ZST_MAX_HEADER || l->jlen > f->size - sizeof b8)
        return winent_zst_bad(f, "the header frame is truncated");
    l->json = malloc(l->jlen + 1u);
    if (l->json == NULL)
        return winent_zst_oom(f);
    WINENT_TRY(winent_zst_read_at(f, l->json, l->jlen, sizeof b8));
    l->json[l->jlen] = '\0';
    l->header_end = sizeof b8 + (uint64_t)l->jlen;
    l->root = winent_json_parse(l->json, l->jlen);
    if (winent_zst_header_check(l->root, &l->h, f->why_text, sizeof f->why_text) != 0)
        return winent_zst_bad(f, f->why_text);
    return WINENT_OK;
}

/* The seek table frame at the end of the file: its footer, its size, one
 * entry per frame of the header plus the header frame's own. */
winent_status winent_zst_read_table(winent_zst_file *f, winent_zst_layout *l)
{
    uint8_t foot[WINENT_ZST_FOOTER];
    if (f->size < l->header_end + WINENT_ZST_SKIP_HEADER + WINENT_ZST_FOOTER)
        return winent_zst_bad(f, "truncated (no seek table)");
    WINENT_TRY(winent_zst_read_at(f, foot, sizeof foot, f->size - sizeof foot));
    if (winent_zst_get32(foot + 5) != WINENT_ZST_SEEKABLE_MAGIC)
        return winent_zst_bad(f, "truncated (no seek table at the end)");
    if (foot[4] != WINENT_ZST_CHECKSUM_FLAG)
        return winent_zst_bad(f, "unexpected seek table descriptor");
    uint32_t nentries = winent_zst_get32(foot);
    if ((uint64_t)nentries != (uint64_t)l->h.frames + 1)
        return winent_zst_bad(f, "the seek table does not list the header's frames");
    uint64_t tsize =
        WINENT_ZST_SKIP_HEADER + (uint64_t)nentries * WINENT_ZST_ENTRY + WINENT_ZST_FOOTER;
    if (tsize > f->size - l->header_end)
        return winent_zst_bad(f, "the seek table is truncated");
    uint8_t *table = malloc((size_t)tsize);
    if (table == NULL)
        return winent_zst_oom(f);
    winent_status st = winent_zst_read_at(f, table, (size_t)tsize, f->size - tsize);
    if (st == WINENT_OK && (winent_zst_get32(table) != WINENT_ZST_SEEK_MAGIC ||
                            winent_zst_get32(table + 4) != tsize - WINENT_ZST_SKIP_HEADER))
        st = winent_zst_bad(f, "the seek table frame is damaged");
    if (st != WINENT_OK) {
        free(table);
        return st;
    }
    l->table = table;
    l->tsize = tsize;
    l->nentries = nentries;
    return WINENT_OK;
}
