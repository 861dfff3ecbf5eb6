/* main.c - cuk's entry point: flags, then either the interactive REPL (a
 * terminal on stdin) or a script (a file, -e, or anything piped in). */
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fmt.h"
#include "base/out.h"
#include "engine/files/record.h"
#include "engine/lecture/lecture.h"
#include "engine/lecture/recorded.h"
#include "engine/run/kernel.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "repl/repl.h"

#define CUK_VERSION "0.1"

/* What this build has, for --version (the tests read it too). */
#define FEATURES FEATURE_READLINE ", " FEATURE_NCURSES ", " FEATURE_CUDA ", " FEATURE_BLAS
#ifdef CUK_HAVE_READLINE
#define FEATURE_READLINE "readline"
#else
#define FEATURE_READLINE "no readline"
#endif
#ifdef CUK_HAVE_NCURSES
#define FEATURE_NCURSES "ncurses"
#else
#define FEATURE_NCURSES "no ncurses"
#endif
#ifdef CUK_HAVE_CUDA
#define FEATURE_CUDA "CUDA"
#elif defined(CUK_CUDA_LEFT_OUT)
#define FEATURE_CUDA "CUDA left out"
#else
#define FEATURE_CUDA "no CUDA"
#endif
#ifdef CUK_HAVE_BLAS
#define FEATURE_BLAS "BLAS"
#else
#define FEATURE_BLAS "no BLAS"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuk [--no-panel] [--json] [--step | --echo] [--rehearse] [--transcripts DIR]\n"
            "           [FILE.cuk | -e STATEMENTS | -]\n"
            "\n"
            "  (no argument)   the interactive calculator when stdin is a terminal,\n"
            "                  else run the statements read from stdin\n"
            "  FILE.cuk        run a script; stop at the first error (exit status 1)\n"
            "  -e STATEMENTS   run the statements given, e.g. cuk -e 'A = rand(3,3); A @ A'\n"
            "  --no-panel      interactive, without the live panel\n"
            "  --json          tables (bench, ladder, timeit, time on, info, who, modes) as one\n"
            "                  JSON object per line, for scripts\n"
            "  --step          a script for a lecture: echo each statement and wait for a\n"
            "                  key: Enter runs it, s skips, b goes back, g N goes to lesson\n"
            "                  N, q stops, ? lists the keys; `# pause` waits\n"
            "  --rehearse      a script for a lecture, on a machine without a GPU: GPU modes\n"
            "                  and their statements are skipped, showing what they printed\n"
            "                  when the lesson was recorded on a GPU\n"
            "  --echo          echo each statement of a script before its output\n"
            "  --transcripts DIR  record what each statement of the script, and of the\n"
            "                  scripts it runs, printed: DIR/NAME.txt, what --rehearse shows\n"
            "                  on a machine without a GPU (bench/record-lessons.sh)\n"
            "  -h, --help      this help;  -V, --version  the version\n");
}

/* Run non-interactive input; the exit status. */
static int run_script(cuk_session *s, const char *file, const char *text)
{
    run_status st = text ? run_source(s, text, strlen(text), "-e", 1, 1) : run_file(s, file);
    if (st == RUN_ERROR && cuk_err_get()->kind != CUK_E_NONE) { /* the file itself could not be read */
        out_errorf("cuk: %s\n", cuk_err_get()->msg);
        cuk_err_clear();
    }
    out_flush();
    return st == RUN_OK || st == RUN_QUIT ? 0 : 1;
}

/* A standard descriptor started closed (`cuk >&-`) is given /dev/null opened
 * the other way round: writing it (or reading stdin) still fails, as it
 * should, but no file cuk opens later (a script, a save's temporary) can
 * become fd 1 and receive what cuk prints. */
static void hold_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) /* open() takes the lowest free number: fd */
        if (fcntl(fd, F_GETFD) == -1)
            open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
}

/* The exit status once the run is over: 1 if output was lost on the way. */
static int finish(int rc) { return out_std_close() != 0 ? 1 : rc; }

/* A transcript still being recorded is put in place as cuk ends; 1 if it
 * could not be. */
static int end_record(int rc)
{
    if (record_stop() == 0)
        return rc;
    out_errorf("cuk: %s\n", cuk_err_get()->msg);
    cuk_err_clear();
    return 1;
}

/* --step, --echo and --rehearse: for a script, not the interactive
 * calculator; step mode needs a terminal to read its keys from. 0, or the
 * exit status. */
static int lecture_flags(cuk_session *s, int step, int echo, int rehearse, int interactive, const char *file)
{
    if ((step || echo || rehearse) && interactive) {
        fprintf(stderr, "cuk: --step, --echo and --rehearse run a script: cuk --step FILE.cuk\n");
        return 2;
    }
    if (step && lecture_step_begin(file ? file : "-e '...'", 0) != 0) {
        fprintf(stderr, "cuk: --step: %s\n", cuk_err_get()->msg);
        return 2;
    }
    s->step = step;
    s->echo = echo;
    s->rehearse = rehearse;
    return 0;
}

int main(int argc, char **argv)
{
    const char *file = NULL, *text = NULL, *transcripts = NULL;
    int panel = 1, json = 0, step = 0, echo = 0, rehearse = 0;
    int helper = kernel_helper_main(argc, argv); /* cuk started again to run user kernels */
    if (helper >= 0)
        return helper;
    setlocale(LC_CTYPE, ""); /* readline's multibyte editing; numbers stay in the C locale */
    hold_std_fds();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return finish(0);
        } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("cuk %s (%s)\n", CUK_VERSION, FEATURES);
            return finish(0);
        } else if (!strcmp(a, "--no-panel")) {
            panel = 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--step")) {
            step = 1;
        } else if (!strcmp(a, "--rehearse")) {
            rehearse = 1;
        } else if (!strcmp(a, "--echo")) {
            echo = 1;
        } else if (!strcmp(a, "--transcripts") && i + 1 < argc) {
            transcripts = argv[++i];
        } else if (!strcmp(a, "-e") && i + 1 < argc && !file && !text) {
            text = argv[++i];
        } else if ((a[0] != '-' || !strcmp(a, "-")) && !file && !text) {
            file = a;
        } else {
            char shown[256];
            fmt_escape(shown, sizeof shown, a, strlen(a));
            fprintf(stderr, "cuk: unexpected argument '%s'\n", shown);
            usage(stderr);
            return 2;
        }
    }
    int interactive = !file && !text && isatty(0);
    int lecturing = step && !interactive && isatty(0) && isatty(1); /* a lecturer at a terminal: the panel */
    cuk_session *s = session_new(interactive || lecturing ? repl_frontend() : NULL);
    if (!s) {
        fprintf(stderr, "cuk: out of memory\n");
        return 1;
    }
    s->json = json;
    int rc = lecture_flags(s, step, echo, rehearse, interactive, file);
    if (rc == 0 && transcripts && rec_start(transcripts, CUK_VERSION " (" FEATURES ")") != 0) {
        fprintf(stderr, "cuk: %s\n", cuk_err_get()->msg);
        rc = 2;
    }
    if (rc == 0 && interactive) {
        rc = repl_run(s, panel);
    } else if (rc == 0) {
        if (lecturing)
            repl_lecture_begin(s, panel);
        rc = run_script(s, file ? file : "-", text);
        if (lecturing)
            repl_lecture_end(s, file ? file : "-e");
    }
    rc = end_record(rc);
    session_free(s);
    return finish(rc);
}
