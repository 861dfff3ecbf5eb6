/* test_variants.c - the kernel variant switches without a GPU: the table
 * (kernels/variants.c) is well formed and its defaults are the kernels cuk
 * ran before there were switches; every value round-trips; a bad name or
 * value is an error that names the choices and changes nothing; the `set`
 * command lists, shows and changes them in any mode, a GPU-only switch on a
 * machine without a GPU included; and the host's part of the classic
 * lecture's reduction (its grid size and the sum of the partials). */
#include <ctype.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "base/out.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "kernels/classic_reduce.h"
#include "kernels/variants.h"
#include "tests/capture.h"
#include "tests/check.h"

static cuk_session *S;

/* Run src with its output captured; its status. */
static run_status run(const char *src)
{
    capture_reset();
    out_set_sink(&sink);
    run_status st = run_source(S, src, strlen(src), NULL, 1, 1);
    out_set_sink(NULL);
    return st;
}

/* Every switch's current value, to compare before and after. */
static void values(int *v)
{
    for (int i = 0; i < VAR_COUNT; i++)
        v[i] = variant_pick((variant_id)i);
}

static int same_values(const int *a, const int *b) { return !memcmp(a, b, VAR_COUNT * sizeof *a); }

static void table_well_formed(void)
{
    for (int i = 0; i < VAR_COUNT; i++) {
        const variant_switch *sw = variant_get(i);
        CHECKF(sw && sw->name && sw->name[0] && sw->summary[0] && sw->affects[0], "switch %d", i);
        if (!sw)
            continue;
        CHECKF(variant_find(sw->name) == sw, "%s is found as another switch", sw->name);
        CHECKF(sw->nvalues >= 2 && sw->nvalues <= VARIANT_MAX_VALUES, "%s has %d values", sw->name, sw->nvalues);
        CHECKF(sw->def >= 0 && sw->def < sw->nvalues, "%s: default %d", sw->name, sw->def);
        for (int v = sw->nvalues; v < VARIANT_MAX_VALUES; v++)
            CHECKF(!sw->values[v].value, "%s: a value past its %d", sw->name, sw->nvalues);
        for (int v = 0; v < sw->nvalues; v++) {
            CHECKF(sw->values[v].value && sw->values[v].value[0] && sw->values[v].about && sw->values[v].about[0],
                   "%s: value %d has no name or no line", sw->name, v);
            CHECKF(strlen(sw->values[v].value) <= 10 && strlen(sw->values[v].about) <= 90,
                   "%s %s: too long for the `set` columns", sw->name, sw->values[v].value);
            for (int w = 0; w < v; w++)
                CHECKF(strcmp(sw->values[v].value, sw->values[w].value), "%s: %s twice", sw->name,
                       sw->values[v].value);
        }
    }
    CHECK(variant_get(VAR_COUNT) == NULL && variant_get(-1) == NULL && variant_find("nope") == NULL);
}

/* The defaults are the kernels of before: 16x16 tiles, a padded transpose,
 * a's tile as it lies, a coalesced naive product, the device-sized grid. */
static void defaults_are_todays_kernels(void)
{
    variant_reset();
    CHECK(variant_pick(VAR_TILE) == VAR_TILE_16 && variant_tile_edge() == 16);
    CHECK(variant_pick(VAR_PAD) == VAR_PAD_ON);
    CHECK(variant_pick(VAR_ATILE) == VAR_ATILE_PLAIN);
    CHECK(variant_pick(VAR_COALESCE) == VAR_COALESCE_ON);
    CHECK(variant_pick(VAR_REDUCE) == VAR_REDUCE_GRID);
    for (int i = 0; i < VAR_COUNT; i++)
        CHECKF(variant_current(variant_get(i)) == variant_get(i)->def, "%s", variant_get(i)->name);
}

/* Each value of each switch can be set and read back, the others untouched. */
static void every_value_round_trips(void)
{
    int before[VAR_COUNT], after[VAR_COUNT];
    for (int i = 0; i < VAR_COUNT; i++) {
        const variant_switch *sw = variant_get(i);
        for (int v = 0; v < sw->nvalues; v++) {
            variant_reset();
            values(before);
            CHECKF(variant_set(sw->name, sw->values[v].value) == 0, "set %s %s", sw->name, sw->values[v].value);
            values(after);
            CHECKF(variant_pick((variant_id)i) == v && variant_current(sw) == v, "%s is %s", sw->name,
                   sw->values[variant_pick((variant_id)i)].value);
            for (int j = 0; j < VAR_COUNT; j++)
                CHECKF(j == i || before[j] == after[j], "set %s changed %s", sw->name, variant_get(j)->name);
        }
    }
    variant_reset();
}

/* A bad name or value: -1, a message naming the choices, nothing changed. */
static void bad_changes_nothing(void)
{
    static const struct {
        const char *name, *value, *says;
    } bad[] = {
        {"tyle", "8", "set: no switch 'tyle': did you mean `tile`? (switches: coalesce, tile, atile, pad, reduce, align, tc, spread)"},
        {"tile", "12", "set: tile can be 8, 16 or 32, not '12'"},
        {"tile", "8.0", "set: tile can be 8, 16 or 32, not '8.0'"},
        {"pad", "ON", "set: pad can be on or off, not 'ON': did you mean `on`?"},
        {"pad", "16", "set: pad can be on or off, not '16'"},
        {"reduce", "", "set: reduce can be classic, grid or shuffle, not ''"},
        {"reduce", "seed", "set: reduce can be classic, grid or shuffle, not 'seed'"},
        {"atile", "sideways", "set: atile can be plain or transposed, not 'sideways'"},
        {"", "on", "set: no switch ''"},
    };
    int before[VAR_COUNT], after[VAR_COUNT];
    variant_set("tile", "32");
    variant_set("reduce", "classic");
    values(before);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuk_err_clear();
        CHECKF(variant_set(bad[i].name, bad[i].value) == -1, "set '%s' '%s' worked", bad[i].name, bad[i].value);
        CHECKF(!strncmp(cuk_err_get()->msg, bad[i].says, strlen(bad[i].says)), "message '%s', want '%s'",
               cuk_err_get()->msg, bad[i].says);
        values(after);
        CHECKF(same_values(before, after), "set '%s' '%s' changed a switch", bad[i].name, bad[i].value);
    }
    cuk_err_clear();
    CHECK(variant_lookup("nope") == NULL && strstr(cuk_err_get()->msg, "switches: coalesce, tile"));
    cuk_err_clear();
    variant_reset();
}

/* `set` lists every switch with its value; `set NAME` shows one, the
 * current value starred; `set NAME VALUE` changes it silently. */
static void set_command(void)
{
    variant_reset();
    CHECK(run("mode cpu; set") == RUN_OK);
    for (int i = 0; i < VAR_COUNT; i++) {
        char line[64];
        const variant_switch *sw = variant_get(i);
        snprintf(line, sizeof line, "\n  %-9s %-11s ", sw->name, sw->values[sw->def].value);
        CHECKF(strstr(captured, line) && strstr(captured, sw->affects), "`set` lacks '%s': %s", line, captured);
    }
    CHECK(run("set tile 32, set reduce shuffle; set atile transposed") == RUN_OK && captured[0] == '\0');
    CHECK(variant_pick(VAR_TILE) == VAR_TILE_32 && variant_tile_edge() == 32 &&
          variant_pick(VAR_REDUCE) == VAR_REDUCE_SHUFFLE && variant_pick(VAR_ATILE) == VAR_ATILE_TRANSPOSED);
    CHECK(run("set tile") == RUN_OK);
    CHECKF(!strncmp(captured, "tile: ", 6) && strstr(captured, "\n* 32  ") && strstr(captured, "\n  16  ") &&
               strstr(captured, "default 16;"),
           "`set tile`: %s", captured);
    CHECK(run("set") == RUN_OK);
    CHECKF(strstr(captured, "\n  tile      32          8 16 32 ") &&
               strstr(captured, "\n  reduce    shuffle     classic grid shuffle "),
           "`set` after changes: %s", captured);
    CHECK(run("set tile 16; set reduce grid; set atile plain") == RUN_OK);
    for (int i = 0; i < VAR_COUNT; i++)
        CHECKF(variant_current(variant_get(i)) == variant_get(i)->def, "%s", variant_get(i)->name);
}

/* The switches are settings: in mode cpu, and where no GPU is usable, a
 * GPU-only switch is set all the same, and the mode stays. */
static void set_without_gpu(void)
{
    CHECK(run("mode cpu; set coalesce off; set pad off; x = sum(ones(3, 3))") == RUN_OK);
    CHECK(variant_pick(VAR_COALESCE) == VAR_COALESCE_OFF && variant_pick(VAR_PAD) == VAR_PAD_OFF);
    CHECKF(strstr(captured, "x = 9"), "%s", captured);
    CHECK(S->mode == mode_reference());
    variant_reset();
}

/* Errors through the command: the message, a caret under the word, nothing
 * changed; syntax errors in the arguments. */
static void set_errors(void)
{
    static const struct {
        const char *src, *says, *caret;
    } bad[] = {
        {"set tyle 8", "error: set: no switch 'tyle': did you mean `tile`? (switches: coalesce, tile, atile, pad, reduce, align, tc, spread)\n", "\n      ^"},
        {"set tile 12", "error: set: tile can be 8, 16 or 32, not '12'\n", "\n           ^"},
        {"set pad of", "error: set: pad can be on or off, not 'of'\n", "\n          ^"},
        {"set atile sideways", "error: set: atile can be plain or transposed, not 'sideways'\n", "\n            ^"},
        {"set 8", "error: expected the name of a switch, found a number\n", "\n      ^"},
        {"set tile \"8\"", "error: expected a value for the switch, found a string\n", "\n           ^"},
        {"set tile 8 9", "error: expected an operator or the end of the statement", "\n             ^"},
    };
    int before[VAR_COUNT], after[VAR_COUNT];
    variant_set("tile", "8");
    values(before);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECKF(run(bad[i].src) == RUN_ERROR, "'%s' worked", bad[i].src);
        CHECKF(!strncmp(captured, bad[i].says, strlen(bad[i].says)) && strstr(captured, bad[i].caret),
               "'%s': got '%s', want '%s'", bad[i].src, captured, bad[i].says);
        values(after);
        CHECKF(same_values(before, after), "'%s' changed a switch", bad[i].src);
    }
    variant_reset();
}

/* The classic grid: min(32, ceil(n / 256)) blocks, whatever n is. */
static void classic_grid(void)
{
    static const struct {
        size_t n;
        unsigned blocks;
    } g[] = {{1, 1}, {255, 1}, {256, 1}, {257, 2}, {8191, 32}, {8192, 32}, {8193, 32}, {33 * 1024, 32},
             {(size_t)1 << 40, 32}};
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        CHECKF(classic_blocks(g[i].n) == g[i].blocks, "n %zu: %u blocks, want %u", g[i].n, classic_blocks(g[i].n),
               g[i].blocks);
}

/* The host's last step: the partials added in double, the mean divided by
 * n, the norm's root taken; min and max with NaN winning. */
static void classic_host_fold(void)
{
    /* 1 + 2^24 + 1 is 2^24 in float, added one at a time; 2^24 + 2 in double */
    const float part[4] = {1.0f, 16777216.0f, 1.0f, -3.0f};
    CHECK(classic_fold(CUK_RED_SUM, part, 3, 100) == 16777218.0f);
    CHECK(classic_fold(CUK_RED_SUM, part, 4, 100) == 16777215.0f);
    CHECK(classic_fold(CUK_RED_MEAN, part, 4, 5) == 3355443.0f);
    const float sq[2] = {9.0f, 16.0f};
    CHECK(classic_fold(CUK_RED_NORM, sq, 2, 7) == 5.0f);
    CHECK(classic_fold(CUK_RED_MIN, part, 4, 4) == -3.0f && classic_fold(CUK_RED_MAX, part, 4, 4) == 16777216.0f);
    CHECK(classic_fold(CUK_RED_MIN, part, 1, 1) == 1.0f && classic_fold(CUK_RED_SUM, part, 1, 1) == 1.0f);
    const float with_nan[3] = {1.0f, NAN, -5.0f};
    CHECK(isnan(classic_fold(CUK_RED_MIN, with_nan, 3, 3)) && isnan(classic_fold(CUK_RED_MAX, with_nan, 3, 3)));
    CHECK(isnan(classic_fold(CUK_RED_SUM, with_nan, 3, 3)));
    const float inf[2] = {INFINITY, -INFINITY};
    CHECK(classic_fold(CUK_RED_MIN, inf, 2, 2) == -INFINITY && classic_fold(CUK_RED_MAX, inf, 2, 2) == INFINITY);
    CHECK(isnan(classic_fold(CUK_RED_COUNT, part, 4, 4)));
}

/* Append the .cu and .cuh files under dir, its subfolders included, to
 * text[*len..cap). */
static void read_cuda_sources(const char *dir, char *text, size_t *len, size_t cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    CHECKF(d != NULL, "cannot open %s", dir);
    while (d && (e = readdir(d))) {
        char path[512];
        struct stat st;
        const char *dot = strrchr(e->d_name, '.');
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            read_cuda_sources(path, text, len, cap);
        if (!dot || (strcmp(dot, ".cu") && strcmp(dot, ".cuh")))
            continue;
        FILE *f = fopen(path, "r");
        *len += f ? fread(text + *len, 1, cap - 1 - *len, f) : 0;
        if (f)
            fclose(f);
        CHECKF(*len < cap - 1, "the CUDA sources of kernels/ are too long for this test's buffer");
    }
    if (d)
        closedir(d);
}

/* The kernels (which need a GPU to run) read the switches by comparing
 * variant_pick(VAR_ID) with the constants of its values, VAR_ID_VALUE
 * (tests/names.py checks that each constant stands for its value): read
 * the CUDA sources under kernels/, so that a value no kernel reads, which
 * would quietly run the default kernel, fails here. */
static void kernels_read_every_value(void)
{
    static char text[1 << 21];
    size_t len = 0;
    read_cuda_sources("kernels", text, &len, sizeof text);
    text[len] = '\0';
    for (int i = 0; i < VAR_COUNT; i++) {
        const variant_switch *sw = variant_get(i);
        for (int v = 0; v < sw->nvalues; v++) {
            char constant[64], *c = constant;
            snprintf(constant, sizeof constant, "VAR_%s_%s", sw->name, sw->values[v].value);
            for (; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            CHECKF(v == sw->def || strstr(text, constant), "no kernel reads %s %s (%s)", sw->name, sw->values[v].value,
                   constant);
        }
    }
}

/* Which (mode, operation) each switch changes, read from its affects line:
 * what `bench variants:` races. */
static void applies(void)
{
    const variant_switch *tile = variant_find("tile"), *reduce = variant_find("reduce"),
                         *coalesce = variant_find("coalesce"), *pad = variant_find("pad");
    CHECK(variant_applies(tile, "tiled", "matmul"));
    CHECK(!variant_applies(tile, "tiled", "transpose") && !variant_applies(tile, "naive", "matmul"));
    CHECK(!variant_applies(tile, "cublas", "matmul")); /* cublas borrows tiled's sum, not its product */
    CHECK(variant_applies(coalesce, "naive", "matmul") && !variant_applies(coalesce, "tiled", "matmul"));
    CHECK(variant_applies(pad, "tiled", "transpose") && !variant_applies(pad, "tiled", "matmul"));
    CHECK(variant_applies(reduce, "tiled", "sum") && variant_applies(reduce, "cublas", "norm"));
    CHECK(variant_applies(reduce, "tiled", "dot") && !variant_applies(reduce, "cublas", "dot"));
    CHECK(!variant_applies(reduce, "tiled", "su") && !variant_applies(reduce, "tile", "sum"));
    CHECK(run("A = rand(3, 3); bench variants: A @ A") == RUN_ERROR &&
          strstr(captured, "bench variants: no switch changes the kernels of this expression in mode cpu"));
}

int main(void)
{
    S = session_new(NULL);
    RUN(table_well_formed);
    RUN(defaults_are_todays_kernels);
    RUN(every_value_round_trips);
    RUN(bad_changes_nothing);
    RUN(set_command);
    RUN(set_without_gpu);
    RUN(set_errors);
    RUN(classic_grid);
    RUN(classic_host_fold);
    RUN(kernels_read_every_value);
    RUN(applies);
    session_free(S);
    return check_exit();
}
