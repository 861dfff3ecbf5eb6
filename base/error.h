/* error.h - the engine's one error slot, and the interrupt flag.
 *
 * cuk is single-threaded at the engine level, so a failing function sets the
 * error here and returns -1 (or NULL); callers pass the failure up to the
 * statement that caused it, which reports it once and leaves the workspace as
 * it was. Kernels (CPU and GPU) report through the same slot. */
#ifndef CUK_ERROR_H
#define CUK_ERROR_H

#include <signal.h>
#include <stddef.h>

#define CUK_NOPOS ((size_t)-1)

typedef enum {
    CUK_E_NONE = 0,
    CUK_E_USER,     /* ordinary error: bad input, shapes, files, out of memory */
    CUK_E_CANCEL,   /* the user pressed Ctrl-C */
    CUK_E_FATAL     /* the CUDA context is poisoned: the session must end */
} cuk_errkind;

typedef struct {
    cuk_errkind kind;
    size_t pos;        /* byte offset in the statement's source, or CUK_NOPOS */
    char msg[640];
} cuk_error;

#if defined(__GNUC__)
#define CUK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CUK_PRINTF(a, b)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Set the error (kind CUK_E_USER, no position). Always returns -1. */
int cuk_err(const char *fmt, ...) CUK_PRINTF(1, 2);
/* Same, pointing at byte offset pos of the current source. */
int cuk_err_at(size_t pos, const char *fmt, ...) CUK_PRINTF(2, 3);
/* An error that ends the session (poisoned CUDA context). */
int cuk_err_fatal(const char *fmt, ...) CUK_PRINTF(1, 2);
/* The interrupt turned into an error; returns -1. */
int cuk_err_cancel(void);

const cuk_error *cuk_err_get(void);
/* Put back an error copied from cuk_err_get() earlier: for work that may
 * fail on its own (and say so) while another error waits to be reported. */
void cuk_err_restore(const cuk_error *e);
/* Give the pending error a position if it has none yet. */
void cuk_err_locate(size_t pos);
void cuk_err_clear(void);

/* Set by the SIGINT handler while a command runs; long loops poll it. */
extern volatile sig_atomic_t cuk_interrupted;

/* Nonzero (and the error set) if the user asked to stop. Long loops call
 * it between rows or chunks; it also gives the progress hook its turn. */
int cuk_check_interrupt(void);

/* The front end's progress hook: called from long loops (at most every
 * 100 ms) with ud, so a panel can show the elapsed time; it returns 1 while
 * it shows progress, 0 when nothing is watching. */
void cuk_set_progress(int (*fn)(void *ud), void *ud);
/* Give the hook its turn if 100 ms have passed. 1 if progress is being
 * shown (a caller waiting for the device then polls instead of blocking). */
int cuk_progress(void);

/* Long work that knows how far it has got says so, so that a front end can
 * show a percentage and the time left: cuk_check_progress(done, total) in
 * its loop instead of cuk_check_interrupt (done = 0 starts the clock), and
 * cuk_progress_done() when it stops, however it stops. */
int cuk_check_progress(size_t done, size_t total);
void cuk_progress_done(void);
/* What the work about to start is expected to take in all, in seconds (its
 * note's estimate; <= 0: none): the time left starts from it and moves to
 * the pace measured as the work goes, one estimate refined rather than a
 * second one. cuk_progress_done forgets it. */
void cuk_progress_expect(double seconds);
/* How far the work under way has got, 0 to 1, with the time it has left in
 * *left_ms (< 0 until it can be told): from the expectation at first, from
 * the pace so far once a tenth of the work is done; < 0 when no work is
 * reporting. */
double cuk_progress_fraction(double *left_ms);

#ifdef __cplusplus
}
#endif

#endif
