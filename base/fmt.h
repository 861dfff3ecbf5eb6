/* fmt.h - numbers for people: byte counts, durations, rates and shapes, each
 * written into a caller's buffer and returned, so they nest in printf. */
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
/* A rate with an SI prefix: fmt_rate(b, n, 7.5e12, "FLOP") is "7.50 TFLOP/s". */
const char *fmt_rate(char *buf, size_t cap, double per_s, const char *unit);
/* "1037x1055" */
const char *fmt_shape(char *buf, size_t cap, long long rows, long long cols);

#ifdef __cplusplus
}
#endif

#endif
