/* test_fmt.c - the formatters that messages use for what the user typed:
 * numbers in full (fmt_number), counts with their noun (fmt_count), and
 * amounts and rates with an SI prefix (fmt_si, fmt_rate), and text with
 * its control characters escaped (fmt_escape), also as every error
 * message shows it. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "base/fmt.h"
#include "tests/check.h"

/* Whole numbers below 2^53 in full; others the shortest text that reads back. */
static void numbers(void)
{
    struct {
        double v;
        const char *want;
    } c[] = {
        {0, "0"},
        {-3, "-3"},
        {16777215, "16777215"},
        {16777217, "16777217"},
        {2147483647, "2147483647"},
        {2147483648.0, "2147483648"},
        {-2147483649.0, "-2147483649"},
        {9007199254740991.0, "9007199254740991"},
        {9007199254740992.0, "9007199254740992"},
        {9223372036854775808.0, "9.223372036854776e+18"},
        {1e30, "1e+30"},
        {-1e300, "-1e+300"},
        {1.5, "1.5"},
        {16777217.5, "16777217.5"},
        {0.1, "0.1"},
        {1e-300, "1e-300"},
        {1.0 / 3, "0.3333333333333333"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {NAN, "nan"},
    };
    char buf[40];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        CHECKF(!strcmp(fmt_number(buf, sizeof buf, c[i].v), c[i].want), "%.17g: got '%s', want '%s'", c[i].v, buf,
               c[i].want);
}

/* One is singular; zero, many and negative counts are plural. */
static void counts(void)
{
    char buf[48];
    CHECK(!strcmp(fmt_count(buf, sizeof buf, 1, "row"), "1 row"));
    CHECK(!strcmp(fmt_count(buf, sizeof buf, 1, "column"), "1 column"));
    CHECK(!strcmp(fmt_count(buf, sizeof buf, 0, "row"), "0 rows"));
    CHECK(!strcmp(fmt_count(buf, sizeof buf, 2, "column"), "2 columns"));
    CHECK(!strcmp(fmt_count(buf, sizeof buf, 2147483647, "row"), "2147483647 rows"));
    CHECK(!strcmp(fmt_count(buf, sizeof buf, -1, "row"), "-1 rows"));
}

/* Three significant digits under the largest prefix that leaves the
 * figure at 1 or more; a rate is the same amount per second. */
static void prefixed(void)
{
    char buf[40];
    CHECKF(!strcmp(fmt_si(buf, sizeof buf, 1.72e10, "FLOP"), "17.2 GFLOP"), "got '%s'", buf);
    CHECKF(!strcmp(fmt_si(buf, sizeof buf, 512, "B"), "512 B"), "got '%s'", buf);
    CHECKF(!strcmp(fmt_si(buf, sizeof buf, 2147483648.0, "B"), "2.15 GB"), "got '%s'", buf);
    CHECKF(!strcmp(fmt_si(buf, sizeof buf, 999.0, "B"), "999 B"), "got '%s'", buf);
    CHECKF(!strcmp(fmt_rate(buf, sizeof buf, 7.5e12, "FLOP"), "7.50 TFLOP/s"), "got '%s'", buf);
}

/* Control characters (C0, DEL, C1) and bytes that are not UTF-8 come out
 * as escapes; text, UTF-8 included, as it is; an escape is never cut. */
static void escapes(void)
{
    struct {
        const char *in;
        size_t n;
        const char *want;
    } c[] = {
#define T(in, want) {in, sizeof in - 1, want}
        T("plain.npy", "plain.npy"),
        T("a\033[31mred", "a\\x1B[31mred"),
        T("line\nnext\ttab\r", "line\\nnext\\ttab\\r"),
        T("nul\0x", "nul\\x00x"),
        T("del\x7f", "del\\x7F"),
        T("\xc2\x9b" "2J", "\\xC2\\x9B2J"),          /* CSI as a C1 control, in UTF-8 */
        T("\x9b" "2J", "\\x9B2J"),                   /* a lone byte that starts nothing */
        T("\xc3\xa9t\xc3\xa9 \xc2\xb5s", "\xc3\xa9t\xc3\xa9 \xc2\xb5s"), /* été µs */
        T("\xe2\x80\x93", "\xe2\x80\x93"),             /* an en dash */
        T("\xed\xa0\x80", "\\xED\\xA0\\x80"),          /* a surrogate is not UTF-8 */
        T("\xc0\xaf", "\\xC0\\xAF"),                  /* nor an overlong '/' */
        T("cut\xc3", "cut\\xC3"),                    /* a character cut at the end */
#undef T
    };
    char out[64];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        size_t n = fmt_escape(out, sizeof out, c[i].in, c[i].n);
        CHECKF(!strcmp(out, c[i].want) && n == strlen(c[i].want), "case %zu: got '%s', want '%s'", i, out, c[i].want);
    }
    CHECK(fmt_escape(out, 6, "ab\033cd", 5) == 2 && !strcmp(out, "ab")); /* "\x1B" does not fit: not cut */
    CHECK(fmt_escape(out, 1, "abc", 3) == 0 && !out[0]);
    cuk_err("save: cannot write '%s': %s", "x\033]0;title\007.npy", "why");
    CHECKF(!strcmp(cuk_err_get()->msg, "save: cannot write 'x\\x1B]0;title\\x07.npy': why"), "got '%s'",
           cuk_err_get()->msg);
    cuk_err_clear();
}

int main(void)
{
    RUN(numbers);
    RUN(counts);
    RUN(prefixed);
    RUN(escapes);
    return check_exit();
}
