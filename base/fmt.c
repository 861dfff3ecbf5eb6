/* fmt.c - numbers for people (see fmt.h). */
#include "base/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
