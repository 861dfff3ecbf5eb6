/* commands.c - the handlers of the simple commands (cmdlist.h has the
 * list; bench/timeit live in bench.c, ladder in ladder.c, why/roofline in
 * why.c, help in help.c, run in run.c). */
#include "engine/lang/commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "base/suggest.h"
#include "engine/session/cost.h"
#include "engine/lang/eval.h"
#include "engine/files/fileio.h"
#include "engine/files/record.h"
#include "engine/session/host.h"
#include "engine/session/json.h"
#include "engine/values/pool.h"
#include "engine/measure/count.h"
#include "engine/measure/results.h"
#include "engine/measure/tables.h"
#include "engine/measure/svg.h"
#include "engine/session/snapshot.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"
#include "kernels/host_threads.h"
#include "kernels/user.h"
#include "kernels/variants.h"

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

/* The caveat of a mode (backend.h), the first time it is chosen in this
 * process; under --json on stderr, which holds the words there. */
static void mode_caveat(cuk_session *s, const cuk_backend *be)
{
    static const cuk_backend *said[16];
    static int nsaid;
    char lead[40];
    const char *text = be->caveat ? be->caveat() : NULL;
    for (int i = 0; i < nsaid; i++)
        if (said[i] == be)
            return;
    if (!text || nsaid == (int)(sizeof said / sizeof said[0]))
        return;
    said[nsaid++] = be;
    snprintf(lead, sizeof lead, "warning: mode %s ", be->name);
    if (s->json)
        out_errorf("%s%s\n", lead, text);
    else
        tab_wrap(lead, text, session_columns(s), 2);
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
    mode_caveat(s, s->mode);
    return 0;
}

static void modes_json(const cuk_session *s)
{
    json_buf j;
    json_begin(&j);
    json_str(&j, "table", "modes");
    json_str(&j, "current", session_mode_name(s));
    json_open_arr(&j, "rows");
    for (int i = 0; i < mode_count(); i++) {
        const cuk_backend *be = mode_get(i);
        const char *why = NULL;
        int ok = mode_available(be, &why);
        json_open_obj(&j, NULL);
        json_str(&j, "mode", be->name);
        json_str(&j, "where", mode_on_device(be) ? "GPU" : "host");
        json_bool(&j, "available", ok);
        json_str(&j, "why", ok ? NULL : why);
        json_str(&j, "summary", be->summary);
        json_close(&j);
    }
    json_print(&j);
}

int cmd_modes(cuk_session *s, const stmt *st)
{
    if (s->json) {
        modes_json(s);
        return 0;
    }
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

/* The spread pool's line (mode multi), with what it holds on each GPU. */
static void who_spread_pool(const snap_memory *mem)
{
    char a[32], b[32];
    out_printf("  spread pool (mode multi): %s held, %s in use;", fmt_bytes(a, sizeof a, (double)mem->spread_held),
               fmt_bytes(b, sizeof b, (double)mem->spread_in_use));
    for (int g = 0; g < mem->spread_gpus; g++)
        out_printf("%s GPU %d %s", g ? "," : "", g, fmt_bytes(a, sizeof a, (double)mem->spread_on[g]));
    out_printf("\n");
}

/* Where m lives: for a matrix in spread memory, its row slabs after the
 * usual words ("device: rows 0-49999 GPU 0, 50000-99999 GPU 1"; 0-based,
 * as cuk indexes). */
static const char *who_where(const cuk_matrix *m, char *buf, size_t cap)
{
    snap_slabs sl;
    snap_slabs_of(m, &sl);
    if (sl.n == 0 && m->dev && gpu_count() > 1) { /* on GPU 0 alone, where others could hold it */
        snprintf(buf, cap, "%s: GPU 0", snap_where(m));
        return buf;
    }
    if (sl.n == 0)
        return snap_where(m);
    size_t len = (size_t)snprintf(buf, cap, "%s: rows", snap_where(m));
    for (int k = 0; k < sl.n && len < cap; k++) {
        int last = sl.first[k] + sl.count[k] - 1;
        len += (size_t)(sl.count[k] == 1 ? snprintf(buf + len, cap - len, "%s %d GPU %d", k ? "," : "", last, sl.gpu[k])
                                         : snprintf(buf + len, cap - len, "%s %d-%d GPU %d", k ? "," : "", sl.first[k],
                                                    last, sl.gpu[k]));
    }
    return buf;
}

/* who --json's row slabs, for a matrix in spread memory. */
static void who_json_slabs(json_buf *j, const cuk_matrix *m)
{
    snap_slabs sl;
    snap_slabs_of(m, &sl);
    if (sl.n == 0)
        return;
    json_open_arr(j, "slabs");
    for (int k = 0; k < sl.n; k++) {
        json_open_obj(j, NULL);
        json_int(j, "gpu", sl.gpu[k]);
        json_int(j, "first_row", sl.first[k]);
        json_int(j, "rows", sl.count[k]);
        json_close(j);
    }
    json_close(j);
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
    if (mem.spread_held)
        who_spread_pool(&mem);
}

static void who_json(const cuk_session *s)
{
    json_buf j;
    size_t host = 0, dev = 0;
    json_begin(&j);
    json_str(&j, "table", "who");
    json_open_arr(&j, "rows");
    for (int i = 0; i < s->ws.n; i++) {
        const cuk_matrix *m = s->ws.e[i].m;
        json_open_obj(&j, NULL);
        json_str(&j, "name", s->ws.e[i].name);
        json_int(&j, "rows", m->rows);
        json_int(&j, "cols", m->cols);
        json_num(&j, "bytes", (double)mat_bytes(m));
        json_str(&j, "where", mat_where(m));
        json_bool(&j, "out_of_core", snap_out_of_core(m));
        json_int(&j, "gpus", snap_gpus_of(m));
        who_json_slabs(&j, m);
        json_close(&j);
        host += mat_host_bytes(m);
        dev += mat_dev_bytes(m);
    }
    json_close(&j);
    json_num(&j, "host_bytes", (double)host);
    json_num(&j, "device_bytes", (double)dev);
    json_print(&j);
}

int cmd_who(cuk_session *s, const stmt *st)
{
    char shape[32], bytes[32], where[40 + SNAP_MAX_GPUS * 32];
    size_t host = 0, dev = 0;
    if (s->json) {
        who_json(s);
        return 0;
    }
    if (s->ws.n == 0) {
        out_printf("no variables\n");
        return 0;
    }
    out_printf("  %-12s %-14s %10s  %s\n", "name", "shape", "size", "where");
    for (int i = 0; i < s->ws.n; i++) {
        const cuk_matrix *m = s->ws.e[i].m;
        snprintf(shape, sizeof shape, "%dx%d", m->rows, m->cols);
        out_printf("  %-12s %-14s %10s  %s\n", s->ws.e[i].name, shape,
                   fmt_bytes(bytes, sizeof bytes, (double)mat_bytes(m)), who_where(m, where, sizeof where));
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
    char note[SUGGEST_NOTE];
    for (int i = 0; i < st->narg; i++) /* all names must exist before any goes */
        if (!ws_get(&s->ws, arg_text(st, i)))
            return cuk_err_at(st->arg[i]->pos, "clear: '%s' is not defined%s", arg_text(st, i),
                              ws_suggest(&s->ws, arg_text(st, i), note, sizeof note));
    for (int i = 0; i < st->narg; i++)
        ws_remove(&s->ws, arg_text(st, i));
    return 0;
}

/* seed N: N is exact below 2^53 (matrix.h), a literal or computed. */
int cmd_seed(cuk_session *s, const stmt *st)
{
    double v = -1;
    cuk_matrix *m = eval_expr(s, st->expr);
    if (!m)
        return -1;
    if (mat_scalar_exact(m, &v) != 0)
        v = -1; /* not a scalar: said below */
    mat_unref(m);
    if (!(v >= 0) || v != floor(v) || v >= MAT_EXACT_LIMIT)
        return cuk_err_at(st->expr->pos, "seed: expected a whole number from 0 to 2^53 - 1");
    s->seed = (uint64_t)v;
    s->draws = 0;
    return 0;
}

/* GPU g's line of `info`'s list. */
static void info_gpu_line(int g, const snap_gpu *x)
{
    char a[32], b[32];
    out_printf("  GPU %d:  %s, compute capability %d.%d; %s total, %s free%s\n", g, x->f.name, x->f.cc_major,
               x->f.cc_minor, fmt_bytes(a, sizeof a, (double)x->total), fmt_bytes(b, sizeof b, (double)x->free),
               g == 0 ? "; the single-GPU modes run here" : "");
}

/* How GPUs i < j are linked (the bandwidth is measured the first time):
 * 1 if each reaches the other's memory directly, 0 if not, -1 unknown. */
static int info_link_line(int i, int j)
{
    snap_link l;
    if (snap_link_get(i, j, &l) != 0) {
        out_printf("  GPU %d <-> GPU %d: unknown (%s)\n", i, j, cuk_err_get()->msg);
        cuk_err_clear();
        return -1;
    }
    /* NVLink is told from PCIe by native atomics across the link, which
     * only NVLink has (kernels/gpu.h) */
    int both = l.peer[0] && l.peer[1];
    const char *how = both && l.nvlink         ? "NVLink, peer access both ways"
                      : both                   ? "PCIe, peer access both ways"
                      : l.peer[0] || l.peer[1] ? "peer access one way only"
                                               : "no peer access: copies go through host memory";
    /* gbs[0] is a copy from j to i (snapshot.h) */
    out_printf("  GPU %d <-> GPU %d: %s; measured %.1f GB/s %d->%d, %.1f GB/s %d->%d\n", i, j, how, l.gbs[1], i, j,
               l.gbs[0], j, i);
    return both;
}

/* The mode whose matrices are spread over every GPU (multi), or NULL. */
static const cuk_backend *spread_mode(void)
{
    for (int i = 0; i < mode_count(); i++)
        if (mode_get(i)->spread)
            return mode_get(i);
    return NULL;
}

/* Every visible GPU and, for two or more, each pair's link. Mode multi
 * spreads over the GPUs from 0 on that all reach each other's memory
 * (kernels/gpu_spread.cu); a pair without that leaves the rest out. */
static void info_gpus(void)
{
    const cuk_backend *spread = spread_mode();
    const char *why = NULL;
    snap_gpus gs;
    snap_gpus_get(&gs);
    if (gs.n == 0) {
        out_printf("GPUs:     cannot be listed (%s)\n", gs.why);
        return;
    }
    if (spread && !mode_available(spread, &why))
        out_printf("GPUs:     %d visible; mode %s is unavailable: %s\n", gs.n, spread->name, why);
    else if (spread && gs.n == 1)
        out_printf("GPUs:     1 visible: mode %s runs on it alone\n", spread->name);
    else if (spread)
        out_printf("GPUs:     %d visible (CUDA_VISIBLE_DEVICES picks them); mode %s spreads its matrices over them\n",
                   gs.n, spread->name);
    else /* no row spreads matrices over the GPUs */
        out_printf("GPUs:     %d visible\n", gs.n);
    if (gs.n == 1)
        return;
    for (int g = 0; g < gs.n; g++)
        info_gpu_line(g, &gs.gpu[g]);
    int reach = gs.n;
    for (int i = 0; i < gs.n; i++)
        for (int j = i + 1; j < gs.n; j++)
            if (info_link_line(i, j) == 0 && j < reach)
                reach = j;
    if (spread && !why && reach == 1)
        out_printf("          mode %s runs on GPU 0 alone: no other GPU reaches its memory directly\n", spread->name);
    else if (spread && !why && reach < gs.n)
        out_printf("          mode %s uses GPUs 0-%d only: the first ones that all reach each other's memory\n",
                   spread->name, reach - 1);
}

/* "87% busy (memory 61%), SM 1980 of 1980 MHz, memory 2619 MHz, 412 W of
 * 700 W, 54 C", and why the clocks are down if they are. */
static const char *live_text(const snap_live_gpu *x, char *buf, size_t cap)
{
    char why[64];
    int n = snprintf(buf, cap, "%u%% busy (memory %u%%), SM %u of %u MHz, memory %u MHz, %.0f W of %.0f W, %u C",
                     x->util_gpu, x->util_mem, x->sm_mhz, x->sm_max_mhz, x->mem_mhz, x->power_w, x->limit_w,
                     x->temp_c);
    if (x->slow && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "; clocks held down: %s", snap_slow_words(x->slow, why, sizeof why));
    return buf;
}

/* What each GPU is doing now (NVML); one line if NVML cannot say. */
static void info_live(void)
{
    snap_live l;
    char text[200];
    snap_live_get(&l);
    for (int g = 0; g < l.n; g++) {
        const snap_live_gpu *x = &l.gpu[g];
        if (!x->known && g == 0 && (l.n == 1 || !l.gpu[1].known)) {
            out_printf("now:      unknown: %s\n", x->why);
            return;
        }
        out_printf("%-10sGPU %d: %s\n", g ? "" : "now:", g, x->known ? live_text(x, text, sizeof text) : x->why);
    }
}

/* info --json's live state of each GPU (null figures where unknown). */
static void info_json_live(json_buf *j)
{
    snap_live l;
    char why[64];
    snap_live_get(&l);
    json_open_arr(j, "now");
    for (int g = 0; g < l.n; g++) {
        const snap_live_gpu *x = &l.gpu[g];
        json_open_obj(j, NULL);
        json_int(j, "gpu", g);
        json_str(j, "unknown", x->known ? NULL : x->why);
        json_num(j, "util_pct", x->known ? x->util_gpu : NAN);
        json_num(j, "mem_util_pct", x->known ? x->util_mem : NAN);
        json_num(j, "sm_mhz", x->known ? x->sm_mhz : NAN);
        json_num(j, "sm_max_mhz", x->known ? x->sm_max_mhz : NAN);
        json_num(j, "mem_mhz", x->known ? x->mem_mhz : NAN);
        json_num(j, "power_w", x->known ? x->power_w : NAN);
        json_num(j, "power_limit_w", x->known ? x->limit_w : NAN);
        json_num(j, "temp_c", x->known ? x->temp_c : NAN);
        json_str(j, "clocks_held_down", x->slow ? snap_slow_words(x->slow, why, sizeof why) : NULL);
        json_close(j);
    }
    json_close(j);
}

/* The host's ceilings: what cpu and blas rows are a percentage of. */
static void info_host(void)
{
    const host_facts *h = host_get();
    double gbs = host_copy_gbs();
    out_printf("host:     %s, %d cores (%d logical); blas mode uses %s\n", h->model, h->cores, h->logical,
               blas_describe());
    out_printf("host FP32: %d cores x %d lanes (%s%s) x 2 x %.2f GHz (%s)\n", h->cores, h->simd_floats, h->simd,
               h->fma ? ", FMA" : ", no FMA", h->clock_ghz, h->clock_from);
    out_printf("          = %.1f GFLOP/s peak; one core %.1f (mode cpu runs on one)\n", h->peak_gflops, h->core_gflops);
    out_printf("host memory: %.1f GB/s, a copy on %d threads (bytes read + written), measured once\n", gbs,
               host_threads());
    if (h->cache_bytes > 0) {
        char llc[32], l2[32];
        out_printf("host cache: %s last level, %s L2; %.1f GB/s a copy in L2 on one core\n",
                   fmt_bytes(llc, sizeof llc, h->cache_bytes), fmt_bytes(l2, sizeof l2, h->l2_bytes), host_cache_gbs());
    }
}

/* Everything that happened once, never inside a timed region. */
static void info_onetime(void)
{
    char t[32];
    if (!timing_onetime_get(0))
        return;
    out_printf("one-time set-up, kept out of every timed region:\n");
    for (int i = 0; timing_onetime_get(i); i++) {
        fmt_ms(t, sizeof t, timing_onetime_get(i)->ms);
        int shown = 0; /* display columns: "µ" is two bytes */
        for (const char *p = t; *p; p++)
            shown += (*p & 0xC0) != 0x80;
        out_printf("  %*s%s  %s\n", 10 - shown, "", t, timing_onetime_get(i)->what);
    }
}

/* One direction of a link in info --json: a copy from GPU `from` to GPU
 * `to`; null figures where it could not be measured. */
static void info_json_link(json_buf *j, int from, int to)
{
    snap_link l;
    int ok = snap_link_get(to, from, &l) == 0; /* [0]: from -> to */
    if (!ok)
        cuk_err_clear();
    json_open_obj(j, NULL);
    json_int(j, "from", from);
    json_int(j, "to", to);
    if (ok) {
        json_bool(j, "peer", l.peer[0]);
        json_bool(j, "nvlink", l.nvlink);
        json_num(j, "gbs_measured", l.gbs[0]);
    } else {
        json_null(j, "peer");
        json_null(j, "nvlink");
        json_null(j, "gbs_measured");
    }
    json_close(j);
}

/* info --json's GPUs (an empty list without one) and, for two or more,
 * one row per direction of each pair's link. */
static void info_json_gpus(json_buf *j)
{
    snap_gpus gs;
    char cc[16];
    snap_gpus_get(&gs);
    json_open_arr(j, "gpus");
    for (int g = 0; g < gs.n; g++) {
        const snap_gpu *x = &gs.gpu[g];
        json_open_obj(j, NULL);
        json_int(j, "gpu", g);
        json_str(j, "name", x->f.name);
        snprintf(cc, sizeof cc, "%d.%d", x->f.cc_major, x->f.cc_minor);
        json_str(j, "compute_capability", cc);
        json_num(j, "mem_total", (double)x->total);
        json_num(j, "mem_free", (double)x->free);
        json_close(j);
    }
    json_close(j);
    json_open_arr(j, "links");
    for (int i = 0; i < gs.n; i++)
        for (int t = 0; t < gs.n; t++)
            if (t != i)
                info_json_link(j, i, t);
    json_close(j);
}

static void info_json(void)
{
    const host_facts *h = host_get();
    cost_ceilings ce;
    snap_device d;
    json_buf j;
    cost_ceilings_get(&ce, 1);
    snap_device_get(&d);
    json_begin(&j);
    json_str(&j, "table", "info");
    res_json_machine(&j, &ce);
    json_open_obj(&j, "device_facts");
    if (d.usable) {
        json_int(&j, "sms", d.f.sms);
        json_int(&j, "fp32_lanes_per_sm", d.f.fp32_lanes_per_sm);
        json_num(&j, "clock_ghz", d.f.clock_ghz);
        json_num(&j, "mem_total", (double)d.f.mem_total);
        json_num(&j, "l2_bytes", (double)d.f.l2_bytes);
        json_num(&j, "smem_per_sm", (double)d.f.smem_per_sm);
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", d.f.cc_major, d.f.cc_minor);
        json_str(&j, "compute_capability", cc);
    }
    json_close(&j);
    info_json_gpus(&j);
    info_json_live(&j);
    json_open_obj(&j, "host_facts");
    json_int(&j, "logical", h->logical);
    json_int(&j, "simd_floats", h->simd_floats);
    json_str(&j, "simd", h->simd);
    json_bool(&j, "fma", h->fma);
    json_num(&j, "clock_ghz", h->clock_ghz);
    json_str(&j, "clock_from", h->clock_from);
    json_close(&j);
    json_open_arr(&j, "onetime");
    for (int i = 0; timing_onetime_get(i); i++) {
        json_open_obj(&j, NULL);
        json_str(&j, "what", timing_onetime_get(i)->what);
        json_num(&j, "ms", timing_onetime_get(i)->ms);
        json_close(&j);
    }
    json_close(&j);
    json_print(&j);
}

int cmd_info(cuk_session *s, const stmt *st)
{
    char a[32], b[32], c[32];
    snap_device d;
    snap_memory mem;
    if (s->json) {
        info_json();
        return 0;
    }
    snap_device_get(&d);
    if (!d.usable) {
        out_printf("device:   none (%s)\n", d.why);
    } else {
        snap_memory_get(&mem);
        out_printf("device:   %s, compute capability %d.%d\n", d.f.name, d.f.cc_major, d.f.cc_minor);
        out_printf("FP32:     %d SMs x %d lanes x 2 x %.2f GHz = %.1f TFLOP/s peak\n", d.f.sms,
                   d.f.fp32_lanes_per_sm, d.f.clock_ghz, d.f.peak_gflops / 1e3);
        out_printf("memory:   %s total, %s free; %.0f GB/s; L2 %s\n", fmt_bytes(a, sizeof a, (double)d.f.mem_total),
                   fmt_bytes(b, sizeof b, (double)mem.dev_free), d.f.mem_bw_gbs,
                   fmt_bytes(c, sizeof c, (double)d.f.l2_bytes));
        out_printf("SM:       %d threads, %s shared memory; on chip %.0f GB/s (SMs x 128 B x clock)\n",
                   d.f.max_threads_per_sm, fmt_bytes(a, sizeof a, (double)d.f.smem_per_sm),
                   d.f.sms * 128.0 * d.f.clock_ghz);
        out_printf("CUDA:     driver %d.%d, runtime %d.%d; cuBLAS %d\n", d.f.driver_version / 1000,
                   d.f.driver_version % 1000 / 10, d.f.runtime_version / 1000, d.f.runtime_version % 1000 / 10,
                   gpu_cublas_version());
        info_gpus();
        info_live();
    }
    info_host();
    info_onetime();
    return 0;
}

int cmd_kernels(cuk_session *s, const stmt *st)
{
    gpu_kernel_row rows[64];
    char grid[40], block[40], smem[32];
    if (!mode_on_device(s->mode)) {
        out_printf("mode %s runs on the host: it launches no GPU kernels\n", s->mode->name);
        return 0;
    }
    int n = gpu_kernel_rows(s->mode, rows, 64);
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

/* `what on|off` through the front end's hook, if it has one. */
static int front_end_switch(cuk_session *s, const stmt *st, const char *what, int (*hook)(void *, int),
                            const char *needs)
{
    int on = 0;
    if (on_off(st, what, &on) != 0)
        return -1;
    if (!hook)
        return cuk_err_at(st->cmd_pos, "%s: needs %s", what, needs);
    return hook(s->fe->ud, on);
}

int cmd_panel(cuk_session *s, const stmt *st)
{
    return front_end_switch(s, st, "panel", s->fe ? s->fe->panel : NULL,
                            "an interactive terminal and a build with ncurses");
}

/* present on|off|e2e: e2e shows the end-to-end times and ratios. */
int cmd_present(cuk_session *s, const stmt *st)
{
    const char *w = arg_text(st, 0);
    present_how how = !strcmp(w, "e2e") ? PRESENT_E2E : !strcmp(w, "on") ? PRESENT_KERNEL : PRESENT_OFF;
    if (how == PRESENT_OFF && strcmp(w, "off"))
        return cuk_err_at(st->arg[0]->pos, "present: expected on, off or e2e, got '%s'", w);
    if (!s->fe || !s->fe->present)
        return cuk_err_at(st->cmd_pos, "present: needs the panel: an interactive terminal and a build with ncurses");
    return s->fe->present(s->fe->ud, how);
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

/* save bench "file": the last bench or ladder, with everything it measured. */
static int save_results(const stmt *st)
{
    const result_table *t = res_last();
    if (!t)
        return cuk_err_at(st->arg[0]->pos, "save bench: no bench or ladder has run yet");
    if (res_save(t, arg_text(st, 1)) != 0) {
        cuk_err_locate(st->arg[1]->pos);
        return -1;
    }
    return 0;
}

/* save plot "file.svg": the last bench, ladder or roofline as a chart. */
static int save_plot(cuk_session *s, const stmt *st)
{
    char *path = session_path(s, arg_text(st, 1));
    int rc = path ? svg_save_last(path) : -1;
    free(path);
    if (rc != 0)
        cuk_err_locate(st->arg[1]->pos);
    return rc;
}

int cmd_save(cuk_session *s, const stmt *st)
{
    if (!strcmp(arg_text(st, 0), "bench") || !strcmp(arg_text(st, 0), "ladder"))
        return save_results(st);
    if (!strcmp(arg_text(st, 0), "plot"))
        return save_plot(s, st);
    char note[SUGGEST_NOTE];
    cuk_matrix *m = ws_get(&s->ws, arg_text(st, 0));
    if (!m)
        return cuk_err_at(st->arg[0]->pos, "save: '%s' is not defined%s", arg_text(st, 0),
                          ws_suggest(&s->ws, arg_text(st, 0), note, sizeof note));
    char *path = session_path(s, arg_text(st, 1));
    int rc = path ? fileio_save(m, path) : -1;
    free(path);
    if (rc != 0)
        cuk_err_locate(st->arg[1]->pos);
    return rc;
}

/* One switch in full: what it chooses, what it affects, each value's line,
 * the current one marked. */
static void set_show(const variant_switch *sw)
{
    int cur = variant_current(sw), width = 0;
    for (int i = 0; i < sw->nvalues; i++)
        width = (int)strlen(sw->values[i].value) > width ? (int)strlen(sw->values[i].value) : width;
    out_printf("%s: %s\n", sw->name, sw->summary);
    out_printf("  affects %s\n  default %s; * marks the current value\n", sw->affects, sw->values[sw->def].value);
    for (int i = 0; i < sw->nvalues; i++)
        out_printf("%c %-*s  %s\n", i == cur ? '*' : ' ', width, sw->values[i].value, sw->values[i].about);
}

/* "8 16 32": the values switch i takes, into values; their length. */
static int set_values(int i, char *values, size_t cap)
{
    const variant_switch *sw = variant_get(i);
    size_t n = 0;
    values[0] = '\0';
    for (int v = 0; v < sw->nvalues && n < cap; v++)
        n += (size_t)snprintf(values + n, cap - n, "%s%s", v ? " " : "", sw->values[v].value);
    return (int)strlen(values);
}

/* Every switch on a line: its value, the values it takes (a column as wide
 * as the longest list, and two blanks), what it affects; then the
 * session's counters setting. */
static void set_list(const cuk_session *s)
{
    char values[64];
    int width = 0;
    for (int i = 0; variant_get(i); i++)
        width = set_values(i, values, sizeof values) > width ? (int)strlen(values) : width;
    out_printf("  %-9s %-11s %-*s %s\n", "switch", "value", width + 1, "values", "affects");
    for (int i = 0; variant_get(i); i++) {
        const variant_switch *sw = variant_get(i);
        set_values(i, values, sizeof values);
        out_printf("  %-9s %-11s %-*s %s\n", sw->name, sw->values[variant_current(sw)].value, width + 1, values,
                   sw->affects);
    }
    out_printf("  %-9s %-11s %-*s %s\n", "counters", s->counters ? "on" : "off", width + 1, "on off",
               "every statement: what the GPU counted (count)");
    out_printf("`set NAME` explains a switch, `set NAME VALUE` changes it.\n");
    out_printf("`set kernel timeout S`: a user mode's kernel may run S seconds (now %g) before it is stopped.\n",
               user_timeout());
}

/* set kernel timeout [S]: how long a user mode's kernel may run. */
static int set_kernel(const stmt *st)
{
    if (st->narg < 2 || strcmp(arg_text(st, 1), "timeout"))
        return cuk_err_at(st->narg < 2 ? st->arg[0]->pos : st->arg[1]->pos,
                          "set: kernel has one setting: set kernel timeout SECONDS");
    if (st->narg == 2) {
        out_printf("kernel timeout: %g s: a user mode's kernel running longer is stopped with its helper process\n",
                   user_timeout());
        return 0;
    }
    if (user_timeout_set(st->arg[2]->num) != 0) {
        cuk_err_locate(st->arg[2]->pos);
        return -1;
    }
    return 0;
}

/* set counters [on|off]: a setting of the session's, not a kernel's. */
static int set_counters(cuk_session *s, const stmt *st)
{
    if (st->narg == 1) {
        out_printf("counters: %s\n  on: after each statement that runs GPU kernels, what the hardware counted\n"
                   "  for each (as `count STMT` shows it); the statements' times are not kept:\n"
                   "  each kernel is replayed to read its counters\n",
                   s->counters ? "on" : "off");
        return 0;
    }
    const char *v = arg_text(st, 1);
    if (strcmp(v, "on") && strcmp(v, "off"))
        return cuk_err_at(st->arg[1]->pos, "set: counters can be on or off, not '%s'", v);
    if (count_setting(s, !strcmp(v, "on")) != 0) {
        cuk_err_locate(st->arg[1]->pos);
        return -1;
    }
    return 0;
}

/* set, set NAME, set NAME VALUE: the kernel variants (kernels/variants.h).
 * Only a setting: it needs no GPU, and a bad name or value changes nothing. */
int cmd_set(cuk_session *s, const stmt *st)
{
    const variant_switch *sw;
    if (st->narg == 0) {
        set_list(s);
        return 0;
    }
    if (!strcmp(arg_text(st, 0), "counters"))
        return set_counters(s, st);
    if (!strcmp(arg_text(st, 0), "kernel"))
        return set_kernel(st);
    if (!(sw = variant_lookup(arg_text(st, 0)))) {
        cuk_err_locate(st->arg[0]->pos);
        return -1;
    }
    if (st->narg == 1) {
        set_show(sw);
        return 0;
    }
    if (variant_set(sw->name, arg_text(st, 1)) != 0) {
        cuk_err_locate(st->arg[1]->pos);
        return -1;
    }
    return 0;
}

/* record "file" | record off: a transcript of what is typed at the prompt
 * and everything shown (engine/files/record.h). */
int cmd_record(cuk_session *s, const stmt *st)
{
    const ast *a = st->arg[0];
    if (a->kind != AST_STRING && strcmp(a->text, "off"))
        return cuk_err_at(a->pos, "record: expected a file name in double quotes, or off");
    if ((a->kind == AST_STRING ? record_start(a->text) : record_stop()) != 0) {
        cuk_err_locate(a->pos);
        return -1;
    }
    return 0;
}

int cmd_quit(cuk_session *s, const stmt *st)
{
    s->quit = 1;
    return 0;
}
