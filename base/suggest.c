/* suggest.c - "did you mean" (see suggest.h). */
#include "base/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Costs: a change of case is a quarter of any other edit, so that `b` finds
 * `B` before `a`, and two changes of case still cost less than one edit. */
#define EDIT 4
#define CASE 1

static int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

/* What changing character x into y costs. */
static int change(char x, char y)
{
    if (x == y)
        return 0;
    return tolower((unsigned char)x) == tolower((unsigned char)y) ? CASE : EDIT;
}

/* The optimal string alignment distance between a and b (lengths at most
 * SUGGEST_MAX), in quarter edits: three rows of the usual table. */
static int distance(const char *a, size_t na, const char *b, size_t nb)
{
    int rows[3][SUGGEST_MAX + 1];
    int *before = rows[0], *prev = rows[1], *row = rows[2];
    for (size_t j = 0; j <= nb; j++)
        prev[j] = (int)j * EDIT;
    for (size_t i = 1; i <= na; i++) {
        row[0] = (int)i * EDIT;
        for (size_t j = 1; j <= nb; j++) {
            row[j] = min3(prev[j] + EDIT, row[j - 1] + EDIT, prev[j - 1] + change(a[i - 1], b[j - 1]));
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + EDIT < row[j])
                row[j] = before[j - 2] + EDIT; /* two neighbours swapped */
        }
        int *t = before;
        before = prev, prev = row, row = t;
    }
    return prev[nb];
}

void suggest_begin(suggest *s, const char *typed)
{
    s->typed = typed;
    s->best = NULL;
    s->cost = 0;
}

void suggest_offer(suggest *s, const char *candidate)
{
    size_t nt = strlen(s->typed), nc = strlen(candidate);
    if (!candidate[0] || nt > SUGGEST_MAX || nc > SUGGEST_MAX || !strcmp(candidate, s->typed))
        return;
    int d = distance(s->typed, nt, candidate, nc);
    if (!s->best || d < s->cost) {
        s->best = candidate;
        s->cost = d;
    }
}

/* How far a likely typo of a name of n characters may be, in quarter edits. */
static int allowed(size_t n) { return n <= 2 ? (int)n * CASE : n <= 4 ? EDIT : n <= 8 ? 2 * EDIT : 3 * EDIT; }

const char *suggest_best(const suggest *s)
{
    return s->best && s->cost <= allowed(strlen(s->typed)) ? s->best : NULL;
}

const char *suggest_note(const suggest *s, char *buf, size_t cap)
{
    const char *best = suggest_best(s);
    if (best)
        snprintf(buf, cap, ": did you mean `%s`?", best);
    else if (cap)
        buf[0] = '\0';
    return buf;
}
