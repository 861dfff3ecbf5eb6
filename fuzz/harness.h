/* harness.h - what the fuzz targets share (fuzz/harness.c): a sandbox for
 * the files an input makes, a budget of work per input, and a front end
 * that drops cuk's output. */
#ifndef CUK_FUZZ_HARNESS_H
#define CUK_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/session/session.h"

/* Start one input: on first use make the sandbox folder and move into it;
 * then empty it, reset the work budget, and confine file names to it until
 * fuzz_end. Returns a new session (NULL if out of memory) talking to a
 * front end that drops all output; interactive as the REPL's is. */
cuk_session *fuzz_begin(int interactive);
void fuzz_end(cuk_session *s);

/* Write data to a file of the sandbox (between begin and end): 0 or -1. */
int fuzz_write_file(const char *name, const uint8_t *data, size_t size);

/* The libFuzzer entry point each target defines; tests/fuzz/replay.c calls
 * it too. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
