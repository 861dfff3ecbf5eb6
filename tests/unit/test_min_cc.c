/* test_min_cc.c - a mode that needs a newer GPU than the one present says
 * so, by name, before any of its kernels runs: the TF32 modes (tensor
 * cores of compute capability 8.0 on) on a 7.5 GPU (Turing, the oldest
 * the Makefile builds for), through the same check mode_available makes
 * with the device's own compute capability. No GPU needed. */
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
        snprintf(want, sizeof want, "mode %s needs a GPU of compute capability 8.0 or later; this one is 7.5",
                 m->name);
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

/* Every other mode runs on any GPU the build supports: only rows that
 * name a min_cc are refused. */
static void other_modes_run_anywhere(void)
{
    for (int i = 0; i < mode_count(); i++) {
        const cuk_backend *m = mode_get(i);
        const char *why = mode_cc_refusal(m, 7, 5);
        if (m->min_cc == 0)
            CHECKF(why == NULL, "mode %s refused on 7.5: %s", m->name, why);
        else
            CHECKF(why != NULL && strstr(why, m->name), "mode %s (min_cc %d) on 7.5", m->name, m->min_cc);
    }
}

int main(void)
{
    RUN(tf32_modes_need_ampere);
    RUN(turing_is_refused_by_name);
    RUN(ampere_and_later_run_them);
    RUN(other_modes_run_anywhere);
    return check_exit();
}
