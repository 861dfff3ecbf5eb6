/* record.h - the transcript `record` keeps: everything shown, teed
 * (base/out.h) into a file written the one way files are (savefile.h), so
 * that it appears, or replaces the old one, whole, when the recording
 * stops: at `record off`, at the next `record`, or when cuk ends. A write
 * that fails is an error at the end of the statement it happened in; the
 * transcript is then dropped and the old file left as it was. */
#ifndef CUK_RECORD_H
#define CUK_RECORD_H

/* Start recording into path, after stopping (and keeping) the recording
 * under way. 0, or -1 with the error set: the one under way goes on if
 * path cannot be written, and stops if it could not be kept. */
int record_start(const char *path);

/* Stop recording and put the transcript in place: 0 (also when nothing is
 * being recorded), or -1 with the error set. */
int record_stop(void);

/* After each statement: 0, or -1 with the error set if a write to the
 * transcript failed; the recording is then dropped. */
int record_check(void);

#endif
