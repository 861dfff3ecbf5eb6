/* test_fileio.c - unit tests of file I/O (engine/files/fileio.c, npy.c, csv.c):
 * .npy and .csv round trips, hand-built .npy files of every layout cuk reads, the error text for bad
 * files, and the atomic save (a failed save leaves the old file and no
 * temporary behind). Works in a fresh directory under $TMPDIR. */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/files/fileio.h"
#include "engine/values/matrix.h"
#include "tests/check.h"

/* The shapes every round trip covers: scalar, row, column, ragged, and one
 * that spans several 64-byte lines. */
static const int shapes[][2] = {{1, 1}, {1, 37}, {29, 1}, {17, 33}, {64, 65}};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static char root[1024];

/* ------------------------------------------------------------- helpers */

/* dir/name in one of a few rotating buffers, so that a call can use two. */
static const char *join(const char *dir, const char *name)
{
    static char buf[4][4096];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", dir, name);
    return b;
}

/* A fresh directory for one case, so that leftovers can be counted. */
static const char *case_dir(const char *name)
{
    static char buf[4][4096];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", root, name);
    if (mkdir(b, 0777) != 0)
        check_failf(__FILE__, __LINE__, "mkdir %s: %s", b, strerror(errno));
    return b;
}

/* Entries in dir, . and .. aside. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* rm -r, for the directory the test made (no symlinks in it). */
static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        chmod(path, 0700);
        while (d && (e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                char sub[4096];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, n, fp) != n || fclose(fp) != 0)
        check_failf(__FILE__, __LINE__, "cannot write %s", path);
}

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

/* The whole file in a malloc'd buffer; *n its size. */
static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf = NULL;
    long size;
    *n = 0;
    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (size = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)size + 1);
        if (buf)
            *n = fread(buf, 1, (size_t)size, fp);
    }
    fclose(fp);
    return buf;
}

/* A .npy file as NumPy lays it out: magic, version major.0, header length
 * (2 bytes for 1.0, 4 for later), the dict padded with spaces to end in
 * '\n' at a multiple of 64, then the data as given. */
static void write_npy(const char *path, int major, const char *dict, const void *data,
                      size_t nbytes)
{
    size_t lenbytes = major == 1 ? 2 : 4, dl = strlen(dict);
    size_t pad = (64 - (8 + lenbytes + dl + 1) % 64) % 64, hlen = dl + pad + 1;
    size_t total = 8 + lenbytes + hlen + nbytes;
    unsigned char *b = malloc(total), *p = b;

    memcpy(p, "\x93NUMPY", 6);
    p[6] = (unsigned char)major;
    p[7] = 0;
    p += 8;
    for (size_t i = 0; i < lenbytes; i++)
        *p++ = (unsigned char)(hlen >> (8 * i));
    memcpy(p, dict, dl);
    memset(p + dl, ' ', pad);
    p[dl + pad] = '\n';
    p += hlen;
    if (nbytes)
        memcpy(p, data, nbytes);
    write_bytes(path, b, total);
    free(b);
}

/* Encode values in a given byte order, whatever the host's. */
static void put_f32(unsigned char *out, float v, int big)
{
    uint32_t w;
    memcpy(&w, &v, 4);
    for (int i = 0; i < 4; i++)
        out[big ? 3 - i : i] = (unsigned char)(w >> (8 * i));
}

static void put_f64(unsigned char *out, double v, int big)
{
    uint64_t w;
    memcpy(&w, &v, 8);
    for (int i = 0; i < 8; i++)
        out[big ? 7 - i : i] = (unsigned char)(w >> (8 * i));
}

static cuk_matrix *random_matrix(int rows, int cols)
{
    cuk_matrix *m = mat_new_host(rows, cols);
    if (m)
        check_fill(mat_host(m), mat_numel(m));
    return m;
}

/* Same shape and the same bits in every element (NaNs included). */
static int same_matrix(cuk_matrix *a, cuk_matrix *b)
{
    return a && b && a->rows == b->rows && a->cols == b->cols
           && memcmp(mat_host(a), mat_host(b), mat_bytes(a)) == 0;
}

/* Save and load back through path; the loaded matrix or NULL. */
static cuk_matrix *round_trip(cuk_matrix *m, const char *path)
{
    if (fileio_save(m, path) != 0) {
        check_failf(__FILE__, __LINE__, "save %s: %s", path, cuk_err_get()->msg);
        return NULL;
    }
    cuk_matrix *back = fileio_load(path);
    if (!back)
        check_failf(__FILE__, __LINE__, "load %s: %s", path, cuk_err_get()->msg);
    return back;
}

/* Load path expecting exactly the given error message. */
#define EXPECT_LOAD_ERROR(path, ...) expect_load_error(__LINE__, path, __VA_ARGS__)

static void expect_load_error(int line, const char *path, const char *fmt, ...) CUK_PRINTF(3, 4);

static void expect_load_error(int line, const char *path, const char *fmt, ...)
{
    char want[1024];
    va_list ap;
    cuk_matrix *m;

    va_start(ap, fmt);
    vsnprintf(want, sizeof want, fmt, ap);
    va_end(ap);
    cuk_err_clear();
    m = fileio_load(path);
    if (m) {
        check_failf(__FILE__, line, "load %s succeeded, want error \"%s\"", path, want);
        mat_unref(m);
    } else if (strcmp(cuk_err_get()->msg, want) != 0) {
        check_failf(__FILE__, line, "got \"%s\", want \"%s\"", cuk_err_get()->msg, want);
    }
}

/* Load a .npy expecting rows x cols with these values, in row-major order. */
#define EXPECT_LOAD(path, rows, cols, want) expect_load(__LINE__, path, rows, cols, want)

static void expect_load(int line, const char *path, int rows, int cols, const float *want)
{
    cuk_matrix *m = fileio_load(path);
    if (!m) {
        check_failf(__FILE__, line, "load %s: %s", path, cuk_err_get()->msg);
        return;
    }
    if (m->rows != rows || m->cols != cols)
        check_failf(__FILE__, line, "%s loaded as %dx%d, want %dx%d", path, m->rows, m->cols,
                    rows, cols);
    else
        for (size_t i = 0; i < mat_numel(m); i++)
            if (memcmp(&mat_host(m)[i], &want[i], sizeof(float)) != 0) {
                check_failf(__FILE__, line, "%s element %zu is %.9g, want %.9g", path, i,
                            (double)mat_host(m)[i], (double)want[i]);
                break;
            }
    mat_unref(m);
}

/* A matrix of random values with the awkward ones planted in it. */
static cuk_matrix *awkward_matrix(int rows, int cols)
{
    static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, FLT_MAX, -FLT_MAX, FLT_MIN,
                                    FLT_TRUE_MIN, -FLT_TRUE_MIN, 1e-40f, 0.1f, 3.14159274f,
                                    16777217.0f, INFINITY, -INFINITY, NAN};
    cuk_matrix *m = random_matrix(rows, cols);
    size_t n = sizeof special / sizeof special[0];
    for (size_t i = 0; m && i < n && i < mat_numel(m); i++)
        mat_host(m)[i * 7 % mat_numel(m)] = special[i];
    return m;
}

/* ------------------------------------------------------------ round trips */

static void round_trip_shapes(const char *ext)
{
    const char *dir = case_dir(ext);
    for (int s = 0; s < NSHAPES; s++) {
        char name[64];
        cuk_matrix *a = awkward_matrix(shapes[s][0], shapes[s][1]), *b;
        snprintf(name, sizeof name, "m%dx%d.%s", shapes[s][0], shapes[s][1], ext);
        b = round_trip(a, join(dir, name));
        CHECKF(same_matrix(a, b), "%s: %dx%d differs after the round trip", ext, shapes[s][0],
               shapes[s][1]);
        mat_unref(a);
        if (b)
            mat_unref(b);
    }
    CHECKF(count_entries(dir) == NSHAPES, "%s: %d files, want %d (temporaries left?)", ext,
           count_entries(dir), NSHAPES);
}

static void npy_round_trip(void) { round_trip_shapes("npy"); }
static void csv_round_trip(void) { round_trip_shapes("csv"); }

/* Upper-case extensions pick the same formats. */
static void upper_case_extension(void)
{
    const char *dir = case_dir("upper");
    cuk_matrix *a = random_matrix(3, 4), *b = round_trip(a, join(dir, "a.NPY"));
    size_t n;
    unsigned char *bytes = read_bytes(join(dir, "a.NPY"), &n);
    CHECK(same_matrix(a, b));
    CHECK(bytes && n > 6 && memcmp(bytes, "\x93NUMPY", 6) == 0);
    free(bytes);
    mat_unref(a);
    if (b)
        mat_unref(b);
}

/* The header NumPy expects: version 1.0, the dict, padding to 64 bytes,
 * then little-endian float32 in row order. */
static void npy_written_layout(void)
{
    const char *path = join(case_dir("layout"), "a.npy");
    cuk_matrix *a = random_matrix(17, 33);
    size_t n, hlen;
    unsigned char *b;
    char *head;

    CHECK(fileio_save(a, path) == 0);
    b = read_bytes(path, &n);
    CHECK(b && n >= 10);
    if (!b || n < 10)
        goto out;
    hlen = b[8] | (size_t)b[9] << 8;
    CHECK(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0);
    CHECKF((10 + hlen) % 64 == 0, "data starts at %zu, not a multiple of 64", 10 + hlen);
    CHECKF(n == 10 + hlen + 17 * 33 * 4, "file is %zu bytes", n);
    if (n != 10 + hlen + 17 * 33 * 4)
        goto out;
    CHECK(b[10 + hlen - 1] == '\n');
    head = (char *)b + 10;
    head[hlen - 1] = '\0';
    {
        const char *want = "{'descr': '<f4', 'fortran_order': False, 'shape': (17, 33), }";
        size_t wl = strlen(want);
        CHECKF(strncmp(head, want, wl) == 0 && strspn(head + wl, " ") == hlen - 1 - wl,
               "header is \"%s\"", head);
    }
    for (size_t i = 0; i < 17 * 33; i++) {
        unsigned char want[4];
        put_f32(want, mat_host(a)[i], 0);
        if (memcmp(b + 10 + hlen + 4 * i, want, 4) != 0) {
            CHECKF(0, "element %zu is not stored as little-endian float32", i);
            break;
        }
    }
out:
    free(b);
    mat_unref(a);
}

static void csv_written_text(void)
{
    const char *path = join(case_dir("csvtext"), "a.csv");
    cuk_matrix *a = mat_new_host(2, 3);
    const float v[] = {1.0f, 2.5f, -3.0f, 0.1f, -0.0f, 1e-10f};
    size_t n;
    char *text;

    memcpy(mat_host(a), v, sizeof v);
    CHECK(fileio_save(a, path) == 0);
    text = (char *)read_bytes(path, &n);
    if (text) {
        text[n] = '\0';
        CHECKF(strcmp(text, "1,2.5,-3\n0.100000001,-0,1.00000001e-10\n") == 0, "wrote \"%s\"", text);
    }
    free(text);
    mat_unref(a);
}

/* ----------------------------------------------------- hand-built .npy */

static void npy_float64(void)
{
    const char *dir = case_dir("f64");
    double d[15];
    float want[15];
    unsigned char raw[15 * 8], rawbe[15 * 8];

    for (int i = 0; i < 15; i++)
        d[i] = 2.0 * check_uniform() - 1.0;
    d[3] = 1.0 / 3.0;
    d[4] = 1e300;       /* beyond float32: inf, as NumPy's astype gives */
    d[5] = -1e-300;     /* below float32's smallest: -0 */
    d[6] = NAN;
    for (int i = 0; i < 15; i++) {
        want[i] = (float)d[i];
        put_f64(raw + 8 * i, d[i], 0);
        put_f64(rawbe + 8 * i, d[i], 1);
    }
    write_npy(join(dir, "le.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 5), }",
              raw, sizeof raw);
    write_npy(join(dir, "be.npy"), 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 5), }",
              rawbe, sizeof rawbe);
    EXPECT_LOAD(join(dir, "le.npy"), 3, 5, want);
    EXPECT_LOAD(join(dir, "be.npy"), 3, 5, want);
}

static void npy_big_endian_f4(void)
{
    const char *dir = case_dir("f4be");
    float want[12];
    unsigned char raw[48];

    check_fill(want, 12);
    want[0] = -INFINITY;
    for (int i = 0; i < 12; i++)
        put_f32(raw + 4 * i, want[i], 1);
    write_npy(join(dir, "a.npy"), 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4, 3), }",
              raw, sizeof raw);
    EXPECT_LOAD(join(dir, "a.npy"), 4, 3, want);
}

/* Fortran order stores column after column; cuk transposes into rows. */
static void npy_fortran_order(void)
{
    const char *dir = case_dir("fortran");
    enum { R = 5, C = 7 };
    float want[R * C];
    unsigned char f4[R * C * 4], f8be[R * C * 8];

    check_fill(want, R * C);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            put_f32(f4 + 4 * (c * R + r), want[r * C + c], 0);
            put_f64(f8be + 8 * (c * R + r), want[r * C + c], 1);
        }
    write_npy(join(dir, "f4.npy"), 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (5, 7), }",
              f4, sizeof f4);
    write_npy(join(dir, "f8be.npy"), 1,
              "{'descr': '>f8', 'fortran_order': True, 'shape': (5, 7), }", f8be, sizeof f8be);
    EXPECT_LOAD(join(dir, "f4.npy"), R, C, want);
    EXPECT_LOAD(join(dir, "f8be.npy"), R, C, want);
    /* A 1-D array in Fortran order is the same bytes as in C order. */
    write_npy(join(dir, "vec.npy"), 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (7,), }",
              f4, 7 * 4);
    {
        float col0[7];
        for (int i = 0; i < 7; i++)
            col0[i] = want[(i % R) * C + i / R];
        EXPECT_LOAD(join(dir, "vec.npy"), 1, 7, col0);
    }
}

/* Versions 2.0 and 3.0 differ from 1.0 only in a 4-byte header length. */
static void npy_versions_2_and_3(void)
{
    const char *dir = case_dir("versions");
    float want[6];
    unsigned char raw[24];

    check_fill(want, 6);
    for (int i = 0; i < 6; i++)
        put_f32(raw + 4 * i, want[i], 0);
    write_npy(join(dir, "v2.npy"), 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              raw, sizeof raw);
    write_npy(join(dir, "v3.npy"), 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              raw, sizeof raw);
    EXPECT_LOAD(join(dir, "v2.npy"), 2, 3, want);
    EXPECT_LOAD(join(dir, "v3.npy"), 2, 3, want);
}

/* A 1-D array of n is a 1xn row; a 0-D array is a 1x1 scalar. */
static void npy_1d_and_0d(void)
{
    const char *dir = case_dir("dims");
    float want[9];
    unsigned char raw[36];

    check_fill(want, 9);
    for (int i = 0; i < 9; i++)
        put_f32(raw + 4 * i, want[i], 0);
    write_npy(join(dir, "v.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (9,), }",
              raw, sizeof raw);
    write_npy(join(dir, "s.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
              raw, 4);
    write_npy(join(dir, "one.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              raw, 4);
    EXPECT_LOAD(join(dir, "v.npy"), 1, 9, want);
    EXPECT_LOAD(join(dir, "s.npy"), 1, 1, want);
    EXPECT_LOAD(join(dir, "one.npy"), 1, 1, want);
}

/* The dict is parsed, not matched: any key order, either quote, spaces and
 * newlines anywhere, with or without trailing commas, Python 2's 3L. */
static void npy_header_variants(void)
{
    static const char *const dicts[] = {
        "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
        "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}",
        "{ 'fortran_order' :False ,'shape':( 2 ,3 , ) ,'descr' : '<f4' , }",
        "{'descr':'<f4',\n 'fortran_order':False,\n 'shape':(2,3)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }",
    };
    const char *dir = case_dir("variants");
    float want[6];
    unsigned char raw[24];

    check_fill(want, 6);
    for (int i = 0; i < 6; i++)
        put_f32(raw + 4 * i, want[i], 0);
    for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "h%zu.npy", i);
        write_npy(join(dir, name), 1, dicts[i], raw, sizeof raw);
        EXPECT_LOAD(join(dir, name), 2, 3, want);
    }
    /* Extra bytes after the data are ignored. */
    {
        unsigned char more[24 + 5] = {0};
        memcpy(more, raw, 24);
        write_npy(join(dir, "long.npy"), 1, dicts[0], more, sizeof more);
        EXPECT_LOAD(join(dir, "long.npy"), 2, 3, want);
    }
}

/* ------------------------------------------------------------ bad .npy */

static void npy_bad_magic(void)
{
    const char *dir = case_dir("magic");
    const char *p = join(dir, "a.npy"), *e = join(dir, "e.npy"), *t = join(dir, "t.npy");
    write_text(p, "1,2,3\n4,5,6\n");
    write_text(e, "");
    write_bytes(t, "\x93NUMPY\x01", 7);
    EXPECT_LOAD_ERROR(p, "load: %s is not a .npy file (bad magic)", p);
    EXPECT_LOAD_ERROR(e, "load: %s is an empty file, not a .npy file", e);
    EXPECT_LOAD_ERROR(t, "load: %s is truncated (in the header)", t);
}

static void npy_bad_version(void)
{
    const char *p = join(case_dir("version"), "a.npy");
    float x = 1;
    write_npy(p, 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", &x, 4);
    EXPECT_LOAD_ERROR(p, "load: %s is .npy version 4.0; cuk reads versions 1.0 to 3.0", p);
}

static void npy_truncated(void)
{
    const char *dir = case_dir("truncated");
    const char *p = join(dir, "a.npy"), *h = join(dir, "h.npy");
    unsigned char raw[20] = {0};
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", raw, sizeof raw);
    EXPECT_LOAD_ERROR(p, "load: %s is truncated: expected 48 bytes of data, found 20", p);
    write_npy(p, 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }", raw, 0);
    EXPECT_LOAD_ERROR(p, "load: %s is truncated: expected 96 bytes of data, found 0", p);
    /* The header says 118 bytes of dict follow, but the file ends first. */
    write_bytes(h, "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4',", 26);
    EXPECT_LOAD_ERROR(h, "load: %s is truncated (in the header)", h);
}

/* A huge shape in a small file fails on the size check, before allocating
 * anything; shapes beyond cuk's limits fail before that. */
static void npy_huge_shape(void)
{
    const char *dir = case_dir("huge");
    const char *p = join(dir, "a.npy");
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647, 2147483647), }",
              NULL, 0);
    EXPECT_LOAD_ERROR(p, "load: %s is truncated: expected 18446744056529682436 bytes of data, found 0",
                      p);
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 1), }", NULL, 0);
    EXPECT_LOAD_ERROR(p, "load: %s is too large (shape (2147483648, 1)); cuk matrices are at most "
                         "2147483647 x 2147483647", p);
    write_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2147483647, 2147483647), }",
              NULL, 0);
    EXPECT_LOAD_ERROR(p, "load: %s is too large (shape (2147483647, 2147483647)); cuk matrices are "
                         "at most 2147483647 x 2147483647", p);
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 1), }",
              NULL, 0);
    EXPECT_LOAD_ERROR(p, "load: %s has a bad header (a dimension in 'shape' is too large)", p);
    /* A header length field of 4 GiB - 1 (version 2.0). */
    write_bytes(p, "\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14);
    EXPECT_LOAD_ERROR(p, "load: %s has a bad header (its length, 4294967295 bytes, is absurd)", p);
}

static void npy_wrong_dtype(void)
{
    static const struct {
        const char *descr, *name;
    } cases[] = {
        {"'<i8'", "int64"}, {"'<i4'", "int32"}, {"'|u1'", "uint8"}, {"'<f2'", "float16"},
        {"'<c8'", "complex64"}, {"'>c16'", "complex128"}, {"'|b1'", "bool"},
        /* the names np.dtype(descr).name gives (NumPy 1.24) */
        {"'|O'", "object"}, {"'<U3'", "str96"}, {"'|S5'", "bytes40"}, {"'|V8'", "void64"},
        {"'<M8[ns]'", "datetime64[ns]"}, {"'<m8[s]'", "timedelta64[s]"}, {"'<M8'", "datetime64"},
        {"[('x', '<f4'), ('y', '<f4')]", "void (structured records)"}, {"'<f16'", "float128"},
        {"'zz'", "'zz'"},
    };
    const char *p = join(case_dir("dtype"), "a.npy");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dict[128];
        unsigned char raw[64] = {0};
        snprintf(dict, sizeof dict, "{'descr': %s, 'fortran_order': False, 'shape': (2, 2), }",
                 cases[i].descr);
        write_npy(p, 1, dict, raw, sizeof raw);
        EXPECT_LOAD_ERROR(p, "load: %s holds %s values; cuk loads float32 and float64", p,
                          cases[i].name);
    }
    write_npy(p, 1, "{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
    EXPECT_LOAD_ERROR(p, "load: %s gives no byte order for its values ('=f4')", p);
}

static void npy_wrong_shape(void)
{
    const char *p = join(case_dir("shape"), "a.npy");
    unsigned char raw[96] = {0};
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }", raw, 96);
    EXPECT_LOAD_ERROR(p, "load: %s has 3 dimensions (shape (2, 3, 4)); cuk loads 1-D and 2-D arrays", p);
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", raw, 0);
    EXPECT_LOAD_ERROR(p, "load: %s is empty (shape (0, 3)); cuk has no empty matrices", p);
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", raw, 0);
    EXPECT_LOAD_ERROR(p, "load: %s is empty (shape (0,)); cuk has no empty matrices", p);
}

static void npy_garbage_header(void)
{
    static const struct {
        const char *dict, *why;
    } cases[] = {
        {"hello world", "it is not a dict"},
        {"{'descr': '<f4', 'fortran_order': False}", "'descr', 'fortran_order' or 'shape' is missing"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", "unexpected key 'x'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}",
         "a key appears twice"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3)}",
         "'fortran_order' is not True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", "'shape' is not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}",
         "'shape' is not a tuple of sizes"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}", "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} junk", "text after the dict"},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}", "expected ',' or '}'"},
        {"{'descr: '<f4', 'fortran_order': False, 'shape': (2, 3)}", "unexpected key 'descr: '"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (2, 3)}", "expected ':' after a key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", "expected ',' or '}'"},
        {"", "it is not a dict"},
    };
    const char *p = join(case_dir("garbage"), "a.npy");
    unsigned char raw[24] = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_npy(p, 1, cases[i].dict, raw, sizeof raw);
        EXPECT_LOAD_ERROR(p, "load: %s has a bad header (%s)", p, cases[i].why);
    }
}

/* ---------------------------------------------------------- names, paths */

static void missing_file_and_extension(void)
{
    const char *dir = case_dir("names");
    const char *p = join(dir, "nothere.npy"), *q = join(dir, "nothere.csv");
    cuk_matrix *a = random_matrix(2, 2);

    EXPECT_LOAD_ERROR(p, "load: cannot open '%s': No such file or directory", p);
    EXPECT_LOAD_ERROR(q, "load: cannot open '%s': No such file or directory", q);
    EXPECT_LOAD_ERROR("a.txt", "load: don't know how to read '%s': use .npy or .csv", "a.txt");
    EXPECT_LOAD_ERROR("npy", "load: don't know how to read '%s': use .npy or .csv", "npy");
    EXPECT_LOAD_ERROR("dir.npy/a", "load: don't know how to read '%s': use .npy or .csv", "dir.npy/a");
    CHECK(mkdir(join(dir, "d.npy"), 0777) == 0);
    EXPECT_LOAD_ERROR(join(dir, "d.npy"), "load: cannot open '%s': Is a directory", join(dir, "d.npy"));

    cuk_err_clear();
    CHECK(fileio_save(a, join(dir, "a.txt")) == -1);
    {
        char want[4200];
        snprintf(want, sizeof want, "save: don't know how to write '%s': use .npy or .csv",
                 join(dir, "a.txt"));
        CHECKF(strcmp(cuk_err_get()->msg, want) == 0, "got \"%s\"", cuk_err_get()->msg);
    }
    CHECK(count_entries(dir) == 1);             /* d.npy only */
    mat_unref(a);
}

/* ------------------------------------------------------------------ .csv */

static void csv_tolerant_input(void)
{
    const char *dir = case_dir("csvin");
    const char *p = join(dir, "a.csv"), *q = join(dir, "b.csv"), *r = join(dir, "c.csv");
    const float want[] = {1, 2, 3, 4, 5, 6};
    const float odd[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e-3f, 255};
    const float answer[] = {42};

    write_text(p, " 1 , 2,3 \r\n4,\t5 ,6\r\n\r\n  \n\n");
    EXPECT_LOAD(p, 2, 3, want);
    write_text(q, "\xEF\xBB\xBF" "nan,inf,-inf\n-0,1.0e-3,0xff");     /* BOM, no final '\n' */
    EXPECT_LOAD(q, 2, 3, odd);
    write_text(r, "42\n");
    EXPECT_LOAD(r, 1, 1, answer);
}

static void csv_errors(void)
{
    const char *dir = case_dir("csvbad");
    const char *p = join(dir, "a.csv");

    write_text(p, "1,2,3\n4,5,6\n7,8,9,10\n");
    EXPECT_LOAD_ERROR(p, "load: %s: row 3 has 4 values, row 1 has 3", p);
    write_text(p, "1,2,3,4,5\n1,2,3,4,5\n1,2,3,4\n");
    EXPECT_LOAD_ERROR(p, "load: %s: row 3 has 4 values, row 1 has 5", p);
    write_text(p, "1,2,3\n4\n");
    EXPECT_LOAD_ERROR(p, "load: %s: row 2 has 1 value, row 1 has 3", p);
    write_text(p, "1,2\n3,abc\n");
    EXPECT_LOAD_ERROR(p, "load: %s:2:3: 'abc' is not a number", p);
    write_text(p, "1, 2x ,3\n");
    EXPECT_LOAD_ERROR(p, "load: %s:1:4: '2x' is not a number", p);
    write_text(p, "1 2\n");
    EXPECT_LOAD_ERROR(p, "load: %s:1:1: '1 2' is not a number", p);
    write_text(p, "x,y\n1,2\n");
    EXPECT_LOAD_ERROR(p, "load: %s:1:1: 'x' is not a number", p);
    write_text(p, "1,,2\n");
    EXPECT_LOAD_ERROR(p, "load: %s:1:3: missing value", p);
    write_text(p, "1,2,\n");
    EXPECT_LOAD_ERROR(p, "load: %s:1:5: missing value", p);
    write_text(p, "1,2\n\n3,4\n");
    EXPECT_LOAD_ERROR(p, "load: %s: row 2 is blank", p);
    write_text(p, "");
    EXPECT_LOAD_ERROR(p, "load: %s is empty; cuk has no empty matrices", p);
    write_text(p, "\n \r\n");
    EXPECT_LOAD_ERROR(p, "load: %s is empty; cuk has no empty matrices", p);
    write_bytes(p, "1,\x01\x02zz\n", 8);
    EXPECT_LOAD_ERROR(p, "load: %s:1:3: '??zz' is not a number", p);
    write_text(p, "1,aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeeee\n");
    EXPECT_LOAD_ERROR(p, "load: %s:1:3: 'aaaaaaaaaabbbbbbbbbbccccccccccddddddd...' is not a number", p);
}

/* A locale with a decimal comma must not change what the files hold. */
static const char *comma_locale;

static void csv_in_comma_locale(void)
{
    const char *p = join(case_dir("locale"), "a.csv");
    cuk_matrix *a = random_matrix(3, 4), *b;
    setlocale(LC_ALL, comma_locale);
    b = round_trip(a, p);
    CHECK(same_matrix(a, b));
    setlocale(LC_ALL, "C");
    {
        size_t n;
        char *text = (char *)read_bytes(p, &n);
        CHECKF(text && memchr(text, '.', n), "no decimal points in the file");
        free(text);
    }
    mat_unref(a);
    if (b)
        mat_unref(b);
}

/* ------------------------------------------------------------ atomic save */

static void save_missing_directory(void)
{
    const char *dir = case_dir("nodir");
    const char *p = join(dir, "no/such/dir/a.npy");
    cuk_matrix *a = random_matrix(3, 3);
    char want[4200];

    cuk_err_clear();
    CHECK(fileio_save(a, p) == -1);
    snprintf(want, sizeof want, "save: cannot write '%s': No such file or directory", p);
    CHECKF(strcmp(cuk_err_get()->msg, want) == 0, "got \"%s\"", cuk_err_get()->msg);
    CHECKF(count_entries(dir) == 0, "%d files left behind", count_entries(dir));
    mat_unref(a);
}

static void save_replaces_existing(void)
{
    const char *dir = case_dir("replace");
    static const char *const names[] = {"a.npy", "a.csv"};
    for (int i = 0; i < 2; i++) {
        const char *p = join(dir, names[i]);
        cuk_matrix *a = random_matrix(4, 5), *b = random_matrix(7, 2), *c;
        CHECK(fileio_save(a, p) == 0);
        CHECK(fileio_save(b, p) == 0);
        c = fileio_load(p);
        CHECKF(same_matrix(b, c), "%s does not hold the second matrix", names[i]);
        mat_unref(a);
        mat_unref(b);
        if (c)
            mat_unref(c);
    }
    CHECKF(count_entries(dir) == 2, "%d files, want 2", count_entries(dir));
}

/* Failures after the temporary file exists: the old file stays whole and
 * the temporary goes. */
static void failed_save_keeps_old_file(void)
{
    const char *dir = case_dir("keep");
    const char *p = join(dir, "a.npy"), *d = join(dir, "sub.npy");
    cuk_matrix *a = random_matrix(6, 6), *b = random_matrix(300, 300), *c;
    char want[4200];

    CHECK(fileio_save(a, p) == 0);
    /* Interrupted while writing (Ctrl-C). */
    cuk_interrupted = 1;
    CHECK(fileio_save(b, p) == -1);
    cuk_interrupted = 0;
    CHECK(cuk_err_get()->kind == CUK_E_CANCEL);
    c = fileio_load(p);
    CHECKF(same_matrix(a, c), "the old file changed");
    if (c)
        mat_unref(c);
    CHECKF(count_entries(dir) == 1, "%d files after an interrupted save, want 1",
           count_entries(dir));

    /* The target is a directory: refused before anything is written. */
    CHECK(mkdir(d, 0777) == 0);
    cuk_err_clear();
    CHECK(fileio_save(b, d) == -1);
    snprintf(want, sizeof want, "save: cannot write '%s': it is a folder; cuk writes only regular files", d);
    CHECKF(strcmp(cuk_err_get()->msg, want) == 0, "got \"%s\"", cuk_err_get()->msg);
    CHECKF(count_entries(dir) == 2, "%d files after a refused save, want 2", count_entries(dir));
    CHECK(count_entries(d) == 0);

    /* The directory is read-only (root ignores that, so only as a user). */
    if (geteuid() != 0) {
        CHECK(chmod(dir, 0555) == 0);
        cuk_err_clear();
        CHECK(fileio_save(b, p) == -1);
        snprintf(want, sizeof want, "save: cannot write '%s': Permission denied", p);
        CHECKF(strcmp(cuk_err_get()->msg, want) == 0, "got \"%s\"", cuk_err_get()->msg);
        chmod(dir, 0755);
        c = fileio_load(p);
        CHECKF(same_matrix(a, c), "the old file changed");
        if (c)
            mat_unref(c);
    }
    mat_unref(a);
    mat_unref(b);
}

/* A new file gets 0666 less the umask (not mkstemp's 0600); a replaced one
 * keeps its own permissions. */
static void saved_file_permissions(void)
{
    const char *dir = case_dir("perms");
    const char *p = join(dir, "a.csv"), *q = join(dir, "b.npy");
    cuk_matrix *a = random_matrix(2, 2);
    mode_t old = umask(022);
    struct stat st;

    CHECK(fileio_save(a, p) == 0);
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644);
    umask(027);
    CHECK(fileio_save(a, q) == 0);
    CHECK(stat(q, &st) == 0 && (st.st_mode & 07777) == 0640);
    CHECK(chmod(p, 0604) == 0);
    CHECK(fileio_save(a, p) == 0);
    CHECKF(stat(p, &st) == 0 && (st.st_mode & 07777) == 0604, "mode %o after replacing",
           (unsigned)(st.st_mode & 07777));
    umask(old);
    mat_unref(a);
}

/* Big enough for several read and write chunks, in both formats and in
 * Fortran order (the chunked scatter must carry its position across). */
static void large_files(void)
{
    const char *dir = case_dir("large");
    enum { R = 700, C = 901 };
    cuk_matrix *a = random_matrix(R, C), *b;
    unsigned char *raw = malloc((size_t)R * C * 8);
    float *want = mat_host(a);

    b = round_trip(a, join(dir, "a.npy"));
    CHECK(same_matrix(a, b));
    if (b)
        mat_unref(b);
    b = round_trip(a, join(dir, "a.csv"));
    CHECK(same_matrix(a, b));
    if (b)
        mat_unref(b);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            put_f64(raw + 8 * ((size_t)c * R + r), want[(size_t)r * C + c], 0);
    write_npy(join(dir, "f.npy"), 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (700, 901), }",
              raw, (size_t)R * C * 8);
    EXPECT_LOAD(join(dir, "f.npy"), R, C, want);
    free(raw);
    mat_unref(a);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    static const char *const commas[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};

    snprintf(root, sizeof root, "%s/cuk_fileio_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        printf("FAIL test_fileio: cannot make a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    check_seed(20240611);

    RUN(npy_round_trip);
    RUN(csv_round_trip);
    RUN(upper_case_extension);
    RUN(npy_written_layout);
    RUN(csv_written_text);
    RUN(npy_float64);
    RUN(npy_big_endian_f4);
    RUN(npy_fortran_order);
    RUN(npy_versions_2_and_3);
    RUN(npy_1d_and_0d);
    RUN(npy_header_variants);
    RUN(npy_bad_magic);
    RUN(npy_bad_version);
    RUN(npy_truncated);
    RUN(npy_huge_shape);
    RUN(npy_wrong_dtype);
    RUN(npy_wrong_shape);
    RUN(npy_garbage_header);
    RUN(missing_file_and_extension);
    RUN(csv_tolerant_input);
    RUN(csv_errors);
    for (size_t i = 0; i < sizeof commas / sizeof commas[0] && !comma_locale; i++)
        if (setlocale(LC_ALL, commas[i]))
            comma_locale = commas[i];
    setlocale(LC_ALL, "C");
    if (comma_locale)
        RUN(csv_in_comma_locale);
    else
        check_skip("csv_in_comma_locale", "no de_DE or fr_FR locale installed");
    RUN(save_missing_directory);
    RUN(save_replaces_existing);
    RUN(failed_save_keeps_old_file);
    RUN(saved_file_permissions);
    RUN(large_files);

    remove_tree(root);
    return check_exit();
}
