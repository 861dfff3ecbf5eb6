/* parse.h - the recursive-descent parser: tokens to statements.
 *
 *   program  := { stmt (';' | ',' | newline) }         ';' silences the result
 *   stmt     := command | NAME '=' expr | expr
 *   expr     := prod (('+'|'-') prod)*
 *   prod     := unary (('*'|'/'|'@') unary)*
 *   unary    := ('-'|'+') unary | postfix
 *   postfix  := primary ( "'" | '.T' | '[' index ']' )*
 *   primary  := NUMBER | STRING | NAME | NAME '(' args ')' | '(' expr ')' | '[' rows ']'
 *   index    := slice [',' slice] ;  slice := expr | [expr] ':' [expr]
 *   rows     := row { (';' | newline) row } ;  row := expr { [','] expr }
 *
 * Inside a literal, blanks separate elements as in Octave: [1 -2] has two
 * elements, [1 - 2] and [1 -  2] one. */
#ifndef CUK_PARSE_H
#define CUK_PARSE_H

#include "engine/lang/ast.h"

/* How deep brackets ( ), [ ] and calls may nest. Chains (1+1+...+1, A''',
 * A[0][0]..., - - x) are loops in the parser and the evaluator and have no
 * limit; brackets nest both recursions, so their depth is bounded (tests
 * run cuk at this depth under `ulimit -s 1024`). Python's parser allows as
 * many nested parentheses. */
#define PARSE_MAX_DEPTH 200

typedef enum {
    PARSE_OK,
    PARSE_ERROR,       /* error set */
    PARSE_INCOMPLETE   /* an open '(' or '[' at the end: more input may finish it (error set too) */
} parse_status;

parse_status parse_program(const char *src, size_t len, arena *a, program *out);

#endif
