/* session.h - the state of a cuk session: the workspace, the current mode and
 * settings, and the front end it talks to. There is one session per process
 * (the error slot, output sink, timing records and device pool it uses are
 * process-wide), so nothing here needs to be thread-safe.
 *
 * Running source text in a session is engine/run/run.h. */
#ifndef CUK_SESSION_H
#define CUK_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "base/out.h"
#include "engine/values/workspace.h"

struct cuk_backend;

/* What `present` shows: nothing (the panel), kernel times, or end-to-end
 * times with the copies included. */
typedef enum { PRESENT_OFF, PRESENT_KERNEL, PRESENT_E2E } present_how;

/* Everything between the engine and a front end (the REPL, a script run,
 * a test): the front end fills this once; NULL members mean "not here". */
typedef struct cuk_frontend {
    void *ud;           /* passed back to every function below */
    int interactive;    /* a person at a terminal (errors do not end input) */
    /* Output: every byte cuk shows goes through write; NULL: stdout/stderr. */
    void (*write)(void *ud, out_channel ch, const char *s, size_t n);
    void (*flush)(void *ud);
    /* Columns to print values in; NULL or <= 0: 80. */
    int (*columns)(void *ud);
    /* Called from long work at most every 100 ms (the panel's clock);
     * returns 1 while it shows progress, 0 if nothing is watching. */
    int (*progress)(void *ud);
    /* `panel on|off`: 0, or -1 with the error set; NULL: no panel here. */
    int (*panel)(void *ud, int on);
    /* `present on|off|e2e` (how: a present_how): the panel shows the last
     * bench in large type (and comes up if it was off); 0, or -1 with the
     * error set; NULL: no panel. */
    int (*present)(void *ud, int how);
    /* Before each statement runs, its text (n bytes), and after it has
     * run: the panel shows it running, then redraws. */
    void (*statement_started)(void *ud, const char *text, size_t n);
    void (*statement_done)(void *ud);
} cuk_frontend;

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
    const struct cuk_backend *mode;
    const cuk_frontend *fe;
    int format_long;
    int time_on;
    int panel_on;          /* the front end's panel is up (it shows kernel times) */
    int measuring;         /* bench or timeit is running */
    int explaining;        /* `why` or `roofline` is used: time every command's kernels */
    int counters;          /* `set counters on`: every value statement's counters (count.h) */
    const struct cuk_backend *chosen; /* while bench or ladder runs other modes: the user's */
    int json;              /* `cuk --json`: tables as one JSON object per line */
    uint64_t seed;
    uint64_t draws;        /* rand/randn calls since `seed`: each draw is its own stream */
    src_ctx *src;          /* innermost source being run */
    int run_depth;
    int quit;              /* `quit` ran */
    int fatal;             /* a fatal error was reported: the session must end */
    size_t run_pos;        /* where the `run` command being executed stands */
    const char *dir;       /* folder of the script file being run ("": the current
                            * one); NULL at the prompt, in -e and on stdin */
    /* Scripts run for a lecture (run.h): */
    int step;              /* echo each statement, wait for Enter, then run it */
    int echo;              /* echo each statement, then run it (a transcript) */
    int rehearse;          /* a mode this machine lacks is skipped, not an error */
    int queueing;          /* a script file is running: its statements may end
                            * with their device work queued (timing_defer) */
    const struct cuk_backend *skipping; /* rehearsing: the mode asked for and
                            * lacked; its statements are skipped until the next
                            * mode that works. NULL: not skipping */
} cuk_session;

/* A new session talking to fe (NULL: a script on stdout, no panel); starts
 * in `tiled` if a GPU is usable, else `cpu`. */
cuk_session *session_new(const cuk_frontend *fe);
void session_free(cuk_session *s);

/* Select a mode by name: 0, or -1 with a message saying why not. */
int session_set_mode(cuk_session *s, const char *name);
/* The mode the user chose ("tiled"; not the one a bench is trying), and
 * whether it computes on the GPU. */
const char *session_mode_name(const cuk_session *s);
int session_mode_on_device(const cuk_session *s);

/* The name of mode i in ladder order (for completion), or NULL past the end. */
const char *session_mode_at(int i);
/* The same for the switches `set` changes, in its order, and for the
 * values of the switch named (NULL past the end, or for no such switch). */
const char *session_switch_at(int i);
const char *session_switch_value_at(const char *name, int i);

/* The file a name given to run, load or save means: in a script file a
 * relative name is relative to the script's folder, so that a script finds
 * its data wherever it is started from; at the prompt, in -e and on stdin,
 * to the current directory. A new string (free it); NULL with the error set. */
char *session_path(const cuk_session *s, const char *name);

/* Columns to print in, from the front end. */
int session_columns(const cuk_session *s);

#endif
