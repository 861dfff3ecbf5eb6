/* arena.c - the bump allocator behind parsing (see arena.h). */
#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

struct arena_chunk {
    arena_chunk *next;
    size_t used, cap;
    max_align_t data[];
};

#define CHUNK_MIN (64u << 10)

void *arena_alloc(arena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > CHUNK_MIN ? n : CHUNK_MIN;
        c = malloc(sizeof *c + cap);
        if (!c) {
            cuk_err("out of host memory while parsing");
            return NULL;
        }
        c->used = 0;
        c->cap = cap;
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (p)
        memcpy(p, s, n);
    return p;
}

void arena_free(arena *a)
{
    while (a->head) {
        arena_chunk *c = a->head;
        a->head = c->next;
        free(c);
    }
}
