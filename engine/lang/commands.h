/* commands.h - the handlers of the commands in cmdlist.h, one per row,
 * named cmd_WORD: most in commands.c; bench and timeit in bench.c, help in
 * help.c, run in run.c. Each runs a STMT_CMD statement: 0, or -1 with the
 * error set. */
#ifndef CUK_COMMANDS_H
#define CUK_COMMANDS_H

#include "engine/lang/ast.h"
#include "engine/session/session.h"

#define CMDLIST_DECLARE(id, word, alias, shape, usage, summary) int cmd_##word(cuk_session *s, const stmt *st);
CUK_COMMANDS(CMDLIST_DECLARE)
#undef CMDLIST_DECLARE

#endif
