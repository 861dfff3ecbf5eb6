/* backends.c - the table of modes, in the order of the kernel ladder. */
#include <string.h>

#include "kernels/backend.h"

const cuk_backend *const cuk_backends[] = {
    &cuk_backend_cpu, &cuk_backend_blas, &cuk_backend_naive,
    &cuk_backend_tiled, &cuk_backend_fast, &cuk_backend_cublas,
};

const int cuk_nbackends = (int)(sizeof cuk_backends / sizeof cuk_backends[0]);

const cuk_backend *cuk_backend_find(const char *name)
{
    for (int i = 0; i < cuk_nbackends; i++)
        if (!strcmp(cuk_backends[i]->name, name))
            return cuk_backends[i];
    return NULL;
}
