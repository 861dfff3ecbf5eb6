/* host.h - the host's ceilings, as `info`, `why` and bench's "% of peak"
 * use them: the CPU's FP32 peak (cores x SIMD width x 2 x clock, read from
 * /proc/cpuinfo and cpufreq), its memory bandwidth, measured once by a
 * short copy on every thread of mode blas's pool, and its caches: their
 * sizes (sysfs) and one core's bandwidth inside L2, measured once by a
 * copy that stays there. */
#ifndef CUK_HOST_H
#define CUK_HOST_H

typedef struct {
    char model[128];
    int logical, cores;        /* logical CPUs, physical cores */
    int simd_floats;           /* float32 lanes of the widest vector unit */
    const char *simd;          /* "AVX-512", "AVX2", "SSE", "NEON", "scalar" */
    int fma;                   /* fused multiply-add: the 2 of the formula */
    double clock_ghz;          /* the maximum clock, 0 if unknown */
    const char *clock_from;    /* "cpufreq max" or "cpuinfo MHz" */
    double core_gflops;        /* one core: simd x 2 x clock */
    double peak_gflops;        /* all cores */
    double l2_bytes;           /* one core's L2; 0 if unknown */
    double cache_bytes;        /* the last level of cache (all of it); 0 if unknown */
} host_facts;

/* The CPU, read once. */
const host_facts *host_get(void);

/* Copy bandwidth of all cores in GB/s (bytes read + written per second),
 * measured on the first call (about 0.3 s, a one-time cost kept apart from
 * every timed region); 0 if it could not be measured. */
double host_copy_gbs(void);
/* The same if it has been measured already, else 0 (never measures). */
double host_copy_gbs_known(void);

/* One core's copy bandwidth in GB/s (bytes read + written per second)
 * within its L2, measured on the first call (about 20 ms, a one-time cost
 * like the memory's); 0 if it could not be. The roof of a host kernel whose
 * operands stay in the caches. */
double host_cache_gbs(void);
/* The same if it has been measured already, else 0 (never measures). */
double host_cache_gbs_known(void);

/* Parse cpuinfo text (tests feed it a fixture); clock_khz_max is cpufreq's
 * cpuinfo_max_freq, 0 if absent. */
void host_parse(const char *cpuinfo, double clock_khz_max, host_facts *out);

#endif
