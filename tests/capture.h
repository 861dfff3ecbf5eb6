/* capture.h - an output sink for tests that read what cuk printed: every
 * byte written goes to `captured` (cut at its size), out_set_sink(&sink)
 * turns it on, capture_reset() empties it. Include once per test program. */
#ifndef CUK_TEST_CAPTURE_H
#define CUK_TEST_CAPTURE_H

#include <string.h>

#include "base/out.h"

static char captured[1 << 16];
static size_t ncaptured;

static void capture(void *ud, out_channel ch, const char *s, size_t n)
{
    if (ncaptured + n >= sizeof captured)
        n = sizeof captured - ncaptured - 1;
    memcpy(captured + ncaptured, s, n);
    ncaptured += n;
    captured[ncaptured] = '\0';
}

static void no_flush(void *ud) {}

static const out_sink sink = {capture, no_flush, NULL};

static void capture_reset(void)
{
    ncaptured = 0;
    captured[0] = '\0';
}

#endif
