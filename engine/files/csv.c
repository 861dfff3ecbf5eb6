/* csv.c - plain comma-separated .csv: one row of numbers a line (see
 * csv.h). */
#include "engine/files/csv.h"

#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/fmt.h"
#include "engine/files/fileerr.h"
#include "engine/files/lines.h"

/* The REPL may switch to the user's locale (ncurses wants it), where the
 * decimal point can be a comma; numbers in files always use '.', so they are
 * read and written in the C locale. c_locale_end undoes c_locale_begin. */
static locale_t c_locale_begin(void)
{
    static locale_t c_loc;

    if (!c_loc)
        c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return c_loc ? uselocale(c_loc) : (locale_t)0;
}

static void c_locale_end(locale_t prev)
{
    if (prev)
        uselocale(prev);
}

/* A growing array of values, for a .csv whose size is unknown until read. */
typedef struct {
    float *v;
    size_t n, cap;
} float_vec;

static int vec_push(float_vec *a, float x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 1024;
        float *v = cap > SIZE_MAX / sizeof *v ? NULL : realloc(a->v, cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* Set the error for the cell of line `lineno` starting at byte i: quote its
 * text (up to the next comma, control bytes shown as '?') so that the user
 * sees what is there. */
static int csv_bad_cell(const char *path, long lineno, const char *s, size_t len, size_t i)
{
    char tok[44];
    size_t n = 0, end = i;

    while (end < len && s[end] != ',')
        end++;
    while (end > i && (s[end - 1] == ' ' || s[end - 1] == '\t'))
        end--;
    if (end == i)
        return cuk_err("load: %s:%ld:%zu: missing value", path, lineno, i + 1);
    for (size_t j = i; j < end && n < 40; j++)
        tok[n++] = (unsigned char)s[j] < 0x20 || s[j] == 0x7f ? '?' : s[j];
    if (end - i > 40)
        n = (size_t)(stpcpy(tok + 37, "...") - tok);
    tok[n] = '\0';
    return cuk_err("load: %s:%ld:%zu: '%s' is not a number", path, lineno, i + 1, tok);
}

/* row -> number (',' number)* with blanks around each number. Appends the
 * values to `out`; returns how many, or -1 with the error set. s[len] is
 * '\0', so strtof stops at the line's end. */
static long csv_row(const char *s, size_t len, const char *path, long lineno, float_vec *out)
{
    long k = 0;
    size_t i = 0;

    for (;;) {
        char *end;
        size_t start = i = skip_blanks(s, len, i);
        float x = strtof(s + i, &end);
        i = (size_t)(end - s);
        if (i == start)
            return csv_bad_cell(path, lineno, s, len, start);
        i = skip_blanks(s, len, i);
        if (i < len && s[i] != ',')
            return csv_bad_cell(path, lineno, s, len, start);
        if (vec_push(out, x) < 0)
            return cuk_err("load: %s:%ld: out of memory after %zu values", path, lineno, out->n);
        k++;
        if (i == len)
            return k;
        i++;                                    /* the comma */
    }
}

/* Length of the line without its '\n' or "\r\n", made '\0'-terminated. */
static size_t chop_eol(char *s, size_t len)
{
    if (len > 0 && s[len - 1] == '\n')
        len--;
    if (len > 0 && s[len - 1] == '\r')
        len--;
    s[len] = '\0';
    return len;
}

static int is_blank(const char *s, size_t len)
{
    return skip_blanks(s, len, 0) == len;
}

/* The reading of one file, line by line. */
typedef struct {
    const char *path;
    float_vec vals;
    long lineno;
    long blank;                /* the first blank line since the last row, or 0 */
    long rows, cols;
} csv_reader;

/* One line, without its end of line. Blank lines may only trail (editors
 * add them); one between rows is an error, as dropping it would shift every
 * row number after it. */
static int csv_line(csv_reader *r, const char *s, size_t len)
{
    long k;
    char got[48];

    if (r->lineno == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;                                 /* a UTF-8 byte order mark */
        len -= 3;
    }
    if (is_blank(s, len)) {
        r->blank = r->blank ? r->blank : r->lineno;
        return 0;
    }
    if (r->blank)
        return cuk_err("load: %s: row %ld is blank", r->path, r->blank);
    k = csv_row(s, len, r->path, r->lineno, &r->vals);
    if (k < 0)
        return -1;
    r->rows = r->lineno;
    if (r->lineno == 1)
        r->cols = k;
    else if (k != r->cols)
        return cuk_err("load: %s: row %ld has %s, row 1 has %ld", r->path, r->lineno,
                       fmt_count(got, sizeof got, k, "value"), r->cols);
    else if (r->lineno % 256 == 0)
        return cuk_check_interrupt();
    return 0;
}

/* Every line of the file through csv_line (lines.h: a line that cannot be
 * read is an error, not the end of the file). */
static int csv_read_lines(FILE *fp, csv_reader *r)
{
    line_reader in = {.f = fp, .name = r->path, .what = "load"};
    ssize_t got;
    int rc = 0;

    while (rc == 0 && (got = lines_next(&in)) != 0) {
        r->lineno = in.lineno;
        rc = got < 0 ? -1 : csv_line(r, in.buf, chop_eol(in.buf, (size_t)got));
    }
    lines_free(&in);
    return rc;
}

/* The matrix of the rows read. */
static cuk_matrix *csv_matrix(const csv_reader *r)
{
    cuk_matrix *m;

    if (r->rows == 0) {
        cuk_err("load: %s is empty; cuk has no empty matrices", r->path);
        return NULL;
    }
    if (r->rows > MAT_MAX_DIM || r->cols > MAT_MAX_DIM) {
        cuk_err("load: %s is too large (%ld x %ld)", r->path, r->rows, r->cols);
        return NULL;
    }
    m = fileerr_new_matrix((int)r->rows, (int)r->cols, r->path);
    if (m)
        memcpy(m->host, r->vals.v, r->vals.n * sizeof *r->vals.v);
    return m;
}

cuk_matrix *csv_load(FILE *fp, const char *path)
{
    csv_reader r = {path, {NULL, 0, 0}, 0, 0, 0, 0};
    cuk_matrix *m = NULL;
    locale_t prev = c_locale_begin();

    if (csv_read_lines(fp, &r) == 0)
        m = csv_matrix(&r);
    c_locale_end(prev);
    free(r.vals.v);
    return m;
}

/* %.9g gives every float32 back exactly when read with strtof. A row
 * whose line would pass what the loader reads (lines.h) is refused, so
 * that every .csv cuk writes loads back. */
static int csv_write_row(FILE *fp, const float *row, int cols)
{
    size_t len = 1;
    for (int c = 0; c < cols; c++) {
        int n = fprintf(fp, c ? ",%.9g" : "%.9g", (double)row[c]);
        if (n < 0)
            return fileerr_errno();
        if ((len += (size_t)n) > LINES_MAX)
            return cuk_err("save: a row of %d values makes a .csv line longer than 64 MiB, which load does not "
                           "read; save it as .npy", cols);
    }
    return putc('\n', fp) == EOF ? fileerr_errno() : 0;
}

int csv_write(FILE *fp, const cuk_matrix *m, const float *x)
{
    int rc = 0;
    locale_t prev = c_locale_begin();

    for (int r = 0; r < m->rows && rc == 0; r++) {
        rc = csv_write_row(fp, x + (size_t)r * (size_t)m->cols, m->cols);
        if (rc == 0 && r % 64 == 63 && cuk_check_interrupt())
            rc = -1;
    }
    c_locale_end(prev);
    return rc;
}
