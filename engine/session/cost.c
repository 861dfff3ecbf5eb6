/* cost.c - cost model, ceilings and verdicts (see cost.h). */
#include "engine/session/cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "engine/session/host.h"
#include "engine/session/snapshot.h"
#include "kernels/gpu.h"
#include "kernels/variants.h"

static cost_ceilings given;
static int use_given;

void cost_ceilings_set(const cost_ceilings *c)
{
    use_given = c != NULL;
    if (c)
        given = *c;
}

void cost_ceilings_get(cost_ceilings *c, int measure_host)
{
    snap_device d;
    const host_facts *h = host_get();
    if (use_given) {
        *c = given;
        return;
    }
    memset(c, 0, sizeof *c);
    snap_device_get(&d);
    if (d.usable) {
        c->device = 1;
        snprintf(c->device_name, sizeof c->device_name, "%s", d.f.name);
        c->dev_gflops = d.f.peak_gflops;
        c->dev_gbs = d.f.mem_bw_gbs;
        c->dev_onchip_gbs = d.f.sms * 128.0 * d.f.clock_ghz; /* 32 banks x 4 B a clock per SM */
        c->dev_count = gpu_count() > 0 ? gpu_count() : 1;
    }
    snprintf(c->host_name, sizeof c->host_name, "%s", h->model);
    c->host_cores = h->cores;
    c->host_gflops = h->peak_gflops;
    c->host_core_gflops = h->core_gflops;
    c->host_gbs = measure_host ? host_copy_gbs() : host_copy_gbs_known();
    c->host_cache_bytes = h->cache_bytes;
    c->host_core_cache_gbs = measure_host ? host_cache_gbs() : host_cache_gbs_known();
}

const char *cost_bound_name(cost_bound b)
{
    static const char *const names[] = {"unknown", "compute", "memory",       "on-chip memory",
                                        "launch latency", "copies", "the caches", "instr. latency",
                                        "too short"};
    return names[b];
}

/* Where mode be computes, and that place's ceilings. */
static const char *ceilings_for(const cuk_backend *be, const cost_ceilings *ce, double *peak, double *bw,
                                double *onchip)
{
    if (mode_on_device(be) && be->spread && ce->dev_count > 1) { /* GPUs of the same model, all at work */
        int n = ce->dev_count;
        *peak = n * ce->dev_gflops, *bw = n * ce->dev_gbs, *onchip = n * ce->dev_onchip_gbs;
        return "every GPU";
    }
    if (mode_on_device(be)) {
        *peak = ce->dev_gflops, *bw = ce->dev_gbs, *onchip = ce->dev_onchip_gbs;
        return "the GPU";
    }
    *bw = ce->host_gbs, *onchip = 0;
    if (be->needs == NEEDS_BLAS) { /* the library's threads use every core */
        *peak = ce->host_gflops;
        return "all host cores";
    }
    *peak = ce->host_core_gflops; /* the other host modes run on one thread */
    return "one core of the host";
}

static int compute_like(double flops, double bytes) { return flops > 4 * bytes; }

int cost_too_short(double ms) { return ms >= 0 && ms < COST_RATE_MIN_MS; }

double cost_percent(const cost_ceilings *ce, const cuk_backend *be, double flops, double bytes, double ms, double *rate,
                    int *is_compute)
{
    double peak, bw, onchip;
    ceilings_for(be, ce, &peak, &bw, &onchip);
    *is_compute = compute_like(flops, bytes);
    *rate = -1;
    if (ms <= 0 || cost_too_short(ms))
        return -1;
    *rate = (*is_compute ? flops : bytes) / (ms * 1e6); /* GFLOP/s or GB/s */
    double ceiling = *is_compute ? peak : bw;
    return ceiling > 0 ? 100 * *rate / ceiling : -1;
}

const char *cost_rate_text(const timing_op *op, char *buf, size_t cap)
{
    cost_ceilings ce;
    char r[32];
    int compute;
    double rate;
    buf[0] = '\0';
    if (op->ms <= 0 || !op->mode)
        return buf;
    if (cost_too_short(op->ms)) {
        snprintf(buf, cap, "too short to time");
        return buf;
    }
    cost_ceilings_get(&ce, 0);
    double pct = cost_percent(&ce, op->mode, op->flops, op->bytes, op->ms, &rate, &compute);
    fmt_rate(r, sizeof r, rate * 1e9, compute ? "FLOP" : "B");
    if (pct >= 0)
        snprintf(buf, cap, "%s (%.*f%% of %s)", r, pct < 10 ? 1 : 0, pct, compute ? "peak" : "bandwidth");
    else
        snprintf(buf, cap, "%s", r);
    return buf;
}

const timing_op *cost_main_op(const timing_cmd *c)
{
    const timing_op *best = NULL;
    for (int i = 0; c && i < c->nops; i++)
        if (!best || c->ops[i].ms > best->ms)
            best = &c->ops[i];
    return best;
}

/* A tiled product reuses each load as many times as its tile is wide: the
 * `tile` switch's value (the mode row holds the default's), for the modes
 * the switch applies to (a user mode's reuse is its file's). Read when the
 * record is explained: `set tile` between a product and its `why` is taken
 * as already in force. */
static int tile_reuse(const cuk_backend *be)
{
    int tile = variant_tile_edge();
    int switched = variant_applies(variant_get(VAR_TILE), be->name, "matmul");
    return be->matmul_reuse > 1 && tile > 1 && switched ? tile : be->matmul_reuse;
}

/* The traffic the kernel's loads ask for, from its access pattern. A
 * product whose every float loaded feeds `reuse` multiply-adds loads
 * 2mnk/reuse floats and writes the result; reuse 0 is a library's
 * blocking, taken as the minimum. Other operations read each input once. */
static void traffic(cost_report *r, int on_device)
{
    r->req_bytes = r->min_bytes;
    if (!r->matmul || r->reuse <= 0)
        return;
    double mnk = (double)r->m * r->n * r->k;
    r->req_bytes = 4.0 * (2.0 * mnk / r->reuse + (double)r->m * r->n);
    if (on_device) /* every multiply-add reads its two floats from L1 (naive) or shared memory (tiles) */
        r->onchip_bytes = 8.0 * mnk;
}

static void fractions(cost_report *r)
{
    double s = r->ms * 1e-3;
    if (r->peak_gflops > 0)
        r->frac_compute = r->flops / s / (r->peak_gflops * 1e9);
    if (r->bw_gbs > 0)
        r->frac_memory = r->req_bytes / s / (r->bw_gbs * 1e9);
    if (r->onchip_gbs > 0 && r->onchip_bytes > 0)
        r->frac_onchip = r->onchip_bytes / s / (r->onchip_gbs * 1e9);
    double tc = r->peak_gflops > 0 ? r->flops / (r->peak_gflops * 1e9) : 0;
    double tm = r->bw_gbs > 0 ? r->min_bytes / (r->bw_gbs * 1e9) : 0;
    r->ideal_ms = 1e3 * (tc > tm ? tc : tm);
}

/* The verdict: copies that outweigh the kernel; a short device kernel far
 * above its ideal time; a host op too short to time, or far below every
 * ceiling (its instructions' latency); else the ceiling it comes closest
 * to, the caches' for a host op whose operands they hold. */
static cost_bound verdict(const cost_report *r, int on_device)
{
    if (r->copy_ms > r->ms && r->copy_ms > 0)
        return COST_COPIES;
    if (on_device && r->ms < COST_LAUNCH_MS && r->ms > 3 * r->ideal_ms)
        return COST_LAUNCH;
    if (!on_device && cost_too_short(r->ms))
        return COST_SHORT;
    cost_bound b = COST_UNKNOWN;
    double best = 0;
    if (r->frac_compute > best)
        best = r->frac_compute, b = COST_COMPUTE;
    if (r->frac_memory > best)
        best = r->frac_memory, b = r->in_cache ? COST_CACHE : COST_MEMORY;
    if (r->frac_onchip > best)
        best = r->frac_onchip, b = COST_ONCHIP;
    if (!on_device && b != COST_UNKNOWN && best < COST_LATENCY_FRAC && r->bw_gbs > 0)
        b = COST_LATENCY;
    return b;
}

/* A host op whose operands fit in the last level of cache is judged
 * against the caches: one core's copy bandwidth within L2 (every core's
 * for a mode on all of them), where the memory's would flatter nothing
 * and blame the wrong roof. */
static void host_cache_roof(cost_report *r, const cuk_backend *be, const cost_ceilings *ce)
{
    r->host_threads = mode_on_device(be) ? 0 : be->needs == NEEDS_BLAS && ce->host_cores > 1 ? ce->host_cores : 1;
    if (mode_on_device(be) || ce->host_core_cache_gbs <= 0 || ce->host_cache_bytes <= 0 ||
        r->min_bytes > ce->host_cache_bytes)
        return;
    r->in_cache = 1;
    r->mem_gbs = r->bw_gbs;
    r->bw_gbs = ce->host_core_cache_gbs * r->host_threads;
}

int cost_explain(const timing_cmd *c, const timing_op *op, const cost_ceilings *ce, cost_report *r)
{
    int m, k, k2, n;
    memset(r, 0, sizeof *r);
    if (!op || !op->mode)
        return -1;
    r->flops = op->flops;
    r->min_bytes = op->bytes;
    r->ms = op->ms;
    r->reuse = tile_reuse(op->mode);
    if (!strcmp(op->op, "matmul") && op->count == 1 && sscanf(op->shapes, "%dx%d @ %dx%d", &m, &k, &k2, &n) == 4) {
        r->matmul = 1;
        r->m = m, r->n = n, r->k = k;
    }
    r->where = ceilings_for(op->mode, ce, &r->peak_gflops, &r->bw_gbs, &r->onchip_gbs);
    host_cache_roof(r, op->mode, ce);
    traffic(r, op->on_device);
    if (c) {
        r->copy_ms = c->h2d_ms + c->d2h_ms;
        r->copy_bytes = (double)c->h2d + (double)c->d2h;
    }
    if (op->ms <= 0) /* the arithmetic stands; nothing measured to compare */
        return -1;
    fractions(r);
    r->bound = verdict(r, op->on_device);
    return 0;
}
