/* ozaki_plan.c - mode ozaki's choices, apart from its kernels so that they
 * build and are tested without a GPU: where the scheme runs, how many
 * slices it takes, and what the last product did, in words for `why`. */
#include "kernels/ozaki.h"

#include <stdio.h>

int ozaki_worth(int m, int n, int k)
{
    return m >= OZAKI_MIN_SIDE && n >= OZAKI_MIN_SIDE && k >= OZAKI_MIN_K && k <= OZAKI_MAX_K &&
           (double)m * n * k >= OZAKI_MIN_MNK;
}

/* One slice more for every 7 bits of bulk past the free ones. */
int ozaki_slices_for(int bulk_a_milli, int bulk_b_milli)
{
    int bulk = (bulk_a_milli + bulk_b_milli + 999) / 1000, s = OZAKI_SLICES;
    while (bulk > OZAKI_BULK_FREE + 7 * (s - OZAKI_SLICES) && s < OZAKI_MAX_SLICES)
        s++;
    return s;
}

static ozaki_choice last;

void ozaki_record(const ozaki_choice *c) { last = *c; }

const ozaki_choice *ozaki_last(void) { return &last; }

const char *ozaki_describe(const ozaki_choice *c, char *buf, size_t cap)
{
    switch (c->how) {
    case OZAKI_SLICED:
        snprintf(buf, cap,
                 "%d slices of 7 bits on the INT8 tensor cores, %d GEMMs: a's rows stand %.1f bits above "
                 "their rms, b's columns %.1f (%d bits free at %d slices, 7 more a slice); rows span 2^%d, "
                 "columns 2^%d",
                 c->slices, c->slices, c->bulk_a / 1000.0, c->bulk_b / 1000.0, OZAKI_BULK_FREE, OZAKI_SLICES,
                 c->span_a, c->span_b);
        break;
    case OZAKI_ON_FP32:
        snprintf(buf, cap,
                 "on fast's FP32 kernels: the scheme runs only where both sides of c are %d or more, k is "
                 "%d to %d and m n k at least 2^31, where its INT8 products outweigh the passes around them",
                 OZAKI_MIN_SIDE, OZAKI_MIN_K, OZAKI_MAX_K);
        break;
    case OZAKI_NONFINITE:
        snprintf(buf, cap, "on fast's FP32 kernels: an operand holds inf or NaN, which have no integer slices");
        break;
    default:
        snprintf(buf, cap, "no product yet");
    }
    return buf;
}

const char *ozaki_explain(char *buf, size_t cap)
{
    return last.how == OZAKI_NONE ? NULL : ozaki_describe(&last, buf, cap);
}
