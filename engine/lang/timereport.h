/* timereport.h - the `time on` report of one command: each kernel with its
 * time and rate, then the command's kernel and wall time, the copies with
 * their time and GB/s, and any one-time set-up left out of the wall time.
 * Lines fit `width` columns (a rate goes below its kernel, the summary's
 * clauses onto indented lines). With json set, one JSON object on one line
 * (`cuk --json`). */
#ifndef CUK_TIMEREPORT_H
#define CUK_TIMEREPORT_H

#include "engine/values/timing.h"

void time_report(const timing_cmd *c, int json, int width);

#endif
