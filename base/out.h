/* out.h - the one output sink. Everything cuk shows goes through here: plain
 * stdout/stderr by default, the panel's output window when the panel is on.
 * Nothing else writes to the terminal. */
#ifndef CUK_OUT_H
#define CUK_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { OUT_NORMAL, OUT_ERROR } out_channel;

typedef struct {
    void (*write)(void *ud, out_channel ch, const char *s, size_t n);
    void (*flush)(void *ud);
    void *ud;
} out_sink;

/* Route output to sink (NULL: back to stdout/stderr). */
void out_set_sink(const out_sink *sink);

void out_printf(const char *fmt, ...) CUK_PRINTF(1, 2);
void out_errorf(const char *fmt, ...) CUK_PRINTF(1, 2);
void out_flush(void);

/* A transcript (`record`): while tee is set, everything shown is also
 * written there, as it is shown; NULL stops. The caller owns the file.
 * out_tee_error: the errno of the first write to it that failed since it
 * was set, 0 while none has. */
void out_set_tee(FILE *tee);
FILE *out_tee(void);
int out_tee_error(void);

/* A listener of everything shown, beside the sink and the tee (a lesson's
 * recording): fn(ud, channel, bytes, n) for each write; NULL stops. */
void out_set_tap(void (*fn)(void *ud, out_channel ch, const char *s, size_t n), void *ud);

/* The plain sink (stdout, stderr), for a front end that switches between it
 * and a screen of its own. */
void out_std_write(out_channel ch, const char *s, size_t n);
void out_std_flush(void);

/* Flush stdout and stderr; 0, or -1 if output to stdout has been lost (a
 * full disk, a closed descriptor, a pipe nobody reads while SIGPIPE is
 * ignored). The loss is said on stderr once, the first time it is found:
 * "cuk: cannot write standard output: WHY". */
int out_std_check(void);
/* out_std_check, then close stdout (the last chance for a write to fail):
 * for the end of the program. -1 also if stderr lost output, which can only
 * be told by the exit status. */
int out_std_close(void);

#ifdef __cplusplus
}
#endif

#endif
