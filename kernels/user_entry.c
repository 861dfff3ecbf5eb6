/* user_entry.c - the table of entry points of user modes (user_entry.h):
 * the product and the transpose, then one per elementwise and unary
 * operation of oplist.h, named cuk_ and the operation's name, then the
 * reductions a single launch can do with atomics (sum, and NumPy's amin
 * and amax: cuk_min and cuk_max are the elementwise ones). */
#include "kernels/user_entry.h"

#include <math.h>
#include <string.h>

static const user_kind_info kinds[UE_KINDS] = {
    [UE_MATMUL] = {"float *C, const float *A, const float *B, int m, int n, int k", 3, {"C", "A", "B"}, 3,
                   {"m", "n", "k"}, "16 16", "ceil(n / 16) ceil(m / 16)"},
    [UE_TRANSPOSE] = {"float *out, const float *in, int rows, int cols", 2, {"out", "in"}, 2, {"rows", "cols"},
                      "16 16", "ceil(cols / 16) ceil(rows / 16)"},
    [UE_EWISE] = {"float *out, const float *a, const float *b, int n", 3, {"out", "a", "b"}, 1, {"n"}, "256",
                  "ceil(n / 256)"},
    [UE_UNARY] = {"float *out, const float *in, int n", 2, {"out", "in"}, 1, {"n"}, "256", "ceil(n / 256)"},
    [UE_REDUCE] = {"float *out, const float *in, int n", 2, {"out", "in"}, 1, {"n"}, "256", "ceil(n / 256)"},
};

#define ENTRY_EW(id, name, usage, expr) {"cuk_" name, UE_EWISE, CUK_EW_##id, 0.0f},
#define ENTRY_UN(id, name, usage, expr) {"cuk_" name, UE_UNARY, CUK_UN_##id, 0.0f},

static const user_entry table[] = {
    {"cuk_matmul", UE_MATMUL, 0, 0.0f},
    {"cuk_transpose", UE_TRANSPOSE, 0, 0.0f},
    CUK_EWISE_OPS(ENTRY_EW) CUK_UNARY_OPS(ENTRY_UN)
    {"cuk_sum", UE_REDUCE, CUK_RED_SUM, 0.0f},
    {"cuk_amin", UE_REDUCE, CUK_RED_MIN, INFINITY},
    {"cuk_amax", UE_REDUCE, CUK_RED_MAX, -INFINITY},
};

#define NENTRIES ((int)(sizeof table / sizeof table[0]))

_Static_assert(sizeof table / sizeof table[0] <= USER_ENTRIES, "USER_ENTRIES is too small for the table");

int user_entry_count(void) { return NENTRIES; }

const user_entry *user_entry_get(int i) { return i >= 0 && i < NENTRIES ? &table[i] : NULL; }

int user_entry_find(const char *name)
{
    for (int i = 0; i < NENTRIES; i++)
        if (!strcmp(table[i].name, name))
            return i;
    return -1;
}

int user_entry_of(user_kind k, int op)
{
    for (int i = 0; i < NENTRIES; i++)
        if (table[i].kind == k && table[i].op == op)
            return i;
    return -1;
}

const user_kind_info *user_kind_get(user_kind k) { return &kinds[k]; }
