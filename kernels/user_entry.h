/* user_entry.h - the entry points a user's CUDA file may define for
 * `kernel "file.cu"`: one row each, naming the operation of cuk's it stands
 * for, its signature, and per kind the names its launch line may use, its
 * default launch and its buffers. Every other part of the user modes
 * (compiling, launch lines, the helper process, the checks) reads this
 * table. Host code only; no CUDA needed. */
#ifndef CUK_USER_ENTRY_H
#define CUK_USER_ENTRY_H

#include "kernels/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an entry point is called: its parameters and what it computes. */
typedef enum {
    UE_MATMUL,    /* (float *C, const float *A, const float *B, int m, int n, int k) */
    UE_TRANSPOSE, /* (float *out, const float *in, int rows, int cols) */
    UE_EWISE,     /* (float *out, const float *a, const float *b, int n) */
    UE_UNARY,     /* (float *out, const float *in, int n) */
    UE_REDUCE,    /* (float *out, const float *in, int n): out starts at the identity */
    UE_KINDS
} user_kind;

/* What every entry of a kind shares. Buffers are in the order of the
 * parameters: the output first, then the inputs (role 0 out, 1, 2). */
typedef struct {
    const char *params;      /* the C parameter list */
    int nbufs;               /* pointer parameters, the output first */
    const char *buf[3];      /* their names, for messages: "C", "A", "B" */
    int nints;               /* int parameters after them */
    const char *var[3];      /* their names: what a launch line may use */
    const char *block, *grid;/* the default launch, as a launch line writes it */
} user_kind_info;

typedef struct {
    const char *name; /* "cuk_matmul" */
    user_kind kind;
    int op;           /* the cuk_ewop, cuk_unop or cuk_redop computed; 0 for the others */
    float init;       /* UE_REDUCE: the value *out holds before the launch */
} user_entry;

/* How many entry points there are, and entry i (NULL past the end). */
int user_entry_count(void);
const user_entry *user_entry_get(int i);
/* The index of the entry named name, or -1. */
int user_entry_find(const char *name);
/* The entry computing op of kind k (the ewise, unary or reduce op), or -1. */
int user_entry_of(user_kind k, int op);
const user_kind_info *user_kind_get(user_kind k);

/* The most entry points a kind can have (the length of the table). */
#define USER_ENTRIES 32

#ifdef __cplusplus
}
#endif

#endif
