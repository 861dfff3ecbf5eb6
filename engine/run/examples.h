/* examples.h - an example for each function and command, for `help NAME`:
 * a line or two one could type as it stands, with # comments saying what
 * to look for. */
#ifndef CUK_EXAMPLES_H
#define CUK_EXAMPLES_H

/* The example for a function or command word ("rand", "bench"), lines
 * separated by '\n'; NULL if there is none. */
const char *example_of(const char *name);

#endif
