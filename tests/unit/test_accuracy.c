/* test_accuracy.c - the sampled float64 reference that bench's error column
 * and `why` use (engine/measure/accuracy.h), on host matrices: every sampled value
 * is the float64 dot product at its position; an exact result reads ~1e-8;
 * an error planted in every element or in one sampled element reads as its
 * size; one planted outside the sample does not show (that is what a
 * sample is); shapes smaller than the grid are compared everywhere. */
#include <string.h>

#include "engine/measure/accuracy.h"
#include "tests/check.h"

static cuk_matrix *random_matrix(int rows, int cols)
{
    cuk_matrix *m = mat_new_host(rows, cols);
    if (m)
        check_fill(m->host, mat_numel(m));
    return m;
}

/* c = a @ b in float64, rounded once to float. */
static cuk_matrix *product(const cuk_matrix *a, const cuk_matrix *b)
{
    cuk_matrix *c = mat_new_host(a->rows, b->cols);
    for (int i = 0; c && i < a->rows; i++)
        for (int j = 0; j < b->cols; j++) {
            double s = 0;
            for (int p = 0; p < a->cols; p++)
                s += (double)a->host[(size_t)i * a->cols + p] * b->host[(size_t)p * b->cols + j];
            c->host[(size_t)i * b->cols + j] = (float)s;
        }
    return c;
}

static double sample_norm(const acc_ref *r)
{
    double s = 0;
    for (int t = 0; t < r->n; t++)
        s += r->val[t] * r->val[t];
    return sqrt(s);
}

static int sampled(const acc_ref *r, size_t idx)
{
    for (int t = 0; t < r->n; t++)
        if (r->idx[t] == idx)
            return 1;
    return 0;
}

static void planted_errors(void)
{
    cuk_matrix *a = random_matrix(300, 257), *b = random_matrix(257, 190), *c = product(a, b);
    static acc_ref r;
    CHECK(a && b && c);
    CHECK(acc_product(a, b, &r) == 1);
    CHECKF(r.n == ACC_ROWS * ACC_COLS, "%d samples", r.n);
    for (int t = 0; t < r.n; t++) {
        size_t i = r.idx[t] / 190, j = r.idx[t] % 190;
        double s = 0;
        for (int p = 0; p < 257; p++)
            s += (double)a->host[i * 257 + p] * b->host[(size_t)p * 190 + j];
        CHECKF(fabs(s - r.val[t]) <= 1e-12 * (1 + fabs(s)), "sample %d at (%zu, %zu): %g, want %g", t, i, j,
               r.val[t], s);
    }
    double exact = acc_error(c, &r);
    CHECKF(exact < 1e-7, "a product rounded once reads %.3g", exact);

    cuk_matrix *d = product(a, b); /* every element 1e-3 too large */
    for (size_t i = 0; i < mat_numel(d); i++)
        d->host[i] *= 1.001f;
    double all = acc_error(d, &r);
    CHECKF(all > 0.99e-3 && all < 1.01e-3, "1e-3 everywhere reads %.4g", all);

    memcpy(d->host, c->host, mat_bytes(c)); /* one sampled element off by 1% of the sample's norm */
    d->host[r.idx[7]] += (float)(0.01 * sample_norm(&r));
    double one = acc_error(d, &r);
    CHECKF(one > 0.0099 && one < 0.0101, "1%% in one sampled element reads %.4g", one);

    memcpy(d->host, c->host, mat_bytes(c)); /* the same outside the sample: unseen */
    size_t off = 0;
    while (sampled(&r, off))
        off++;
    d->host[off] += (float)(0.01 * sample_norm(&r));
    CHECKF(acc_error(d, &r) < 1e-7, "an element outside the sample changed the error to %.3g", acc_error(d, &r));
    mat_unref(a), mat_unref(b), mat_unref(c), mat_unref(d);
}

static void small_shapes_everywhere(void)
{
    cuk_matrix *a = random_matrix(5, 7), *b = random_matrix(7, 3), *c = product(a, b);
    static acc_ref r;
    CHECK(acc_product(a, b, &r) == 1);
    CHECKF(r.n == 15, "%d samples of a 5x3 result", r.n);
    for (size_t i = 0; i < 15; i++)
        CHECKF(sampled(&r, i), "element %zu not compared", i);
    CHECK(acc_error(c, &r) < 1e-7);
    mat_unref(a), mat_unref(b), mat_unref(c);
}

int main(void)
{
    RUN(planted_errors);
    RUN(small_shapes_everywhere);
    return check_exit();
}
