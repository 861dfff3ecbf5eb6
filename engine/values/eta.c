/* eta.c - the note before a long cpu product (see eta.h). */
#include "engine/values/eta.h"

#include "base/out.h"
#include "engine/values/timing.h"

#define ETA_DEFAULT_GFLOPS 1.0 /* below the loop's 1-2.4 GFLOP/s on the machines measured */
#define ETA_MIN_LEARN_MS 50.0  /* shorter runs fit the caches and flatter the rate */

static struct {
    double gflops;        /* the cpu mode's rate on its last product of some size; 0: none yet */
    double started_ms;    /* of the product under way */
    double flops;
} E;

double eta_matmul_seconds(const cuk_backend *be, int m, int n, int k)
{
    if (!be->reference)
        return -1;
    return 2.0 * m * n * k / ((E.gflops > 0 ? E.gflops : ETA_DEFAULT_GFLOPS) * 1e9);
}

void eta_matmul_begin(const cuk_backend *be, int m, int n, int k)
{
    double s = eta_matmul_seconds(be, m, n, k);
    E.flops = 2.0 * m * n * k;
    E.started_ms = timing_now_ms();
    if (s <= ETA_NOTE_S)
        return;
    if (s < 120)
        out_printf("note: this %s product will take about %.0f s (Ctrl-C stops it)\n", be->name, s);
    else
        out_printf("note: this %s product will take about %.0f min (Ctrl-C stops it)\n", be->name, s / 60);
    out_flush();
}

void eta_matmul_end(const cuk_backend *be, int ok)
{
    double ms = timing_now_ms() - E.started_ms;
    if (be->reference && ok && ms >= ETA_MIN_LEARN_MS)
        E.gflops = E.flops / (ms * 1e6);
}
