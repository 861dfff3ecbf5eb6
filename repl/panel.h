/* panel.h - the live ncurses panel: the screen split into the panel (mode,
 * device, memory, the last commands, the workspace), the output, and the
 * input line, which readline edits while the panel draws it. */
#ifndef CUK_PANEL_H
#define CUK_PANEL_H

#include "base/out.h"
#include "engine/session/session.h"

/* 1 if this terminal and build can show the panel; else 0 and *why. */
int panel_available(const char **why);

/* Take over the screen and hook readline's display to it. 0, or -1 with the
 * error set. While the panel is up the REPL's front end sends output to
 * panel_write. */
int panel_start(cuk_session *s);
/* Give the screen back; output goes to stdout again. */
void panel_stop(void);
int panel_active(void);

/* Wait a little for keys and queue them for readline: how many, or -1 if
 * none came (so the caller can look at its signal flags). Then call
 * rl_callback_read_char while panel_key_waiting(). */
int panel_getch(void);
int panel_key_waiting(void);
/* The terminal changed size. */
void panel_resize(void);
/* The output window: text, flushing it, its width in columns (0 when the
 * panel is down). */
void panel_write(out_channel ch, const char *s, size_t n);
void panel_flush(void);
int panel_columns(void);
/* Redraw the title (the running command's clock). */
void panel_tick(void);
/* Redraw everything (after each statement). */
void panel_refresh(void);
/* `present on|off|e2e` (a present_how): the panel's rows show the last
 * bench in large type (repl/present.h), for a projector; kept until
 * `panel off`. */
void panel_present(int how);
/* A typed line starts: the panel shows it running, with the time, through
 * all its statements, until panel_command_done. */
void panel_command_started(const char *text);
void panel_command_done(void);

#endif
