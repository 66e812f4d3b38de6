/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * opttable.c - every option of winent-stream in one table: its CLI word,
 * its Python keyword, its --help lines and what a refused value is told,
 * in each door's words. The CLI's parser and --help (hence the man page),
 * the bash completion (tools/winent-options prints the table for
 * tools/mkcompletion.sh), the library's checks and the Python package all
 * read it (winent_options). Adding an option: a row here (a plain type says
 * where its value goes, and every door reads it from that), its field in
 * winent_job_opts, its check in job_opts.c; an option of a grammar of its
 * own (WINENT_OPT_OWN) also has its reader in each door (the CLI's in
 * src/cli/options.c).
 */
#include "opttable.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IND "\n                      " /* a --help continuation line */

#define G_COMPUTE "What is computed"
#define G_RAW "Raw input"
#define G_OUTPUT "Output"
#define G_RUN "Running"

/* The last columns of a row: how its value is read and where it goes. */
#define JOB(m) ((long)offsetof(winent_job_opts, m))
#define OWN WINENT_OPT_OWN, -1, 0, 0
#define CLI_FLAG WINENT_OPT_FLAG, -1, 0, 0 /* a flag of the CLI's own (--quiet) */
#define FLAG(m) WINENT_OPT_FLAG, JOB(m), 0, 0
#define INT(m, lo, hi) WINENT_OPT_INT, JOB(m), lo, hi
#define INT_SET(m) WINENT_OPT_INT_SET, JOB(m), 0, 0
#define U32(m, lo, hi) WINENT_OPT_U32, JOB(m), lo, hi
#define WORD(m) WINENT_OPT_WORD, JOB(m), 0, 0
#define SIZE(m, lo) WINENT_OPT_SIZE, JOB(m), lo, 0
#define TEXT(m) WINENT_OPT_TEXT, JOB(m), 0, 0

static const winent_option TABLE[] = {
    /* What is computed */
    {"window", "window", "K|WxH", G_COMPUTE,
     "window size, sides 1..255 (default 5; 7x3 = 7 wide, 3 high);" IND
     "an even side centres at K/2, as scikit-image's footprints;" IND
     "a list (5,9,15) makes a map of each in the same pass; an item" IND
     "diskR is a circular window (5,9,disk3)",
     "give K or WxH, sides from 1 to 255, or diskR with R from 0 to 127",
     "give K or (rows, cols), sides from 1 to 255, or ('disk', R) with R from 0 to 127",
     NULL, OWN},
    /* A list of windows: the CLI's --window 5,9,disk3, Python's windows=. */
    {"window", "windows", NULL, G_COMPUTE, NULL,
     "give K or WxH, sides from 1 to 255, diskR (R from 0 to 127), or a list of them "
     "(5,9,disk3)",
     "give a list of windows: K or (rows, cols), sides from 1 to 255, or ('disk', R) "
     "with R from 0 to 127, e.g. [5, 9, ('disk', 3)]",
     NULL, OWN},
    {"disk", "radius", "R", G_COMPUTE,
     "circular window: the pixels within distance R of the centre" IND
     "(dx^2 + dy^2 <= R^2, scikit-image's disk(R)), R 0..127;" IND
     "cropped at the borders like the square ones",
     "give a radius R from 0 to 127 (the pixels within distance R), or a list of them (3,5)",
     "give a radius R from 0 to 127 (the pixels within distance R), with footprint='disk'",
     NULL, OWN},
    {"measure", "measures", "M", G_COMPUTE,
     "what each window gives (default entropy): entropy, renyi:Q" IND
     "(Renyi entropy of order Q >= 0), simpson (1 - sum p^2)," IND
     "richness (distinct values), evenness (Pielou: H / log" IND
     "richness), majority (the most frequent value, ties to the" IND
     "smallest; a bin's centre with --bins); a list" IND
     "(entropy,simpson) makes a map of each at each window;" IND
     "co-occurrence (GLCM): glcm-entropy, glcm-asm, glcm-energy," IND
     "glcm-contrast, glcm-dissimilarity, glcm-homogeneity," IND
     "glcm-correlation, glcm-mean, glcm-variance, glcm-cluster-shade," IND
     "glcm-cluster-prominence, glcm-cond-entropy, glcm-mutual-info",
     "give a measure (entropy, renyi:Q, simpson, richness, evenness, majority, or a "
     "co-occurrence measure such as glcm-contrast) or a list of them (entropy,simpson)",
     "give a measure ('entropy', 'renyi:Q' with Q >= 0, 'simpson', 'richness', 'evenness', "
     "'majority', 'glcm-entropy', 'glcm-contrast', ...: winent.texture's docstring lists them) "
     "or a list of them", NULL, OWN},
    /* winent.entropy's one measure= (winent.texture takes measures=). */
    {NULL, "measure", NULL, G_COMPUTE, NULL, NULL,
     "give one measure: 'entropy', 'renyi:Q' with Q >= 0, 'simpson', 'richness', 'evenness', "
     "'majority', or a co-occurrence measure such as 'glcm-contrast'", NULL, OWN},
    {"footprint", "footprint", "FILE", G_COMPUTE,
     "a window of any shape: a mask of up to 255x255, 1 in the" IND
     "window (a PBM, a .npy or text rows of 0 and 1); its centre" IND
     "is row H/2, column W/2 (scikit-image's: even sides too)",
     "give a PBM (P1 or P4), a .npy or text rows of 0 and 1, up to 255x255",
     "give a 2-D boolean array (any shape up to 255x255, e.g. morphology.diamond(3)), or 'disk' "
     "with radius=R",
     NULL, OWN},
    {"base", "base", "2|e|10", G_COMPUTE,
     "base of the logarithm (default 2: bits, as scikit-image; e: nats)", "use e, 2 or 10",
     "use 'e', 2 or 10", "e|2|10", WORD(compute.base)},
    {"levels", "levels", "N", G_COMPUTE,
     "the co-occurrence measures' levels: --bins N, over --range" IND
     "(default auto); 8-bit values are their own levels without it",
     "give a whole number of levels from 1 to 1024",
     "give a whole number of levels from 1 to 1024", NULL, OWN},
    {"distance", "distances", "D", G_COMPUTE,
     "the co-occurrence pairs' distance in pixels (default 1)",
     "give a distance from 1 to 127", "give one distance from 1 to 127 (an int, or [D])",
     NULL, INT(compute.glcm_distance, 1, 127)},
    {"angles", "angles", "A,...", G_COMPUTE,
     "their directions, degrees from 0, 45, 90, 135 (default all" IND
     "four: the measure of each, averaged, as GRASS r.texture)",
     "give degrees from 0, 45, 90 and 135, e.g. 0,90",
     "give angles in radians as graycomatrix takes them (0, pi/4, pi/2, 3*pi/4) or in "
     "degrees (0, 45, 90, 135), e.g. [0, np.pi/2]", NULL, OWN},
    {"asymmetric", NULL, NULL, G_COMPUTE,
     "count each pair once, (i, j) only (default: symmetric, as" IND
     "Haralick, GRASS and scikit-image's symmetric=True)",
     NULL, NULL, NULL, FLAG(compute.glcm_asymmetric)},
    {"bins", "bins", "N", G_COMPUTE,
     "quantize into N bins over --range (float input: default 256)",
     "give a whole number from 1 to 1073741824", "give a whole number from 1 to 1073741824",
     NULL, U32(compute.bins, 1, 4294967295.0)},
    {"range", "range", "LO:HI", G_COMPUTE,
     "bin = floor((v - LO) * N / (HI - LO)), clamped to 0..N-1;" IND
     "more than 1 % of the samples clamped gives a warning\n"
     "  --range auto        LO:HI from the band's statistics (a .aux.xml beside the file," IND
     "the TIFF's GDAL metadata), else from a first pass over the" IND
     "band (files and GDAL names: a pipe needs --range LO:HI);" IND
     "the default for float input (f32, f64), with 256 bins",
     "give finite numbers LO:HI with LO < HI, or auto",
     "give finite numbers (lo, hi) with lo < hi, or 'auto'", "auto", OWN},
    {"nodata", "nodata", "V", G_COMPUTE,
     "pixels equal to V are not counted (default: the file's" IND
     "GDAL_NODATA or GDAL nodata value); for integer samples a" IND
     "whole number the band's type holds",
     "not a number", "give a number", NULL, OWN},
    /* Raw input */
    {"size", "size", "WxH", G_RAW, "width and height in pixels",
     "give WxH, e.g. 10240x10240", "give (width, height), e.g. (10240, 10240)", NULL, OWN},
    {"dtype", "dtype", "T", G_RAW, "u8, i8, u16, i16, u32, i32, f32 or f64",
     "use u8, i8, u16, i16, u32, i32, f32 or f64",
     "use 'uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'float32', 'float64' (or "
     "'u8' ... 'f64', or a numpy dtype)",
     "u8|i8|u16|i16|u32|i32|f32|f64", OWN},
    {"bands", "bands", "N", G_RAW, "bands in the file (default 1)", "give a number from 1 to 65535",
     "give a number from 1 to 65535", NULL, INT(bands, 0, 0)},
    {"interleave", "interleave", "I", G_RAW, "bsq, bip or bil (default bsq)", "use bsq, bip or bil",
     "use 'bsq', 'bip' or 'bil'", "bsq|bip|bil", WORD(interleave)},
    {"band", "band", "B", G_RAW,
     "band to use, 1-based (default 1; TIFF and GDAL inputs too);" IND
     "a list (1,3,5) or 'all' (alpha bands left out) reads them in" IND
     "one pass: a map of each band at each window, band by band" IND
     "(.tif: a band each; .zst: one after another; raw:" IND
     "NAME_b3_w9.raw each); an input of several bands read for one" IND
     "says so in a notice, naming the others",
     "give a band number from 1, a list of them (1,3,5), or all",
     "give a band number from 1, a list of them [1, 3, 5], or 'all'", "all", OWN},
    {"byteorder", "byteorder", "O", G_RAW, "little or big (default little)",
     "use little or big", "use 'little' or 'big'", "little|big", WORD(big_endian)},
    {"header-bytes", "header_bytes", "N", G_RAW, "bytes to skip before the samples",
     "give a byte count below 2^63", "give a byte count below 2^63", NULL, SIZE(header_bytes, 0)},
    /* Output */
    {"format", "format", "F", G_OUTPUT,
     "zst, tif, raw or zarr (default auto: from the output name:" IND
     ".zst; .tif, .tiff; .zarr, a Zarr v2 store (a folder," IND
     "xarray's layout); .raw, .f32, .bin, '-' or no" IND
     "extension raw; any other extension needs --format)",
     NULL, NULL, "auto|raw|zst|tif,tiff|zarr", WORD(format)},
    {"level", "level", "L", G_OUTPUT,
     "compression level: zstd -7..22 (default 2 for .zst, 3 for" IND
     "GeoTIFF and -3 for its overview tiles), deflate 1..9" IND "(default 6)",
     "give a compression level: zstd -7 to 22 (not 0), deflate 1 to 9",
     "give a compression level: zstd -7 to 22 (not 0), deflate 1 to 9", NULL, INT_SET(level)},
    {"frame-rows", "frame_rows", "N", G_OUTPUT,
     "rows per .zst frame (default: about 4 MiB of floats)", "give a row count from 1 to 1048576",
     "give a row count from 1 to 1048576", NULL, INT_SET(frame_rows)},
    {"tile", "tile", "N", G_OUTPUT, "GeoTIFF tile side, multiple of 16 (default 512)",
     "give a multiple of 16 from 16 to 65536", "give a multiple of 16 from 16 to 65536", NULL, INT_SET(tile)},
    {"compress", "compress", "C", G_OUTPUT,
     "GeoTIFF compression: zstd, deflate, lzw or none (default zstd)",
     "use zstd, deflate, lzw or none", "use 'zstd', 'deflate', 'lzw' or 'none'",
     "zstd|deflate|lzw|none", WORD(compress)},
    {"preview", "preview", "FILE.png", G_OUTPUT,
     "also write a quicklook of the map while it streams: each pixel" IND
     "the mean of the valid map pixels of its block, the colours" IND
     "stretched over the 2nd to 98th percentiles of those means," IND
     "transparent where none is valid, exactly the map's extent;" IND
     "its legend (values and unit) in FILE.legend.png beside it, and" IND
     "for a georeferenced map FILE.pgw (world file) and" IND
     "FILE.png.aux.xml (CRS)",
     "give a FILE.png", "give a path to a .png file", NULL, TEXT(preview)},
    {"preview-range", "preview_range", "LO:HI", G_OUTPUT,
     "the colours' stretch instead, in the map's unit (2:6)",
     "give finite numbers LO:HI with LO < HI", "give finite numbers (lo, hi) with lo < hi", NULL, OWN},
    {"preview-size", "preview_size", "N", G_OUTPUT,
     "its longest side in pixels (default 1024; never more than" IND "the map's)",
     "give a side in pixels from 1 to 16384", "give a side in pixels from 1 to 16384", NULL, INT_SET(preview_size)},
    {"tif-layout", "tif_layout", "cog|tiled", G_OUTPUT,
     "\n                      cog (default): a Cloud-Optimized GeoTIFF, with overviews (the" IND
     "mean of the valid pixels of each 2x2, 4x4, ... block; a" IND
     "majority's: the mode of each 2x2 of the level below) until one" IND
     "tile holds the image; tiled: plain tiled GeoTIFF, no overviews",
     "use cog or tiled", "use 'cog' or 'tiled'", "cog|tiled", WORD(tif_layout)},
    {"ot", "ot", "T", G_OUTPUT,
     "sample type of the map, every format: float32 (default)," IND
     "float16 (relative error at most 2^-11; not with --sidecar)," IND
     "uint16 or uint8: round(H / scale), scale = the job's largest" IND
     "value / 65534 or / 254 (error at most scale / 2), recorded" IND
     "as GDAL's scale and offset; 65535 or 255 is nodata (NaN);" IND
     "a map a type cannot hold (negative values in unsigned codes," IND
     "past 65504 in float16, a majority's classes sharing codes)" IND
     "is refused",
     "use float32, float16, uint16 or uint8",
     "use 'float32', 'float16', 'uint16' or 'uint8' (or the numpy dtype)",
     "float32|float16|uint16|uint8", WORD(out_type)},
    {"bigtiff", "bigtiff", NULL, G_OUTPUT,
     "write a BigTIFF even when the file would fit a classic TIFF" IND "(by default only past 4 GiB)",
     NULL, NULL, NULL, FLAG(bigtiff)},
    {"sidecar", "sidecar", NULL, G_OUTPUT,
     "raw output: also write OUTPUT.hdr (ENVI header: size, NaN" IND
     "nodata, georeferencing, provenance) so GDAL opens the map",
     NULL, NULL, NULL, FLAG(sidecar)},
    {"decode", "decode", NULL, G_OUTPUT,
     "MAP.zst OUTPUT: write a .zst map as a GeoTIFF or raw (with" IND
     "its georeferencing, nodata and provenance), checking every" IND "frame's checksum",
     NULL, NULL, NULL, FLAG(decode)},
    /* Running */
    {"device", "device", "D", G_RUN,
     "auto (default: the CPU at once, and the GPUs too when the job is" IND
     "long enough to gain from them, one first and the others if" IND
     "what is left pays for them, all taking chunks from one" IND
     "queue), cpu, gpu (every GPU), or a list such as 0,2 or cpu,0",
     "use auto, cpu, gpu or a list like 0,2 or cpu,0",
     "use 'auto', 'cpu', 'gpu' or a list like '0,2' or 'cpu,0'", "auto|cpu|gpu", TEXT(device)},
    {"threads", "threads", "N", G_RUN,
     "the one thread budget for decoding, computing and encoding" IND "(default: all cores)",
     "give a number from 1 to 4096", "give a number from 1 to 4096 (0: all cores)", NULL, INT_SET(threads)},
    {"mem", "mem", "SIZE", G_RUN,
     "host memory budget for buffers, e.g. 512M, 4G (default 1G," IND
     "more where many threads' encoders leave too little of it;" IND
     "a job takes only what its chunks in flight need; a GPU's" IND
     "context counts 128M: auto leaves a GPU out where it won't fit)",
     "give a size of at least 1M, e.g. 512M or 4G",
     "give a size of at least 1M: a byte count, or '512M', '4G'", NULL, SIZE(mem_bytes, 1)},
    {"progress", "progress", NULL, G_RUN,
     "progress line on stderr (default when stderr is a terminal)", NULL, NULL, NULL, CLI_FLAG},
    {"no-progress", NULL, NULL, G_RUN, "no progress line", NULL, NULL, NULL, CLI_FLAG},
    {"quiet", NULL, NULL, G_RUN, "no progress line and no notices", NULL, NULL, NULL, CLI_FLAG},
    {"stats", NULL, NULL, G_RUN, "one JSON line of figures on stderr at the end", NULL, NULL, NULL, CLI_FLAG},
    {"info", NULL, "FILE.zst", G_RUN, "print the header and frame count of a .zst output",
     "give one FILE.zst", NULL, NULL, OWN},
    {"check", NULL, NULL, G_RUN,
     "with --info: decompress every frame, verify its size and" IND
     "checksum and the seek table; print OK, or the first bad" IND "frame (exit 3)",
     NULL, NULL, NULL, CLI_FLAG},
    {"test", NULL, "FILE.zst", G_RUN, "the same as --info --check (like zstd -t)",
     "give one FILE.zst", NULL, NULL, OWN},
    {"help", NULL, NULL, G_RUN, "", NULL, NULL, NULL, CLI_FLAG},
    {"version", NULL, NULL, G_RUN, "the version, the engines built in and the libraries' versions",
     NULL, NULL, NULL, CLI_FLAG},
    /* Python's own: a job's provenance line, the callbacks. */
    {NULL, "command_line", NULL, G_RUN, NULL, NULL, "give a str", NULL, TEXT(command_line)},
};

#define NOPTS ((int)(sizeof TABLE / sizeof TABLE[0]))

const winent_option *winent_options(int *count)
{
    if (count)
        *count = NOPTS;
    return TABLE;
}

const winent_option *winent_opt_row(const char *name)
{
    if (name == NULL)
        return NULL;
    for (int i = 0; i < NOPTS; i++)
        if ((TABLE[i].cli && strcmp(TABLE[i].cli, name) == 0) ||
            (TABLE[i].python && strcmp(TABLE[i].python, name) == 0))
            return &TABLE[i];
    return NULL;
}

const char *winent_opt_name(winent_words w, const char *name)
{
    const winent_option *r = winent_opt_row(name);
    if (r == NULL)
        return name;
    if (w == WINENT_WORDS_PYTHON && r->python)
        return r->python;
    return r->cli ? r->cli : r->python;
}

/* The row of `name` for door `w`: in Python's words a keyword first (the
 * CLI's --measure is texture's measures=; entropy's measure= is a row of
 * its own), then a CLI word. */
static const winent_option *row_for(winent_words w, const char *name)
{
    for (int i = 0; w == WINENT_WORDS_PYTHON && i < NOPTS; i++)
        if (TABLE[i].python && strcmp(TABLE[i].python, name) == 0)
            return &TABLE[i];
    return winent_opt_row(name);
}

/* An enumeration's advice from its words, without their other spellings:
 * "use raw, zst or tif" (CLI), "use 'raw', 'zst' or 'tif'" (Python). */
static void words_advice(const char *words, int quoted, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "use");
    const char *q = quoted ? "'" : "";
    for (const char *w = words; *w && n < cap;) {
        const size_t len = strcspn(w, "|"), word = strcspn(w, ",|");
        const char *next = w + len + (w[len] == '|');
        const char *sep = w == words ? " " : *next ? ", " : " or ";
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%.*s%s", sep, q, (int)word, w, q);
        w = next;
    }
}

winent_status winent_opt_refuse(winent_err *err, winent_words w, const char *name,
                                const char *value)
{
    const winent_option *r = row_for(w, name);
    if (r == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "no option '%s'", name);
    const int py = w == WINENT_WORDS_PYTHON && r->python;
    const char *advice = py ? r->python_advice : r->cli_advice;
    char made[256];
    if (advice == NULL && r->words != NULL) {
        words_advice(r->words, py, made, sizeof made);
        advice = made;
    }
    if (py)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "%s=%s: %s", r->python, value,
                          advice ? advice : "not a value it takes");
    return WINENT_ERR(err, WINENT_ERR_USAGE, "--%s: '%s': %s", r->cli ? r->cli : r->python, value,
                      advice ? advice : "not a value it takes");
}

winent_status winent_opt_say(winent_err *err, winent_words w, const char *cli_fmt,
                             const char *py_fmt, ...)
{
    va_list ap;
    va_start(ap, py_fmt);
    winent_status st = winent_err_vset_at(err, __FILE__, __LINE__, WINENT_ERR_USAGE,
                                          w == WINENT_WORDS_PYTHON ? py_fmt : cli_fmt, ap);
    va_end(ap);
    return st;
}

void winent_num_text(double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v < 0 ? "-inf" : "inf");
        return;
    }
    /* The fewest digits that read back as v; then Python's repr's layout:
     * plain from 1e-4 up to 1e16, else an exponent ("1e+16", "2.5e-05"). */
    char e[40];
    int p = 1;
    for (; p < 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    snprintf(e, sizeof e, "%.*e", p - 1, v);
    const int exp10 = atoi(strchr(e, 'e') + 1);
    if (exp10 >= -4 && exp10 < 16)
        snprintf(buf, n, "%.*f", p - 1 - exp10 > 0 ? p - 1 - exp10 : 0, v);
    else
        snprintf(buf, n, "%s", e);
}

const char *winent_dtype_word(winent_words w, winent_dtype t)
{
    static const char *const numpy[] = {"uint8", "int8", "uint16", "int16",
                                        "uint32", "int32", "float32", "float64"};
    if (w == WINENT_WORDS_PYTHON && (unsigned)t < WINENT_DTYPE_COUNT)
        return numpy[t];
    return winent_dtype_name(t);
}

winent_status winent_option_refuse(const char *name, const char *value, winent_words words,
                                   winent_error *err)
{
    if (name == NULL)
        return winent_err_null(err, "winent_option_refuse", "name");
    winent_err e;
    winent_err_clear(&e);
    winent_status st = winent_opt_refuse(&e, words, name, value ? value : "");
    winent_one_line(e.msg);
    return winent_err_export(&e, st, err);
}

winent_status winent_option_conflict(const char *name, const char *other, winent_words words,
                                     winent_error *err)
{
    if (name == NULL || other == NULL)
        return winent_err_null(err, "winent_option_conflict", name == NULL ? "name" : "other");
    winent_err e;
    winent_err_clear(&e);
    const int py = words == WINENT_WORDS_PYTHON;
    winent_status st = WINENT_ERR(&e, WINENT_ERR_USAGE,
                                  py ? "%s= does not go with %s=: give the window one way"
                                     : "--%s does not go with --%s: give the window one way",
                                  winent_opt_name(words, name), winent_opt_name(words, other));
    return winent_err_export(&e, st, err);
}
