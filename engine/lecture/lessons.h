/* lessons.h - the lecture kit's help pages: `help scripts` (running a
 * script, headings, step mode, rehearsal), `help lessons` (the demo
 * scripts beside the binary, each with the sentence its first "#:" line
 * says it demonstrates) and `help lab` (the exercises of scripts/lab/). */
#ifndef CUK_LESSONS_H
#define CUK_LESSONS_H

#include <stddef.h>

/* help TOPIC if the topic is one of these pages (lessons, lecture, lab,
 * scripts, step, rehearse): 1 when shown, -1 with the error set, 0 if not
 * ours. */
int lessons_help(const char *topic);

/* The overview's line pointing at these pages. */
void lessons_overview(void);

/* A lesson by name, where a name given to `run` is not found: NAME (or
 * "scripts/NAME") in the folder that holds lecture.cuk, beside the binary
 * or installed in its share/cuk/scripts. The path into path (cap bytes);
 * 0, or -1 if there is no such file. */
int lessons_find(const char *name, char *path, size_t cap);

#endif
