/* workspace.h - the named matrices of a session, kept sorted by name. */
#ifndef CUK_WORKSPACE_H
#define CUK_WORKSPACE_H

#include "engine/values/matrix.h"

typedef struct {
    char *name;
    cuk_matrix *m;
} ws_entry;

typedef struct {
    ws_entry *e;
    int n, cap;
} workspace;

/* The matrix bound to name, or NULL (no reference is taken). */
cuk_matrix *ws_get(const workspace *ws, const char *name);
/* Bind name to m, taking over the caller's reference; the old value is
 * released. 0, or -1 with the error set (and m released). */
int ws_set(workspace *ws, const char *name, cuk_matrix *m);
/* ": did you mean `B`?" when a variable's name is a likely typo of name
 * (base/suggest.h), else ""; into buf, returned. */
const char *ws_suggest(const workspace *ws, const char *name, char *buf, size_t cap);
/* 1 if name was bound and is now gone. */
int ws_remove(workspace *ws, const char *name);
void ws_clear(workspace *ws);

#endif
