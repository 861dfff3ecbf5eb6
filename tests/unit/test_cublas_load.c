/* test_cublas_load.c - in a CUDA build, cuBLAS is not linked but opened on
 * first use (kernels/gpu_cublas.cu): where the toolkit is installed, every
 * function of its table resolves, with or without a GPU; mode cublas's row
 * asks for it. Skipped in a build without CUDA. */
#include "kernels/backend.h"
#include "tests/check.h"

#ifdef CUK_HAVE_CUDA
int cublas_load(const char **why);

static void cublas_loads_on_demand(void)
{
    const char *why = "";
    CHECK(mode_find("cublas")->load == cublas_load);
    CHECKF(cublas_load(&why), "%s", why);
    CHECK(cublas_load(&why)); /* once loaded, it stays */
}
#endif

int main(void)
{
#ifdef CUK_HAVE_CUDA
    RUN(cublas_loads_on_demand);
#else
    check_skip("cublas_loads_on_demand", "cuk was built without CUDA");
#endif
    return check_exit();
}
