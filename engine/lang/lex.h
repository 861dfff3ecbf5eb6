/* lex.h - the lexer: source text to tokens, each with its byte position for
 * error carets. */
#ifndef CUK_LEX_H
#define CUK_LEX_H

#include <stddef.h>

#include "base/arena.h"

typedef enum {
    TK_EOF, TK_NEWLINE, TK_NUMBER, TK_NAME, TK_STRING,
    TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_AT,
    TK_QUOTE,     /* ' (transpose) */
    TK_DOT_T,     /* .T */
    TK_LPAREN, TK_RPAREN, TK_LBRACKET, TK_RBRACKET,
    TK_COMMA, TK_SEMI, TK_COLON, TK_ASSIGN
} tk_kind;

typedef struct {
    tk_kind kind;
    size_t pos, len;     /* bytes of the source this token covers */
    int space_before;    /* blank (or line start) right before it */
    int space_after;     /* blank right after it */
    double num;          /* TK_NUMBER */
    const char *text;    /* TK_NAME: the name; TK_STRING: decoded contents */
} token;

typedef struct {
    token *tok;
    size_t n;
} token_list;

/* Tokenise src[0..len). The list always ends with TK_EOF. 0, or -1 with the
 * error set at the offending byte. Strings and names live in arena. */
int lex_all(const char *src, size_t len, arena *a, token_list *out);

/* "'@'", "a name", "end of input"... for error messages. */
const char *lex_describe(tk_kind k);

#endif
