/* present.h - the panel's large-type view of the last comparison (`present
 * on`), for a projector: each mode of the last bench as a bar as long as its
 * kernel time, and the speedup in digits several rows high, readable from
 * the back of a hall. The rows come from engine/measure/results.h (res_last). */
#ifndef CUK_PRESENT_H
#define CUK_PRESENT_H

#include "repl/draw.h"

#if defined(CUK_HAVE_NCURSES) && defined(CUK_HAVE_READLINE)
/* Draw into rows [top, top + rows) of w, which are blank. */
void present_draw(WINDOW *w, int top, int rows, const draw_look *look);
#endif

#endif
