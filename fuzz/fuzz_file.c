/* fuzz_file.c - libFuzzer target: one input as a matrix file, loaded the
 * way load("in.npy") loads it (fileio_load: the dispatch, then npy.c or
 * csv.c). Built twice, as fuzz_npy and fuzz_csv (FUZZ_EXT). What loads is
 * saved and loaded again, and must come back the same (.csv is written
 * with 9 digits, which give every float32 back).
 *
 *   make fuzz SECONDS=60      (fuzz/run.sh: every target, corpus, dictionary) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/files/fileio.h"
#include "fuzz/harness.h"

#ifndef FUZZ_EXT
#define FUZZ_EXT ".npy"
#endif

/* Saving m and loading the file again gives m back. */
static void round_trip(cuk_matrix *m)
{
    if (fileio_save(m, "out" FUZZ_EXT) != 0)
        return; /* e.g. interrupted by the work budget */
    cuk_matrix *back = fileio_load("out" FUZZ_EXT);
    if (!back)
        abort(); /* what cuk wrote, cuk cannot read */
    if (back->rows != m->rows || back->cols != m->cols)
        abort();
    for (size_t i = 0; i < mat_numel(m); i++) {
        float a = m->host[i], b = back->host[i];
        if (isnan(a) ? !isnan(b) : a != b)
            abort();
    }
    mat_unref(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuk_session *s = fuzz_begin(0);
    if (!s)
        return 0;
    if (fuzz_write_file("in" FUZZ_EXT, data, size) == 0) {
        cuk_matrix *m = fileio_load("in" FUZZ_EXT);
        if (m) {
            round_trip(m);
            mat_unref(m);
        }
    }
    fuzz_end(s);
    return 0;
}
