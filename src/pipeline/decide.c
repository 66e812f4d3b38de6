/* SPDX-License-Identifier: BSD-3-Clause */
#include "decide.h"

int winent_more_gpus_pay(const winent_first_gpu *g, double more_s)
{
    if (g->failed)
        return 1;
    if (g->chunks_done < 2 || g->busy_s <= g->first_busy_s)
        return 0; /* it ended with the job: nothing is left */
    double rate = (g->px_done - g->first_px) / (g->busy_s - g->first_busy_s);
    return g->px_left / rate > more_s; /* rate 0: infinite, unless nothing is left */
}

int winent_gpus_worth(double cpu_px_s, double total_px, int bands_done, int workers, double worth_s)
{
    double total = cpu_px_s > 0.0 ? total_px / cpu_px_s : 0.0;
    if (total > worth_s)
        return 1;
    return bands_done >= workers ? -1 : 0;
}
