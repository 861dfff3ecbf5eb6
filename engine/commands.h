/* commands.h - the commands (`mode`, `who`, `save`, ...): statements that
 * start with a command word, one handler each, found through one table. */
#ifndef CUK_COMMANDS_H
#define CUK_COMMANDS_H

#include "engine/session.h"

/* Run a STMT_CMD statement: 0, or -1 with the error set. */
int commands_run(cuk_session *s, const stmt *st);

/* "mode [name]" and a one-line description, for help. */
const char *cmd_usage(cmd_id id);
const char *cmd_summary(cmd_id id);

/* bench.c: `bench EXPR` and `timeit [N] STMT`. */
int bench_command(cuk_session *s, const stmt *st);
int timeit_command(cuk_session *s, const stmt *st);

/* help.c: `help [topic]`. */
int help_command(cuk_session *s, const char *topic);

#endif
