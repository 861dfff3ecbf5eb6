/* npy.c - NumPy's .npy format: versions 1.0 to 3.0 read, 1.0 written (see
 * npy.h). */
#include "engine/files/npy.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "engine/files/fileerr.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
/* NumPy writes headers of a few hundred bytes; anything near this is a
 * corrupt length field, not a header worth allocating for. */
#define NPY_MAX_HEADER (1u << 20)
#define NPY_MAX_DIMS 64
/* Bytes moved per fread/fwrite and between interrupt checks. */
#define NPY_CHUNK (1u << 20)

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;

    memcpy(&b, &one, 1);
    return b == 1;
}

/* ----------------------------------------------------------------- header */

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

/* ---------------------------------------------------------------- reading */

/* Little-endian unsigned integer of n bytes. */
static unsigned long get_le(const unsigned char *b, int n)
{
    unsigned long v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* Report a read in the header that came up short: an I/O error, or the
 * file ended. */
static int short_header(FILE *fp, const char *path)
{
    if (ferror(fp))
        return fileerr_read(path);
    return cuk_err("load: %s is truncated (in the header)", path);
}

/* Magic, version and the length of the header's text; *prelen is how many
 * bytes came before that text. */
static int npy_read_preamble(FILE *fp, const char *path, size_t *prelen, unsigned long *hlen)
{
    unsigned char pre[12];
    size_t got = fread(pre, 1, 8, fp), lenbytes;

    if (got == 0 && !ferror(fp))
        return cuk_err("load: %s is an empty file, not a .npy file", path);
    if (got < NPY_MAGIC_LEN || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return ferror(fp) ? fileerr_read(path)
                          : cuk_err("load: %s is not a .npy file (bad magic)", path);
    if (got < 8)
        return short_header(fp, path);
    if (pre[6] < 1 || pre[6] > 3)
        return cuk_err("load: %s is .npy version %d.%d; cuk reads versions 1.0 to 3.0",
                       path, pre[6], pre[7]);
    lenbytes = pre[6] == 1 ? 2 : 4;
    if (fread(pre + 8, 1, lenbytes, fp) < lenbytes)
        return short_header(fp, path);
    *hlen = get_le(pre + 8, (int)lenbytes);
    if (*hlen > NPY_MAX_HEADER)
        return cuk_err("load: %s has a bad header (its length, %lu bytes, is absurd)", path, *hlen);
    *prelen = 8 + lenbytes;
    return 0;
}

/* The header's text, hlen bytes, parsed into h. */
static int npy_read_dict(FILE *fp, const char *path, unsigned long hlen, npy_header *h)
{
    char *text = malloc(hlen + 1), why[80];
    int rc;

    if (!text)
        return cuk_err("load: %s: out of memory reading the header", path);
    if (fread(text, 1, hlen, fp) < hlen) {
        free(text);
        return short_header(fp, path);
    }
    rc = hdr_parse(text, hlen, h, why, sizeof why);
    free(text);
    if (rc < 0)
        return cuk_err("load: %s has a bad header (%s)", path, why);
    return 0;
}

/* *offset is where the data starts. */
static int npy_read_header(FILE *fp, const char *path, npy_header *h, long long *offset)
{
    size_t prelen = 0;
    unsigned long hlen = 0;

    if (npy_read_preamble(fp, path, &prelen, &hlen) < 0 || npy_read_dict(fp, path, hlen, h) < 0)
        return -1;
    *offset = (long long)prelen + (long long)hlen;
    return 0;
}

/* NumPy's name for a dtype descr such as "<i8" (int64), for messages. */
/* The dtype's name as NumPy gives it (np.dtype(descr).name): "int64",
 * "complex64", "bool", "object", "str160", "bytes40", "datetime64[ns]",
 * "void64"; the descr itself, quoted, when it is none of those. */
static void dtype_name(const npy_header *h, char *out, size_t cap)
{
    const char *d = h->descr, *unit;
    const char *kind;
    int count, bits_per;

    if (h->structured) {
        snprintf(out, cap, "void (structured records)");
        return;
    }
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
        d++;
    count = atoi(d + (*d != '\0'));
    unit = strchr(d, '[');
    switch (*d) {
    case 'f': kind = "float", bits_per = 8; break;
    case 'i': kind = "int", bits_per = 8; break;
    case 'u': kind = "uint", bits_per = 8; break;
    case 'c': kind = "complex", bits_per = 8; break;
    case 'U': kind = "str", bits_per = 32; break;   /* UCS-4: 4 bytes a character */
    case 'S': case 'a': kind = "bytes", bits_per = 8; break;
    case 'V': kind = "void", bits_per = 8; break;
    case 'b': snprintf(out, cap, "bool"); return;
    case 'O': snprintf(out, cap, "object"); return;
    case 'M': snprintf(out, cap, "datetime64%s", unit ? unit : ""); return;
    case 'm': snprintf(out, cap, "timedelta64%s", unit ? unit : ""); return;
    default: kind = NULL, bits_per = 0; break;
    }
    if (kind && count > 0 && count <= 1 << 20)
        snprintf(out, cap, "%s%d", kind, count * bits_per);
    else
        snprintf(out, cap, "'%s'", h->descr);
}

static int is_float_code(const char *code)
{
    return strcmp(code, "f4") == 0 || strcmp(code, "f8") == 0;
}

/* Item size (4 or 8) and byte order of a float dtype cuk reads; 0 and the
 * error set for anything else. */
static int npy_dtype(const npy_header *h, const char *path, int *big)
{
    const char *d = h->descr;
    char name[48];

    if (!h->structured && (d[0] == '<' || d[0] == '>') && is_float_code(d + 1)) {
        *big = d[0] == '>';
        return d[2] - '0';
    }
    if (!h->structured && (d[0] == '=' || d[0] == '|') && is_float_code(d + 1)) {
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

static int data_truncated(const char *path, size_t need, unsigned long long have)
{
    return cuk_err("load: %s is truncated: expected %zu bytes of data, found %llu",
                   path, need, have);
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
        return data_truncated(path, need, (unsigned long long)have);
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

/* Read the data into dst (rows x cols, row-major) in chunks: through buf
 * and npy_place, or straight into dst when buf is NULL. */
static int npy_read_chunks(FILE *fp, const char *path, const npy_layout *L, float *dst,
                           unsigned char *buf)
{
    size_t n = (size_t)L->rows * (size_t)L->cols, size = (size_t)L->itemsize;
    size_t per = NPY_CHUNK / size;

    for (size_t done = 0; done < n;) {
        size_t k = n - done < per ? n - done : per;
        unsigned char *into = buf ? buf : (unsigned char *)(dst + done);
        size_t got = fread(into, 1, k * size, fp);
        if (got < k * size)
            return ferror(fp) ? fileerr_read(path)
                              : data_truncated(path, n * size, done * size + got);
        if (buf)
            npy_place(L, buf, k, done, dst);
        done += k;
        if (cuk_check_interrupt())
            return -1;
    }
    return 0;
}

/* Little-endian float32 in row order is the file's bytes exactly, so it is
 * read without a buffer. */
static int npy_read_data(FILE *fp, const char *path, const npy_layout *L, float *dst)
{
    int direct = L->itemsize == 4 && !L->big && !L->fortran && host_is_little_endian();
    unsigned char *buf = direct ? NULL : malloc(NPY_CHUNK);
    int rc;

    if (!direct && !buf)
        return cuk_err("load: %s: out of memory", path);
    rc = npy_read_chunks(fp, path, L, dst, buf);
    free(buf);
    return rc;
}

/* The layout the header describes, if it is one cuk loads. */
static int npy_layout_of(const npy_header *h, const char *path, npy_layout *L)
{
    L->itemsize = npy_dtype(h, path, &L->big);
    if (!L->itemsize || npy_matrix_shape(h, path, L->itemsize, &L->rows, &L->cols) < 0)
        return -1;
    /* A single row or column reads the same in either order. */
    L->fortran = h->fortran && L->rows > 1 && L->cols > 1;
    return 0;
}

cuk_matrix *npy_load(FILE *fp, const char *path)
{
    npy_header h;
    npy_layout L = {0, 0, 0, 0, 0};
    long long offset = 0;
    cuk_matrix *m;

    if (npy_read_header(fp, path, &h, &offset) < 0 || npy_layout_of(&h, path, &L) < 0)
        return NULL;
    if (npy_check_size(fp, path, offset, (size_t)L.rows * (size_t)L.cols * (size_t)L.itemsize) < 0)
        return NULL;
    m = fileerr_new_matrix(L.rows, L.cols, path);
    if (m && npy_read_data(fp, path, &L, m->host) < 0) {
        mat_unref(m);
        return NULL;
    }
    return m;
}

/* ---------------------------------------------------------------- writing */

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

/* The values after the header, converted to little-endian in buf unless
 * buf is NULL (the host's floats are little-endian already). */
static int npy_write_values(FILE *fp, const float *x, size_t n, unsigned char *buf)
{
    size_t per = NPY_CHUNK / 4;

    for (size_t done = 0; done < n;) {
        size_t k = n - done < per ? n - done : per;
        const void *src = x + done;
        if (buf) {
            put_f32le(buf, x + done, k);
            src = buf;
        }
        if (fwrite(src, 4, k, fp) != k)
            return fileerr_errno();
        done += k;
        if (cuk_check_interrupt())
            return -1;
    }
    return 0;
}

int npy_write(FILE *fp, const cuk_matrix *m, const float *x)
{
    char head[256];
    size_t hn = npy_make_header(head, sizeof head, m->rows, m->cols);
    unsigned char *buf = NULL;
    int rc;

    if (!host_is_little_endian() && !(buf = malloc(NPY_CHUNK)))
        return ENOMEM;
    if (fwrite(head, 1, hn, fp) != hn)
        rc = fileerr_errno();
    else
        rc = npy_write_values(fp, x, mat_numel(m), buf);
    free(buf);
    return rc;
}
