/* arena.h - a bump allocator: everything parsed from one piece of source
 * (tokens, strings, the AST) lives in one arena and is freed at once. */
#ifndef CUK_ARENA_H
#define CUK_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct {
    arena_chunk *head;
} arena;

/* Zeroed memory for n bytes, or NULL with the error set. */
void *arena_alloc(arena *a, size_t n);
/* A NUL-terminated copy of s[0..n). */
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_free(arena *a);

#endif
