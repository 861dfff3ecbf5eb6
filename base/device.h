/* device.h - what a GPU is, as plain values: filled by the CUDA runtime
 * layer (kernels/gpu.h), shown by `info` and the panel (engine/session/snapshot.h). */
#ifndef CUK_DEVICE_H
#define CUK_DEVICE_H

#include <stddef.h>

typedef struct {
    char name[256];
    int cc_major, cc_minor;
    int sms;
    int fp32_lanes_per_sm;     /* FP32 units per SM for this architecture */
    double clock_ghz;          /* boost clock the peak is computed from */
    double peak_gflops;        /* sms * lanes * 2 * clock */
    double mem_bw_gbs;         /* 2 * memory clock * bus width / 8 */
    size_t mem_total;
    size_t l2_bytes;
    int max_threads_per_sm;
    size_t smem_per_sm;
    int driver_version, runtime_version;  /* CUDA's encoding: 13000 is 13.0 */
} device_facts;

#endif
