/* lecture.h - running a script for a lecture. run.c calls these hooks for
 * each line a script file is read by and each statement it runs.
 *
 * Headings: a line of its own (not inside a statement) starting "#:" is
 * printed as it stands, after a blank line, in every script run, so that a
 * transcript shows where each part begins.
 *
 * Step mode (s->step: cuk --step, run "f" step): each statement is echoed
 * after the prompt as if typed, and runs when Enter is pressed on the
 * terminal (/dev/tty, not stdin, which may be the script itself); "q" and
 * Enter ends the run as `quit` would; a line "# pause" waits for Enter at
 * an empty prompt.
 *
 * Echo (s->echo: cuk --echo): each statement is echoed after the prompt
 * and run at once, so that a script's transcript reads as a session.
 *
 * Rehearsal (s->rehearse: cuk --rehearse, run "f" rehearse): a `mode` this
 * machine lacks, and each statement after it until a mode that works, is
 * listed as "skipped (no GPU): STATEMENT" instead of failing; a statement
 * that uses a variable whose making was skipped is skipped in its turn
 * ("skipped (C was skipped): ..."). Settings (set, seed, time, format)
 * still take effect, and `run` rehearses its script. Anything else that
 * fails is an error, as in a plain run. */
#ifndef CUK_LECTURE_H
#define CUK_LECTURE_H

#include <stddef.h>

#include "engine/lang/ast.h"
#include "engine/session/session.h"

/* Before setting s->step: open the terminal step mode reads Enter from.
 * 0, or -1 with the error set if there is none. */
int lecture_step_begin(void);
/* After a run that set s->step: a q that ended it ends only it. */
void lecture_step_end(cuk_session *s);

/* Before statement st: the echo and the wait for Enter; the rehearsal's
 * verdict. 0: run it; 1: don't (skipped, or q ended the run); -1 with the
 * error set (Ctrl-C while waiting). */
int lecture_before(cuk_session *s, const stmt *st);
/* After st has run without error. */
void lecture_after(cuk_session *s, const stmt *st);

/* A script line of n bytes, read outside any statement: a heading is
 * printed; "# pause" waits in step mode. 0, 1 if q ended the run, or -1
 * with the error set. */
int lecture_line(cuk_session *s, const char *line, size_t n);

#endif
