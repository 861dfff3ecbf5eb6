/* fileio.c - matrices to and from files: NumPy's .npy format (versions 1.0
 * to 3.0 read, 1.0 written) and plain comma-separated .csv (see fileio.h). */
#include "engine/fileio.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/error.h"

typedef enum { FMT_NONE, FMT_NPY, FMT_CSV } file_format;

/* Bytes moved per fread/fwrite and between interrupt checks. */
#define IO_CHUNK (1u << 20)

/* ---------------------------------------------------------------- shared */

/* The format the file name asks for: its extension, in any case. */
static file_format format_of(const char *path)
{
    const char *base = strrchr(path, '/');
    const char *dot;

    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    if (!dot || dot == base)          /* ".npy" alone is a hidden file's name */
        return FMT_NONE;
    if (strcasecmp(dot, ".npy") == 0)
        return FMT_NPY;
    if (strcasecmp(dot, ".csv") == 0)
        return FMT_CSV;
    return FMT_NONE;
}

/* Prefix the pending error (say "out of memory ..." from the allocator) with
 * the operation and the file, so that the user sees which file it concerns.
 * A cancel or fatal error is left as it is. Returns -1. */
static int wrap_error(const char *op, const char *path)
{
    const cuk_error *e = cuk_err_get();
    char why[sizeof e->msg];

    if (e->kind != CUK_E_USER)
        return -1;
    snprintf(why, sizeof why, "%s", e->msg);   /* cuk_err overwrites e->msg */
    return cuk_err("%s: %s: %s", op, path, why);
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;

    memcpy(&b, &one, 1);
    return b == 1;
}

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

/* ------------------------------------------------------------ .npy header */

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
/* NumPy writes headers of a few hundred bytes; anything near this is a
 * corrupt length field, not a header worth allocating for. */
#define NPY_MAX_HEADER (1u << 20)
#define NPY_MAX_DIMS 64

/* What a .npy header says about the array that follows it. */
typedef struct {
    char descr[32];            /* "<f4"; "" if descr is not a string */
    int structured;            /* descr is a list of fields */
    int fortran;               /* fortran_order: True */
    int ndim;
    unsigned long long dims[NPY_MAX_DIMS];
} npy_header;

/* A cursor over the header's text, a Python dict literal such as
 * {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * `why` holds the first problem found ("" while there is none). */
typedef struct {
    const char *p, *end;
    char why[80];
} hdr_cursor;

static int hdr_fail(hdr_cursor *c, const char *why)
{
    if (!c->why[0])
        snprintf(c->why, sizeof c->why, "%s", why);
    return -1;
}

static void hdr_skip_space(hdr_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Skip spaces, then consume ch if it is next. */
static int hdr_accept(hdr_cursor *c, char ch)
{
    hdr_skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* string -> '...' | "..." (the header's strings are short, printable and
 * hold no escapes; refusing anything else keeps messages that quote them
 * clean) */
static int hdr_string(hdr_cursor *c, char *out, size_t cap)
{
    char q;
    size_t n = 0;

    hdr_skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return hdr_fail(c, "expected a quoted string");
    q = *c->p++;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || *c->p < 0x20 || *c->p > 0x7e || n + 1 >= cap)
            return hdr_fail(c, "a string is too long or holds odd characters");
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return hdr_fail(c, "unterminated string");
    c->p++;
    out[n] = '\0';
    return 0;
}

/* bool -> True | False */
static int hdr_bool(hdr_cursor *c, int *out)
{
    hdr_skip_space(c);
    if (c->end - c->p >= 4 && memcmp(c->p, "True", 4) == 0) {
        c->p += 4;
        *out = 1;
        return 0;
    }
    if (c->end - c->p >= 5 && memcmp(c->p, "False", 5) == 0) {
        c->p += 5;
        *out = 0;
        return 0;
    }
    return hdr_fail(c, "'fortran_order' is not True or False");
}

/* int -> digits ['L'] (Python 2 wrote long integers with an L) */
static int hdr_int(hdr_cursor *c, unsigned long long *out)
{
    unsigned long long v = 0;
    const char *start;

    hdr_skip_space(c);
    start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = (unsigned)(*c->p++ - '0');
        if (v > (ULLONG_MAX - d) / 10)
            return hdr_fail(c, "a dimension in 'shape' is too large");
        v = v * 10 + d;
    }
    if (c->p == start)
        return hdr_fail(c, "'shape' is not a tuple of sizes");
    if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
        c->p++;
    *out = v;
    return 0;
}

/* shape -> '(' [int (',' int)* [',']] ')' */
static int hdr_shape(hdr_cursor *c, npy_header *h)
{
    h->ndim = 0;
    if (!hdr_accept(c, '('))
        return hdr_fail(c, "'shape' is not a tuple");
    while (!hdr_accept(c, ')')) {
        if (h->ndim == NPY_MAX_DIMS)
            return hdr_fail(c, "'shape' has too many dimensions");
        if (hdr_int(c, &h->dims[h->ndim++]) < 0)
            return -1;
        if (!hdr_accept(c, ',')) {
            if (!hdr_accept(c, ')'))
                return hdr_fail(c, "'shape' is not a tuple of sizes");
            break;
        }
    }
    return 0;
}

/* Skip one Python literal (a list of fields in a structured descr) by
 * matching brackets and quotes. */
static int hdr_skip_value(hdr_cursor *c)
{
    int depth = 0;

    hdr_skip_space(c);
    while (c->p < c->end) {
        char ch = *c->p++;
        if (ch == '\'' || ch == '"') {
            while (c->p < c->end && *c->p != ch)
                c->p++;
            if (c->p++ >= c->end)
                return hdr_fail(c, "unterminated string");
        } else if (ch == '[' || ch == '(' || ch == '{') {
            depth++;
        } else if (ch == ']' || ch == ')' || ch == '}') {
            if (--depth == 0)
                return 0;
        }
    }
    return hdr_fail(c, "unterminated list");
}

/* descr -> string | list (structured records, which cuk refuses later) */
static int hdr_descr(hdr_cursor *c, npy_header *h)
{
    hdr_skip_space(c);
    if (c->p < c->end && *c->p == '[') {
        h->structured = 1;
        return hdr_skip_value(c);
    }
    return hdr_string(c, h->descr, sizeof h->descr);
}

/* One "key: value" entry of the dict; `seen` collects which keys came. */
static int hdr_entry(hdr_cursor *c, npy_header *h, unsigned *seen)
{
    static const char *const keys[] = {"descr", "fortran_order", "shape"};
    char key[32];
    unsigned k;

    if (hdr_string(c, key, sizeof key) < 0)
        return hdr_fail(c, "expected a key");
    for (k = 0; k < 3 && strcmp(key, keys[k]) != 0; k++)
        ;
    if (k == 3) {
        snprintf(c->why, sizeof c->why, "unexpected key '%s'", key);
        return -1;
    }
    if (*seen & (1u << k))
        return hdr_fail(c, "a key appears twice");
    *seen |= 1u << k;
    if (!hdr_accept(c, ':'))
        return hdr_fail(c, "expected ':' after a key");
    if (k == 0)
        return hdr_descr(c, h);
    if (k == 1)
        return hdr_bool(c, &h->fortran);
    return hdr_shape(c, h);
}

/* dict -> '{' [entry (',' entry)* [',']] '}' followed only by padding.
 * Keys may come in any order; all three must be there. */
static int hdr_parse(const char *text, size_t len, npy_header *h, char *why, size_t cap)
{
    hdr_cursor c = {text, text + len, ""};
    unsigned seen = 0;

    memset(h, 0, sizeof *h);
    if (!hdr_accept(&c, '{'))
        hdr_fail(&c, "it is not a dict");
    else {
        while (!hdr_accept(&c, '}')) {
            if (hdr_entry(&c, h, &seen) < 0)
                break;
            if (!hdr_accept(&c, ',')) {
                if (!hdr_accept(&c, '}'))
                    hdr_fail(&c, "expected ',' or '}'");
                break;
            }
        }
    }
    hdr_skip_space(&c);
    if (c.p != c.end)
        hdr_fail(&c, "text after the dict");
    if (seen != 7)
        hdr_fail(&c, "'descr', 'fortran_order' or 'shape' is missing");
    snprintf(why, cap, "%s", c.why);
    return c.why[0] ? -1 : 0;
}

/* ------------------------------------------------------------ .npy reading */

/* Read up to n bytes; the count read. */
static size_t read_some(FILE *fp, void *buf, size_t n)
{
    return fread(buf, 1, n, fp);
}

/* Little-endian unsigned integer of n bytes. */
static unsigned long get_le(const unsigned char *b, int n)
{
    unsigned long v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static int read_error(const char *path)
{
    return cuk_err("load: cannot read '%s': %s", path, strerror(errno ? errno : EIO));
}

/* Report a read in the header that came up short: an I/O error, or the
 * file ended. */
static int short_header(FILE *fp, const char *path)
{
    if (ferror(fp))
        return read_error(path);
    return cuk_err("load: %s is truncated (in the header)", path);
}

/* Magic, version, header length and the header itself; *offset is where
 * the data starts. */
static int npy_read_header(FILE *fp, const char *path, npy_header *h, long long *offset)
{
    unsigned char pre[12];
    size_t got, lenbytes;
    unsigned long hlen;
    char *text, why[80];
    int rc;

    got = read_some(fp, pre, 8);
    if (got == 0 && !ferror(fp))
        return cuk_err("load: %s is an empty file, not a .npy file", path);
    if (got < NPY_MAGIC_LEN || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return ferror(fp) ? read_error(path)
                          : cuk_err("load: %s is not a .npy file (bad magic)", path);
    if (got < 8)
        return short_header(fp, path);
    if (pre[6] < 1 || pre[6] > 3)
        return cuk_err("load: %s is .npy version %d.%d; cuk reads versions 1.0 to 3.0",
                       path, pre[6], pre[7]);
    lenbytes = pre[6] == 1 ? 2 : 4;
    if (read_some(fp, pre + 8, lenbytes) < lenbytes)
        return short_header(fp, path);
    hlen = get_le(pre + 8, (int)lenbytes);
    if (hlen > NPY_MAX_HEADER)
        return cuk_err("load: %s has a bad header (its length, %lu bytes, is absurd)", path, hlen);
    text = malloc(hlen + 1);
    if (!text)
        return cuk_err("load: %s: out of memory reading the header", path);
    if (read_some(fp, text, hlen) < hlen) {
        free(text);
        return short_header(fp, path);
    }
    rc = hdr_parse(text, hlen, h, why, sizeof why);
    free(text);
    if (rc < 0)
        return cuk_err("load: %s has a bad header (%s)", path, why);
    *offset = 8 + (long long)lenbytes + (long long)hlen;
    return 0;
}

/* NumPy's name for a dtype descr such as "<i8" (int64), for messages. */
static void dtype_name(const npy_header *h, char *out, size_t cap)
{
    const char *d = h->descr;
    const char *kind;
    int bytes;

    if (h->structured) {
        snprintf(out, cap, "structured records");
        return;
    }
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
        d++;
    bytes = atoi(d + (*d != '\0'));
    switch (*d) {
    case 'f': kind = "float"; break;
    case 'i': kind = "int"; break;
    case 'u': kind = "uint"; break;
    case 'c': kind = "complex"; break;
    case 'b': snprintf(out, cap, "bool"); return;
    case 'O': snprintf(out, cap, "Python object"); return;
    case 'U': snprintf(out, cap, "unicode string"); return;
    case 'S': case 'a': snprintf(out, cap, "byte string"); return;
    case 'M': snprintf(out, cap, "datetime64"); return;
    case 'm': snprintf(out, cap, "timedelta64"); return;
    default: kind = NULL; break;
    }
    if (kind && bytes > 0 && bytes <= 64)
        snprintf(out, cap, "%s%d", kind, bytes * 8);
    else
        snprintf(out, cap, "'%s'", h->descr);
}

/* Item size (4 or 8) and byte order of a float dtype cuk reads; 0 and the
 * error set for anything else. */
static int npy_dtype(const npy_header *h, const char *path, int *big)
{
    const char *d = h->descr;
    char name[48];

    if (!h->structured && (d[0] == '<' || d[0] == '>')
        && (strcmp(d + 1, "f4") == 0 || strcmp(d + 1, "f8") == 0)) {
        *big = d[0] == '>';
        return d[2] - '0';
    }
    if (!h->structured && (d[0] == '=' || d[0] == '|')
        && (strcmp(d + 1, "f4") == 0 || strcmp(d + 1, "f8") == 0)) {
        cuk_err("load: %s gives no byte order for its values ('%s')", path, d);
        return 0;
    }
    dtype_name(h, name, sizeof name);
    cuk_err("load: %s holds %s values; cuk loads float32 and float64", path, name);
    return 0;
}

/* The shape as Python prints it: "()", "(5,)", "(2, 3)". */
static void shape_str(const npy_header *h, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "(");
    for (int i = 0; i < h->ndim && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, i ? ", %llu" : "%llu", h->dims[i]);
    if (n < cap)
        snprintf(out + n, cap - n, h->ndim == 1 ? ",)" : ")");
}

/* Matrix shape for the array: a scalar is 1x1 and a 1-D array of n a 1xn
 * row. -1 with the error set for 3-D and up, empty arrays, or sizes beyond
 * what cuk (and size_t) can index. */
static int npy_matrix_shape(const npy_header *h, const char *path, int itemsize,
                            int *rows, int *cols)
{
    unsigned long long r = 1, c = 1;
    char shape[96];

    shape_str(h, shape, sizeof shape);
    if (h->ndim > 2)
        return cuk_err("load: %s has %d dimensions (shape %s); cuk loads 1-D and 2-D arrays",
                       path, h->ndim, shape);
    if (h->ndim == 2) {
        r = h->dims[0];
        c = h->dims[1];
    } else if (h->ndim == 1) {
        c = h->dims[0];
    }
    if (r == 0 || c == 0)
        return cuk_err("load: %s is empty (shape %s); cuk has no empty matrices", path, shape);
    if (r > MAT_MAX_DIM || c > MAT_MAX_DIM || r * c > SIZE_MAX / (unsigned)itemsize)
        return cuk_err("load: %s is too large (shape %s); cuk matrices are at most %ld x %ld",
                       path, shape, MAT_MAX_DIM, MAT_MAX_DIM);
    *rows = (int)r;
    *cols = (int)c;
    return 0;
}

/* For a regular file, check that it holds the data the header promises
 * before allocating for it: a corrupt shape then costs nothing. Pipes and
 * such are checked as they are read. */
static int npy_check_size(FILE *fp, const char *path, long long offset, size_t need)
{
    struct stat st;
    long long have;

    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    have = st.st_size > offset ? (long long)st.st_size - offset : 0;
    if ((unsigned long long)have < need)
        return cuk_err("load: %s is truncated: expected %zu bytes of data, found %lld",
                       path, need, have);
    return 0;
}

/* An n-byte value in the given byte order, as float32 (float64 rounds to
 * nearest, as NumPy's astype does). Works whatever the host's byte order. */
static float npy_value(const unsigned char *b, int n, int big)
{
    unsigned long long u = 0;

    for (int i = 0; i < n; i++)
        u = u << 8 | b[big ? i : n - 1 - i];
    if (n == 4) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    } else {
        uint64_t w = u;
        double d;
        memcpy(&d, &w, sizeof d);
        return (float)d;
    }
}

/* Data layout of one .npy array, for the read loop. */
typedef struct {
    int itemsize, big, fortran;
    int rows, cols;
} npy_layout;

/* Convert k items of raw file data, the first of which is element `first`
 * in file order, into the row-major matrix dst. Fortran order is column
 * after column, so each item lands a row (cols floats) after the last. */
static void npy_place(const npy_layout *L, const unsigned char *raw, size_t k, size_t first,
                      float *dst)
{
    if (!L->fortran) {
        for (size_t i = 0; i < k; i++)
            dst[first + i] = npy_value(raw + i * (size_t)L->itemsize, L->itemsize, L->big);
        return;
    }
    size_t r = first % (size_t)L->rows, c = first / (size_t)L->rows;
    for (size_t i = 0; i < k; i++) {
        dst[r * (size_t)L->cols + c] = npy_value(raw + i * (size_t)L->itemsize, L->itemsize, L->big);
        if (++r == (size_t)L->rows) {
            r = 0;
            c++;
        }
    }
}

/* Read the data into dst (rows x cols, row-major) in chunks. Little-endian
 * float32 in row order is the file's bytes exactly, so it is read straight
 * into dst; everything else goes through a buffer and npy_place. */
static int npy_read_data(FILE *fp, const char *path, const npy_layout *L, float *dst)
{
    size_t n = (size_t)L->rows * (size_t)L->cols, done = 0;
    size_t per = IO_CHUNK / (size_t)L->itemsize;
    int direct = L->itemsize == 4 && !L->big && !L->fortran && host_is_little_endian();
    unsigned char *buf = direct ? NULL : malloc(IO_CHUNK);

    if (!direct && !buf)
        return cuk_err("load: %s: out of memory", path);
    while (done < n) {
        size_t k = n - done < per ? n - done : per;
        size_t want = k * (size_t)L->itemsize;
        unsigned char *into = direct ? (unsigned char *)(dst + done) : buf;
        size_t got = read_some(fp, into, want);
        if (got < want) {
            free(buf);
            if (ferror(fp))
                return read_error(path);
            return cuk_err("load: %s is truncated: expected %zu bytes of data, found %zu",
                           path, n * (size_t)L->itemsize, done * (size_t)L->itemsize + got);
        }
        if (!direct)
            npy_place(L, buf, k, done, dst);
        done += k;
        if (cuk_check_interrupt()) {
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

static cuk_matrix *npy_load(FILE *fp, const char *path)
{
    npy_header h;
    npy_layout L = {0, 0, 0, 0, 0};
    long long offset = 0;
    cuk_matrix *m;

    if (npy_read_header(fp, path, &h, &offset) < 0)
        return NULL;
    L.itemsize = npy_dtype(&h, path, &L.big);
    if (!L.itemsize || npy_matrix_shape(&h, path, L.itemsize, &L.rows, &L.cols) < 0)
        return NULL;
    /* A single row or column reads the same in either order. */
    L.fortran = h.fortran && L.rows > 1 && L.cols > 1;
    if (npy_check_size(fp, path, offset, (size_t)L.rows * (size_t)L.cols * (size_t)L.itemsize) < 0)
        return NULL;
    m = mat_new_host(L.rows, L.cols);
    if (!m) {
        wrap_error("load", path);
        return NULL;
    }
    if (npy_read_data(fp, path, &L, m->host) < 0) {
        mat_unref(m);
        return NULL;
    }
    return m;
}

/* ------------------------------------------------------------ .npy writing */

/* Little-endian float32 bytes of n values. */
static void put_f32le(unsigned char *out, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, &x[i], sizeof w);
        out[4 * i] = (unsigned char)w;
        out[4 * i + 1] = (unsigned char)(w >> 8);
        out[4 * i + 2] = (unsigned char)(w >> 16);
        out[4 * i + 3] = (unsigned char)(w >> 24);
    }
}

/* The version 1.0 preamble and header for a rows x cols float32 C-order
 * array, padded with spaces to end in '\n' at a multiple of 64 bytes, as
 * NumPy aligns it. Returns its length (cap must be at least 256). */
static size_t npy_make_header(char *out, size_t cap, int rows, int cols)
{
    size_t n, hlen;

    memcpy(out, NPY_MAGIC "\x01\x00", 8);
    n = 10 + (size_t)snprintf(out + 10, cap - 10,
                              "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }",
                              rows, cols);
    while ((n + 1) % 64 != 0)
        out[n++] = ' ';
    out[n++] = '\n';
    hlen = n - 10;
    out[8] = (char)(hlen & 0xff);
    out[9] = (char)(hlen >> 8);
    return n;
}

/* Write errors return errno (nonzero); -1 means the error is already set
 * (the user interrupted). */
static int write_errno(void)
{
    return errno ? errno : EIO;
}

static int npy_write(FILE *fp, const cuk_matrix *m, const float *x)
{
    char head[256];
    size_t hn = npy_make_header(head, sizeof head, m->rows, m->cols);
    size_t n = mat_numel(m), per = IO_CHUNK / 4;
    int le = host_is_little_endian();
    unsigned char *buf = le ? NULL : malloc(IO_CHUNK);

    if (!le && !buf)
        return ENOMEM;
    if (fwrite(head, 1, hn, fp) != hn) {
        free(buf);
        return write_errno();
    }
    for (size_t done = 0; done < n;) {
        size_t k = n - done < per ? n - done : per;
        const void *src = x + done;
        if (!le) {
            put_f32le(buf, x + done, k);
            src = buf;
        }
        if (fwrite(src, 4, k, fp) != k) {
            free(buf);
            return write_errno();
        }
        done += k;
        if (cuk_check_interrupt()) {
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

/* -------------------------------------------------------------- .csv files */

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
            return cuk_err("load: %s: out of memory", path);
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

/* Read every row into `vals`; *rows and *cols give the shape. Blank lines
 * may only trail (editors add them); one between rows is an error, as
 * dropping it would shift every row number after it. */
static int csv_read_rows(FILE *fp, const char *path, float_vec *vals, long *rows, long *cols)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long lineno = 0, blank = 0;
    int rc = 0;

    *rows = *cols = 0;
    while (rc == 0 && (got = getline(&line, &cap, fp)) >= 0) {
        char *s = line;
        size_t len = chop_eol(line, (size_t)got);
        long k;
        if (++lineno == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
            s += 3;                             /* a UTF-8 byte order mark */
            len -= 3;
        }
        if (is_blank(s, len)) {
            blank = blank ? blank : lineno;
            continue;
        }
        if (blank) {
            rc = cuk_err("load: %s: row %ld is blank", path, blank);
            break;
        }
        k = csv_row(s, len, path, lineno, vals);
        if (k < 0)
            rc = -1;
        else if (lineno == 1)
            *cols = k;
        else if (k != *cols)
            rc = cuk_err("load: %s: row %ld has %ld values, row 1 has %ld", path, lineno, k, *cols);
        else if (lineno % 256 == 0)
            rc = cuk_check_interrupt();
        *rows = lineno;
    }
    free(line);
    if (rc == 0 && ferror(fp))
        rc = read_error(path);
    return rc;
}

static cuk_matrix *csv_load(FILE *fp, const char *path)
{
    float_vec vals = {NULL, 0, 0};
    long rows, cols;
    cuk_matrix *m = NULL;
    locale_t prev = c_locale_begin();

    if (csv_read_rows(fp, path, &vals, &rows, &cols) < 0)
        goto done;
    if (rows == 0) {
        cuk_err("load: %s is empty; cuk has no empty matrices", path);
        goto done;
    }
    if (rows > MAT_MAX_DIM || cols > MAT_MAX_DIM) {
        cuk_err("load: %s is too large (%ld x %ld)", path, rows, cols);
        goto done;
    }
    m = mat_new_host((int)rows, (int)cols);
    if (!m)
        wrap_error("load", path);
    else
        memcpy(m->host, vals.v, vals.n * sizeof *vals.v);
done:
    c_locale_end(prev);
    free(vals.v);
    return m;
}

/* %.9g gives every float32 back exactly when read with strtof. */
static int csv_write(FILE *fp, const cuk_matrix *m, const float *x)
{
    int rc = 0;
    locale_t prev = c_locale_begin();

    for (int r = 0; r < m->rows && rc == 0; r++) {
        const float *row = x + (size_t)r * (size_t)m->cols;
        for (int c = 0; c < m->cols; c++)
            if (fprintf(fp, c ? ",%.9g" : "%.9g", (double)row[c]) < 0) {
                rc = write_errno();
                break;
            }
        if (rc == 0 && putc('\n', fp) == EOF)
            rc = write_errno();
        if (rc == 0 && r % 64 == 63 && cuk_check_interrupt())
            rc = -1;
    }
    c_locale_end(prev);
    return rc;
}

/* ------------------------------------------------------------ atomic save */

/* A hidden temporary name beside path: "dir/a.npy" -> "dir/.a.npy.XXXXXX"
 * for mkstemp. Same directory, so that rename is atomic. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *t = malloc(strlen(path) + 9);

    if (t)
        sprintf(t, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    return t;
}

/* Permissions for the new file: an existing file's own (saving over it
 * should not change who can read it), else what open() would give,
 * 0666 less the umask, instead of mkstemp's 0600. */
static mode_t new_file_mode(const char *path)
{
    struct stat st;
    mode_t mask;

    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 07777;
    mask = umask(0);          /* the only way to read it; single-threaded */
    umask(mask);
    return 0666 & ~mask;
}

/* Flush all the way to the disk and close; 0 or errno. fclose runs even
 * after an error, so that the stream is never leaked. */
static int finish_file(FILE *fp, int rc)
{
    if (rc == 0 && fflush(fp) != 0)
        rc = write_errno();
    if (rc == 0 && fsync(fileno(fp)) != 0)
        rc = write_errno();
    if (fclose(fp) != 0 && rc == 0)
        rc = write_errno();
    return rc;
}

/* Write the matrix to tmp (already created by mkstemp as fd); 0, errno, or
 * -1 with the error set. */
static int write_temp(int fd, const char *path, file_format fmt, const cuk_matrix *m,
                      const float *x)
{
    FILE *fp;
    int rc;

    if (fchmod(fd, new_file_mode(path)) != 0) {
        rc = write_errno();
        close(fd);
        return rc;
    }
    fp = fdopen(fd, "wb");
    if (!fp) {
        rc = write_errno();
        close(fd);
        return rc;
    }
    errno = 0;
    rc = fmt == FMT_NPY ? npy_write(fp, m, x) : csv_write(fp, m, x);
    return finish_file(fp, rc);
}

int fileio_save(cuk_matrix *m, const char *path)
{
    file_format fmt = format_of(path);
    const float *x;
    char *tmp;
    int fd, rc;

    if (fmt == FMT_NONE)
        return cuk_err("save: don't know how to write '%s': use .npy or .csv", path);
    x = mat_host(m);
    if (!x)
        return wrap_error("save", path);
    tmp = temp_name(path);
    if (!tmp)
        return cuk_err("save: %s: out of memory", path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        rc = errno;
        free(tmp);
        return cuk_err("save: cannot write '%s': %s", path, strerror(rc));
    }
    rc = write_temp(fd, path, fmt, m, x);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = errno;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    if (rc > 0)
        return cuk_err("save: cannot write '%s': %s", path, strerror(rc));
    return rc;
}

/* ---------------------------------------------------------------- loading */

cuk_matrix *fileio_load(const char *path)
{
    file_format fmt = format_of(path);
    struct stat st;
    cuk_matrix *m;
    FILE *fp;

    if (fmt == FMT_NONE) {
        cuk_err("load: don't know how to read '%s': use .npy or .csv", path);
        return NULL;
    }
    fp = fopen(path, "rb");
    if (!fp) {
        cuk_err("load: cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    /* fopen opens a directory for reading; say so instead of "truncated". */
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        cuk_err("load: cannot open '%s': %s", path, strerror(EISDIR));
        return NULL;
    }
    errno = 0;
    m = fmt == FMT_NPY ? npy_load(fp, path) : csv_load(fp, path);
    fclose(fp);
    return m;
}
