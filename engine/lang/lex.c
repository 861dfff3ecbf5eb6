/* lex.c - the lexer (see lex.h). */
#include "engine/lang/lex.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

typedef struct {
    const char *src;
    size_t len, i;
    arena *a;
    token *tok;
    size_t n, cap;
} lexer;

static int is_name_start(int c) { return isalpha(c) || c == '_'; }
static int is_name_char(int c) { return isalnum(c) || c == '_'; }
static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static int peek(const lexer *L, size_t k)
{
    return L->i + k < L->len ? (unsigned char)L->src[L->i + k] : -1;
}

static token *push(lexer *L, tk_kind kind, size_t pos, size_t len, int space)
{
    if (L->n == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 256;
        token *t = arena_alloc(L->a, cap * sizeof *t);
        if (!t)
            return NULL;
        if (L->n)
            memcpy(t, L->tok, L->n * sizeof *t);
        L->tok = t;
        L->cap = cap;
    }
    token *t = &L->tok[L->n++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->pos = pos;
    t->len = len;
    t->space_before = space;
    return t;
}

/* number -> digits ['.' digits] [('e'|'E') ['+'|'-'] digits]  |  '.' digits ... */
static int lex_number(lexer *L, int space)
{
    size_t start = L->i;
    while (isdigit(peek(L, 0)))
        L->i++;
    if (peek(L, 0) == '.' && !(peek(L, 1) == 'T' && !is_name_char(peek(L, 2)))) {
        L->i++;
        while (isdigit(peek(L, 0)))
            L->i++;
    }
    if (peek(L, 0) == 'e' || peek(L, 0) == 'E') {
        size_t k = 1;
        if (peek(L, 1) == '+' || peek(L, 1) == '-')
            k = 2;
        if (!isdigit(peek(L, k)))
            return cuk_err_at(start, "malformed number: exponent needs digits");
        L->i += k;
        while (isdigit(peek(L, 0)))
            L->i++;
    }
    if (is_name_char(peek(L, 0)))
        return cuk_err_at(start, "malformed number '%.*s'", (int)(L->i - start + 1), L->src + start);
    char buf[64];
    size_t n = L->i - start;
    if (n >= sizeof buf)
        return cuk_err_at(start, "number too long (%zu digits)", n);
    memcpy(buf, L->src + start, n);
    buf[n] = '\0';
    token *t = push(L, TK_NUMBER, start, n, space);
    if (!t)
        return -1;
    t->num = strtod(buf, NULL);
    return 0;
}

static int lex_name(lexer *L, int space)
{
    size_t start = L->i;
    while (is_name_char(peek(L, 0)))
        L->i++;
    size_t n = L->i - start;
    const char *s = L->src + start;
    int is_inf = (n == 3 && (!memcmp(s, "inf", 3) || !memcmp(s, "Inf", 3)));
    int is_nan = (n == 3 && (!memcmp(s, "nan", 3) || !memcmp(s, "NaN", 3)));
    token *t = push(L, is_inf || is_nan ? TK_NUMBER : TK_NAME, start, n, space);
    if (!t)
        return -1;
    if (is_inf)
        t->num = INFINITY;
    else if (is_nan)
        t->num = NAN;
    else if (!(t->text = arena_strndup(L->a, s, n)))
        return -1;
    return 0;
}

/* string -> '"' chars '"', with \" \\ \n \t; no newlines inside. */
static int lex_string(lexer *L, int space)
{
    size_t start = L->i++, end = L->i;
    while (end < L->len && L->src[end] != '"' && L->src[end] != '\n')
        end += (L->src[end] == '\\' && end + 1 < L->len) ? 2 : 1;
    char *buf = arena_alloc(L->a, end - start + 1); /* decoded is never longer */
    size_t n = 0;
    if (!buf)
        return -1;
    for (;;) {
        int c = peek(L, 0);
        if (c < 0 || c == '\n')
            return cuk_err_at(start, "unterminated string: missing closing \"");
        L->i++;
        if (c == '"')
            break;
        if (c == '\\') {
            int e = peek(L, 0);
            if (e == '"' || e == '\\')
                c = e;
            else if (e == 'n')
                c = '\n';
            else if (e == 't')
                c = '\t';
            else
                return cuk_err_at(L->i - 1, "unknown escape '\\%c' in string", e > 32 && e < 127 ? e : '?');
            L->i++;
        }
        buf[n++] = (char)c;
    }
    token *t = push(L, TK_STRING, start, L->i - start, space);
    if (!t)
        return -1;
    t->text = buf;
    return 0;
}

static int bad_char(lexer *L)
{
    int c = peek(L, 0), d = peek(L, 1);
    size_t at = L->i;
    if (c == '.' && (d == '*' || d == '/'))
        return cuk_err_at(at, "'.%c' is not an operator: '%c' is already elementwise", d, d);
    if (c == '.' && isalpha(d))
        return cuk_err_at(at, "unexpected '.': file names go in double quotes, as in \"a.npy\"");
    if (c == '.')
        return cuk_err_at(at, "unexpected '.' (transpose is .T or ')");
    if (c == '^')
        return cuk_err_at(at, "'^' is not supported: use @ for the matrix product, * elementwise");
    if (c == '=' && d == '=')
        return cuk_err_at(at, "comparisons ('==') are not supported");
    if (c == '\'')
        return cuk_err_at(at, "unexpected '''");
    if (c >= 32 && c < 127)
        return cuk_err_at(at, "unexpected character '%c'", c);
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 1, k = 1;
    while (k < n && (peek(L, k) & 0xC0) == 0x80)
        k++;
    if (n > 1 && k == n) /* a whole UTF-8 character: show it */
        return cuk_err_at(at, "unexpected character '%.*s'", (int)n, L->src + at);
    return cuk_err_at(at, "unexpected byte 0x%02x", c);
}

static tk_kind single_char_token(int c)
{
    switch (c) {
    case '+': return TK_PLUS;
    case '-': return TK_MINUS;
    case '*': return TK_STAR;
    case '/': return TK_SLASH;
    case '@': return TK_AT;
    case '\'': return TK_QUOTE;
    case '(': return TK_LPAREN;
    case ')': return TK_RPAREN;
    case '[': return TK_LBRACKET;
    case ']': return TK_RBRACKET;
    case ',': return TK_COMMA;
    case ';': return TK_SEMI;
    case ':': return TK_COLON;
    case '=': return TK_ASSIGN;
    case '\n': return TK_NEWLINE;
    default: return TK_EOF;
    }
}

static int lex_one(lexer *L, int space)
{
    int c = peek(L, 0), d = peek(L, 1);
    if (isdigit(c) || (c == '.' && isdigit(d)))
        return lex_number(L, space);
    if (is_name_start(c))
        return lex_name(L, space);
    if (c == '"')
        return lex_string(L, space);
    if (c == '.' && d == 'T' && !is_name_char(peek(L, 2))) {
        L->i += 2;
        return push(L, TK_DOT_T, L->i - 2, 2, space) ? 0 : -1;
    }
    tk_kind k = single_char_token(c);
    if (k == TK_EOF || (c == '=' && d == '='))
        return bad_char(L);
    L->i++;
    return push(L, k, L->i - 1, 1, space) ? 0 : -1;
}

int lex_all(const char *src, size_t len, arena *a, token_list *out)
{
    lexer L = {src, len, 0, a, NULL, 0, 0};
    int space = 1;
    for (;;) {
        int c = peek(&L, 0);
        if (c < 0)
            break;
        if (is_blank(c)) {
            L.i++;
            space = 1;
            continue;
        }
        if (c == '#') {
            while (peek(&L, 0) >= 0 && peek(&L, 0) != '\n')
                L.i++;
            continue;
        }
        if (lex_one(&L, space) != 0)
            return -1;
        space = (c == '\n');
    }
    if (!push(&L, TK_EOF, len, 0, 1))
        return -1;
    for (size_t i = 0; i + 1 < L.n; i++)
        L.tok[i].space_after = L.tok[i + 1].space_before || L.tok[i + 1].kind == TK_NEWLINE;
    L.tok[L.n - 1].space_after = 1;
    out->tok = L.tok;
    out->n = L.n;
    return 0;
}

const char *lex_describe(tk_kind k)
{
    static const char *names[] = {
        [TK_EOF] = "end of input", [TK_NEWLINE] = "end of line", [TK_NUMBER] = "a number",
        [TK_NAME] = "a name", [TK_STRING] = "a string", [TK_PLUS] = "'+'", [TK_MINUS] = "'-'",
        [TK_STAR] = "'*'", [TK_SLASH] = "'/'", [TK_AT] = "'@'", [TK_QUOTE] = "'''",
        [TK_DOT_T] = "'.T'", [TK_LPAREN] = "'('", [TK_RPAREN] = "')'", [TK_LBRACKET] = "'['",
        [TK_RBRACKET] = "']'", [TK_COMMA] = "','", [TK_SEMI] = "';'", [TK_COLON] = "':'",
        [TK_ASSIGN] = "'='",
    };
    return names[k];
}
