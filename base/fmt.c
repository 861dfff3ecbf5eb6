/* fmt.c - numbers for people, and text made safe to show (see fmt.h). */
#include "base/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fmt_bytes(char *buf, size_t cap, double bytes)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%.0f B", bytes);
    else
        snprintf(buf, cap, "%.*f %s", bytes < 10 ? 2 : bytes < 100 ? 1 : 0, bytes, unit[u]);
    return buf;
}

const char *fmt_ms(char *buf, size_t cap, double ms)
{
    if (ms < 0)
        snprintf(buf, cap, "-");
    else if (ms < 1)
        snprintf(buf, cap, "%.1f µs", ms * 1e3);
    else if (ms < 1000)
        snprintf(buf, cap, "%.*f ms", ms < 10 ? 3 : ms < 100 ? 2 : 1, ms);
    else
        snprintf(buf, cap, "%.2f s", ms / 1e3);
    return buf;
}

const char *fmt_si(char *buf, size_t cap, double v, const char *unit)
{
    static const char *pre[] = {"", "K", "M", "G", "T", "P"};
    int p = 0;
    while (v >= 1000 && p < 5) {
        v /= 1000;
        p++;
    }
    snprintf(buf, cap, "%.*f %s%s", v < 10 ? 2 : v < 100 ? 1 : 0, v, pre[p], unit);
    return buf;
}

const char *fmt_rate(char *buf, size_t cap, double per_s, const char *unit)
{
    char u[32];
    snprintf(u, sizeof u, "%s/s", unit);
    return fmt_si(buf, cap, per_s, u);
}

const char *fmt_shape(char *buf, size_t cap, long long rows, long long cols)
{
    snprintf(buf, cap, "%lldx%lld", rows, cols);
    return buf;
}

const char *fmt_gpus(char *buf, size_t cap, int gpus)
{
    if (gpus == 1)
        snprintf(buf, cap, "GPU 0");
    else
        snprintf(buf, cap, "%d GPUs", gpus);
    return buf;
}

const char *fmt_number(char *buf, size_t cap, double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, cap, "%.0f", v);
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) { /* the first that reads back; 17 always does */
        snprintf(buf, cap, "%.*g", prec, v);
        if (isnan(v) || strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

const char *fmt_count(char *buf, size_t cap, long long n, const char *noun)
{
    snprintf(buf, cap, "%lld %s%s", n, noun, n == 1 ? "" : "s");
    return buf;
}

/* Bytes of the UTF-8 character at p (at most n left) that a terminal shows
 * as text; 0 for a control character or a byte that starts none. */
static size_t printable_len(const unsigned char *p, size_t n)
{
    size_t len = *p < 0x80 ? 1 : *p >= 0xC2 && *p < 0xE0 ? 2 : *p >= 0xE0 && *p < 0xF0 ? 3 : *p >= 0xF0 && *p < 0xF5 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (len == 1)
        return *p >= 0x20 && *p != 0x7F;
    if (len == 2 && p[0] == 0xC2 && p[1] < 0xA0) /* U+0080-U+009F: the C1 controls (CSI is one) */
        return 0;
    if ((len == 3 && p[0] == 0xE0 && p[1] < 0xA0) || (len == 4 && p[0] == 0xF0 && p[1] < 0x90) ||
        (len == 4 && p[0] == 0xF4 && p[1] >= 0x90) || (len == 3 && p[0] == 0xED && p[1] >= 0xA0))
        return 0; /* overlong, past U+10FFFF, or a surrogate */
    return len;
}

/* c written as an escape (\n, \t, \r or \xNN); its length. */
static size_t escape_byte(char *esc, size_t cap, unsigned char c)
{
    const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
    return (size_t)(named ? snprintf(esc, cap, "%s", named) : snprintf(esc, cap, "\\x%02X", c));
}

size_t fmt_escape(char *buf, size_t cap, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        char esc[8];
        size_t len = printable_len(p + i, n - i), w = len;
        const char *from = s + i;
        if (len == 0) {
            w = escape_byte(esc, sizeof esc, p[i]);
            from = esc;
            len = 1;
        }
        if (out + w + 1 > cap)
            break;
        memcpy(buf + out, from, w);
        out += w;
        i += len;
    }
    buf[out] = '\0';
    return out;
}
