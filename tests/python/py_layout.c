/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout of the public structures of winent.h as this compiler sees
 * it, one line each: "STRUCT size N" and "STRUCT.FIELD OFFSET SIZE".
 * tests/python/test_py_layout.py holds the ctypes mirror of python/winent/_lib.py
 * to it, so that a change of the header is caught there. */
#include <stddef.h>
#include <stdio.h>

#include "winent.h"

#define STRUCT(s) printf("%s size %zu\n", #s, sizeof(s))
#define FIELD(s, f) printf("%s.%s %zu %zu\n", #s, #f, offsetof(s, f), sizeof(((s *)0)->f))

int main(void)
{
    STRUCT(winent_error);
    FIELD(winent_error, status);
    FIELD(winent_error, message);

    STRUCT(winent_compute_opts);
    FIELD(winent_compute_opts, kx);
    FIELD(winent_compute_opts, ky);
    FIELD(winent_compute_opts, base);
    FIELD(winent_compute_opts, dtype);
    FIELD(winent_compute_opts, bins);
    FIELD(winent_compute_opts, range_lo);
    FIELD(winent_compute_opts, range_hi);
    FIELD(winent_compute_opts, has_nodata);
    FIELD(winent_compute_opts, nodata);
    FIELD(winent_compute_opts, disk);
    FIELD(winent_compute_opts, measure);
    FIELD(winent_compute_opts, renyi_q);
    FIELD(winent_compute_opts, glcm_distance);
    FIELD(winent_compute_opts, glcm_angles);
    FIELD(winent_compute_opts, glcm_asymmetric);
    FIELD(winent_compute_opts, footprint);

    STRUCT(winent_progress);
    FIELD(winent_progress, rows_done);
    FIELD(winent_progress, rows_total);
    FIELD(winent_progress, width);
    FIELD(winent_progress, seconds);

    STRUCT(winent_stage_stats);
    FIELD(winent_stage_stats, busy_s);
    FIELD(winent_stage_stats, wait_s);
    FIELD(winent_stage_stats, threads);

    STRUCT(winent_band_counts);
    FIELD(winent_band_counts, band);
    FIELD(winent_band_counts, range_lo);
    FIELD(winent_band_counts, range_hi);
    FIELD(winent_band_counts, range_from);
    FIELD(winent_band_counts, clamped_below);
    FIELD(winent_band_counts, clamped_above);
    FIELD(winent_band_counts, valid_samples);
    FIELD(winent_band_counts, samples_min);
    FIELD(winent_band_counts, samples_max);
    STRUCT(winent_job_stats);
    FIELD(winent_job_stats, wall_s);
    FIELD(winent_job_stats, setup_s);
    FIELD(winent_job_stats, pixels);
    FIELD(winent_job_stats, bytes_in);
    FIELD(winent_job_stats, bytes_out);
    FIELD(winent_job_stats, read);
    FIELD(winent_job_stats, compute);
    FIELD(winent_job_stats, encode);
    FIELD(winent_job_stats, write);
    FIELD(winent_job_stats, chunk_rows);
    FIELD(winent_job_stats, chunks);
    FIELD(winent_job_stats, gpus);
    FIELD(winent_job_stats, engine);
    FIELD(winent_job_stats, range_counted);
    FIELD(winent_job_stats, range_lo);
    FIELD(winent_job_stats, range_hi);
    FIELD(winent_job_stats, range_from);
    FIELD(winent_job_stats, clamped_below);
    FIELD(winent_job_stats, clamped_above);
    FIELD(winent_job_stats, valid_samples);
    FIELD(winent_job_stats, samples_min);
    FIELD(winent_job_stats, samples_max);
    FIELD(winent_job_stats, nbands);
    FIELD(winent_job_stats, maps);
    FIELD(winent_job_stats, band);

    STRUCT(winent_job_opts);
    FIELD(winent_job_opts, input);
    FIELD(winent_job_opts, output);
    FIELD(winent_job_opts, compute);
    FIELD(winent_job_opts, nodata_given);
    FIELD(winent_job_opts, width);
    FIELD(winent_job_opts, height);
    FIELD(winent_job_opts, dtype_given);
    FIELD(winent_job_opts, bands);
    FIELD(winent_job_opts, band);
    FIELD(winent_job_opts, interleave);
    FIELD(winent_job_opts, big_endian);
    FIELD(winent_job_opts, header_bytes);
    FIELD(winent_job_opts, format);
    FIELD(winent_job_opts, level);
    FIELD(winent_job_opts, frame_rows);
    FIELD(winent_job_opts, tile);
    FIELD(winent_job_opts, compress);
    FIELD(winent_job_opts, preview);
    FIELD(winent_job_opts, preview_size);
    FIELD(winent_job_opts, preview_range);
    FIELD(winent_job_opts, preview_lo);
    FIELD(winent_job_opts, preview_hi);
    FIELD(winent_job_opts, tif_layout);
    FIELD(winent_job_opts, bigtiff);
    FIELD(winent_job_opts, command_line);
    FIELD(winent_job_opts, device);
    FIELD(winent_job_opts, threads);
    FIELD(winent_job_opts, mem_bytes);
    FIELD(winent_job_opts, range_auto);
    FIELD(winent_job_opts, sidecar);
    FIELD(winent_job_opts, decode);
    FIELD(winent_job_opts, on_progress);
    FIELD(winent_job_opts, on_notice);
    FIELD(winent_job_opts, user);
    FIELD(winent_job_opts, band_list);
    FIELD(winent_job_opts, nband_list);
    FIELD(winent_job_opts, band_all);
    FIELD(winent_job_opts, window_list);
    FIELD(winent_job_opts, nwindow_list);
    FIELD(winent_job_opts, window_disk);
    FIELD(winent_job_opts, release_gpus);
    FIELD(winent_job_opts, out_type);
    FIELD(winent_job_opts, words);
    FIELD(winent_job_opts, measure_list);
    FIELD(winent_job_opts, measure_q);
    FIELD(winent_job_opts, nmeasure_list);
    return 0;
}
