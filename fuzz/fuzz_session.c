/* fuzz_session.c - libFuzzer target: a whole session from one input. As a
 * script (run_source over the whole text, as `cuk FILE` does), or, if the
 * input starts with the line "#!repl", as REPL lines: each line run when it
 * arrives, an open bracket waiting for the next line, errors not stopping
 * the session (repl.c's run_line). Files live in the sandbox
 * (fuzz/harness.c); its corpus starts from the golden scripts and the
 * bad-input lines.
 *
 *   make fuzz SECONDS=60      (fuzz/run.sh: every target, corpus, dictionary) */
#include <string.h>

#include "engine/run/run.h"
#include "fuzz/harness.h"

#define REPL_MARK "#!repl\n"

/* Lines one at a time, gathering a statement left open, as the REPL does. */
static void run_lines(cuk_session *s, const char *text, size_t len)
{
    size_t start = 0; /* where the pending statement begins */
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\n')
            continue;
        run_status st = run_source(s, text + start, i + 1 - start, NULL, 1, 0);
        if (st == RUN_INCOMPLETE)
            continue;
        if (st == RUN_QUIT || st == RUN_FATAL || cuk_interrupted)
            return;
        start = i + 1;
    }
    if (start < len)
        run_source(s, text + start, len - start, NULL, 1, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t mark = strlen(REPL_MARK);
    int repl = size >= mark && !memcmp(text, REPL_MARK, mark);
    cuk_session *s = fuzz_begin(repl);
    if (!s)
        return 0;
    if (repl)
        run_lines(s, text + mark, size - mark);
    else
        run_source(s, text, size, "fuzz.cuk", 1, 1);
    fuzz_end(s);
    return 0;
}
