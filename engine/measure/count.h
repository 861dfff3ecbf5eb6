/* count.h - what the hardware counted for a statement: `count STATEMENT`
 * and `set counters on`. The statement runs once with every kernel it
 * launches replayed by CUPTI until each counter is read (kernels/gpu.h,
 * gpu_counters_*), and a table shows, per kernel, DRAM bytes, sectors per
 * request, bank conflicts, occupancy, L2 hit rate and FP32 work, with a
 * line of plain words under it. Its handler cmd_count is declared with the
 * others in lang/commands.h. */
#ifndef CUK_COUNT_H
#define CUK_COUNT_H

#include "engine/lang/ast.h"
#include "engine/session/session.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"

/* Run the value statement st under the counters and show them. With
 * every_statement (`set counters on`), a statement that runs on the host or
 * launches no kernel simply runs, and nothing more is said. 0, or -1 with
 * the error set; a statement that could not be counted did not run. */
int count_stmt(cuk_session *s, const stmt *st, int every_statement);

/* `set counters on|off`: on only where the counters can be read (it tries,
 * once), else -1 with the error saying why and what would enable them. */
int count_setting(cuk_session *s, int on);

/* The DRAM bytes the counters measured for the statement of record c (the
 * last one counted, same text and mode): 1 with *read and *written set, or
 * 0 if it was not counted. */
int count_dram_of(const timing_cmd *c, double *read, double *written);

/* Show rows as `count` shows what it counted for the statement of record
 * c (tests give made-up rows: the table and the words need no GPU). */
void count_show(const cuk_session *s, const gpu_counter_row *rows, const gpu_counter_summary *sum,
                const timing_cmd *c);

/* The metrics `count` asks CUPTI for, n of them (tests check each name),
 * and the rows of the last statement counted, values in that order. */
const gpu_metric *count_metrics(int *n);
const gpu_counter_row *count_last_rows(int *n);

#endif
