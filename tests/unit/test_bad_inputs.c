/* test_bad_inputs.c - every input of tests/bad_inputs.txt, typed at the
 * prompt (the REPL's path through session_run): exactly one error line that
 * names the problem, the source line, a caret under the right character,
 * and a workspace unchanged to the last bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/out.h"
#include "engine/run/run.h"
#include "engine/session/session.h"
#include "tests/capture.h"
#include "tests/check.h"


/* Names, shapes and a hash of every value: what "unchanged" means. */
static uint64_t snapshot(cuk_session *s)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < s->ws.n; i++) {
        const cuk_matrix *m = s->ws.e[i].m;
        for (const char *p = s->ws.e[i].name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        h = (h ^ (uint64_t)m->rows << 32 ^ (uint64_t)m->cols) * 1099511628211ull;
        const unsigned char *b = (const unsigned char *)m->host;
        for (size_t j = 0; b && j < mat_bytes(m); j += 61)
            h = (h ^ b[j]) * 1099511628211ull;
    }
    return (h ^ s->draws ^ s->seed) * 1099511628211ull ^ (uintptr_t)s->mode;
}

/* Decode \xNN and \\ escapes; @MB@ is a 1 MB line with an error at its end. */
static char *decode(const char *in, size_t *len)
{
    if (!strcmp(in, "@MB@")) {
        size_t n = 4 + 2 * 499998 + 1;
        char *s = malloc(n + 1);
        memcpy(s, "x = ", 4);
        for (size_t i = 4; i < n - 1; i += 2)
            memcpy(s + i, "1+", 2);
        s[n - 1] = '*';
        s[n] = '\0';
        *len = n;
        return s;
    }
    char *s = malloc(strlen(in) + 1);
    size_t n = 0;
    for (const char *p = in; *p; p++) {
        if (p[0] == '\\' && p[1] == 'x') {
            unsigned v;
            sscanf(p + 2, "%2x", &v);
            s[n++] = (char)v;
            p += 3;
        } else if (p[0] == '\\' && p[1] == '\\') {
            s[n++] = '\\';
            p++;
        } else {
            s[n++] = *p;
        }
    }
    s[n] = '\0';
    *len = n;
    return s;
}

/* The caret must sit under the input's character at column col (1-based,
 * ASCII input), or one past the end. */
static void check_caret(const char *out, const char *input, size_t len, long col)
{
    const char *l2 = strchr(out, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    CHECKF(l2 && l3 && strchr(l3 + 1, '\n') == strrchr(out, '\n') && out[strlen(out) - 1] == '\n',
           "want 3 lines, got: %.300s", out);
    if (!l2 || !l3)
        return;
    const char *src = l2 + 1 + 2, *caret = strchr(l3 + 1, '^');
    CHECKF(caret != NULL, "no caret: %.300s", out);
    if (!caret)
        return;
    size_t at = (size_t)(caret - (l3 + 1 + 2));
    char under = src + at < l3 ? src[at] : '\n';
    char want = (size_t)col - 1 < len ? input[col - 1] : '\n';
    if ((unsigned char)want < 32 && want != '\n')
        want = '?';
    CHECKF(under == want, "caret under '%c', want '%c' (column %ld): %.300s", under, want, col, out);
}

static void one_case(cuk_session *s, long col, const char *says, const char *raw)
{
    size_t len;
    char *input = decode(raw, &len);
    uint64_t before = snapshot(s);
    capture_reset();
    run_status st = run_source(s, input, len, NULL, 1, 1);
    CHECKF(st == RUN_ERROR, "'%.60s' did not fail", raw);
    CHECKF(!strncmp(captured, "error: ", 7) && strstr(captured, says), "'%.60s': got '%.300s', want '%s'", raw,
           captured, says);
    check_caret(captured, input, len, col);
    CHECKF(snapshot(s) == before, "'%.60s' changed the workspace", raw);
    free(input);
}

static int setup(cuk_session *s)
{
    const char *init = "mode cpu; A = ones(1037, 1055); B = ones(1031, 1055); v = [1 2 3]; s = 5;";
    FILE *f = fopen("corrupt.npy", "w");
    if (f)
        fputs("this is not numpy", f), fclose(f);
    f = fopen("header.npy", "wb");
    if (f)
        fputs("\x93NUMPY\x01\x00\x10\x00{garbage: 1}  \n", f), fclose(f);
    return run_source(s, init, strlen(init), NULL, 1, 1) == RUN_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *list = argc > 1 ? argv[1] : "tests/bad_inputs.txt";
    FILE *f = fopen(list, "r");
    char tmpl[] = "/tmp/cuk-bad-XXXXXX", line[4096], name[64];
    if (!f || !mkdtemp(tmpl) || chdir(tmpl) != 0) {
        printf("FAIL bad_inputs: cannot open %s or a scratch folder\n", list);
        return 1;
    }
    static const cuk_frontend prompt = {.interactive = 1}; /* errors as at the prompt */
    cuk_session *s = session_new(&prompt);
    out_set_sink(&sink);
    if (setup(s) != 0) {
        out_set_sink(NULL);
        printf("FAIL bad_inputs: setup failed: %s\n", captured);
        return 1;
    }
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *says, *input, *end;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0] || !(says = strchr(line, '\t')) || !(input = strchr(says + 1, '\t')))
            continue;
        *says++ = '\0';
        *input++ = '\0';
        long col = strtol(line, &end, 10);
        snprintf(name, sizeof name, "bad_input_%02d", ++n);
        check_begin(name);
        one_case(s, col, says, input);
        out_set_sink(NULL);
        check_end();
        out_set_sink(&sink);
    }
    out_set_sink(NULL);
    fclose(f);
    session_free(s);
    remove("corrupt.npy");
    remove("header.npy");
    rmdir(tmpl);
    printf("%d bad inputs checked\n", n);
    return check_exit();
}
