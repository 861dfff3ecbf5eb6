/* why.c - `why`: the last command's cost on this machine, explained (the
 * work, the least traffic, the traffic its kernel asks for, the ceilings,
 * the fraction of each reached, the verdict); after a bench, one line per
 * mode (`roofline` is roofline.c). The arithmetic is cost.h's. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/lang/commands.h"
#include "engine/measure/count.h"
#include "engine/session/cost.h"
#include "engine/measure/tables.h"

#define WHY_INDENT 13

/* ---- why ---- */

static const char *gbytes(char *b, size_t cap, double bytes) { return fmt_si(b, cap, bytes, "B"); }

static const char *gflop(char *b, size_t cap, double flops) { return fmt_si(b, cap, flops, "FLOP"); }

static void line(int width, const char *label, const char *fmt, ...) CUK_PRINTF(3, 4);

/* "  label      text", the text wrapped under itself. */
static void line(int width, const char *label, const char *fmt, ...)
{
    char text[600], lead[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(lead, sizeof lead, "  %-*s", WHY_INDENT - 2, label);
    tab_wrap(lead, text, width, WHY_INDENT);
}

static void why_traffic(const cost_report *r, int width)
{
    char a[32], b[32];
    if (r->matmul) {
        line(width, "work", "2*m*n*k = 2*%d*%d*%d = %s", r->m, r->n, r->k, gflop(a, sizeof a, r->flops));
        line(width, "minimum", "4 B*(m*k + k*n + m*n) = %s read and written at the least",
             gbytes(a, sizeof a, r->min_bytes));
        if (r->reuse == 1)
            line(width, "requested", "two floats loaded per multiply-add, and the result: 4 B*(2*m*n*k + m*n) = %s",
                 gbytes(b, sizeof b, r->req_bytes));
        else if (r->reuse > 1)
            line(width, "requested",
                 "two floats per multiply-add, each load reused %d times from the tile: "
                 "4 B*(2*m*n*k/%d + m*n) = %s",
                 r->reuse, r->reuse, gbytes(b, sizeof b, r->req_bytes));
        else
            line(width, "requested",
                 "about the minimum (the library blocks the product in registers and shared "
                 "memory): %s",
                 gbytes(b, sizeof b, r->req_bytes));
        line(width, "", "intensity %.3g FLOP/B as the kernel asks; %.3g FLOP/B at the minimum", r->flops / r->req_bytes,
             r->flops / r->min_bytes);
        if (r->onchip_bytes > 0)
            line(width, "on chip", "every multiply-add reads two floats from %s: %s",
                 r->reuse == 1 ? "L1 (global loads)" : "shared memory", gbytes(a, sizeof a, r->onchip_bytes));
    } else {
        line(width, "work", "%s", gflop(a, sizeof a, r->flops));
        line(width, "minimum", "%s read and written; the kernel asks for the same (each element once)",
             gbytes(a, sizeof a, r->min_bytes));
        line(width, "", "intensity %.3g FLOP/B", r->min_bytes > 0 ? r->flops / r->min_bytes : 0);
    }
}

/* The DRAM bytes `count` measured for this statement, beside the least
 * its operations must move. */
static void why_measured(const timing_cmd *c, int width)
{
    char a[32], b[32], d[32], m[32];
    double rd, wr;
    if (!count_dram_of(c, &rd, &wr) || !(c->bytes > 0))
        return;
    line(width, "measured", "the DRAM moved %s (%s read, %s written) when `count` ran it: %.2fx the %s the "
         "statement needs at the least", gbytes(a, sizeof a, rd + wr), gbytes(b, sizeof b, rd),
         gbytes(d, sizeof d, wr), (rd + wr) / c->bytes, gbytes(m, sizeof m, c->bytes));
}

/* "66.9 TFLOP/s", "4.80 TB/s" */
static const char *rate(char *b, size_t cap, double per_s, const char *unit) { return fmt_rate(b, cap, per_s, unit); }

static void why_ceilings(const cost_report *r, const cost_ceilings *ce, int width)
{
    const char *where = strcmp(r->where, "the GPU") ? r->where : ce->device_name;
    char a[32], b[32], c[32], d[32], e[32], onchip[48] = "";
    if (r->onchip_gbs > 0)
        snprintf(onchip, sizeof onchip, ", %s on chip", rate(c, sizeof c, r->onchip_gbs * 1e9, "B"));
    if (r->in_cache)
        line(width, "ceilings",
             "%s: %s, %s within the caches (its %s fit in the %s of the last level; a copy within L2%s), "
             "%s memory; ridge %.3g FLOP/B against the caches",
             where, rate(a, sizeof a, r->peak_gflops * 1e9, "FLOP"), rate(b, sizeof b, r->bw_gbs * 1e9, "B"),
             gbytes(c, sizeof c, r->min_bytes), fmt_bytes(d, sizeof d, ce->host_cache_bytes),
             r->host_threads > 1 ? " on each core" : "", rate(e, sizeof e, r->mem_gbs * 1e9, "B"),
             r->peak_gflops / r->bw_gbs);
    else if (r->bw_gbs > 0)
        line(width, "ceilings", "%s: %s, %s memory%s; ridge %.3g FLOP/B", where,
             rate(a, sizeof a, r->peak_gflops * 1e9, "FLOP"), rate(b, sizeof b, r->bw_gbs * 1e9, "B"), onchip,
             r->peak_gflops / r->bw_gbs);
    else
        line(width, "ceilings", "%s: %s; memory bandwidth not measured", where,
             rate(a, sizeof a, r->peak_gflops * 1e9, "FLOP"));
}

static void why_reached(const cost_report *r, int width)
{
    char k[32], a[32], b[32], extra[160] = "";
    if (r->bound == COST_SHORT) {
        line(width, "reached", "kernel %s: too short to time for a rate", fmt_ms(k, sizeof k, r->ms));
        return;
    }
    if (r->onchip_bytes > 0 && r->onchip_gbs > 0)
        snprintf(extra, sizeof extra, "; on chip %.0f%%", 100 * r->frac_onchip);
    line(width, "reached", "kernel %s: %s = %.1f%% of compute; %s %s = %.0f%% of %s%s%s",
         fmt_ms(k, sizeof k, r->ms), rate(a, sizeof a, r->flops / (r->ms * 1e-3), "FLOP"), 100 * r->frac_compute,
         r->matmul ? "its loads ask for" : "memory traffic", rate(b, sizeof b, r->req_bytes / (r->ms * 1e-3), "B"),
         100 * r->frac_memory, r->in_cache ? "the caches" : "memory",
         r->frac_memory > 1 && !r->in_cache ? " (more than memory gives: the caches serve most of them)" : "", extra);
    if (r->copy_bytes > 0) {
        char t[32];
        line(width, "copies", "%s between host and device in %s (%.3g GB/s)", gbytes(b, sizeof b, r->copy_bytes),
             fmt_ms(t, sizeof t, r->copy_ms), r->copy_ms > 0 ? r->copy_bytes / (r->copy_ms * 1e6) : 0);
    }
}

/* What the command did with an operand that lay elsewhere than its mode
 * works (engine/values/place.h): moved it, or read it where it lay. */
static void why_place(const timing_cmd *c, const timing_place *p, int width)
{
    char sz[32], t[32], from[16], to[16], read[32], before[32];
    double bytes = 4.0 * p->rows * p->cols;
    gbytes(sz, sizeof sz, bytes);
    fmt_gpus(from, sizeof from, p->from);
    fmt_gpus(to, sizeof to, p->to);
    gbytes(read, sizeof read, p->reads);
    gbytes(before, sizeof before, p->read_before);
    if (p->how == TIMING_PLACE_MOVED && p->read_before == 0)
        line(width, "placement",
             "moved a %dx%d operand (%s) from %s to %s in %s (%.3g GB/s), before the kernel: the op reads %s of it, "
             "about %.0f times its size, and a move reads it once. It lives on %s now (who).",
             p->rows, p->cols, sz, from, to, fmt_ms(t, sizeof t, p->ms), p->ms > 0 ? bytes / (p->ms * 1e6) : 0, read,
             p->reads / bytes, to);
    else if (p->how == TIMING_PLACE_MOVED)
        line(width, "placement",
             "moved a %dx%d operand (%s) from %s to %s in %s (%.3g GB/s), before the kernel: earlier ops read %s of "
             "it where it lay, this one %s more, past its size, which a move reads once. It lives on %s now (who).",
             p->rows, p->cols, sz, from, to, fmt_ms(t, sizeof t, p->ms), p->ms > 0 ? bytes / (p->ms * 1e6) : 0, before,
             read, to);
    else if (p->how == TIMING_PLACE_LEFT)
        line(width, "placement",
             "read a %dx%d operand (%s) where it lies, on %s (mode %s works on %s): the op reads %s of it, "
             "%s; it moves once its reads there pass its size (%s before this op).",
             p->rows, p->cols, sz, from, c->mode->name, to, read,
             p->reads >= bytes ? "as much as a move would" : "less than a move would", before);
    else if (!p->spread)
        line(width, "placement",
             "a %dx%d operand (%s) stays on %s: GPU 0 has no room for it. Mode %s reads the other GPUs' rows "
             "over the link.",
             p->rows, p->cols, sz, from, c->mode->name);
    else
        line(width, "placement",
             "a %dx%d operand (%s) stays on GPU 0: the GPUs have no room to spread it. Mode %s runs on it where it "
             "lies (a product on GPU 0 alone).",
             p->rows, p->cols, sz, c->mode->name);
}

static void why_verdict(const cost_report *r, int width)
{
    char a[32], b[32], text[600];
    double frac = r->bound == COST_COMPUTE                              ? r->frac_compute
                  : r->bound == COST_MEMORY || r->bound == COST_CACHE ? r->frac_memory
                                                                      : r->frac_onchip;
    switch (r->bound) {
    case COST_COPIES:
        snprintf(text, sizeof text,
                 "bound by copies: moving the operands took %s, the kernel %s. Keep them "
                 "on the device: they stay there between commands.",
                 fmt_ms(a, sizeof a, r->copy_ms), fmt_ms(b, sizeof b, r->ms));
        break;
    case COST_LAUNCH:
        snprintf(text, sizeof text,
                 "bound by launch latency: at the ceilings it would take %s; it took %s, "
                 "the fixed cost of starting kernels. Give each launch more work.",
                 fmt_ms(a, sizeof a, r->ideal_ms), fmt_ms(b, sizeof b, r->ms));
        break;
    case COST_ONCHIP:
        snprintf(text, sizeof text,
                 "bound by on-chip memory: the %dx%d tiles cut the loads from memory %d-fold, "
                 "but each multiply-add still reads two floats from shared memory, at %.0f%% of its bandwidth. "
                 "Register blocking (several outputs per thread) is the next rung.",
                 r->reuse, r->reuse, r->reuse, 100 * frac);
        break;
    case COST_MEMORY:
        if (r->matmul && r->reuse == 1)
            snprintf(text, sizeof text,
                     "bound by memory: its loads ask for 8 bytes per multiply-add (%.3g FLOP/B, "
                     "below the ridge of %.3g), so the loads, not the arithmetic, set the pace. %s",
                     r->flops / r->req_bytes, r->peak_gflops / r->bw_gbs,
                     r->onchip_gbs > 0 ? "Shared-memory tiles reuse each load."
                                       : "Blocking the loops for the cache reuses each "
                                         "load, as blas does.");
        else
            snprintf(text, sizeof text,
                     "bound by memory: it streams its data at %.0f%% of the bandwidth and "
                     "does little arithmetic per byte.",
                     100 * frac);
        break;
    case COST_CACHE:
        snprintf(text, sizeof text,
                 "bound by the caches: its operands (%s) fit in them, and its loads ask for %.0f%% of their "
                 "bandwidth; memory is not the roof here.",
                 gbytes(a, sizeof a, r->min_bytes), 100 * frac);
        break;
    case COST_LATENCY:
        snprintf(text, sizeof text,
                 "bound by instruction latency: it is far below every ceiling that applies (%.1f%% of compute, "
                 "%.0f%% of %s bandwidth). %s",
                 100 * r->frac_compute, 100 * r->frac_memory, r->in_cache ? "the caches'" : "memory's",
                 r->host_threads > 1
                     ? "The calls are too small to keep every core busy at this size, or the library runs plain "
                       "loops (`modes` says which BLAS this is)."
                     : "A scalar loop works one element at a time (in a product or a sum each add waits for the "
                       "one before it), so neither the arithmetic units nor the memory are kept busy. blas "
                       "vectorises such loops and blocks them for the caches.");
        break;
    case COST_SHORT:
        snprintf(text, sizeof text,
                 "too short to time: %s is mostly the call around the operation and the clock's reads, not its "
                 "work, so no rate is given below %s. Time a larger one.",
                 fmt_ms(a, sizeof a, r->ms), fmt_ms(b, sizeof b, COST_RATE_MIN_MS));
        break;
    case COST_COMPUTE:
        snprintf(text, sizeof text,
                 "bound by compute: it reaches %.0f%% of the FP32 peak and less of any "
                 "bandwidth.%s",
                 100 * frac,
                 frac < 0.5 ? " The rest is latency: too few threads in flight to fill "
                              "the machine at this size, or the tail of the last wave."
                            : "");
        break;
    default: snprintf(text, sizeof text, "no verdict: the ceilings of %s are not known here.", r->where);
    }
    line(width, "verdict", "%s", text);
}

static void why_full(const timing_cmd *c, const timing_op *op, const cost_ceilings *ce, int width)
{
    cost_report r;
    char k[32];
    out_printf("why: %s  (mode %s%s)\n", c->text, op->mode->name, c->runs > 1 ? ", median of the runs" : "");
    int timed = cost_explain(c, op, ce, &r) == 0;
    line(width, "op", "%s %s on %s, kernel %s", op->op, op->shapes, r.where,
         timed ? fmt_ms(k, sizeof k, r.ms) : "not timed");
    char how[400];
    const char *scheme = op->mode->explain && !strcmp(op->op, "matmul") ? op->mode->explain(how, sizeof how) : NULL;
    if (scheme)
        line(width, "scheme", "%s", scheme);
    why_traffic(&r, width);
    why_measured(c, width);
    why_ceilings(&r, ce, width);
    for (int i = 0; i < c->nplaces && i < TIMING_MAX_PLACES; i++)
        why_place(c, &c->places[i], width);
    if (!timed) {
        line(width, "verdict",
             "none: this command ran untimed. `time on` or the panel time every command, and "
             "so does this session from now on: run it again, then `why`.");
        return;
    }
    why_reached(&r, width);
    why_verdict(&r, width);
    if (isfinite(c->rel_err))
        line(width, "error", "%.1e relative to float64, at a sample of the result (bench measured it)", c->rel_err);
}

/* One line per mode of a bench: its rate and verdict. */
static void why_bench(int n, const cost_ceilings *ce, int width)
{
    out_printf("why: %s  (one line per mode, medians)\n", timing_history(0)->text);
    for (int i = n - 1; i >= 0; i--) {
        const timing_cmd *c = timing_history(i);
        const timing_op *op = cost_main_op(c);
        cost_report r;
        char lead[32], text[300];
        snprintf(lead, sizeof lead, "  %-8s", c->mode->name);
        if (!op || cost_explain(c, op, ce, &r) != 0) {
            tab_wrap(lead, "no kernel time", width, 10);
            continue;
        }
        char onchip[32] = "";
        if (r.frac_onchip > 0)
            snprintf(onchip, sizeof onchip, ", %.0f%% on chip", 100 * r.frac_onchip);
        char err[48] = "";
        if (isfinite(c->rel_err))
            snprintf(err, sizeof err, "; error %.1e against float64", c->rel_err);
        if (r.bound == COST_SHORT)
            snprintf(text, sizeof text, "%s: too short to time%s", op->op, err);
        else
            snprintf(text, sizeof text, "%s: %.0f%% of compute, %.0f%% of %s%s; bound by %s%s", op->op,
                     100 * r.frac_compute, 100 * r.frac_memory, r.in_cache ? "the caches" : "memory", onchip,
                     cost_bound_name(r.bound), err);
        tab_wrap(lead, text, width, 10);
    }
}

/* How many of the newest records are one bench's summaries. */
static int bench_records(void)
{
    const timing_cmd *c0 = timing_history(0);
    int n = 0;
    if (!c0 || c0->runs <= 1 || (strncmp(c0->text, "bench", 5) && strncmp(c0->text, "ladder", 6)))
        return 0;
    while (timing_history(n) && timing_history(n)->runs > 1 && !strcmp(timing_history(n)->text, c0->text))
        n++;
    return n;
}

int cmd_why(cuk_session *s, const stmt *st)
{
    const timing_cmd *c = timing_history(0);
    cost_ceilings ce;
    int width = session_columns(s), nb = bench_records();
    if (!c) {
        out_printf("why: no command has been timed yet\n");
        return 0;
    }
    if (c->failed) {
        out_printf("why: `%s` %s: nothing was measured\n", c->text,
                   c->failed == TIMING_STOPPED ? "was stopped" : "failed");
        return 0;
    }
    const timing_op *op = cost_main_op(c);
    if (!op) {
        out_printf("why: `%s` ran no operation (it only named a value)\n", c->text);
        return 0;
    }
    cost_ceilings_get(&ce, 1);
    if (nb > 1)
        why_bench(nb, &ce, width);
    else
        why_full(c, op, &ce, width);
    return 0;
}
