/* test_help.c - `help NAME` for every function and every command shows its
 * usage and an example; every example parses, and runs as it stands (in a
 * scratch folder, output discarded) unless it cannot run in a test: `run`
 * of a lecture script, `quit`, `panel`, `present`, `ladder` (seconds of work), and GPU
 * modes on a machine without a GPU. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/out.h"
#include "engine/lang/cmdlist.h"
#include "engine/lang/eval.h"
#include "engine/run/examples.h"
#include "engine/lang/parse.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "tests/check.h"

/* What the session printed since the last take. */
static struct {
    char text[8192];
    size_t n;
} shown;

static void capture(void *ud, out_channel ch, const char *s, size_t n)
{
    if (shown.n + n < sizeof shown.text) {
        memcpy(shown.text + shown.n, s, n);
        shown.n += n;
        shown.text[shown.n] = '\0';
    }
}

static void no_flush(void *ud) {}

static const out_sink sink = {capture, no_flush, NULL};

static cuk_session *S;

/* Run src; its status, with what it printed in shown.text. */
static run_status run(const char *src)
{
    shown.n = 0;
    shown.text[0] = '\0';
    return run_source(S, src, strlen(src), "test", 1, 1);
}

/* help NAME shows the usage line and "example:" with at least one line. */
static void help_shows_example(const char *name)
{
    char src[64];
    snprintf(src, sizeof src, "help %s", name);
    CHECKF(run(src) == RUN_OK, "'%s' failed: %s", src, shown.text);
    CHECKF(strstr(shown.text, "\n  example:\n    "), "'%s' shows no example: %s", src, shown.text);
}

/* The example of name parses as a program. */
static void example_parses(const char *name)
{
    const char *ex = example_of(name);
    arena a = {0};
    program p;
    CHECKF(ex, "no example for %s", name);
    if (ex)
        CHECKF(parse_program(ex, strlen(ex), &a, &p) == PARSE_OK, "the example of %s does not parse: %s", name,
               cuk_err_get()->msg);
    arena_free(&a);
    cuk_err_clear();
}

/* The example of name runs, in a fresh workspace in the scratch folder;
 * a mode this machine lacks is the one failure allowed. */
static void example_runs(const char *name)
{
    /* ladder: seconds; kernel: a CUDA file of the user's */
    static const char *const not_here[] = {"run", "quit", "panel", "present", "ladder", "kernel"};
    const char *ex = example_of(name);
    for (size_t i = 0; i < sizeof not_here / sizeof not_here[0]; i++)
        if (!strcmp(name, not_here[i]))
            return;
    if (!ex)
        return;
    run("clear; mode cpu"); /* a fresh workspace */
    run_status st = run(ex);
    int lacks_mode = strstr(shown.text, " is unavailable: ") != NULL;
    CHECKF(st == RUN_OK || lacks_mode, "the example of %s failed: %s", name, shown.text);
    run("format short; time off; set tile 16");
}

static void each_name(const char *name)
{
    char label[64];
    snprintf(label, sizeof label, "help_example_%s", name);
    check_begin(label);
    help_shows_example(name);
    example_parses(name);
    example_runs(name);
    check_end();
}

int main(void)
{
    char dir[] = "/tmp/cuk-help-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_help: scratch folder");
        return 1;
    }
    out_set_sink(&sink);
    S = session_new(NULL);
    out_set_sink(&sink); /* session_new set the plain sink */
    for (int i = 0; eval_function_name(i); i++)
        each_name(eval_function_name(i));
    for (int i = 0; i < CMD_COUNT; i++)
        each_name(cmd_get((cmd_id)i)->word);
    session_free(S);
    out_set_sink(NULL);
    char rm[64];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir); /* what the examples saved */
    if (system(rm) != 0)
        fprintf(stderr, "test_help: could not remove %s\n", dir);
    return check_exit();
}
