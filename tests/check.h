/* check.h - the C tests' harness: named cases that print one line each,
 * "PASS name", "FAIL name: why" or "SKIP name: why", which tests/run.sh
 * counts. Also the helpers every numeric test needs: random inputs and the
 * relative error against a float64 reference. */
#ifndef CUK_CHECK_H
#define CUK_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const char *check_case;
static int check_case_failed;
static int check_failures;
static char check_why[512];

static inline void check_failf(const char *file, int line, const char *fmt, ...)
{
    if (!check_case_failed) {
        va_list ap;
        int n = snprintf(check_why, sizeof check_why, "%s:%d: ", file, line);
        va_start(ap, fmt);
        vsnprintf(check_why + n, sizeof check_why - (size_t)n, fmt, ap);
        va_end(ap);
    }
    check_case_failed = 1;
}

/* CHECK(cond) fails the case naming the condition; CHECKF adds a message. */
#define CHECK(cond) \
    do { \
        if (!(cond)) \
            check_failf(__FILE__, __LINE__, "%s", #cond); \
    } while (0)
#define CHECKF(cond, ...) \
    do { \
        if (!(cond)) \
            check_failf(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

/* A case with a name made at run time: begin, CHECKs, end. */
static inline void check_begin(const char *name)
{
    check_case = name;
    check_case_failed = 0;
}

static inline void check_end(void)
{
    if (check_case_failed) {
        printf("FAIL %s: %s\n", check_case, check_why);
        check_failures++;
    } else {
        printf("PASS %s\n", check_case);
    }
    fflush(stdout);
}

/* Run one case: a function of no arguments. */
#define RUN(fn) check_run(#fn, fn)

static inline void check_run(const char *name, void (*fn)(void))
{
    check_begin(name);
    fn();
    check_end();
}

static inline void check_skip(const char *name, const char *why)
{
    printf("SKIP %s: %s\n", name, why);
    fflush(stdout);
}

static inline int check_exit(void) { return check_failures ? 1 : 0; }

/* xorshift64*: the tests' own generator, independent of the code under test. */
static uint64_t check_rng = 0x9E3779B97F4A7C15ull;

static inline void check_seed(uint64_t s) { check_rng = s ? s : 1; }

static inline double check_uniform(void)
{
    check_rng ^= check_rng >> 12;
    check_rng ^= check_rng << 25;
    check_rng ^= check_rng >> 27;
    return (double)((check_rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* Random values in [-1, 1), never all zero. */
static inline void check_fill(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(2.0 * check_uniform() - 1.0);
}

/* ||got - ref|| / ||ref|| over n values; NaN anywhere gives +inf. */
static inline double check_relerr(const float *got, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)got[i] - ref[i];
        if (isnan(got[i]) != isnan(ref[i]))
            return INFINITY;
        if (isnan(ref[i]))
            continue;
        num += d * d;
        den += ref[i] * ref[i];
    }
    if (den == 0)
        return num == 0 ? 0 : INFINITY;
    return sqrt(num / den);
}

#endif
