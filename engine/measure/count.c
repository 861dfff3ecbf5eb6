/* count.c - `count STATEMENT` and `set counters on` (see count.h): the
 * statement run once under the counters, then a table of what the hardware
 * counted for each kernel it launched, the statement's DRAM bytes against
 * the least its operations must move (cost.c's model), and one line of
 * plain words on what the counters show. The metrics, the columns made
 * from them and the rules for the plain words are tables. */
#include "engine/measure/count.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/lang/commands.h"
#include "engine/lang/eval.h"
#include "engine/measure/tables.h"
#include "engine/session/json.h"
#include "engine/values/pool.h"
#include "engine/values/warm.h"

/* ---- what is read ---- */

/* The metrics, in the names Nsight Compute shows (tests/unit/test_counters.c
 * checks that CUPTI knows each on Ampere, Ada and Hopper). The FP32
 * instruction counts are optional: CUPTI patches the kernels' code to
 * count them, and leaves them out where it cannot. */
enum {
    M_TIME,    /* ns, one run */
    M_DRAM_RD, /* bytes */
    M_DRAM_WR,
    M_LD_SECT, /* 32-byte sectors global loads asked L1 for */
    M_LD_REQ,  /* global load requests: a warp's load instruction each */
    M_ST_SECT,
    M_ST_REQ,
    M_SH_LD,   /* shared-memory load instructions (warp-wide) */
    M_SH_ST,
    M_SH_LD_CONF, /* extra cycles (wavefronts) their bank conflicts cost */
    M_SH_ST_CONF,
    M_WARPS,   /* achieved occupancy: % of the SM's warp slots in use, over its active cycles */
    M_L2_HIT,  /* % of L2 sector lookups that hit */
    M_FFMA,    /* thread instructions executed */
    M_FADD,
    M_FMUL,
    M_COUNT
};

static const gpu_metric metrics[M_COUNT] = {
    [M_TIME] = {"gpu__time_duration.sum", 0},
    [M_DRAM_RD] = {"dram__bytes_read.sum", 0},
    [M_DRAM_WR] = {"dram__bytes_write.sum", 0},
    [M_LD_SECT] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0},
    [M_LD_REQ] = {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0},
    [M_ST_SECT] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0},
    [M_ST_REQ] = {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 0},
    [M_SH_LD] = {"smsp__inst_executed_op_shared_ld.sum", 0},
    [M_SH_ST] = {"smsp__inst_executed_op_shared_st.sum", 0},
    [M_SH_LD_CONF] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0},
    [M_SH_ST_CONF] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0},
    [M_WARPS] = {"sm__warps_active.avg.pct_of_peak_sustained_active", 0},
    [M_L2_HIT] = {"lts__t_sector_hit_rate.pct", 0},
    [M_FFMA] = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1},
    [M_FADD] = {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1},
    [M_FMUL] = {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1},
};

const gpu_metric *count_metrics(int *n)
{
    *n = M_COUNT;
    return metrics;
}

/* ---- the quantities shown, from the metrics ---- */

/* a / b; NaN when either is unknown or nothing was asked for (b = 0). */
static double per(double a, double b) { return isnan(a) || isnan(b) || b <= 0 ? NAN : a / b; }

static double sum2(double a, double b) { return isnan(a) || isnan(b) ? NAN : a + b; }

static double time_ms(const double *v) { return v[M_TIME] / 1e6; }
static double dram_read(const double *v) { return v[M_DRAM_RD]; }
static double dram_written(const double *v) { return v[M_DRAM_WR]; }
static double ld_sectors(const double *v) { return per(v[M_LD_SECT], v[M_LD_REQ]); }
static double st_sectors(const double *v) { return per(v[M_ST_SECT], v[M_ST_REQ]); }
static double conflicts(const double *v)
{
    return per(sum2(v[M_SH_LD_CONF], v[M_SH_ST_CONF]), sum2(v[M_SH_LD], v[M_SH_ST]));
}
static double occupancy(const double *v) { return v[M_WARPS]; }
static double l2_hit(const double *v) { return v[M_L2_HIT]; }
static double fp32_ops(const double *v) { return sum2(2 * v[M_FFMA], sum2(v[M_FADD], v[M_FMUL])); }
/* FMAs a warp does for each of its global loads: how often a load is reused */
static double fma_per_load(const double *v) { return per(v[M_FFMA] / 32, v[M_LD_REQ]); }

typedef enum { CELL_MS, CELL_BYTES, CELL_RATIO, CELL_PCT, CELL_FLOP } cell_kind;

/* A column: its heading and width, and how it is read from the metrics. */
typedef struct {
    const char *head, *json;
    int width;
    double (*value)(const double *v);
    cell_kind kind;
} count_col;

static const count_col cols[] = {
    {"time", "time_ms", 9, time_ms, CELL_MS},
    {"DRAM read", "dram_read", 10, dram_read, CELL_BYTES},
    {"DRAM written", "dram_written", 12, dram_written, CELL_BYTES},
    {"ld sect/req", "load_sectors_per_request", 11, ld_sectors, CELL_RATIO},
    {"st sect/req", "store_sectors_per_request", 11, st_sectors, CELL_RATIO},
    {"confl/req", "bank_conflicts_per_request", 9, conflicts, CELL_RATIO},
    {"occupancy", "occupancy_pct", 11, occupancy, CELL_PCT},
    {"L2 hit", "l2_hit_pct", 6, l2_hit, CELL_PCT},
    {"FP32 ops", "fp32_ops", 11, fp32_ops, CELL_FLOP},
    {"FMA/load", "fma_per_load", 8, fma_per_load, CELL_RATIO},
};
#define NCOLS ((int)(sizeof cols / sizeof cols[0]))
#define COL_OCCUPANCY 6

/* The kernels counted, and the statement's sums over them. */
typedef struct {
    gpu_counter_row rows[GPU_COUNTERS_ROWS];
    gpu_counter_summary sum;
    double total[GPU_COUNTERS_METRICS]; /* additive metrics summed; the rest NaN */
    int gpus;                  /* several GPUs were counted: rows name theirs */
} counted;

static int additive(int m) { return m != M_WARPS && m != M_L2_HIT; }

static void totals(counted *k)
{
    for (int m = 0; m < M_COUNT; m++) {
        k->total[m] = additive(m) ? 0 : NAN;
        for (int r = 0; r < k->sum.nrows && additive(m); r++)
            k->total[m] += k->rows[r].value[m]; /* NaN in any row: NaN */
    }
    for (int r = 0; r < k->sum.nrows; r++)
        k->gpus |= k->rows[r].gpu != 0;
}

static void cell(char *buf, const count_col *c, double v, double theory)
{
    if (isnan(v)) {
        snprintf(buf, TAB_CELL, "-");
        return;
    }
    switch (c->kind) {
    case CELL_MS: fmt_ms(buf, TAB_CELL, v); break;
    case CELL_BYTES: fmt_bytes(buf, TAB_CELL, v); break;
    case CELL_RATIO: snprintf(buf, TAB_CELL, v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v); break;
    case CELL_FLOP: fmt_si(buf, TAB_CELL, v, "FLOP"); break;
    case CELL_PCT:
        if (isnan(theory))
            snprintf(buf, TAB_CELL, "%.0f%%", v);
        else
            snprintf(buf, TAB_CELL, "%.0f%% of %.0f%%", v, theory);
        break;
    }
}

/* ---- the table ---- */

static void row_cells(char (*c)[TAB_CELL], const char *name, const double *v, double theory)
{
    snprintf(c[0], TAB_CELL, "%s", name);
    for (int i = 0; i < NCOLS; i++)
        cell(c[i + 1], &cols[i], cols[i].value(v), i == COL_OCCUPANCY ? theory : NAN);
}

static void show_table(const counted *k, int width)
{
    static char cells[(GPU_COUNTERS_ROWS + 1) * (NCOLS + 1)][TAB_CELL];
    tab_col tc[NCOLS + 1];
    int n = 0, name_w = 6;
    char name[80];
    for (int r = 0; r < k->sum.nrows; r++) {
        const gpu_counter_row *row = &k->rows[r];
        if (k->gpus)
            snprintf(name, sizeof name, "%s, GPU %d", row->name, row->gpu);
        else
            snprintf(name, sizeof name, "%s", row->name);
        row_cells(cells + n++ * (NCOLS + 1), name, row->value, row->theory_pct);
        name_w = tab_width(name) > name_w ? tab_width(name) : name_w;
    }
    if (k->sum.nrows > 1)
        row_cells(cells + n++ * (NCOLS + 1), "all kernels", k->total, NAN);
    tc[0] = (tab_col){"kernel", name_w < 40 ? name_w : 40, 0, 0};
    for (int i = 0; i < NCOLS; i++)
        tc[i + 1] = (tab_col){cols[i].head, cols[i].width, 1, 0};
    tab_print(tc, NCOLS + 1, cells, n, width, 2);
}

/* ---- the plain words ---- */

/* The row where f is largest, and its value; -1 if f is nowhere known. */
static int row_max(const counted *k, double (*f)(const double *v), double *best)
{
    int at = -1;
    *best = NAN;
    for (int r = 0; r < k->sum.nrows; r++) {
        double x = f(k->rows[r].value);
        if (!isnan(x) && (at < 0 || x > *best))
            at = r, *best = x;
    }
    return at;
}

/* Each rule writes its sentence and returns 1 when what it looks for is
 * there; the first that does is the line under the table. */
typedef int count_rule(const counted *k, double model_bytes, char *buf, size_t cap);

static int rule_conflicts(const counted *k, double model_bytes, char *buf, size_t cap)
{
    double x;
    int r = row_max(k, conflicts, &x);
    if (r < 0 || x < 1)
        return 0;
    snprintf(buf, cap,
             "each shared-memory access of %s waited %.1f extra cycles: the warp's 32 addresses fell in the "
             "same banks, which serve one address a cycle (a padded tile spreads them over all 32)",
             k->rows[r].name, x);
    return 1;
}

static int rule_uncoalesced(const counted *k, double model_bytes, char *buf, size_t cap)
{
    double ld, st;
    int r = row_max(k, ld_sectors, &ld), w = row_max(k, st_sectors, &st);
    int loads = r >= 0 && (w < 0 || isnan(st) || ld >= st);
    double x = loads ? ld : st;
    if ((loads ? r : w) < 0 || x < 8)
        return 0;
    snprintf(buf, cap,
             "each warp's %s in %s touched %.1f sectors of 32 bytes (4 is 32 neighbouring floats): its "
             "threads reach addresses a row apart",
             loads ? "load" : "store", k->rows[loads ? r : w].name, x);
    return 1;
}

static int rule_occupancy(const counted *k, double model_bytes, char *buf, size_t cap)
{
    for (int r = 0; r < k->sum.nrows; r++) {
        const gpu_counter_row *row = &k->rows[r];
        double got = row->value[M_WARPS];
        if (isnan(got) || isnan(row->theory_pct) || got >= 0.6 * row->theory_pct)
            continue;
        snprintf(buf, cap,
                 "%s kept %.0f%% of the SMs' warp slots busy, of the %.0f%% its blocks could hold: warps "
                 "waited at barriers, or the last blocks left SMs idle",
                 row->name, got, row->theory_pct);
        return 1;
    }
    return 0;
}

static int rule_dram(const counted *k, double model_bytes, char *buf, size_t cap)
{
    char a[32], b[32];
    double moved = sum2(k->total[M_DRAM_RD], k->total[M_DRAM_WR]), x = per(moved, model_bytes);
    if (isnan(x))
        return 0;
    fmt_bytes(a, sizeof a, moved);
    fmt_bytes(b, sizeof b, model_bytes);
    if (x >= 1.5)
        snprintf(buf, cap, "the DRAM moved %s, %.1fx the %s the statement needs at the least: data was "
                 "fetched from memory again and again", a, x, b);
    else if (x >= 0.9)
        snprintf(buf, cap, "the DRAM moved %s, %.2fx the least the statement needs: each byte came from memory "
                 "about once, and the loads repeated on chip were served by the caches", a, x);
    else
        snprintf(buf, cap, "the DRAM moved %s, less than the %s the statement reads and writes: the L2 cache "
                 "still held some of it from before", a, b);
    return 1;
}

static int rule_plain(const counted *k, double model_bytes, char *buf, size_t cap)
{
    double x = ld_sectors(k->total);
    if (isnan(x))
        snprintf(buf, cap, "the kernels read no global memory through L1");
    else
        snprintf(buf, cap, "the loads took %.2f sectors a request (4 is coalesced), with no bank conflicts", x);
    return 1;
}

static count_rule *const rules[] = {rule_conflicts, rule_uncoalesced, rule_occupancy, rule_dram, rule_plain};

/* ---- what was counted last (for `why`) ---- */

static struct {
    int valid;
    char text[sizeof((timing_cmd *)0)->text];
    const cuk_backend *mode;
    double read, written;
} last;

static void remember(const counted *k, const timing_cmd *c)
{
    last.valid = c && !isnan(k->total[M_DRAM_RD]) && !isnan(k->total[M_DRAM_WR]);
    if (!last.valid)
        return;
    snprintf(last.text, sizeof last.text, "%s", c->text);
    last.mode = c->mode;
    last.read = k->total[M_DRAM_RD];
    last.written = k->total[M_DRAM_WR];
}

int count_dram_of(const timing_cmd *c, double *read, double *written)
{
    if (!last.valid || !c || c->mode != last.mode || strcmp(c->text, last.text) != 0)
        return 0;
    *read = last.read;
    *written = last.written;
    return 1;
}

/* ---- showing it ---- */

static void show_json(const counted *k, const timing_cmd *c, const char *words)
{
    json_buf j;
    json_begin(&j);
    json_str(&j, "table", "count");
    json_str(&j, "stmt", c ? c->text : NULL);
    json_str(&j, "mode", c && c->mode ? c->mode->name : NULL);
    json_int(&j, "passes", k->sum.passes);
    json_int(&j, "dropped", k->sum.dropped);
    json_num(&j, "model_bytes", c ? c->bytes : NAN);
    json_open_arr(&j, "rows");
    for (int r = 0; r < k->sum.nrows; r++) {
        const gpu_counter_row *row = &k->rows[r];
        json_open_obj(&j, NULL);
        json_str(&j, "kernel", row->name);
        json_int(&j, "gpu", row->gpu);
        for (int i = 0; i < NCOLS; i++)
            json_num(&j, cols[i].json, cols[i].value(row->value));
        json_num(&j, "theoretical_occupancy_pct", row->theory_pct);
        json_open_obj(&j, "metrics");
        for (int m = 0; m < M_COUNT; m++)
            json_num(&j, metrics[m].name, row->value[m]);
        json_close(&j);
        json_close(&j);
    }
    json_close(&j);
    json_str(&j, "note", words);
    json_print(&j);
}

/* "count: C = A @ B  (mode naive: 1 kernel, each run 5 times to read its
 * counters)", the table, the DRAM line, the plain words. */
static void show(const cuk_session *s, const counted *k, const timing_cmd *c)
{
    char words[600], line[400], a[32], b[32], kernels[32];
    int width = session_columns(s);
    double model = c ? c->bytes : NAN, moved = sum2(k->total[M_DRAM_RD], k->total[M_DRAM_WR]);
    if (k->sum.nrows == 0)
        snprintf(words, sizeof words, "the statement launched no GPU kernel");
    for (size_t i = 0; k->sum.nrows && i < sizeof rules / sizeof rules[0] && !rules[i](k, model, words, sizeof words);
         i++)
        ;
    if (s->json) {
        show_json(k, c, words);
        return;
    }
    snprintf(line, sizeof line, "%s  (mode %s: %s, each run %d times to read its counters)", c ? c->text : "",
             c && c->mode ? c->mode->name : s->mode->name, fmt_count(kernels, sizeof kernels, k->sum.nrows, "kernel"),
             k->sum.passes);
    tab_wrap("count: ", line, width, 2);
    show_table(k, width);
    if (k->sum.dropped)
        out_printf("  %s not shown: more than %d in one statement\n",
                   fmt_count(kernels, sizeof kernels, k->sum.dropped, "kernel"), GPU_COUNTERS_ROWS);
    if (!isnan(moved) && model > 0) {
        snprintf(line, sizeof line, "%s read and written; the least the statement needs, by cuk's model: %s (%.2fx)",
                 fmt_bytes(a, sizeof a, moved), fmt_bytes(b, sizeof b, model), moved / model);
        tab_wrap("  DRAM: ", line, width, 2);
    }
    tab_wrap("  ", words, width, 2);
}

/* ---- running ---- */

/* Why the counters cannot be read, in the user's terms, and how to have
 * them; what: the command asking ("count", "set counters"). */
static int refuse(const char *what, gpu_counters_status st, const char *detail)
{
    switch (st) {
    case GPU_COUNTERS_NO_GPU:
        return cuk_err("%s: there is no GPU here (%s); the counters are a GPU's", what, detail);
    case GPU_COUNTERS_NO_LIBRARY:
        return cuk_err("%s: CUPTI, the CUDA toolkit's profiling library, is missing: %s. It comes with the "
                       "toolkit (lib64, or extras/CUPTI/lib64); CUK_CUPTI can name the file",
                       what, detail);
    case GPU_COUNTERS_DENIED:
        return cuk_err("%s: the driver lets only administrators read the GPU's counters (%s). To let every "
                       "user read them: `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file in "
                       "/etc/modprobe.d/, then reboot; or run cuk as root",
                       what, detail);
    case GPU_COUNTERS_UNSUPPORTED:
        return cuk_err("%s: this GPU's counters cannot be read here (%s)", what, detail);
    default:
        return cuk_err("%s: the counters could not be read (%s)", what, detail);
    }
}

/* The statement, once, its kernels counted: untimed (a timed kernel waits
 * behind the timing's gate kernel, which would be counted too) and out of
 * the history (the replays make its times meaningless); what it prints it
 * prints as always. */
static int run_counted(cuk_session *s, const stmt *st)
{
    int time_on = s->time_on;
    s->time_on = 0;
    timing_kernel_events(0);
    timing_quiet(1);
    int rc = eval_stmt(s, st);
    timing_quiet(0);
    s->time_on = time_on;
    return rc;
}

/* The last statement counted (count_last_rows). */
static counted now;

const gpu_counter_row *count_last_rows(int *n)
{
    *n = now.sum.nrows;
    return now.rows;
}

/* The replay saves and restores the memory a kernel may write, which it
 * cannot do for memory mapped across GPUs (on two H200s: an illegal
 * address, and the context lost). 1 if none is held: unused spread memory
 * is given back first. */
static int no_spread_memory(void)
{
    pool_stats st;
    pool_get_stats_of(POOL_SPREAD, &st);
    if (st.held && !st.in_use) {
        pool_trim();
        pool_get_stats_of(POOL_SPREAD, &st);
    }
    return st.held == 0;
}

int count_stmt(cuk_session *s, const stmt *st, int every_statement)
{
    char detail[sizeof cuk_err_get()->msg];
    if (every_statement && (!mode_on_device(s->mode) || s->mode->spread || !no_spread_memory()))
        return eval_stmt(s, st);
    gpu_counters_status cs = gpu_counters_check(detail, sizeof detail);
    if (cs != GPU_COUNTERS_OK)
        return refuse("count", cs, detail);
    if (!mode_on_device(s->mode))
        return cuk_err("count: mode %s runs on the host, and the counters are a GPU's: choose a GPU mode first "
                       "(mode naive, mode tiled, ...)",
                       s->mode->name);
    if (s->mode->spread)
        return cuk_err("count: mode %s keeps its matrices in memory spread over the GPUs, which the counters' "
                       "replay cannot save and restore; count the statement in a single-GPU mode (mode fast, "
                       "mode cublas), where the same kernels run on one GPU",
                       s->mode->name);
    if (!no_spread_memory())
        return cuk_err("count: matrices made in a spread mode still live in memory spread over the GPUs (`who` "
                       "lists them), which the counters' replay cannot save and restore: clear them, or make them "
                       "in a single-GPU mode, and count again");
    /* one-time set-up first, not among the kernels counted; and the device
     * idle, the work of earlier statements done */
    if (warm_mode(s->mode) != 0 || gpu_sync() != 0)
        return -1;
    cs = gpu_counters_begin(metrics, M_COUNT, s->mode->spread, detail, sizeof detail);
    if (cs != GPU_COUNTERS_OK)
        return refuse("count", cs, detail);
    int rc = run_counted(s, st);
    memset(&now, 0, sizeof now);
    int erc = gpu_counters_end(now.rows, GPU_COUNTERS_ROWS, &now.sum, detail, sizeof detail);
    if (rc != 0) /* the statement's error is the one to report */
        return -1;
    if (erc != 0)
        return cuk_err("count: the statement ran, but its counters could not be read (%s)", detail);
    totals(&now);
    const timing_cmd *c = timing_last();
    remember(&now, c);
    if (now.sum.nrows > 0 || (s->json && !every_statement)) /* JSON: the empty table */
        show(s, &now, c);
    else if (!every_statement)
        out_printf("count: %s launched no GPU kernel: nothing to count\n", c ? c->text : "the statement");
    return 0;
}

void count_show(const cuk_session *s, const gpu_counter_row *rows, const gpu_counter_summary *sum,
                const timing_cmd *c)
{
    memset(&now, 0, sizeof now);
    now.sum = *sum;
    now.sum.nrows = sum->nrows < GPU_COUNTERS_ROWS ? sum->nrows : GPU_COUNTERS_ROWS;
    memcpy(now.rows, rows, (size_t)now.sum.nrows * sizeof *rows);
    totals(&now);
    show(s, &now, c);
}

int cmd_count(cuk_session *s, const stmt *st)
{
    stmt sub = *st->sub;
    sub.print = st->print; /* `count C = A @ B;` keeps C to itself */
    return count_stmt(s, &sub, 0);
}

int count_setting(cuk_session *s, int on)
{
    char detail[sizeof cuk_err_get()->msg];
    gpu_counter_row none[1];
    gpu_counter_summary sum;
    if (on) { /* counting nothing, once: what `count` would meet */
        gpu_counters_status cs = gpu_counters_begin(metrics, M_COUNT, 0, detail, sizeof detail);
        if (cs != GPU_COUNTERS_OK)
            return refuse("set counters", cs, detail);
        if (gpu_counters_end(none, 0, &sum, detail, sizeof detail) != 0)
            return refuse("set counters", GPU_COUNTERS_FAILED, detail);
    }
    s->counters = on;
    return 0;
}
