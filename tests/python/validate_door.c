/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validate_door - the C API as a door of the all-doors validator test
 * (tests/python/test_validator_doors.py): the options given as C fields,
 * straight into winent_entropy (an 8 x 8 image of the dtype) or winent_run
 * (a job), and the verdict printed as one line: "0" or "STATUS MESSAGE".
 *
 *   validate_door entropy|run [FIELD=VALUE ...]
 *
 * FIELD: kx ky disk base bins lo hi nodata dtype range_auto threads device
 * level tile frame_rows preview_size mem width height input output; the
 * measures: measure (one name, winent_measure_parse), measures (a list
 * NAME,NAME: the job's measure_list), distance, angles (the bits),
 * asymmetric.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "winent.h"

/* measures=A,B,...: the job's list (at most 8). */
static winent_measure list_m[8];
static double list_q[8];

static int set_measures(winent_job_opts *o, const char *v)
{
    char item[64];
    int n = 0;
    while (*v && n < 8) {
        size_t k = strcspn(v, ",");
        if (k >= sizeof item)
            return -1;
        memcpy(item, v, k);
        item[k] = '\0';
        if (winent_measure_parse(item, &list_m[n], &list_q[n], NULL) != WINENT_OK)
            return -1;
        n++;
        v += k + (v[k] == ',');
    }
    o->compute.measure = list_m[0];
    o->compute.renyi_q = list_q[0];
    o->measure_list = list_m;
    o->measure_q = list_q;
    o->nmeasure_list = n;
    return 0;
}

static int set_field(winent_job_opts *o, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (eq == NULL)
        return -1;
    const size_t n = (size_t)(eq - kv);
    const char *v = eq + 1;
    char key[32];
    if (n >= sizeof key)
        return -1;
    memcpy(key, kv, n);
    key[n] = '\0';
    winent_compute_opts *c = &o->compute;
    if (!strcmp(key, "kx")) c->kx = atoi(v);
    else if (!strcmp(key, "ky")) c->ky = atoi(v);
    else if (!strcmp(key, "disk")) c->disk = atoi(v);
    else if (!strcmp(key, "base")) c->base = (winent_base)atoi(v);
    else if (!strcmp(key, "bins")) c->bins = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(key, "lo")) c->range_lo = strtod(v, NULL);
    else if (!strcmp(key, "hi")) c->range_hi = strtod(v, NULL);
    else if (!strcmp(key, "nodata")) {
        c->nodata = strtod(v, NULL);
        c->has_nodata = !isnan(c->nodata);
        o->nodata_given = 1;
    } else if (!strcmp(key, "dtype")) {
        for (int t = 0; t < WINENT_DTYPE_COUNT; t++)
            if (!strcmp(v, winent_dtype_name((winent_dtype)t)))
                c->dtype = (winent_dtype)t;
        o->dtype_given = 1;
    } else if (!strcmp(key, "range_auto")) o->range_auto = atoi(v);
    else if (!strcmp(key, "threads")) o->threads = atoi(v);
    else if (!strcmp(key, "device")) o->device = v;
    else if (!strcmp(key, "level")) o->level = atoi(v);
    else if (!strcmp(key, "tile")) o->tile = atoi(v);
    else if (!strcmp(key, "frame_rows")) o->frame_rows = atoi(v);
    else if (!strcmp(key, "preview_size")) o->preview_size = atoi(v);
    else if (!strcmp(key, "preview")) o->preview = v;
    else if (!strcmp(key, "mem")) o->mem_bytes = strtoull(v, NULL, 10);
    else if (!strcmp(key, "width")) o->width = atoi(v);
    else if (!strcmp(key, "height")) o->height = atoi(v);
    else if (!strcmp(key, "input")) o->input = v;
    else if (!strcmp(key, "output")) o->output = v;
    else if (!strcmp(key, "measure"))
        return winent_measure_parse(v, &c->measure, &c->renyi_q, NULL) == WINENT_OK ? 0 : -1;
    else if (!strcmp(key, "measures")) return set_measures(o, v);
    else if (!strcmp(key, "distance")) c->glcm_distance = atoi(v);
    else if (!strcmp(key, "angles")) c->glcm_angles = (unsigned)atoi(v);
    else if (!strcmp(key, "asymmetric")) c->glcm_asymmetric = atoi(v);
    else return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "entropy") && strcmp(argv[1], "run"))) {
        fprintf(stderr, "usage: validate_door entropy|run [FIELD=VALUE ...]\n");
        return 2;
    }
    winent_job_opts o;
    winent_job_opts_default(&o);
    for (int i = 2; i < argc; i++)
        if (set_field(&o, argv[i]) != 0) {
            fprintf(stderr, "validate_door: what is '%s'?\n", argv[i]);
            return 2;
        }
    winent_error err;
    winent_status st;
    if (!strcmp(argv[1], "entropy")) {
        /* An 8 x 8 image of small values: a valid one of every dtype. */
        double in[64];
        float out[64];
        unsigned char *b = (unsigned char *)in;
        memset(in, 0, sizeof in);
        for (int i = 0; i < 64; i++) {
            if (o.compute.dtype == WINENT_F32)
                ((float *)in)[i] = (float)(i % 7);
            else if (o.compute.dtype == WINENT_F64)
                in[i] = i % 7;
            else
                b[i * winent_dtype_size(o.compute.dtype)] = (unsigned char)(i % 7);
        }
        st = winent_entropy(&o.compute, in, 0, 8, 8, out, 0, o.device, o.threads, &err);
    } else {
        st = winent_run(&o, NULL, &err);
    }
    if (st == WINENT_OK)
        printf("0\n");
    else
        printf("%d %s\n", (int)st, err.message);
    return 0;
}
