/* gpu_live.h - a GPU's state now, from NVML (the driver's management
 * library): how busy it is, its clocks, power against the limit, its
 * temperature, and why its clocks are held down when they are. NVML is
 * opened with dlopen on first use (libnvidia-ml.so.1, which the driver
 * installs; CUK_NVML names another file) and its few entry points are
 * declared here by cuk itself, so that nothing of NVML is needed to build. */
#ifndef CUK_GPU_LIVE_H
#define CUK_GPU_LIVE_H

/* Why the clocks are held down: cuk's own bits, from NVML's reasons. */
enum {
    GPU_SLOW_POWER = 1,        /* the power cap (software) */
    GPU_SLOW_THERMAL = 2,      /* too hot (software or hardware slowdown) */
    GPU_SLOW_HARDWARE = 4,     /* hardware slowdown: power brake, or an external signal */
    GPU_SLOW_SETTING = 8,      /* application clocks set below the most */
    /* held down by the GPU itself, not by a setting: what a timing warns of */
    GPU_SLOW_THROTTLED = GPU_SLOW_POWER | GPU_SLOW_THERMAL | GPU_SLOW_HARDWARE
};

typedef struct {
    unsigned util_gpu;         /* % of the last sample period a kernel ran */
    unsigned util_mem;         /* % of it memory was read or written */
    unsigned sm_mhz, sm_max_mhz, mem_mhz;
    double power_w, limit_w;   /* drawn now, and the limit enforced */
    unsigned temp_c;
    unsigned slow;             /* GPU_SLOW_* bits: why the clocks are down now; 0 if not */
} gpu_live;

/* GPU g's state now (g as CUDA numbers it): 0; or -1 and *why when NVML
 * cannot be had or does not know the GPU. Figures NVML does not give for
 * this GPU are 0. No error is set. */
int gpu_live_read(int g, gpu_live *out, const char **why);

/* The reasons seen by gpu_live_read on any GPU since the last
 * gpu_live_mark (a timing says whether it was slowed), ORed with GPU g's
 * now when g >= 0. */
void gpu_live_mark(void);
unsigned gpu_live_slowed_since(int g);

#endif
