/* run.h - running source text in a session: parse it, run each statement
 * (commands through the command list, values through the evaluator), flush
 * its output, and report the first error with its line and a caret. */
#ifndef CUK_RUN_H
#define CUK_RUN_H

#include "engine/session/session.h"

typedef enum {
    RUN_OK,
    RUN_ERROR,       /* reported; the workspace is as the failing statement found it */
    RUN_INCOMPLETE,  /* an open bracket: nothing ran; give me more input */
    RUN_QUIT,        /* `quit` / `exit` */
    RUN_FATAL        /* reported; the session cannot go on (CUDA context lost) */
} run_status;

/* Parse and run text. With `final` unset, an open bracket at the end gives
 * RUN_INCOMPLETE and runs nothing (the REPL asks for another line); with it
 * set, that is an error. file/first_line place errors (file NULL: prompt). */
run_status run_source(cuk_session *s, const char *text, size_t len, const char *file, int first_line, int final);

/* Run a file by name ("-": stdin), streamed: each statement runs as soon as
 * its last line has been read, so memory is bounded by the longest
 * statement and a pipe's output appears as it is fed. While it runs,
 * relative file names are relative to the file's folder (session_path).
 * RUN_ERROR with the error set if it can't be opened or read, else as
 * run_source for its statements. */
run_status run_file(cuk_session *s, const char *path);

#endif
