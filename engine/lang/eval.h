/* eval.h - the evaluator: an expression's AST to a matrix, computed by the
 * session's current mode. */
#ifndef CUK_EVAL_H
#define CUK_EVAL_H

#include "engine/lang/ast.h"
#include "engine/values/matrix.h"
#include "engine/session/session.h"

/* A new reference to the value of e, or NULL with the error set and placed
 * at the node that failed. Nothing in the workspace changes. */
cuk_matrix *eval_expr(cuk_session *s, const ast *e);

/* Run a value statement (NAME = expr, or expr) inside a timing record,
 * printing the value unless silenced: 0, or -1 with the error set and the
 * workspace unchanged. */
int eval_stmt(cuk_session *s, const stmt *st);

/* The built-in functions, for completion and help: name i, or NULL past the end. */
const char *eval_function_name(int i);
/* "rand(m, n)  uniform random numbers in [0, 1)" style usage line, or NULL. */
const char *eval_function_usage(const char *name);

#endif
