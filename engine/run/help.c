/* help.c - `help` and `help TOPIC`: the same ground as README.md and docs/, in short. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/lang/commands.h"
#include "engine/lang/eval.h"
#include "engine/measure/bench.h"
#include "engine/run/examples.h"
#include "engine/run/kernel.h"
#include "engine/lecture/lessons.h"

/* The overview, in two parts around the line of `mode` (help_mode_line). */
static const char help_overview[] =
    "cuk: a matrix calculator whose matrices live on the GPU.\n"
    "\n"
    "  A = rand(1037, 1055); B = rand(1055, 1031)\n"
    "  C = A @ B              matrix product in the current mode\n";
static const char help_overview_end[] =
    "  bench A @ B            the same product in every mode, side by side\n"
    "  time on                print what each command costs\n"
    "\n"
    "  bench naive cublas: A @ B    just those modes;  help timing: what is measured\n"
    "help topics: language, functions, commands, modes, timing, files, keys, scripts, lessons,\n"
    "kernel (your own CUDA kernels as a mode), lab (exercises for them)\n"
    "help NAME explains one function or command, e.g. `help rand`, `help bench`.\n";

static const char help_language[] =
    "values are float32 matrices; a number is a 1x1 matrix.\n"
    "\n"
    "  A = expr          assign (a trailing ; stops the value being printed)\n"
    "  expr              evaluate and print; the value is kept as `ans`\n"
    "  A @ B             matrix product\n"
    "  A + B, A - B      elementwise; * and / are elementwise too\n"
    "                    a 1x1 operand works with any shape: 2 * A, A - 1\n"
    "  -A  A'  A.T       negate, transpose\n"
    "  [1 2; 3 4]        literal: , or blanks between elements, ; or newline between rows;\n"
    "                    elements may be matrices: [A B; C D]\n"
    "  A[i, j]  A[i]     0-based indexing, negative counts from the end; A[i] is row i\n"
    "  A[0:5, :]         slices lo:hi (hi excluded), as in NumPy\n"
    "  2  1.5e-3  inf  nan    numbers;  \"text\"  strings (file names only)\n"
    "  # comment         to the end of the line; a, b; c    separate statements\n";

static const char help_files[] =
    "  save A \"a.npy\"     NumPy .npy (float32, C order); save A \"a.csv\" for text\n"
    "  A = load(\"a.npy\")  .npy float32/float64, C or Fortran order; or .csv\n"
    "  run \"script.cuk\"   run a script in this session\n"
    "saving writes a temporary file and renames it: a failed save never leaves half a file.\n"
    "in a script file, file names are relative to the script's folder.\n"
    "\n"
    "scripts: cuk FILE.cuk, cuk < FILE, ... | cuk, cuk -e 'stmts'; a #! first line is\n"
    "ignored. A script stops at the first error, printing FILE:LINE:COL, and exits with 1.\n";

static const char help_timing[] =
    "what cuk measures, and how (numbers a lecture can stand behind):\n"
    "  time on             each command: kernel time (CUDA events, or the host\n"
    "                      clock), wall time, the host<->device copies with their\n"
    "                      time and GB/s\n"
    "  timeit [N] STMT     N runs, or as many as fit 1 s (at least 3): median and\n"
    "                      range\n"
    "  bench [MODES:] EXPR every mode, or those named (bench naive cublas: A @ B),\n"
    "                      taking turns: kernel and end-to-end time (fresh host\n"
    "                      operands copied in, the kernel, the result copied back),\n"
    "                      runs, spread, rate, % of peak, speedups over cpu and blas,\n"
    "                      the step over the rung above, the error against float64\n"
    "  ladder EXPR for n in 256 512 1024\n"
    "                      sizes x modes: n is the size, every other name a fresh\n"
    "                      rand(n, n) made before the clock starts; a cell whose run\n"
    "                      would pass 1.5 s, or after 45 s, is estimated from the\n"
    "                      growth and marked: ~7.7 s*\n"
    "  why                 the last command's FLOPs, bytes, ceilings and verdict\n"
    "  count STMT          STMT once, each kernel replayed to read the GPU's counters:\n"
    "                      DRAM bytes, sectors per request, bank conflicts, occupancy\n"
    "  roofline            the modes run so far on a roofline chart\n"
    "  save bench \"t.json\" the last bench or ladder (.json .csv .md), with the\n"
    "                      machine\n"
    "  save plot \"t.svg\"   the last bench, ladder or roofline as a chart (SVG)\n"
    "  record \"s.log\"      a transcript of what is typed and shown; record off stops\n"
    "rules: one-time set-up (kernels loaded, library handles, a shape's first run) is\n"
    "never timed; `info` lists it. A speedup is a ratio of medians taken in the same\n"
    "bench; when the two modes' bands (quartiles, at least +-5%) overlap, or they run\n"
    "the same code, it reads ~1x (noise). A kernel time is the device's alone: the\n"
    "start event waits behind a gate until the launches are queued, which adds ~10 us\n"
    "to the command's wall time (not to bench's end-to-end runs, nor to the timeit\n"
    "runs its wall median comes from). `cuk --json`: each table as one JSON line.\n";

static const char help_keys[] =
    "  Tab        complete commands, functions, variables, modes; file names inside quotes\n"
    "  Up/Down    history (kept in ~/.cuk_history)\n"
    "  Ctrl-C     clear the line; while a command runs, cancel it (variables are kept)\n"
    "  Ctrl-D     leave cuk\n"
    "an open ( or [ at the end of a line asks for more lines.\n";

/* "  mode cpu   select who does the work:" and the name of every mode in
 * the table, wrapped at 80 columns under the column of the descriptions. */
static void help_mode_line(void)
{
    static const char lead[] = "  mode cpu               select who does the work:";
    size_t col = sizeof lead - 1;
    out_printf("%s", lead);
    for (int i = 0; i < mode_count(); i++) {
        const char *name = mode_get(i)->name;
        if (col + 1 + strlen(name) > 80) {
            out_printf("\n%24s", "");
            col = 24;
        }
        out_printf(" %s", name);
        col += 1 + strlen(name);
    }
    out_printf("\n");
}

/* "  example:" and the example's lines, indented. */
static void help_example(const char *name)
{
    const char *ex = example_of(name);
    if (!ex)
        return;
    out_printf("  example:\n");
    for (const char *p = ex; *p;) {
        int n = (int)strcspn(p, "\n");
        out_printf("    %.*s\n", n, p);
        p += n + (p[n] == '\n');
    }
}

static void help_functions(void)
{
    out_printf("functions:\n");
    for (int i = 0; eval_function_name(i); i++)
        out_printf("  %s\n", eval_function_usage(eval_function_name(i)));
    out_printf("reductions (sum mean norm min max dot) give a 1x1 matrix.\n");
}

static void help_commands(void)
{
    out_printf("commands (the first word of a statement):\n");
    for (int i = 0; i < CMD_COUNT; i++)
        out_printf("  %-20s %s\n", cmd_get(i)->usage, cmd_get(i)->summary);
}

static void help_modes(void)
{
    out_printf("modes (`mode NAME` selects one; `modes` shows which are available here):\n");
    for (int i = 0; i < mode_count(); i++)
        out_printf("  %-7s %-4s  %s\n", mode_get(i)->name, mode_on_device(mode_get(i)) ? "GPU" : "host",
                   mode_get(i)->summary);
    out_printf("every mode runs every operation; values and rand/randn seeds agree across modes.\n");
    help_example("modes");
}

/* help NAME for one function, command or mode. */
static int help_name(const char *topic)
{
    const char *usage = eval_function_usage(topic);
    int c = cmd_lookup(topic);
    const cuk_backend *be = mode_find(topic);
    if (usage) {
        out_printf("  %s\n", usage);
        help_example(topic);
    }
    if (c >= 0) {
        out_printf("  %-20s %s\n", cmd_get(c)->usage, cmd_get(c)->summary);
        help_example(cmd_get(c)->word);
    }
    if (be)
        out_printf("  mode %s (%s): %s\n", be->name, mode_on_device(be) ? "GPU" : "host", be->summary);
    return usage || c >= 0 || be;
}

int cmd_help(cuk_session *s, const stmt *st)
{
    const char *topic = st->narg ? st->arg[0]->text : NULL;
    static const struct {
        const char *name, *text;
    } pages[] = {{"language", help_language}, {"syntax", help_language}, {"files", help_files},
                 {"scripts", help_files}, {"keys", help_keys}, {"repl", help_keys}, {"timing", help_timing},
                 {"measuring", help_timing}};
    if (!topic) {
        out_printf("%s", help_overview);
        help_mode_line();
        out_printf("%s", help_overview_end);
        lessons_overview();
        return 0;
    }
    int lecture = lessons_help(topic); /* lessons, scripts: the lecture kit's pages */
    if (lecture != 0)
        return lecture < 0 ? -1 : 0;
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
        if (!strcmp(topic, pages[i].name)) {
            out_printf("%s", pages[i].text);
            return 0;
        }
    if (!strcmp(topic, "kernel")) {
        help_name(topic);
        kernel_help();
    } else if (!strcmp(topic, "functions"))
        help_functions();
    else if (!strcmp(topic, "commands"))
        help_commands();
    else if (!strcmp(topic, "modes"))
        help_modes();
    else if (strchr("@+-*/'", topic[0]) && topic[0])
        out_printf("%s", help_language);
    else if (!help_name(topic))
        return cuk_err("help: no topic '%s' (topics: language, functions, commands, modes, timing, files, keys, scripts, "
                       "lessons, kernel, lab)", topic);
    if (cmd_lookup(topic) == CMD_BENCH) /* what its columns mean, which a bench shows once */
        bench_legend(session_columns(s));
    return 0;
}
