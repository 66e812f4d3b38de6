/* SPDX-License-Identifier: BSD-3-Clause */
/* What a run measured, after its threads: the --stats figures, the
 * warning of a range that does not fit the data, and the notice of a
 * saturated map (counted by the writer as chunks retire). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "setup.h"
#include "kernels/measure.h"

void winent_job_fill_stats(const pipeline *p, winent_job_stats *stats, double t_start)
{
    stats->wall_s = winent_now() - t_start;
    stats->setup_s = p->meter.first_submit_s > t_start ? p->meter.first_submit_s - t_start : 0.0;
    stats->pixels = (uint64_t)p->plan.width * (uint64_t)p->plan.height;
    stats->bytes_in = p->source   ? winent_source_bytes_read(p->source)
                      : p->map_in ? winent_zst_reader_bytes_read(p->map_in)
                                  : 0;
    stats->bytes_out = p->plan.stage == WINENT_STAGE_ENCODE ? p->out.bytes
                       : p->sink                            ? winent_sink_bytes_written(p->sink)
                                                            : 0;
    stats->read.busy_s = p->meter.read_clock.busy_s;
    stats->read.wait_s = p->meter.read_clock.wait_s;
    stats->read.threads = 1;
    stats->compute.busy_s = p->meter.compute_clock.busy_s;
    stats->compute.threads = p->plan.threads;
    stats->encode.busy_s = p->meter.encode_clock.busy_s;
    stats->encode.threads = p->plan.threads;
    if (p->plan.store_out) { /* the pool's threads stored the rows */
        stats->write.busy_s += p->meter.store_s;
        stats->write.threads += p->plan.threads;
    }
    stats->chunk_rows = p->plan.chunk_rows;
    stats->chunks = p->ring.nchunks;
    int k = 0, gpus = 0;
    stats->engine[0] = '\0';
    for (int i = 0; i < p->set.nengines; i++) {
        const engine *e = &p->set.engines[i];
        if (e->ops->kind == ENGINE_GPU) {
            gpus++;
            stats->compute.busy_s += e->busy_s;
        }
        if (e->chunks_done == 0 || k >= (int)sizeof stats->engine - 24)
            continue;
        k += snprintf(stats->engine + k, sizeof stats->engine - (size_t)k, "%s%s:%lld",
                      k ? "+" : "", e->name, (long long)e->chunks_done);
    }
    stats->gpus = gpus;
    stats->compute.threads += gpus;
    stats->maps = p->plan.nmaps;
    stats->nbands = p->plan.nbands;
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    for (int b = 0; b < p->plan.nbands && b < WINENT_STATS_BANDS; b++) {
        winent_band_counts *bc = &stats->band[b];
        const winent_clamp_counts *c = &p->clamps[b];
        bc->band = info ? info->read[b].band : 0;
        if (!p->plan.count_clamps)
            continue;
        bc->range_lo = p->plan.band_plan[b]->opts.range_lo;
        bc->range_hi = p->plan.band_plan[b]->opts.range_hi;
        snprintf(bc->range_from, sizeof bc->range_from, "%s", p->range_from[b]);
        bc->clamped_below = c->below;
        bc->clamped_above = c->above;
        bc->valid_samples = c->valid;
        bc->samples_min = c->min <= c->max ? c->min : NAN;
        bc->samples_max = c->min <= c->max ? c->max : NAN;
    }
    if (p->plan.count_clamps) {
        const winent_band_counts *bc = &stats->band[0];
        stats->range_counted = 1;
        stats->range_lo = bc->range_lo;
        stats->range_hi = bc->range_hi;
        snprintf(stats->range_from, sizeof stats->range_from, "%s", bc->range_from);
        stats->clamped_below = bc->clamped_below;
        stats->clamped_above = bc->clamped_above;
        stats->valid_samples = bc->valid_samples;
        stats->samples_min = bc->samples_min;
        stats->samples_max = bc->samples_max;
    }
}

/* A range that does not fit the data, one warning line through on_notice
 * (the library never prints):
 * - more than 1 % of the valid samples lie outside it and were clamped into
 *   the end bins (too narrow, or shifted: a map of zeros where they pile);
 * - the valid samples span less than 5 % of it, so they fall in a few bins
 *   (far too wide: --range 0:100 on data in 0..1 leaves a map of few
 *   levels, or of zeros with fewer bins), though none is clamped. */
void winent_job_warn_range(const pipeline *p, int k)
{
    const winent_clamp_counts *c = &p->clamps[k];
    const winent_plan *plan = p->plan.band_plan[k];
    const double lo = plan->opts.range_lo, hi = plan->opts.range_hi;
    const uint32_t bins = plan->rule.bins;
    uint64_t out = c->below + c->above;
    if (!p->plan.count_clamps || p->plan.on_notice == NULL || c->valid == 0)
        return;
    char line[WINENT_MSG_LEN], range[256], band[32] = "";
    /* Several bands: each one's warning says which. */
    if (p->plan.nbands > 1)
        snprintf(band, sizeof band, "band %d: ", winent_source_get_info(p->source)->read[k].band);
    if (p->plan.range_auto)
        snprintf(range, sizeof range, "--range auto (%.9g:%.9g from %s)", lo, hi, p->range_from[k]);
    else
        snprintf(range, sizeof range, "--range %.9g:%.9g", lo, hi);
    if (out * 100 > c->valid) {
        snprintf(line, sizeof line,
                 "%swarning: %.1f %% of the samples (%llu of %llu) lie outside %s and were put in "
                 "the end bins (%llu below, %llu above): check the range, or use --range auto",
                 band, 100.0 * (double)out / (double)c->valid, (unsigned long long)out,
                 (unsigned long long)c->valid, range, (unsigned long long)c->below,
                 (unsigned long long)c->above);
        winent_one_line(line);
        p->plan.on_notice(p->plan.user, line);
        return;
    }
    /* Constant data fill one bin whatever the range: nothing to say. */
    if (!(c->max > c->min) || (c->max - c->min) >= 0.05 * (hi - lo))
        return;
    double a = floor((c->min - lo) * bins / (hi - lo)), b = floor((c->max - lo) * bins / (hi - lo));
    a = a < 0 ? 0 : a > bins - 1 ? bins - 1 : a;
    b = b < 0 ? 0 : b > bins - 1 ? bins - 1 : b;
    snprintf(line, sizeof line,
             "%swarning: the samples (%.6g to %.6g) span only %.2f %% of %s and fall in %.0f of "
             "its %u bins: check the range, or use --range auto",
             band, c->min, c->max, 100.0 * (c->max - c->min) / (hi - lo), range, b - a + 1, bins);
    winent_one_line(line);
    p->plan.on_notice(p->plan.user, line);
}

/* Count, as the writer retires chunks, the pixels at the top of each
 * map's scale (every pixel of their window in a bin of its own): more than
 * a quarter of them is a saturated map (a u16 DEM's distinct values), said
 * in one notice after the run (winent_job_warn_saturated). */
winent_status winent_job_count_saturation(pipeline *p)
{
    p->saturated = calloc((size_t)p->plan.nmaps, sizeof *p->saturated);
    if (p->saturated == NULL)
        return WINENT_ERR_INTERNAL;
    for (int m = 0; m < p->plan.nmaps; m++) {
        saturation *s = &p->saturated[m];
        s->top = winent_compute_top(&p->plan.maps[m].co);
        /* Below the top by less than the step to the next entropy a window
         * can have (2 log 2 / n, relative 2e-6 for 255 x 255) and more
         * than the engines' rounding; a 1 x 1 window (top 0) never is. */
        s->at_top = s->top > 0.0 ? (float)(s->top * (1.0 - 5e-7)) : INFINITY;
        /* The measures whose top says "every pixel of the window in a bin
         * of its own" (or the bins filled evenly) alone: not the evenness
         * (1 for any even window), the majority (a value) nor the
         * co-occurrence measures. */
        const winent_measure k = p->plan.maps[m].co.measure;
        if (k != WINENT_MEASURE_ENTROPY && k != WINENT_MEASURE_RENYI &&
            k != WINENT_MEASURE_SIMPSON && k != WINENT_MEASURE_RICHNESS)
            s->at_top = INFINITY;
    }
    return WINENT_OK;
}

/* The largest value of map `co`, as the notice names it: "entropy,
 * log2(9) = 3.17 bits", "richness, 9 values". */
static void top_text(const winent_compute_opts *co, double top, double n, char *buf, size_t cap)
{
    static const char *const logs[] = {"ln", "log2", "log10"};
    static const char *const units[] = {"nats", "bits", "bans"};
    const unsigned b = (unsigned)co->base <= WINENT_BASE_10 ? (unsigned)co->base : 0;
    char m[64];
    winent_measure_text(co, m, sizeof m);
    if (co->measure == WINENT_MEASURE_RICHNESS)
        snprintf(buf, cap, "richness, %.0f values", n);
    else if (co->measure == WINENT_MEASURE_SIMPSON)
        snprintf(buf, cap, "Gini-Simpson index, 1 - 1/%.0f = %.4g", n, top);
    else
        snprintf(buf, cap, "%s%s, %s(%.0f) = %.4g %s", co->measure == WINENT_MEASURE_ENTROPY ? "" : m,
                 co->measure == WINENT_MEASURE_ENTROPY ? "entropy" : " entropy", logs[b], n, top,
                 units[b]);
}

/* 1 where the job's maps have more than one measure. */
static int several_measures(const pipeline *p)
{
    for (int k = 1; k < p->plan.nmaps; k++)
        if (p->plan.maps[k].co.measure != p->plan.maps[0].co.measure ||
            p->plan.maps[k].co.renyi_q != p->plan.maps[0].co.renyi_q)
            return 1;
    return 0;
}

void winent_job_warn_saturated(const pipeline *p, int m)
{
    const saturation *s = &p->saturated[m];
    const winent_compute_opts *co = &p->plan.maps[m].co;
    if (p->plan.on_notice == NULL || s->valid == 0 || s->top_count * 4 <= s->valid)
        return;
    char line[WINENT_MSG_LEN], which[128] = "", fix[96], what[128], why[96], win[48] = "", ms[64];
    const double area = (double)p->plan.maps[m].plan->area; /* a disk's: fewer than kx * ky */
    const uint32_t bins = p->plan.maps[m].plan->rule.quantize ? p->plan.maps[m].plan->rule.bins : 0;
    const double n = bins > 0 && bins < area ? (double)bins : area;
    const int band = winent_source_get_info(p->source)->read[p->plan.maps[m].band].band;
    if (co->disk)
        snprintf(win, sizeof win, "disk%d", co->kx / 2);
    else
        snprintf(win, sizeof win, "%s%dx%d", co->footprint ? "footprint" : "", co->kx, co->ky);
    winent_measure_text(co, ms, sizeof ms);
    /* Several maps: which one, by its band and window, and its measure
     * where the job has several. */
    if (p->plan.nmaps > 1)
        snprintf(which, sizeof which, "band %d, window %s%s%s: ", band, win,
                 several_measures(p) ? ", " : "", several_measures(p) ? ms : "");
    if (bins > 0)
        snprintf(fix, sizeof fix, "give fewer bins, e.g. --bins %u", bins > 64 ? 16 : bins / 4 + 1);
    else
        snprintf(fix, sizeof fix, "quantize the values, e.g. --bins 16 --range auto");
    if (bins > 0 && bins < area)
        snprintf(why, sizeof why,
                 co->measure == WINENT_MEASURE_RICHNESS ? "every one of the %u bins in their window"
                                                        : "their window's pixels spread evenly "
                                                          "over all %u bins",
                 bins);
    else
        snprintf(why, sizeof why, "each pixel of their window in a bin of its own");
    top_text(co, s->top, n, what, sizeof what);
    snprintf(line, sizeof line,
             "%sthe map is saturated: %.1f %% of its valid pixels (%llu of %llu) are at the "
             "largest %s, %s, so it shows where values differ, not how much; %s",
             which, 100.0 * (double)s->top_count / (double)s->valid,
             (unsigned long long)s->top_count, (unsigned long long)s->valid, what, why, fix);
    p->plan.on_notice(p->plan.user, line);
}
