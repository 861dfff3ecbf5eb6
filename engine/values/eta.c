/* eta.c - the note before a long cpu product (see eta.h). */
#include "engine/values/eta.h"

#include <math.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/values/timing.h"

#define ETA_DEFAULT_GFLOPS 1.0 /* below the loop's 1-2.4 GFLOP/s on the machines measured */
#define ETA_MIN_LEARN_MS 50.0  /* shorter runs fit the caches and flatter the rate */
#define ETA_SIZES 8            /* rates kept, each for a size of product */

/* The loop's rate falls as the product grows out of each cache (a 400^2
 * product ran at twice the rate of a 2600^2 one), so a rate is kept per
 * size, and a product is estimated at the rate of the nearest size run. */
static struct {
    struct {
        double flops, gflops;
    } learnt[ETA_SIZES];
    int n, next;
    double started_ms;    /* of the product under way */
    double flops;
} E;

/* The rate of the product learnt nearest in size to one of flops (by
 * ratio); 0 if none has been. */
static double rate_near(double flops)
{
    double best = 0, gap = INFINITY;
    for (int i = 0; i < E.n; i++) {
        double g = fabs(log(E.learnt[i].flops / flops));
        if (g < gap)
            gap = g, best = E.learnt[i].gflops;
    }
    return best;
}

/* Keep the rate of a product of flops: in place of one of about its size
 * (within a factor of two), else in the next slot. */
static void learn(double flops, double gflops)
{
    int slot = E.next;
    for (int i = 0; i < E.n; i++)
        if (fabs(log(E.learnt[i].flops / flops)) < log(2.0))
            slot = i;
    if (slot == E.next) {
        E.next = (E.next + 1) % ETA_SIZES;
        E.n += E.n < ETA_SIZES;
    }
    E.learnt[slot].flops = flops;
    E.learnt[slot].gflops = gflops;
}

double eta_matmul_seconds(const cuk_backend *be, int m, int n, int k)
{
    double flops = 2.0 * m * n * k, gflops = rate_near(flops);
    if (!be->reference)
        return -1;
    return flops / ((gflops > 0 ? gflops : ETA_DEFAULT_GFLOPS) * 1e9);
}

void eta_matmul_begin(const cuk_backend *be, int m, int n, int k)
{
    double s = eta_matmul_seconds(be, m, n, k);
    E.flops = 2.0 * m * n * k;
    E.started_ms = timing_now_ms();
    if (s > 0)
        cuk_progress_expect(s); /* the panel's time left starts from the same estimate */
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
        learn(E.flops, E.flops / (ms * 1e6));
}
