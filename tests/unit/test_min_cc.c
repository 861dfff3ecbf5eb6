/* test_min_cc.c - a mode that needs a newer GPU than the one present says
 * so, by name and with what it needs, before any of its kernels runs: the
 * TF32 modes (tensor cores of compute capability 8.0 on) on a 7.5 GPU
 * (Turing, the oldest the Makefile builds for), mode ozaki (INT8 tensor
 * cores, 7.5 on) on a 7.0 one, through the same check mode_available
 * makes with the device's own compute capability. No GPU needed. */
#include <string.h>

#include "kernels/backend.h"
#include "tests/check.h"

/* The modes that run TF32 tensor-core instructions. */
static const char *const tf32_modes[] = {"tf32", "tf32x3"};
#define NTF32 (int)(sizeof tf32_modes / sizeof tf32_modes[0])

static void tf32_modes_need_ampere(void)
{
    for (int i = 0; i < NTF32; i++) {
        const cuk_backend *m = mode_find(tf32_modes[i]);
        CHECKF(m != NULL, "mode %s is in the table", tf32_modes[i]);
        if (m)
            CHECKF(m->min_cc == 80, "mode %s: min_cc %d", m->name, m->min_cc);
    }
}

static void turing_is_refused_by_name(void)
{
    for (int i = 0; i < NTF32; i++) {
        const cuk_backend *m = mode_find(tf32_modes[i]);
        const char *why = m ? mode_cc_refusal(m, 7, 5) : NULL;
        CHECKF(why != NULL, "mode %s on a 7.5 GPU", tf32_modes[i]);
        if (!why)
            continue;
        char want[160];
        snprintf(want, sizeof want,
                 "mode %s needs TF32 tensor cores, which came with compute capability 8.0; this GPU is 7.5", m->name);
        CHECKF(strcmp(why, want) == 0, "got \"%s\"", why);
    }
}

static void ampere_and_later_run_them(void)
{
    static const int cc[][2] = {{8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {12, 0}};
    for (int i = 0; i < NTF32; i++) {
        const cuk_backend *m = mode_find(tf32_modes[i]);
        for (int j = 0; m && j < (int)(sizeof cc / sizeof cc[0]); j++)
            CHECKF(mode_cc_refusal(m, cc[j][0], cc[j][1]) == NULL, "mode %s on %d.%d", m->name, cc[j][0],
                   cc[j][1]);
    }
}

/* Mode ozaki runs on Turing and later, and says what a 7.0 GPU lacks. */
static void ozaki_needs_int8_tensor_cores(void)
{
    const cuk_backend *m = mode_find("ozaki");
    CHECKF(m && m->min_cc == 75, "mode ozaki: min_cc %d", m ? m->min_cc : -1);
    const char *why = m ? mode_cc_refusal(m, 7, 0) : NULL;
    CHECKF(why && !strcmp(why, "mode ozaki needs INT8 tensor cores, which came with compute capability 7.5; this GPU "
                               "is 7.0"),
           "got \"%s\"", why ? why : "(none)");
    CHECKF(m && mode_cc_refusal(m, 7, 5) == NULL && mode_cc_refusal(m, 9, 0) == NULL, "refused on 7.5 or 9.0");
}

/* Every other mode runs on any GPU the build supports: only rows that
 * name a min_cc are refused below it, saying what they need. */
static void other_modes_run_anywhere(void)
{
    for (int i = 0; i < mode_count(); i++) {
        const cuk_backend *m = mode_get(i);
        int below = m->min_cc - 1;
        const char *why = mode_cc_refusal(m, 7, 5), *low = mode_cc_refusal(m, below / 10, below % 10);
        if (m->min_cc == 0)
            CHECKF(why == NULL, "mode %s refused on 7.5: %s", m->name, why);
        else
            CHECKF(low != NULL && strstr(low, m->name) && m->min_cc_what && strstr(low, m->min_cc_what),
                   "mode %s (min_cc %d) below it: %s", m->name, m->min_cc, low ? low : "(not refused)");
    }
}

int main(void)
{
    RUN(tf32_modes_need_ampere);
    RUN(turing_is_refused_by_name);
    RUN(ampere_and_later_run_them);
    RUN(ozaki_needs_int8_tensor_cores);
    RUN(other_modes_run_anywhere);
    return check_exit();
}
