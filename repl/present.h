/* present.h - the panel's large-type view of the last comparison (`present
 * on`, `present e2e`), for a projector: each mode of the last bench as a bar
 * on a log scale of its kernel time (or its end-to-end time, copies
 * included), so that modes a thousand times apart are both seen, and the
 * speedup in digits several rows high, readable from the back of a hall.
 * The rows come from engine/measure/results.h (res_last). */
#ifndef CUK_PRESENT_H
#define CUK_PRESENT_H

#include "repl/draw.h"

#if defined(CUK_HAVE_NCURSES) && defined(CUK_HAVE_READLINE)
/* Draw into rows [top, top + rows) of w, which are blank; e2e: the
 * end-to-end times and ratios instead of the kernels'. */
void present_draw(WINDOW *w, int top, int rows, const draw_look *look, int e2e);
#endif

#endif
