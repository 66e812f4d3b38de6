/* SPDX-License-Identifier: BSD-3-Clause */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

typedef struct mark {
    double t;
    const char *event;
    int64_t seq;
} mark;

typedef struct lane {
    char name[16];
    int n, lost;
    mark *m; /* owned: per_lane marks */
} lane;

struct winent_trace {
    char *path; /* owned */
    int nlanes, per_lane;
    lane *lanes; /* owned */
};

winent_status winent_trace_create(const char *path, int lanes, int per_lane, winent_trace **out,
                                  winent_err *err)
{
    *out = NULL;
    if (path == NULL || *path == '\0')
        return WINENT_OK;
    winent_trace *t = calloc(1, sizeof *t);
    if (t == NULL || (t->path = strdup(path)) == NULL ||
        (t->lanes = calloc((size_t)lanes, sizeof *t->lanes)) == NULL)
        goto nomem;
    t->nlanes = lanes;
    t->per_lane = per_lane;
    for (int i = 0; i < lanes; i++) {
        snprintf(t->lanes[i].name, sizeof t->lanes[i].name, "lane%d", i);
        if ((t->lanes[i].m = malloc(sizeof(mark) * (size_t)per_lane)) == NULL)
            goto nomem;
    }
    *out = t;
    return WINENT_OK;
nomem:
    winent_trace_free(t);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the trace");
}

void winent_trace_name(winent_trace *t, int lane, const char *name)
{
    if (t != NULL && lane >= 0 && lane < t->nlanes)
        snprintf(t->lanes[lane].name, sizeof t->lanes[lane].name, "%s", name);
}

void winent_trace_mark(winent_trace *t, int lane, const char *event, int64_t seq)
{
    if (t == NULL || lane < 0 || lane >= t->nlanes)
        return;
    struct lane *l = &t->lanes[lane];
    if (l->n == t->per_lane) {
        l->lost++;
        return;
    }
    l->m[l->n++] = (mark){winent_now(), event, seq};
}

winent_status winent_trace_finish(winent_trace *t, double t0, winent_err *err)
{
    if (t == NULL)
        return WINENT_OK;
    FILE *f = fopen(t->path, "w");
    if (f == NULL)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "WINENT_TRACE: cannot write %s", t->path);
    fprintf(f, "lane,name,event,seq,t_ms\n");
    for (int i = 0; i < t->nlanes; i++) {
        const struct lane *l = &t->lanes[i];
        for (int k = 0; k < l->n; k++)
            fprintf(f, "%d,%s,%s,%lld,%.3f\n", i, l->name, l->m[k].event, (long long)l->m[k].seq,
                    (l->m[k].t - t0) * 1e3);
        if (l->lost)
            fprintf(f, "%d,%s,lost,%d,0\n", i, l->name, l->lost);
    }
    if (fclose(f) != 0)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "WINENT_TRACE: cannot write %s", t->path);
    return WINENT_OK;
}

void winent_trace_free(winent_trace *t)
{
    if (t == NULL)
        return;
    for (int i = 0; t->lanes && i < t->nlanes; i++)
        free(t->lanes[i].m);
    free(t->lanes);
    free(t->path);
    free(t);
}
