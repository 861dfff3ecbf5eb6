/* test_suggest.c - "did you mean": the nearness rule of base/suggest.h
 * (a swap, a case change, how far a typo may go for a name of its length,
 * ties), and the six typos a class makes, each an error that names the
 * likely name and changes nothing: a command (`modee tiled`), a variable
 * (`C = A @ b`), a mode (`mode tilde`), a function (`ranf(3)`), a switch
 * (`set tiel 16`) and a switch's value (`set atile transposd`). */
#include <string.h>

#include "base/out.h"
#include "base/suggest.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "kernels/variants.h"
#include "tests/capture.h"
#include "tests/check.h"

static cuk_session *S;

/* Run src with its output captured; its status. */
static run_status run(const char *src)
{
    capture_reset();
    out_set_sink(&sink);
    run_status st = run_source(S, src, strlen(src), "-e", 1, 1);
    out_set_sink(NULL);
    return st;
}

/* The suggestion for typed among the names (NULL-terminated). */
static const char *nearest(const char *typed, const char *const *names)
{
    static suggest g;
    suggest_begin(&g, typed);
    for (; *names; names++)
        suggest_offer(&g, *names);
    return suggest_best(&g);
}

#define NEAREST(typed, want, ...)                                                                         \
    do {                                                                                                  \
        static const char *const names_[] = {__VA_ARGS__, NULL};                                          \
        const char *got_ = nearest(typed, names_);                                                        \
        CHECKF(want ? got_ && !strcmp(got_, want) : !got_, "%s: got %s, want %s", typed, got_ ? got_ : "nothing", \
               want ? want : "nothing");                                                                  \
    } while (0)

static void nearness(void)
{
    const char *none = NULL;
    NEAREST("tilde", "tiled", "naive", "tiled", "fast");     /* a swap of two neighbours is one edit */
    NEAREST("b", "B", "A", "B", "C");                        /* a one-letter name: its case only */
    NEAREST("x", none, "A", "B", "C");
    NEAREST("ab", none, "ac", "xb");                         /* two letters: case changes only */
    NEAREST("ab", "AB", "xb", "AB");
    NEAREST("modee", "mode", "who", "mode");                 /* one deletion */
    NEAREST("moed", "mode", "modes", "mode", "who");
    NEAREST("rnad", "rand", "randn", "rand");
    NEAREST("zzz", none, "sum", "max", "min");               /* three letters, three edits: no typo */
    NEAREST("transposd", "transposed", "plain", "transposed");
    NEAREST("cuda", none, "cpu", "blas");                    /* two edits away: too far for four letters */
    NEAREST("tile", none, "tile");                           /* the name itself is no suggestion */
}

/* A tie goes to the first name offered; the note's form. */
static void ties_and_note(void)
{
    suggest g;
    char note[SUGGEST_NOTE];
    suggest_begin(&g, "mod");
    suggest_offer(&g, "mode");
    suggest_offer(&g, "mod2");
    CHECKF(suggest_best(&g) && !strcmp(suggest_best(&g), "mode"), "tie: %s", suggest_best(&g));
    CHECKF(!strcmp(suggest_note(&g, note, sizeof note), ": did you mean `mode`?"), "note: %s", note);
    suggest_begin(&g, "qqqq");
    suggest_offer(&g, "mode");
    CHECKF(!strcmp(suggest_note(&g, note, sizeof note), ""), "no note: %s", note);
}

/* src fails with a message holding want, and the workspace and switches
 * are as they were. */
static void typo(const char *name, const char *src, const char *want)
{
    check_begin(name);
    int before = S->ws.n;
    int tile = variant_pick(VAR_TILE), atile = variant_pick(VAR_ATILE);
    const char *mode = session_mode_name(S);
    CHECKF(run(src) == RUN_ERROR, "%s did not fail: %s", src, captured);
    CHECKF(strstr(captured, want) != NULL, "%s: no \"%s\" in: %s", src, want, captured);
    CHECKF(S->ws.n == before, "%s changed the workspace", src);
    CHECKF(variant_pick(VAR_TILE) == tile && variant_pick(VAR_ATILE) == atile, "%s changed a switch", src);
    CHECKF(!strcmp(session_mode_name(S), mode), "%s changed the mode", src);
    check_end();
}

int main(void)
{
    S = session_new(NULL);
    if (!S) {
        printf("FAIL suggest: no session\n");
        return 1;
    }
    RUN(nearness);
    RUN(ties_and_note);
    CHECKF(run("mode cpu; A = ones(2); B = ones(2)") == RUN_OK, "set-up: %s", captured);
    typo("typo_command", "modee tiled", "-e:1:1: error: 'modee' is not a command: did you mean `mode`?");
    typo("typo_variable", "C = A @ b", "-e:1:9: error: 'b' is not defined: did you mean `B`?");
    typo("typo_mode", "mode tilde", "unknown mode 'tilde': did you mean `tiled`?");
    typo("typo_function", "x = ranf(3)", "unknown function 'ranf': did you mean `rand`?");
    typo("typo_switch", "set tiel 16", "set: no switch 'tiel': did you mean `tile`?");
    typo("typo_switch_value", "set atile transposd",
         "set: atile can be plain or transposed, not 'transposd': did you mean `transposed`?");
    typo("typo_bench_mode", "bench cpu blsa: A @ B", "bench: unknown mode 'blsa': did you mean `blas`?");
    typo("typo_clear", "clear a", "clear: 'a' is not defined: did you mean `A`?");
    typo("no_typo_no_guess", "foo bar", "expected an operator or the end of the statement, found a name");
    session_free(S);
    return check_failures != 0;
}
