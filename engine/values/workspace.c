/* workspace.c - named matrices (see workspace.h). */
#include "engine/values/workspace.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/suggest.h"

/* Index of name, or -(insertion point) - 1. */
static int ws_find(const workspace *ws, const char *name)
{
    int lo = 0, hi = ws->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(ws->e[mid].name, name);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

cuk_matrix *ws_get(const workspace *ws, const char *name)
{
    int i = ws_find(ws, name);
    return i >= 0 ? ws->e[i].m : NULL;
}

static int ws_insert(workspace *ws, int at, const char *name, cuk_matrix *m)
{
    char *copy = strdup(name);
    if (ws->n == ws->cap) {
        int cap = ws->cap ? 2 * ws->cap : 16;
        ws_entry *e = copy ? realloc(ws->e, (size_t)cap * sizeof *e) : NULL;
        if (!e) {
            free(copy);
            copy = NULL;
        } else {
            ws->e = e;
            ws->cap = cap;
        }
    }
    if (!copy) {
        mat_unref(m);
        return cuk_err("out of host memory");
    }
    memmove(&ws->e[at + 1], &ws->e[at], (size_t)(ws->n - at) * sizeof *ws->e);
    ws->e[at].name = copy;
    ws->e[at].m = m;
    ws->n++;
    return 0;
}

int ws_set(workspace *ws, const char *name, cuk_matrix *m)
{
    int i = ws_find(ws, name);
    if (i < 0)
        return ws_insert(ws, -i - 1, name, m);
    mat_unref(ws->e[i].m);
    ws->e[i].m = m;
    return 0;
}

int ws_remove(workspace *ws, const char *name)
{
    int i = ws_find(ws, name);
    if (i < 0)
        return 0;
    free(ws->e[i].name);
    mat_unref(ws->e[i].m);
    memmove(&ws->e[i], &ws->e[i + 1], (size_t)(ws->n - i - 1) * sizeof *ws->e);
    ws->n--;
    return 1;
}

void ws_clear(workspace *ws)
{
    for (int i = 0; i < ws->n; i++) {
        free(ws->e[i].name);
        mat_unref(ws->e[i].m);
    }
    ws->n = 0;
}

const char *ws_suggest(const workspace *ws, const char *name, char *buf, size_t cap)
{
    suggest g;
    suggest_begin(&g, name);
    for (int i = 0; i < ws->n; i++)
        suggest_offer(&g, ws->e[i].name);
    return suggest_note(&g, buf, cap);
}
