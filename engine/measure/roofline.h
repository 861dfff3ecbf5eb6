/* roofline.h - the last roofline chart drawn, kept for `save plot`. */
#ifndef CUK_ROOFLINE_H
#define CUK_ROOFLINE_H

#include "engine/measure/chart.h"

/* The chart of the last `roofline`, or NULL if none ran; *serial gets the
 * res_serial() of the moment it ran (a bench or ladder after it is newer). */
const chart *roofline_last(unsigned *serial);

#endif
