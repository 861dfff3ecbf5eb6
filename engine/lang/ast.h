/* ast.h - the syntax tree the parser builds and the evaluator walks. */
#ifndef CUK_AST_H
#define CUK_AST_H

#include <stddef.h>

#include "engine/lang/cmdlist.h"
#include "engine/lang/lex.h"

typedef enum {
    AST_NUMBER,     /* num */
    AST_STRING,     /* text */
    AST_NAME,       /* text */
    AST_CALL,       /* text(kid...) */
    AST_BINARY,     /* kid[0] op kid[1]; op is TK_PLUS .. TK_AT */
    AST_NEGATE,     /* -kid[0] */
    AST_TRANSPOSE,  /* kid[0]' or kid[0].T */
    AST_INDEX,      /* kid[0][kid[1]] or kid[0][kid[1], kid[2]] */
    AST_RANGE,      /* start:stop inside an index; kids may be NULL */
    AST_MATRIX,     /* [rows]: kid[] are AST_ROW */
    AST_ROW         /* one row of a literal: kid[] are its elements */
} ast_kind;

typedef struct ast {
    ast_kind kind;
    tk_kind op;
    size_t pos;          /* where an error about this node points */
    size_t start, end;   /* the source span it covers */
    double num;
    const char *text;
    struct ast **kid;
    int nkid;
} ast;


typedef enum { STMT_EXPR, STMT_ASSIGN, STMT_CMD } stmt_kind;

typedef struct stmt {
    stmt_kind kind;
    int print;              /* not silenced by a trailing ';' */
    size_t start, end;      /* source span */
    const char *name;       /* STMT_ASSIGN: the target; CMD_LADDER: the size variable */
    size_t name_pos;
    ast *expr;              /* STMT_EXPR / STMT_ASSIGN; CMD_BENCH's and CMD_LADDER's expression; CMD_SEED's value */
    cmd_id cmd;             /* STMT_CMD: the first word of a statement, unless followed by '=' */
    size_t cmd_pos;
    ast **arg;              /* command words (AST_NAME / AST_STRING / AST_NUMBER); bench, ladder: the
                               modes named (AST_NAME), then ladder's sizes (AST_NUMBER) */
    int narg;
    struct stmt *sub;       /* CMD_TIMEIT: the statement to time; CMD_COUNTERS: to count */
} stmt;

typedef struct {
    stmt **stmt;
    int n;
} program;

#endif
