/* snapshot.h - facts about the device and memory as plain values, taken in
 * one call: what `info`, `who` and a front end's panel show, so that none of
 * them reaches into the GPU runtime or the pool. Mode multi adds every
 * visible GPU, how they are linked, and where a spread matrix's rows lie. */
#ifndef CUK_SNAPSHOT_H
#define CUK_SNAPSHOT_H

#include <stddef.h>

#include "base/device.h"

struct cuk_matrix;

/* At most this many GPUs are listed: kernels/gpu.h's GPU_MAX_DEVICES
 * (snapshot.c checks that the two agree). */
#define SNAP_MAX_GPUS 8

typedef struct {
    int usable;               /* 0: no device; why says why */
    const char *why;
    device_facts f;
} snap_device;

typedef struct {
    size_t host_matrices;     /* bytes of host memory held by matrices */
    int device;               /* 0: no device figures (why says why) */
    const char *why;
    size_t dev_total, dev_free;
    size_t pool_in_use;       /* bytes of device memory matrices asked for */
    size_t pool_held;         /* bytes the pool holds from the device */
    unsigned long long device_allocs;
    /* Spread memory (mode multi's matrices, a row slab on each GPU): */
    size_t spread_in_use;     /* bytes matrices asked for */
    size_t spread_held;       /* bytes the spread pool holds; 0: multi holds none */
    int spread_gpus;          /* entries of spread_on: the visible GPUs */
    size_t spread_on[SNAP_MAX_GPUS]; /* bytes the spread pool holds on each GPU */
} snap_memory;

void snap_device_get(snap_device *d);
void snap_memory_get(snap_memory *m);

/* One visible GPU: its facts, its memory now, and cuk's bytes on it. */
typedef struct {
    device_facts f;
    size_t free, total;
    /* Matrices: the device pool's (GPU 0 only: the single-GPU modes') and
     * what spread memory holds there (its cached blocks too: the spread
     * pool does not say on which GPUs a free block's bytes are). */
    size_t matrices;
    size_t pool_held;         /* matrices and the device pool's cached blocks */
} snap_gpu;

typedef struct {
    int n;                    /* visible GPUs; 0: none, or one could not be read (why) */
    const char *why;
    snap_gpu gpu[SNAP_MAX_GPUS]; /* GPU 0 is the single-GPU modes' */
} snap_gpus;

/* Every visible GPU. Reading a GPU's memory opens a CUDA context on it (a
 * few hundred MiB of that GPU, and a fraction of a second the first time),
 * so this is for `info`, and for the panel once spread memory is in use
 * (mode multi has opened every GPU then). */
void snap_gpus_get(snap_gpus *s);

/* A GPU's state now, from NVML (kernels/gpu_live.h): what the panel shows
 * live and `info` lists. */
typedef struct {
    int known;                /* 0: NVML could not say; why says why */
    const char *why;
    unsigned util_gpu, util_mem;  /* % of the last sample period busy */
    unsigned sm_mhz, sm_max_mhz, mem_mhz;
    double power_w, limit_w;
    unsigned temp_c;
    unsigned slow;            /* SNAP_SLOW_* bits: why the clocks are held down now */
} snap_live_gpu;

/* The reasons, as kernels/gpu_live.h's GPU_SLOW_* (snapshot.c checks). */
#define SNAP_SLOW_POWER 1
#define SNAP_SLOW_THERMAL 2
#define SNAP_SLOW_HARDWARE 4
#define SNAP_SLOW_SETTING 8

typedef struct {
    int n;                    /* visible GPUs */
    snap_live_gpu gpu[SNAP_MAX_GPUS];
} snap_live;

/* Every visible GPU's state, sampled at most every SNAP_LIVE_MS: the panel
 * asks at every redraw and, while a long command runs, at every tick. */
#define SNAP_LIVE_MS 250.0
void snap_live_get(snap_live *l);
/* Why the clocks were held down, in a few words ("power cap, hot"); "" if
 * bits is 0. */
const char *snap_slow_words(unsigned bits, char *buf, size_t cap);

/* How GPUs i and j are linked, each way: [0] is j's memory read by i (a
 * copy from j to i), [1] the reverse. */
typedef struct {
    int peer[2];              /* direct access to the other's memory */
    int nvlink;               /* NVLink both ways: native atomics across the link, which PCIe lacks */
    double gbs[2];            /* copy bandwidth, measured by cuk once (not a datasheet figure) */
} snap_link;

/* The link between GPUs i and j (i != j), measured the first time it is
 * asked (a copy of a few hundred MiB each way): 0, or -1 with the error set. */
int snap_link_get(int i, int j, snap_link *l);

/* Where a matrix's rows lie across the GPUs: rows first[k] .. first[k] +
 * count[k] - 1 on GPU gpu[k], in GPU order. */
typedef struct {
    int n;                    /* 0: not in spread memory */
    int gpu[SNAP_MAX_GPUS];
    int first[SNAP_MAX_GPUS], count[SNAP_MAX_GPUS];
} snap_slabs;

/* The row slabs of m when its device copy is in spread memory (n = 0 if it
 * is not): a row is on the GPU its first element is on, the rule mode
 * multi's kernels split their work by (kernels/gpu_multi.cu). */
void snap_slabs_of(const struct cuk_matrix *m, snap_slabs *s);
/* The same rule on the parts of a rows x cols float32 matrix, part k being
 * bytes start[k] .. start[k] + len[k] - 1 of it on GPU gpu[k] (as
 * kernels/gpu.h's gpu_spread_parts gives them); a part holding no row's
 * first element gets no slab. */
void snap_slabs_from_parts(snap_slabs *s, int rows, int cols, int nparts, const int *gpu, const size_t *start,
                           const size_t *len);

/* 1 if m is a matrix of mode multi that the GPUs could not hold, in host
 * memory (and not also on a GPU since). */
int snap_out_of_core(const struct cuk_matrix *m);
/* Where m lives, in `who`'s and the panel's words: mat_where's, or "host
 * (out of core)" for a matrix snap_out_of_core. */
const char *snap_where(const struct cuk_matrix *m);
/* The GPUs m's device copy lies on: 0 none, 1 GPU 0 alone, or the count
 * of GPUs its row slabs are on (GPUs 0 to n-1). */
int snap_gpus_of(const struct cuk_matrix *m);
/* snap_where's words with the GPUs where more than one is visible:
 * "device (GPU 0)", "host+device (GPUs 0-1)"; in buf, or snap_where's. */
const char *snap_where_gpus(const struct cuk_matrix *m, char *buf, size_t cap);

#endif
