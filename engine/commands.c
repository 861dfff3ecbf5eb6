/* commands.c - the handlers of the simple commands (cmdlist.h has the
 * list; bench/timeit live in bench.c, help in help.c, run in run.c). */
#include "engine/commands.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/eval.h"
#include "engine/fileio.h"
#include "engine/pool.h"
#include "engine/snapshot.h"
#include "kernels/gpu.h"

static const char *arg_text(const stmt *st, int i) { return i < st->narg ? st->arg[i]->text : NULL; }

/* An on/off argument; where it stands in the statement, for errors. */
static int on_off(const stmt *st, const char *what, int *out)
{
    const char *w = arg_text(st, 0);
    if (w && (!strcmp(w, "on") || !strcmp(w, "off"))) {
        *out = !strcmp(w, "on");
        return 0;
    }
    return cuk_err_at(st->arg[0]->pos, "%s: expected on or off, got '%s'", what, w ? w : "");
}

int cmd_mode(cuk_session *s, const stmt *st)
{
    if (st->narg == 0) {
        out_printf("mode %s: %s\n", s->mode->name, s->mode->summary);
        return 0;
    }
    if (session_set_mode(s, arg_text(st, 0)) != 0) {
        cuk_err_locate(st->arg[0]->pos);
        return -1;
    }
    return 0;
}

int cmd_modes(cuk_session *s, const stmt *st)
{
    for (int i = 0; i < mode_count(); i++) {
        const cuk_backend *be = mode_get(i);
        const char *why = NULL;
        int ok = mode_available(be, &why);
        out_printf("%c %-7s %-4s  %s%s%s%s\n", be == s->mode ? '*' : ' ', be->name, mode_on_device(be) ? "GPU" : "host",
                   ok ? be->summary : "unavailable: ", ok ? "" : why, ok && be->detail ? "; here " : "",
                   ok && be->detail ? be->detail() : "");
    }
    return 0;
}

static void who_totals(size_t host, size_t dev, int n)
{
    char a[32], b[32], c[32];
    snap_memory mem;
    out_printf("  total: %d matri%s, %s on the host, %s on the device\n", n, n == 1 ? "x" : "ces",
               fmt_bytes(a, sizeof a, (double)host), fmt_bytes(b, sizeof b, (double)dev));
    snap_memory_get(&mem);
    if (!mem.device)
        return;
    out_printf("  device pool: %s held, %s in use, %llu device allocations;", fmt_bytes(a, sizeof a, (double)mem.pool_held),
               fmt_bytes(b, sizeof b, (double)mem.pool_in_use), mem.device_allocs);
    out_printf(" device %s free of %s\n", fmt_bytes(a, sizeof a, (double)mem.dev_free),
               fmt_bytes(c, sizeof c, (double)mem.dev_total));
}

int cmd_who(cuk_session *s, const stmt *st)
{
    char shape[32], bytes[32];
    size_t host = 0, dev = 0;
    if (s->ws.n == 0) {
        out_printf("no variables\n");
        return 0;
    }
    out_printf("  %-12s %-14s %10s  %s\n", "name", "shape", "size", "where");
    for (int i = 0; i < s->ws.n; i++) {
        const cuk_matrix *m = s->ws.e[i].m;
        snprintf(shape, sizeof shape, "%dx%d", m->rows, m->cols);
        out_printf("  %-12s %-14s %10s  %s\n", s->ws.e[i].name, shape,
                   fmt_bytes(bytes, sizeof bytes, (double)mat_bytes(m)), mat_where(m));
        host += mat_host_bytes(m);
        dev += mat_dev_bytes(m);
    }
    who_totals(host, dev, s->ws.n);
    return 0;
}

int cmd_clear(cuk_session *s, const stmt *st)
{
    if (st->narg == 0) {
        ws_clear(&s->ws);
        pool_trim(); /* a fresh start gives the device its memory back */
        return 0;
    }
    for (int i = 0; i < st->narg; i++) /* all names must exist before any goes */
        if (!ws_get(&s->ws, arg_text(st, i)))
            return cuk_err_at(st->arg[i]->pos, "clear: '%s' is not defined", arg_text(st, i));
    for (int i = 0; i < st->narg; i++)
        ws_remove(&s->ws, arg_text(st, i));
    return 0;
}

/* seed N: a literal keeps all its digits (up to 2^53); anything else is
 * evaluated, as a float32 1x1. */
int cmd_seed(cuk_session *s, const stmt *st)
{
    double v = st->expr->num;
    if (st->expr->kind != AST_NUMBER) {
        float f;
        cuk_matrix *m = eval_expr(s, st->expr);
        if (!m)
            return -1;
        v = mat_scalar_value(m, &f) == 0 ? f : -1; /* not a scalar: said below */
        mat_unref(m);
    }
    if (!(v >= 0) || v != floor(v) || v > 9007199254740992.0)
        return cuk_err_at(st->expr->pos, "seed: expected a whole number >= 0");
    s->seed = (uint64_t)v;
    s->draws = 0;
    return 0;
}

static void info_host(void)
{
    char model[128] = "unknown CPU", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    int cores = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "processor", 9))
            cores++;
        if (colon && !strncmp(line, "model name", 10) && cores == 1)
            snprintf(model, sizeof model, "%.*s", (int)strcspn(colon + 2, "\n"), colon + 2);
    }
    if (f)
        fclose(f);
    out_printf("host:     %s, %d logical cores; blas mode uses %s\n", model, cores, blas_describe());
}

int cmd_info(cuk_session *s, const stmt *st)
{
    char a[32], b[32], c[32];
    snap_device d;
    snap_memory mem;
    snap_device_get(&d);
    if (!d.usable) {
        out_printf("device:   none (%s)\n", d.why);
        info_host();
        return 0;
    }
    snap_memory_get(&mem);
    out_printf("device:   %s, compute capability %d.%d\n", d.f.name, d.f.cc_major, d.f.cc_minor);
    out_printf("FP32:     %d SMs x %d lanes x 2 x %.2f GHz = %.1f TFLOP/s peak\n", d.f.sms, d.f.fp32_lanes_per_sm,
               d.f.clock_ghz, d.f.peak_gflops / 1e3);
    out_printf("memory:   %s total, %s free; %.0f GB/s; L2 %s\n", fmt_bytes(a, sizeof a, (double)d.f.mem_total),
               fmt_bytes(b, sizeof b, (double)mem.dev_free), d.f.mem_bw_gbs, fmt_bytes(c, sizeof c, (double)d.f.l2_bytes));
    out_printf("SM:       %d threads, %s shared memory\n", d.f.max_threads_per_sm,
               fmt_bytes(a, sizeof a, (double)d.f.smem_per_sm));
    out_printf("CUDA:     driver %d.%d, runtime %d.%d\n", d.f.driver_version / 1000, d.f.driver_version % 1000 / 10,
               d.f.runtime_version / 1000, d.f.runtime_version % 1000 / 10);
    info_host();
    return 0;
}

int cmd_kernels(cuk_session *s, const stmt *st)
{
    gpu_kernel_row rows[32];
    char grid[40], block[40], smem[32];
    if (!mode_on_device(s->mode)) {
        out_printf("mode %s runs on the host: it launches no GPU kernels\n", s->mode->name);
        return 0;
    }
    int n = gpu_kernel_rows(s->mode, rows, 32);
    if (n == 0) {
        out_printf("mode %s has launched no kernels yet\n", s->mode->name);
        return 0;
    }
    out_printf("  %-26s %-14s %-10s %5s %9s %9s %8s\n", "kernel (last launch)", "grid", "block", "regs", "smem",
               "blocks/SM", "launches");
    for (int i = 0; i < n; i++) {
        const gpu_kernel_row *r = &rows[i];
        snprintf(grid, sizeof grid, "%ux%ux%u", r->grid[0], r->grid[1], r->grid[2]);
        snprintf(block, sizeof block, "%ux%ux%u", r->block[0], r->block[1], r->block[2]);
        fmt_bytes(smem, sizeof smem, (double)(r->static_smem + r->dyn_smem));
        out_printf("  %-26s %-14s %-10s %5d %9s %9d %8d\n", r->name, grid, block, r->regs, smem, r->blocks_per_sm,
                   r->launches);
    }
    return 0;
}

int cmd_panel(cuk_session *s, const stmt *st)
{
    int on = 0;
    if (on_off(st, "panel", &on) != 0)
        return -1;
    if (!s->fe || !s->fe->panel)
        return cuk_err_at(st->cmd_pos, "panel: needs an interactive terminal and a build with ncurses");
    return s->fe->panel(s->fe->ud, on);
}

int cmd_time(cuk_session *s, const stmt *st) { return on_off(st, "time", &s->time_on); }

int cmd_format(cuk_session *s, const stmt *st)
{
    const char *w = arg_text(st, 0);
    if (strcmp(w, "short") && strcmp(w, "long"))
        return cuk_err_at(st->arg[0]->pos, "format: expected short or long, got '%s'", w);
    s->format_long = !strcmp(w, "long");
    return 0;
}

int cmd_save(cuk_session *s, const stmt *st)
{
    cuk_matrix *m = ws_get(&s->ws, arg_text(st, 0));
    if (!m)
        return cuk_err_at(st->arg[0]->pos, "save: '%s' is not defined", arg_text(st, 0));
    if (fileio_save(m, arg_text(st, 1)) != 0) {
        cuk_err_locate(st->arg[1]->pos);
        return -1;
    }
    return 0;
}

int cmd_quit(cuk_session *s, const stmt *st)
{
    s->quit = 1;
    return 0;
}
