/* suggest.h - "did you mean": of the names offered, the one nearest to a
 * name typed, when it is near enough to be a likely typo. Nearness is the
 * edit distance where inserting, deleting or changing a character, or
 * swapping two neighbours, costs one edit, and a change of case a quarter
 * of one (`b` for `B`, `tilde` for `tiled`, `modee` for `mode`). */
#ifndef CUK_SUGGEST_H
#define CUK_SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX 64 /* names longer than this are never suggested, nor typed ones matched */
#define SUGGEST_NOTE (SUGGEST_MAX + 24) /* room for suggest_note's text */

typedef struct {
    const char *typed;
    const char *best; /* the nearest offered so far, or NULL */
    int cost;         /* its distance, in quarter edits */
} suggest;

/* Start a search for typed; then offer each candidate; the first of the
 * nearest wins a tie. */
void suggest_begin(suggest *s, const char *typed);
void suggest_offer(suggest *s, const char *candidate);

/* The candidate near enough to typed to suggest, or NULL: a case change
 * alone for a name of one or two characters, one edit up to four, two
 * edits up to eight, three beyond. The name typed itself is never it. */
const char *suggest_best(const suggest *s);

/* ": did you mean `NAME`?" into buf, to follow the clause that names what
 * was typed ("unknown mode 'tilde': did you mean `tiled`?"), or "" when
 * there is nothing to suggest; returns buf. */
const char *suggest_note(const suggest *s, char *buf, size_t cap);

#endif
