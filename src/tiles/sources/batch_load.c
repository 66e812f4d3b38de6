/* SPDX-License-Identifier: BSD-3-Clause */
/* The TIFF and GDAL sources' batch loop (batch_load.h). */
#include "batch_load.h"

#include <stdlib.h>
#include <string.h>

#include <omp.h>

int winent_batch_loader_init(winent_batch_loader *b, const winent_parallel *par,
                             const volatile int *stop, int workers)
{
    memset(b, 0, sizeof *b);
    b->slot = calloc((size_t)(workers > 0 ? workers : 1), sizeof *b->slot);
    if (b->slot == NULL)
        return -1;
    b->par = par;
    b->stop = stop;
    b->workers = workers > 0 ? workers : 1;
    return 0;
}

void winent_batch_loader_free(winent_batch_loader *b)
{
    free(b->slot);
    b->slot = NULL;
    b->workers = 0;
}

typedef struct batch_call {
    winent_batch_loader *b;
    winent_batch_item_fn fn;
    void *arg;
} batch_call;

static void run_item(void *arg, long item, int worker)
{
    batch_call *c = arg;
    winent_batch_slot *slot = &c->b->slot[worker];
    if (slot->fail_item >= 0)
        return;
    if (c->fn(c->arg, item, worker, &slot->err) != WINENT_OK) {
        if (slot->err.status == WINENT_OK)
            WINENT_ERR(&slot->err, WINENT_ERR_INTERNAL, "a work item failed without a message");
        slot->fail_item = item;
    }
}

winent_status winent_batch_run(winent_batch_loader *b, long n, int sequential, int team,
                               winent_batch_item_fn fn, void *arg, winent_err *err)
{
    for (int i = 0; i < b->workers; i++) {
        winent_err_clear(&b->slot[i].err);
        b->slot[i].fail_item = -1;
    }
    batch_call c = {b, fn, arg};
    if (sequential) {
        for (long item = 0; item < n && b->slot[0].fail_item < 0; item++) {
            if (b->stop != NULL && __atomic_load_n(b->stop, __ATOMIC_RELAXED))
                return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
            run_item(&c, item, 0);
        }
    } else if (b->par) {
        if (b->par->run(b->par->ctx, n, run_item, &c) != 0)
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
    } else {
        int nthreads = team < n ? team : (int)n;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
        for (long item = 0; item < n; item++)
            run_item(&c, item, omp_get_thread_num());
    }
    /* The failure of the first item in file order, whatever thread met it,
     * so the message does not depend on scheduling. */
    const winent_batch_slot *first = NULL;
    for (int i = 0; i < b->workers; i++)
        if (b->slot[i].fail_item >= 0 && (first == NULL || b->slot[i].fail_item < first->fail_item))
            first = &b->slot[i];
    if (first) {
        winent_err_merge(err, &first->err);
        return first->err.status;
    }
    return WINENT_OK;
}
