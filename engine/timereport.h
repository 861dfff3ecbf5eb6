/* timereport.h - the `time on` report of one command: each kernel with its
 * time and rate, then the command's kernel and wall time, the copies with
 * their time and GB/s, and any one-time set-up left out of the wall time.
 * With json set, one JSON object on one line (`cuk --json`). */
#ifndef CUK_TIMEREPORT_H
#define CUK_TIMEREPORT_H

#include "engine/timing.h"

void time_report(const timing_cmd *c, int json);

#endif
