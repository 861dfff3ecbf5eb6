/* gpu_none.c - kernels/gpu.h for a build without CUDA: there is never a
 * device, so the GPU modes of the table (modes.c) are listed as unavailable
 * with this file's reason, and their ops are never called. Also the user
 * modes' helper process (user_client.h), which then never starts. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "kernels/fast/plan.h"
#include "kernels/gpu.h"
#include "kernels/user_client.h"

/* Why, as the build found it: WITH_CUDA=0 given, or no nvcc to build with. */
#ifdef CUK_CUDA_LEFT_OUT
#define NO_CUDA "cuk was built without CUDA (left out of the build: WITH_CUDA=0)"
#else
#define NO_CUDA "cuk was built without CUDA (nvcc not found at build time)"
#endif

static int no_cuda(void)
{
    return cuk_err("%s", NO_CUDA);
}

int gpu_init(void) { return -1; }

int gpu_usable(const char **why)
{
    if (why)
        *why = NO_CUDA;
    return 0;
}

const gpu_info *gpu_device(void) { return NULL; }
void gpu_poison(const char *why) {}

int gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    return no_cuda();
}

int gpu_raw_alloc(void **p, size_t bytes)
{
    *p = NULL;
    return no_cuda();
}

int gpu_raw_free(void *p) { return p ? no_cuda() : 0; }
int gpu_scratch_release(void) { return 0; }
int gpu_memset(void *p, int byte, size_t bytes) { return no_cuda(); }
int gpu_h2d(void *dst, const void *src, size_t bytes) { return no_cuda(); }
int gpu_d2h(void *dst, const void *src, size_t bytes) { return no_cuda(); }
int gpu_d2d(void *dst, const void *src, size_t bytes) { return no_cuda(); }
int gpu_launch_empty(void) { return no_cuda(); }
int gpu_gate_close(double timeout_us) { return no_cuda(); }
void gpu_gate_open(void) {}
int gpu_sync(void) { return 0; }   /* nothing was queued */
int gpu_idle(void) { return 1; }

/* Mode fast's device facts: none without CUDA. */
int fast_device_facts(fast_device *dev) { return no_cuda(); }

gpu_mark *gpu_mark_new(void) { return NULL; }
int gpu_mark_record(gpu_mark *m) { return 0; }
double gpu_mark_elapsed(gpu_mark *from, gpu_mark *to) { return -1.0; }

int gpu_cublas_version(void) { return 0; }

int gpu_kernel_rows(const struct cuk_backend *mode, gpu_kernel_row *rows, int cap) { return 0; }
void gpu_kernel_ran_elsewhere(const struct cuk_backend *mode, const gpu_kernel_row *row) {}
void gpu_kernels_forget(const struct cuk_backend *mode) {}

int gpu_count(void) { return 0; }
int gpu_facts_of(int g, device_facts *f, size_t *free_bytes, size_t *total_bytes) { return no_cuda(); }
int gpu_link_of(int i, int j, gpu_link *out) { return no_cuda(); }

int gpu_spread_alloc(void **p, size_t bytes)
{
    *p = NULL;
    return no_cuda();
}

int gpu_spread_free(void *p) { return p ? no_cuda() : 0; }

int gpu_spread_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    return no_cuda();
}

int gpu_spread_fill(void *p, int byte, size_t bytes) { return no_cuda(); }
size_t gpu_spread_held(int g) { return 0; }
int gpu_spread_parts(const void *p, size_t bytes, int *gpu, size_t *start, size_t *len) { return 0; }
int gpu_spread_split(size_t bytes)
{
    no_cuda();
    return 0;
}

int gpu_spread_copy(void *dst, const void *src, size_t bytes) { return no_cuda(); }
int gpu_host_pin(void *p, size_t bytes) { return -1; }
int gpu_host_unpin(void *p) { return p ? -1 : 0; }

/* Counters: there is no GPU to count on. A driver that denies them is
 * faked here as in gpu_counters.cu, so that tests see its words anywhere. */
static int deny_counters;

void gpu_counters_test_deny(int on) { deny_counters = on; }

gpu_counters_status gpu_counters_check(char *detail, size_t cap)
{
    snprintf(detail, cap, "%s", deny_counters ? "cuptiRangeProfilerStart: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : NO_CUDA);
    return deny_counters ? GPU_COUNTERS_DENIED : GPU_COUNTERS_NO_GPU;
}

gpu_counters_status gpu_counters_begin(const gpu_metric *metrics, int n, int every_gpu, char *detail, size_t cap)
{
    return gpu_counters_check(detail, cap);
}

void gpu_counters_hold(void) {}
void gpu_counters_resume(void) {}
int gpu_counting(void) { return 0; }

int gpu_counters_end(gpu_counter_row *rows, int cap, gpu_counter_summary *sum, char *detail, size_t detail_cap)
{
    memset(sum, 0, sizeof *sum);
    return 0;
}

int gpu_counters_known(const char *chip, const gpu_metric *metrics, int n, int *unknown, int *passes, char *detail,
                       size_t cap)
{
    *unknown = -1;
    *passes = 0;
    snprintf(detail, cap, "%s", NO_CUDA);
    return -1;
}

int gpu_pci_bus_id(int g, char *buf, int cap) { return -1; }
int uc_load(int slot, const void *image, size_t len, const int *defined, user_kernel_facts *facts)
{
    return no_cuda();
}

int uc_loaded(int slot) { return 0; }
int uc_run(const uc_request *r, uc_result *res) { return no_cuda(); }
int uc_fetch(void *host, size_t bytes) { return no_cuda(); }
int uc_deliver(float *dst, size_t bytes) { return no_cuda(); }
int uc_alive(void) { return 0; }
void uc_close(void) {}

int uc_helper_serve(void)
{
    fprintf(stderr, "cuk: %s\n", NO_CUDA);
    return 1;
}
