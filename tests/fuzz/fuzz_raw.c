/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_raw - the raw source with random options: the first 8 bytes of the
 * input are the options, the rest is the file.
 *
 *   byte 0, 1  width, height: 1 + b % 64
 *   byte 2     dtype: b % 8
 *   byte 3     bands: 1 + b % 4; band: 1 + (b >> 2) % 4 (may be too big)
 *   byte 4     interleave: b % 3; byte order: bit 2 (big)
 *   byte 5     header bytes: b % 32 below 128, else 2^(b % 64)
 *   byte 6     rows per read: 1 + b % 8
 *   byte 7     (spare)
 *
 * Every row is read; the file may be too short (an input error), too long
 * or just right.
 */
#include "fuzz_common.h"
#include "tiles/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return -1;
    const uint8_t *opt = data;
    /* A file that starts like a TIFF goes to the TIFF source: not here. */
    if (size >= 12 && ((data[8] == 'I' && data[9] == 'I') || (data[8] == 'M' && data[9] == 'M')))
        return -1;
    const char *path = fuzz_file(data + 8, size - 8);
    if (path == NULL)
        return 0;
    winent_source_opts o;
    memset(&o, 0, sizeof o);
    o.path = path;
    o.width = 1 + opt[0] % 64;
    o.height = 1 + opt[1] % 64;
    o.has_dtype = 1;
    o.dtype = (winent_dtype)(opt[2] % WINENT_DTYPE_COUNT);
    o.bands = 1 + opt[3] % 4;
    o.band = 1 + (opt[3] >> 2) % 4;
    o.interleave = (winent_interleave)(opt[4] % 3);
    o.big_endian = (opt[4] >> 2) & 1;
    o.header_bytes = opt[5] < 128 ? opt[5] % 32 : (uint64_t)1 << (opt[5] % 64);
    o.threads = 1;
    const int batch = 1 + opt[6] % 8;
    winent_err err;
    winent_err_clear(&err);
    winent_source *s = NULL;
    if (winent_source_open(&o, &s, &err) != WINENT_OK) {
        if (s != NULL || err.status == WINENT_OK)
            abort();
        return 0;
    }
    const winent_source_info *info = winent_source_get_info(s);
    if (info->width != o.width || info->height != o.height || info->dtype != o.dtype)
        abort(); /* raw takes the options as given */
    const size_t row = (size_t)o.width * winent_dtype_size(o.dtype);
    uint8_t *buf = malloc(row * (size_t)batch);
    for (int y = 0; buf != NULL && y < o.height; y += batch) {
        int n = o.height - y < batch ? o.height - y : batch;
        if (winent_source_read(s, n, buf, &err) != WINENT_OK) {
            if (err.status != WINENT_ERR_INPUT)
                abort(); /* a short file is an input error */
            break;
        }
    }
    free(buf);
    winent_source_free(s);
    return 0;
}
