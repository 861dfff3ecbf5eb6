/* fmt.h - numbers for people: byte counts, durations, rates and shapes, each
 * written into a caller's buffer and returned, so they nest in printf; and
 * text a user gave, made safe to show on a terminal. */
#ifndef CUK_FMT_H
#define CUK_FMT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "4.17 MiB", "512 B" */
const char *fmt_bytes(char *buf, size_t cap, double bytes);
/* "85.7 µs", "3.160 ms", "1.05 s"; "-" when ms < 0 (unknown). */
const char *fmt_ms(char *buf, size_t cap, double ms);
/* An amount with an SI prefix: fmt_si(b, n, 1.72e10, "FLOP") is "17.2 GFLOP". */
const char *fmt_si(char *buf, size_t cap, double v, const char *unit);
/* A rate with an SI prefix: fmt_rate(b, n, 7.5e12, "FLOP") is "7.50 TFLOP/s". */
const char *fmt_rate(char *buf, size_t cap, double per_s, const char *unit);
/* A number as the user typed it: whole numbers below 2^53 in full
 * ("16777217", "-3"), others in the shortest form that reads back ("1.5",
 * "1e+30", "inf", "nan"). */
const char *fmt_number(char *buf, size_t cap, double v);
/* A count and its noun, singular for one: "1 row", "4 rows". */
const char *fmt_count(char *buf, size_t cap, long long n, const char *noun);
/* "1037x1055" */
const char *fmt_shape(char *buf, size_t cap, long long rows, long long cols);
/* Where a device copy lies: "GPU 0" for one (GPU 0 alone), "2 GPUs" for
 * row slabs on GPUs 0 and 1. */
const char *fmt_gpus(char *buf, size_t cap, int gpus);
/* n bytes of text as a terminal may show them: control characters (C0,
 * DEL, C1) written as \n, \t, \r or \xNN, and bytes that are not UTF-8
 * as \xNN, so that a file name or a message can neither move the cursor
 * nor set colours; an escape is never cut in two. The bytes written, less
 * the '\0' (cap >= 1). */
size_t fmt_escape(char *buf, size_t cap, const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
