/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_validate - one validation for the CLI and the library: for each
 * bad value, winent_job_opts_validate (and winent_compute_opts_validate
 * for what is computed) gives the very line the CLI prints for the same
 * value, less the CLI's "winent-stream: " prefix, and WINENT_ERR_USAGE
 * where the CLI exits 2.
 *
 *   test_api_validate PATH/TO/winent-stream
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *cli;

/* The CLI's one line on stderr for `args` (before INPUT OUTPUT), without
 * the prefix; its exit status in *code. */
static void cli_message(const char *args, char *line, size_t n, int *code)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s in.raw out.raw 2>&1 >/dev/null", cli, args);
    FILE *p = popen(cmd, "r");
    line[0] = '\0';
    *code = -1;
    if (p == NULL)
        return;
    if (fgets(line, (int)n, p) == NULL)
        line[0] = '\0';
    int st = pclose(p);
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    line[strcspn(line, "\n")] = '\0';
    const char *prefix = "winent-stream: ";
    if (strncmp(line, prefix, strlen(prefix)) == 0)
        memmove(line, line + strlen(prefix), strlen(line) - strlen(prefix) + 1);
}

typedef void (*set_fn)(winent_job_opts *o);

static void window0(winent_job_opts *o)
{
    o->compute.kx = o->compute.ky = 0;
}
static void window7x256(winent_job_opts *o)
{
    o->compute.kx = 7, o->compute.ky = 256;
}
/* Even sides are windows, but the co-occurrence measures refuse them. */
static void window4_glcm(winent_job_opts *o)
{
    o->compute.kx = o->compute.ky = 4;
    o->compute.measure = WINENT_MEASURE_GLCM_CONTRAST;
}
static void bins_alone(winent_job_opts *o)
{
    o->compute.bins = 4;
}
static void range_inverted(winent_job_opts *o)
{
    o->compute.bins = 4;
    o->compute.range_lo = 5;
    o->compute.range_hi = 1;
}
static void range_infinite(winent_job_opts *o)
{
    o->compute.bins = 256; /* the CLI's --range alone */
    o->compute.range_lo = 1;
    o->compute.range_hi = 1.0 / 0.0;
}
static void bins_many(winent_job_opts *o)
{
    o->compute.bins = 2000000000u;
    o->compute.range_lo = 0;
    o->compute.range_hi = 1;
}
/* Each a member of a class the CLI and the library refuse
 * alike (a range without bins, a range whose bins overflow a double, a
 * range end that is no number, a layout past any file). */
static void bins0_range(winent_job_opts *o)
{
    o->compute.bins = 0;
    o->compute.range_lo = 0;
    o->compute.range_hi = 1;
}
static void bins0_range_auto(winent_job_opts *o)
{
    o->compute.bins = 0;
    o->range_auto = 1;
}
static void range_width_overflows(winent_job_opts *o)
{
    o->compute.bins = 256; /* the CLI's --range alone */
    o->compute.range_lo = -1e308;
    o->compute.range_hi = 1e308;
}
static void range_bins_overflow(winent_job_opts *o)
{
    o->compute.bins = 1073741824;
    o->compute.range_lo = 0;
    o->compute.range_hi = 1e300;
}
static void range_nan(winent_job_opts *o)
{
    o->compute.bins = 256;
    o->compute.range_lo = NAN;
    o->compute.range_hi = 1;
}
static void range_minus_inf(winent_job_opts *o)
{
    o->compute.bins = 8;
    o->compute.range_lo = -1.0 / 0.0;
    o->compute.range_hi = 0;
}
static void header_huge(winent_job_opts *o)
{
    o->width = o->height = 4;
    o->compute.dtype = WINENT_U8;
    o->dtype_given = 1;
    o->header_bytes = 9300000000000000000ull;
}
static void layout_huge(winent_job_opts *o)
{
    o->width = o->height = 2147483647;
    o->bands = 65535;
    o->compute.dtype = WINENT_U16;
    o->dtype_given = 1;
}
/* Lists of bands and windows: checked by the library for every caller. */
static const int zero_windows[] = {0, 0, 5, 5};
static const int twice_windows[] = {5, 5, 3, 3, 5, 5};
static const int wide_windows[] = {7, 3, 9, 256};
static const int twice_bands[] = {2, 2};
static const int zero_band[] = {0, 1};
static void window_list_zero(winent_job_opts *o)
{
    o->window_list = zero_windows;
    o->nwindow_list = 2;
}
static void window_list_twice(winent_job_opts *o)
{
    o->window_list = twice_windows;
    o->nwindow_list = 3;
}
static void window_list_wide(winent_job_opts *o)
{
    o->window_list = wide_windows;
    o->nwindow_list = 2;
}
static void band_list_twice(winent_job_opts *o)
{
    o->bands = 3;
    o->band_list = twice_bands;
    o->nband_list = 2;
}
static void band_list_zero(winent_job_opts *o)
{
    o->bands = 3;
    o->band_list = zero_band;
    o->nband_list = 2;
}
static void nodata_u16(winent_job_opts *o)
{
    o->width = o->height = 5;
    o->compute.dtype = WINENT_U16;
    o->dtype_given = 1;
    o->compute.has_nodata = 1;
    o->compute.nodata = 70000;
    o->nodata_given = 1;
}
static void threads5000(winent_job_opts *o)
{
    o->threads = 5000;
}
static void threads_neg(winent_job_opts *o)
{
    o->threads = -2;
}
static void mem100k(winent_job_opts *o)
{
    o->mem_bytes = 100 * 1024;
}
static void device_gpu0(winent_job_opts *o)
{
    o->device = "gpu0";
}
static void device_twice(winent_job_opts *o)
{
    o->device = "1,cpu,1";
}
static void level30(winent_job_opts *o)
{
    o->level = 30;
}
static void tile20(winent_job_opts *o)
{
    o->tile = 20;
}
static void bands70000(winent_job_opts *o)
{
    o->bands = 70000;
}
static void band0(winent_job_opts *o)
{
    o->band = 0;
}
static void frame_rows_neg(winent_job_opts *o)
{
    o->frame_rows = -3;
}
static void preview_size_alone(winent_job_opts *o)
{
    o->preview_size = 5;
}
static void preview_size_big(winent_job_opts *o)
{
    o->preview = "p.png";
    o->preview_size = 20000;
}
/* --decode computes nothing: a compute or raw-input option set is
 * refused, not dropped. */
static void decode_size(winent_job_opts *o)
{
    o->decode = 1;
    o->width = o->height = 4;
}
static void decode_nodata(winent_job_opts *o)
{
    o->decode = 1;
    o->compute.has_nodata = 1;
    o->compute.nodata = 3;
    o->nodata_given = 1;
}
static void decode_window(winent_job_opts *o)
{
    o->decode = 1;
    o->compute.kx = o->compute.ky = 9;
}
static void decode_disk(winent_job_opts *o)
{
    o->decode = 1;
    o->compute.disk = 1;
    o->compute.kx = o->compute.ky = 7;
}
static void decode_preview(winent_job_opts *o)
{
    o->decode = 1;
    o->preview = "p.png";
}
static void decode_header(winent_job_opts *o)
{
    o->decode = 1;
    o->header_bytes = 512;
}

static const struct {
    const char *args; /* the CLI's options */
    set_fn set;       /* the same in job options */
    int compute;      /* also a compute_opts check */
} cases[] = {
    {"--window 0", window0, 1},
    {"--window 7x256", window7x256, 1},
    {"--window 4 --measure glcm-contrast", window4_glcm, 1},
    {"--bins 4", bins_alone, 1},
    {"--bins 4 --range 5:1", range_inverted, 1},
    {"--range 1:inf", range_infinite, 1},
    {"--bins 2000000000 --range 0:1", bins_many, 1},
    {"--size 5x5 --dtype u16 --nodata 70000", nodata_u16, 1},
    {"--window 0,5", window_list_zero, 0},
    {"--window 5,3,5", window_list_twice, 0},
    {"--window 7x3,9x256", window_list_wide, 0},
    {"--bands 3 --band 2,2", band_list_twice, 0},
    {"--bands 3 --band 0,1", band_list_zero, 0},
    {"--bins 0 --range 0:1", bins0_range, 1},
    {"--bins 0 --range auto", bins0_range_auto, 0},
    {"--range -1e+308:1e+308", range_width_overflows, 1},
    {"--bins 1073741824 --range 0:1e+300", range_bins_overflow, 1},
    {"--range nan:1", range_nan, 1},
    {"--bins 8 --range -inf:0", range_minus_inf, 1},
    {"--size 4x4 --dtype u8 --header-bytes 9300000000000000000", header_huge, 0},
    {"--size 2147483647x2147483647 --bands 65535 --dtype u16", layout_huge, 0},
    {"--threads 5000", threads5000, 0},
    {"--threads -2", threads_neg, 0},
    {"--mem 100K", mem100k, 0},
    {"--device gpu0", device_gpu0, 0},
    {"--device 1,cpu,1", device_twice, 0},
    {"--level 30", level30, 0},
    {"--tile 20", tile20, 0},
    {"--bands 70000", bands70000, 0},
    {"--band=0", band0, 0},
    {"--frame-rows -3", frame_rows_neg, 0},
    {"--preview-size 5", preview_size_alone, 0},
    {"--preview p.png --preview-size 20000", preview_size_big, 0},
    {"--decode --size 4x4", decode_size, 0},
    {"--decode --nodata 3", decode_nodata, 0},
    {"--decode --window 9", decode_window, 0},
    {"--decode --header-bytes 512", decode_header, 0},
    {"--decode --disk 3", decode_disk, 0},
    {"--decode --preview p.png", decode_preview, 0},
};

/* The CLI's line and the library's are one message: the same, or the same
 * but for the value quoted first, which the CLI gives as typed (a word of
 * `args`: "--range: '1e308:...'" where the library, given numbers, says
 * '1e+308:...'). */
static int one_message(const char *cli_line, const char *lib, const char *args)
{
    if (strcmp(cli_line, lib) == 0)
        return 1;
    const char *a = strstr(cli_line, ": '"), *b = strstr(lib, ": '");
    const char *ae = a ? strstr(a + 3, "': ") : NULL, *be = b ? strstr(b + 3, "': ") : NULL;
    if (ae == NULL || be == NULL || a - cli_line != b - lib ||
        strncmp(cli_line, lib, (size_t)(a - cli_line)) != 0 || strcmp(ae, be) != 0)
        return 0;
    char typed[128];
    snprintf(typed, sizeof typed, " %.*s", (int)(ae - a - 3), a + 3);
    const char *at = strstr(args, typed);
    return at != NULL && (at[strlen(typed)] == ' ' || at[strlen(typed)] == '\0');
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_api_validate PATH/TO/winent-stream\n");
        return 2;
    }
    cli = argv[1];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char line[WINENT_MSG_LEN + 64];
        int code;
        cli_message(cases[k].args, line, sizeof line, &code);
        winent_job_opts o;
        winent_job_opts_default(&o);
        o.input = "in.raw";
        o.output = "out.raw";
        cases[k].set(&o);
        winent_error err;
        winent_status st = winent_job_opts_validate(&o, &err);
        CHECK(code == 2 && st == WINENT_ERR_USAGE && err.status == st &&
                  one_message(line, err.message, cases[k].args),
              "%s: the CLI says '%s' (exit %d), winent_job_opts_validate '%s' (%d)", cases[k].args,
              line, code, err.message, (int)st);
        if (cases[k].compute) {
            winent_error cerr;
            st = winent_compute_opts_validate(&o.compute, &cerr);
            CHECK(st == WINENT_ERR_USAGE && one_message(line, cerr.message, cases[k].args),
                  "%s: winent_compute_opts_validate says '%s'", cases[k].args, cerr.message);
        }
    }
    /* The same rule in Python's words: every case refused again, its
     * line naming the option without the command line's "--". */
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        winent_job_opts o;
        winent_job_opts_default(&o);
        o.input = "in.raw";
        o.output = "out.raw";
        cases[k].set(&o);
        o.words = WINENT_WORDS_PYTHON;
        winent_error err;
        winent_status st = winent_job_opts_validate(&o, &err);
        CHECK(st == WINENT_ERR_USAGE && strstr(err.message, "--") == NULL,
              "%s in Python's words: '%s' (%d)", cases[k].args, err.message, (int)st);
    }
    /* A GPU named that is not there: one line from the CLI and from the
     * library's in-memory door (Python's too: it calls it). */
    if (winent_gpu_count() <= 7) {
        char line[WINENT_MSG_LEN + 64];
        int code;
        cli_message("--device 7 --size 4x4 --dtype u8", line, sizeof line, &code);
        winent_compute_opts co;
        winent_compute_opts_default(&co);
        uint8_t in[16] = {0};
        float out[16];
        winent_error derr;
        winent_status st = winent_entropy(&co, in, 0, 4, 4, out, 0, "7", 1, &derr);
        CHECK(code == 5 && st == WINENT_ERR_DEVICE && strcmp(line, derr.message) == 0,
              "--device 7: the CLI says '%s' (exit %d), winent_entropy '%s' (%d)", line, code,
              derr.message, (int)st);
    }
    /* Good options: no message, and err cleared. */
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.input = "in.raw";
    winent_error err = {WINENT_ERR_INPUT, "stale"};
    CHECK(winent_job_opts_validate(&o, &err) == WINENT_OK && err.status == WINENT_OK &&
              err.message[0] == '\0',
          "defaults refused or err not cleared: '%s'", err.message);
    CHECK(winent_job_opts_validate(&o, NULL) == WINENT_OK, "err NULL");
    o.input = NULL;
    CHECK(winent_job_opts_validate(&o, &err) == WINENT_ERR_USAGE, "no input accepted");
    return harness_end();
}
