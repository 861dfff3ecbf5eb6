/* session.h - one cuk session: the workspace, the current mode and settings,
 * and the entry point that runs a piece of source (a REPL line, a script, a
 * `run` file, a `-e` argument). */
#ifndef CUK_SESSION_H
#define CUK_SESSION_H

#include <stdint.h>

#include "engine/ast.h"
#include "engine/workspace.h"

typedef enum {
    RUN_OK,
    RUN_ERROR,       /* reported; the workspace is as the failing statement found it */
    RUN_INCOMPLETE,  /* an open bracket: nothing ran; give me more input */
    RUN_QUIT,        /* `quit` / `exit` */
    RUN_FATAL        /* reported; the session cannot go on (CUDA context lost) */
} run_status;

/* Where the statements being run came from, for error messages. */
typedef struct src_ctx {
    const char *text;
    size_t len;
    const char *file;      /* NULL at the interactive prompt */
    int first_line;        /* line number of text[0] in file */
    struct src_ctx *outer; /* the source whose `run` command opened this one */
    size_t outer_pos;      /* where in outer that `run` stands */
} src_ctx;

typedef struct cuk_session {
    workspace ws;
    const cuk_backend *mode;
    int interactive;
    int format_long;
    int time_on;
    int panel_on;          /* the REPL's panel is up (it shows kernel times) */
    int measuring;         /* bench or timeit is running */
    uint64_t seed;
    uint64_t draws;        /* rand/randn calls since `seed`: each draw is its own stream */
    src_ctx *src;          /* innermost source being run */
    int run_depth;
    int quit;              /* `quit` ran */
    int fatal;             /* a fatal error was reported: the session must end */
    size_t run_pos;        /* where the `run` command being executed stands */
    /* Hooks the REPL sets: the panel command, and a redraw after each command. */
    int (*panel_hook)(struct cuk_session *s, int on);
    void (*after_cmd_hook)(struct cuk_session *s);
} cuk_session;

/* A new session; starts in `tiled` if a GPU is usable, else `cpu`. */
cuk_session *session_new(int interactive);
void session_free(cuk_session *s);

/* Parse and run text. With `final` unset, an open bracket at the end gives
 * RUN_INCOMPLETE and runs nothing (the REPL asks for another line); with it
 * set, that is an error. file/first_line place errors (file NULL: prompt). */
run_status session_run(cuk_session *s, const char *text, size_t len, const char *file, int first_line, int final);

/* Run a file by name (scripts, `run`); RUN_ERROR with a message if it can't be read. */
run_status session_run_file(cuk_session *s, const char *path);

/* Run a statement already parsed (bench and timeit rerun theirs). */
int session_exec(cuk_session *s, const stmt *st);

/* Report the pending error with the source line and a caret. */
void session_report(cuk_session *s);

/* Select a mode by name: 0, or -1 with a message saying why not. */
int session_set_mode(cuk_session *s, const char *name);

#endif
