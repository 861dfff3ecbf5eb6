/* test_wrap.c - output lines broken at words for the screen (base/wrap.h):
 * no line wider than the width, every word whole and in order, a
 * continuation under the cell it breaks in, lines that fit and escape
 * sequences unchanged, a line flushed half-way (a prompt) left alone, and
 * random text at random widths. */
#include <stdlib.h>
#include <string.h>

#include "base/wrap.h"
#include "tests/check.h"

static char got[1 << 16];
static size_t ngot;

static void emit(void *ud, const char *s, size_t n)
{
    if (ngot + n < sizeof got) {
        memcpy(got + ngot, s, n);
        ngot += n;
        got[ngot] = '\0';
    }
}

/* text through a fresh wrapper at width, into got. */
static void wrap(const char *text, int width)
{
    wrap_state *w = calloc(1, sizeof *w);
    ngot = 0;
    got[0] = '\0';
    if (w)
        wrap_write(w, width, text, strlen(text), emit, NULL);
    free(w);
}

/* Display columns of the widest line of got (escape sequences left out). */
static int widest(void)
{
    int most = 0, col = 0;
    for (const char *p = got; *p; p++) {
        if (*p == '\n') {
            col = 0;
            continue;
        }
        if (*p == '\033') {
            while (*p && *p != 'm')
                p++;
            continue;
        }
        col += (*p & 0xC0) != 0x80;
        most = col > most ? col : most;
    }
    return most;
}

/* Whether got holds the words of text, whole and in the same order. */
static int same_words(const char *text)
{
    const char *a = text, *b = got;
    for (;;) {
        a += strspn(a, " \n");
        b += strspn(b, " \n");
        size_t na = strcspn(a, " \n"), nb = strcspn(b, " \n");
        if (na != nb || strncmp(a, b, na))
            return 0;
        if (na == 0)
            return 1;
        a += na, b += nb;
    }
}

static void help_line_at_words(void)
{
    const char *line = "  bench [MODES:] EXPR  every mode, those named, or variants: (the switches): runs, "
                       "spread, speedups, and elementwise words\n";
    wrap(line, 80);
    CHECKF(widest() <= 80 && same_words(line), "'%s'", got);
    CHECKF(strstr(got, "\n                       "), "the rest under the summary column:\n%s", got);
    CHECKF(!strstr(got, "eleme\n"), "a word cut:\n%s", got);
    wrap(line, 40);
    CHECKF(widest() <= 40 && same_words(line), "at 40:\n%s", got);
}

static void table_cell_goes_on_under_itself(void)
{
    const char *line = "  reduce    grid        seed grid shuffle    tiled, cublas: sum mean norm min max; tiled: dot\n";
    wrap(line, 80);
    CHECKF(!strcmp(got, "  reduce    grid        seed grid shuffle    tiled, cublas: sum mean norm min\n"
                        "                                             max; tiled: dot\n"),
           "'%s'", got);
}

static void fitting_lines_unchanged(void)
{
    const char *text = "  cpu      \033[34m●\033[0m 1.5 µs  ±0.3%   a line that fits\n\nsecond line\n";
    wrap(text, 45); /* 45 columns: the escapes take none, µ one */
    CHECKF(!strcmp(got, text), "'%s'", got);
    /* exactly the width: unchanged; one more column: broken */
    char line[100];
    memset(line, 'x', 30);
    memcpy(line + 30, " yyyyyyyyy\n", 12);
    wrap(line, 40);
    CHECK(!strcmp(got, line));
    wrap(line, 39);
    CHECKF(!strcmp(got, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nyyyyyyyyy\n"), "'%s'", got);
}

static void prompt_flushed_halfway(void)
{
    wrap_state *w = calloc(1, sizeof *w);
    if (!w)
        return;
    ngot = 0;
    wrap_write(w, 20, "step> ", 6, emit, NULL);
    CHECK(ngot == 0); /* held until the line ends ... */
    wrap_flush(w, emit, NULL);
    CHECK(ngot == 6 && !strcmp(got, "step> ")); /* ... or is flushed */
    const char *rest = "the rest of this line goes on unbroken\nnext line is broken at words\n";
    wrap_write(w, 20, rest, strlen(rest), emit, NULL);
    CHECKF(!strcmp(got, "step> the rest of this line goes on unbroken\nnext line is broken\nat words\n"), "'%s'", got);
    free(w);
}

static void long_word_cut(void)
{
    wrap("see /a/very/long/path/that/does/not/fit/anywhere/at/all ok\n", 24);
    CHECKF(widest() <= 24 && strstr(got, "see\n"), "'%s'", got);
}

/* Random words, blanks and µ at random widths: never wider, never a word
 * cut that fits. */
static void random_text(void)
{
    static char text[4000];
    check_seed(43);
    for (int round = 0; round < 300; round++) {
        size_t n = 0;
        int lines = 1 + (int)(check_uniform() * 4);
        for (int l = 0; l < lines; l++) {
            int words = (int)(check_uniform() * 40);
            for (int k = 0; k < words && n < sizeof text - 40; k++) {
                int len = 1 + (int)(check_uniform() * 12), gap = 1 + (check_uniform() < 0.1);
                for (int i = 0; i < gap; i++)
                    text[n++] = ' ';
                for (int i = 0; i < len; i++)
                    if (check_uniform() < 0.05)
                        memcpy(text + n, "µ", 2), n += 2;
                    else
                        text[n++] = (char)('a' + (int)(check_uniform() * 26));
            }
            text[n++] = '\n';
        }
        text[n] = '\0';
        int width = 20 + (int)(check_uniform() * 100);
        wrap(text, width);
        CHECKF(widest() <= width && same_words(text), "round %d at %d:\n%s\n---\n%s", round, width, text, got);
    }
}

int main(void)
{
    RUN(help_line_at_words);
    RUN(table_cell_goes_on_under_itself);
    RUN(fitting_lines_unchanged);
    RUN(prompt_flushed_halfway);
    RUN(long_word_cut);
    RUN(random_text);
    return check_exit();
}
