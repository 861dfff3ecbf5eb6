/* json.c - the JSON writer (see json.h). */
#include "engine/session/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/out.h"

static void put(json_buf *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = (j->len + n + 1) * 2 + 256;
        char *p = realloc(j->buf, cap);
        if (!p) {
            j->failed = 1;
            return;
        }
        j->buf = p;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void putf(json_buf *j, const char *fmt, ...) CUK_PRINTF(2, 3);

static void putf(json_buf *j, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(j, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void put_string(json_buf *j, const char *s)
{
    put(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            put(j, e, 2);
        } else if (*p < 0x20) {
            putf(j, "\\u%04x", *p);
        } else {
            put(j, (const char *)p, 1);
        }
    }
    put(j, "\"", 1);
}

/* The separator and the key before a member. */
static void member(json_buf *j, const char *key)
{
    if (j->count[j->depth]++)
        put(j, ",", 1);
    if (key) {
        put_string(j, key);
        put(j, ":", 1);
    }
}

static void open_level(json_buf *j, const char *key, const char *bracket)
{
    member(j, key);
    put(j, bracket, 1);
    if (j->depth + 1 >= JSON_MAX_DEPTH) {
        j->failed = 1;
        return;
    }
    j->count[++j->depth] = 0;
    j->closer[j->depth] = bracket[0] == '[' ? ']' : '}';
}

void json_begin(json_buf *j)
{
    memset(j, 0, sizeof *j);
    put(j, "{", 1);
}

void json_open_obj(json_buf *j, const char *key) { open_level(j, key, "{"); }
void json_open_arr(json_buf *j, const char *key) { open_level(j, key, "["); }

void json_close(json_buf *j)
{
    if (j->depth == 0)
        return;
    put(j, &j->closer[j->depth], 1);
    j->depth--;
}

void json_str(json_buf *j, const char *key, const char *v)
{
    member(j, key);
    if (v)
        put_string(j, v);
    else
        put(j, "null", 4);
}

void json_num(json_buf *j, const char *key, double v)
{
    member(j, key);
    if (isfinite(v))
        putf(j, "%.9g", v);
    else
        put(j, "null", 4);
}

void json_int(json_buf *j, const char *key, long long v)
{
    member(j, key);
    putf(j, "%lld", v);
}

void json_bool(json_buf *j, const char *key, int v)
{
    member(j, key);
    put(j, v ? "true" : "false", v ? 4 : 5);
}

void json_null(json_buf *j, const char *key)
{
    member(j, key);
    put(j, "null", 4);
}

const char *json_end(json_buf *j)
{
    while (j->depth > 0)
        json_close(j);
    put(j, "}", 1);
    return j->failed ? NULL : j->buf;
}

void json_free(json_buf *j)
{
    free(j->buf);
    memset(j, 0, sizeof *j);
}

void json_print(json_buf *j)
{
    const char *t = json_end(j);
    if (t)
        out_printf("%s\n", t);
    else
        out_errorf("error: out of memory writing JSON\n");
    json_free(j);
}
