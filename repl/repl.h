/* repl.h - the interactive loop: read a line, run it, report, repeat. */
#ifndef CUK_REPL_H
#define CUK_REPL_H

#include "engine/session/session.h"

/* The front end to make the REPL's session with (session_new). */
const cuk_frontend *repl_frontend(void);

/* Run the REPL on the terminal until quit or Ctrl-D; the exit status.
 * panel: show the live panel where the terminal allows it. */
int repl_run(cuk_session *s, int panel);

/* A stepped script on the terminal (cuk --step): the REPL's signals, and
 * the panel where the terminal allows it and panel is set; at the end
 * (not at q), a key before the panel goes, and its transcript with it. */
void repl_lecture_begin(cuk_session *s, int panel);
void repl_lecture_end(cuk_session *s, const char *name);

/* complete.c: readline's completion for cuk (commands, functions,
 * variables, modes, file names inside quotes). */
void complete_install(cuk_session *s);

#endif
