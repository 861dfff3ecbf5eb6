/* complete.c - Tab completion for readline: the first word of a statement
 * completes to commands, functions and variables; after `mode` to modes;
 * after `help` to topics; after `set` to the switches, and after `set
 * NAME` to that switch's values; inside double quotes to file names. */
#include "repl/repl.h"

#ifdef CUK_HAVE_READLINE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>

#include "engine/lang/eval.h"

static cuk_session *S;

/* The candidates of one completion, gathered when it starts. */
static struct {
    const char **v;
    int n, cap, next;
} cand;

static void add(const char *word)
{
    if (cand.n == cand.cap) {
        int cap = cand.cap ? 2 * cand.cap : 64;
        const char **v = realloc(cand.v, (size_t)cap * sizeof *v);
        if (!v)
            return;
        cand.v = v;
        cand.cap = cap;
    }
    cand.v[cand.n++] = word;
}

static void add_functions(void)
{
    for (int i = 0; eval_function_name(i); i++)
        add(eval_function_name(i));
}

static void add_variables(void)
{
    for (int i = 0; i < S->ws.n; i++)
        add(S->ws.e[i].name);
}

static void add_commands(void)
{
    for (int i = 0; i < CMD_COUNT; i++) {
        add(cmd_get(i)->word);
        if (cmd_get(i)->alias)
            add(cmd_get(i)->alias);
    }
}

static void add_modes(void)
{
    for (int i = 0; session_mode_at(i); i++)
        add(session_mode_at(i));
}

static void add_switches(void)
{
    for (int i = 0; session_switch_at(i); i++)
        add(session_switch_at(i));
}

static void add_switch_values(const char *name)
{
    for (int i = 0; session_switch_value_at(name, i); i++)
        add(session_switch_value_at(name, i));
}

static void add_topics(void)
{
    static const char *topics[] = {"language", "functions", "commands", "modes", "files", "keys"};
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        add(topics[i]);
    add_commands();
    add_functions();
}

static char *generate(const char *text, int state)
{
    size_t n = strlen(text);
    if (!state)
        cand.next = 0;
    while (cand.next < cand.n) {
        const char *w = cand.v[cand.next++];
        if (!strncmp(w, text, n))
            return strdup(w);
    }
    return NULL;
}

/* The word before the one being completed; returns where it starts. */
static int previous_word(int start, char *out, size_t cap)
{
    const char *line = rl_line_buffer;
    int end = start;
    out[0] = '\0';
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
        end--;
    int b = end;
    while (b > 0 && line[b - 1] != ' ' && line[b - 1] != '\t' && line[b - 1] != ';' && line[b - 1] != ',')
        b--;
    if ((size_t)(end - b) < cap)
        snprintf(out, cap, "%.*s", end - b, line + b);
    return b;
}

/* True if only blanks stand between the statement's start and pos. */
static int at_statement_start(int pos)
{
    while (pos > 0 && (rl_line_buffer[pos - 1] == ' ' || rl_line_buffer[pos - 1] == '\t'))
        pos--;
    return pos == 0 || rl_line_buffer[pos - 1] == ';' || rl_line_buffer[pos - 1] == ',';
}

static char **complete(const char *text, int start, int end)
{
    char prev[32], before[32];
    if (rl_completion_quote_character == '"') /* a file name: readline's own completion */
        return NULL;
    rl_attempted_completion_over = 1;
    cand.n = 0;
    int prev_start = previous_word(start, prev, sizeof prev);
    int before_start = previous_word(prev_start, before, sizeof before);
    if (!strcmp(prev, "mode") && at_statement_start(prev_start)) {
        add_modes();
    } else if (!strcmp(prev, "set") && at_statement_start(prev_start)) {
        add_switches();
    } else if (!strcmp(before, "set") && at_statement_start(before_start) && session_switch_value_at(prev, 0)) {
        add_switch_values(prev);
    } else if (!strcmp(prev, "help")) {
        add_topics();
    } else if (!strcmp(prev, "clear") || !strcmp(prev, "save")) {
        add_variables();
    } else {
        if (at_statement_start(start))
            add_commands();
        add_functions();
        add_variables();
    }
    return rl_completion_matches(text, generate);
}

void complete_install(cuk_session *s)
{
    S = s;
    rl_attempted_completion_function = complete;
    rl_completer_quote_characters = "\"";
    rl_completer_word_break_characters = " \t\n\"@+-*/=()[],;:'";
    rl_filename_quote_characters = " ";
}

#else

void complete_install(cuk_session *s) { (void)s; }

#endif
