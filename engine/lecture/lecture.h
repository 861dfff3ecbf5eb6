/* lecture.h - running a script for a lecture. run.c calls these hooks for
 * each line a script file is read by and each statement it runs.
 *
 * Headings: a line of its own (not inside a statement) starting "#:" is
 * printed, after a blank line, in every script run, wrapped at words to
 * the width of the output, so that a transcript shows where each part
 * begins.
 *
 * Step mode (s->step: cuk --step, run "f" step): each statement is echoed
 * after the prompt as if typed, and waits for a key on the terminal
 * (/dev/tty, not stdin, which may be the script itself); keys typed while
 * a statement ran are thrown away first. Enter or space runs it, s skips
 * it, b goes back to the one before (shown again, run again at Enter),
 * g N Enter goes to lesson N, q ends the run as `quit` would, ? lists the
 * keys. A line "# pause" waits at an empty prompt. The lessons are the
 * scripts the stepped script runs with `run` (lecture.cuk's eight), or,
 * in a script that runs none, its `#:` headings; the statements jumped
 * over are not run. Without a GPU, a `mode` that needs one stops the run
 * with the way to rehearse instead.
 *
 * Echo (s->echo: cuk --echo): each statement is echoed after the prompt
 * and run at once, so that a script's transcript reads as a session.
 *
 * Rehearsal (s->rehearse: cuk --rehearse, run "f" rehearse): a `mode` this
 * machine lacks, and each statement after it until a mode that works, is
 * listed as "skipped (no GPU): STATEMENT" instead of failing, followed by
 * what the statement printed on a GPU when the lesson was recorded
 * (recorded.h); a statement that uses a variable whose making was skipped
 * is skipped in its turn ("skipped (C was skipped): ..."). Settings (set,
 * seed, time, format) still take effect, and `run` rehearses its script.
 * Anything else that fails is an error, as in a plain run. */
#ifndef CUK_LECTURE_H
#define CUK_LECTURE_H

#include <stddef.h>

#include "engine/lang/ast.h"
#include "engine/session/session.h"

/* Before setting s->step to step through file (at_prompt: by `run "file"
 * step`, else by cuk --step): open the terminal step mode reads keys
 * from. 0, or -1 with the error set if there is none. */
int lecture_step_begin(const char *file, int at_prompt);
/* After a run that set s->step: a q that ended it ends only it. */
void lecture_step_end(cuk_session *s);

/* What the lecturer's key asks of the statement shown. */
typedef enum {
    STEP_RUN,  /* Enter or space */
    STEP_SKIP, /* s */
    STEP_BACK, /* b: the statement before, again */
    STEP_JUMP, /* g N: lesson N */
    STEP_QUIT, /* q, or the terminal closed */
    STEP_FAIL  /* Ctrl-C while waiting, or the terminal unreadable: the error is set */
} step_key;

/* Step mode: echo st (NULL: the empty prompt of a `# pause`) and wait for
 * the lecturer's key, with the terminal's pending keys thrown away first;
 * `?` lists the keys and waits again. *lesson gets N for STEP_JUMP. */
step_key lecture_step_wait(cuk_session *s, const stmt *st, int *lesson);

/* Before statement st runs: the echo of --echo; a `mode` that needs the
 * GPU this machine lacks, in step mode (an error saying how to rehearse
 * instead); the rehearsal's verdict. 0: run it; 1: don't (skipped); -1
 * with the error set. */
int lecture_before(cuk_session *s, const stmt *st);
/* After st has run without error. */
void lecture_after(cuk_session *s, const stmt *st);

/* A script line of n bytes read outside any statement: a heading ("#:"),
 * a pause ("# pause": step mode waits there), or neither. */
typedef enum { LINE_OTHER, LINE_HEADING, LINE_PAUSE } line_kind;
line_kind lecture_line_kind(const char *line, size_t n);
/* Print the heading line (a blank line before it, wrapped at words). */
void lecture_heading(cuk_session *s, const char *line, size_t n);

/* The end of a stepped script under the panel: wait for a key before the
 * panel goes, and its transcript with it. */
void lecture_step_last(cuk_session *s, const char *file);

#endif
