/* host.c - the host's ceilings (see host.h). */
#include "engine/session/host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/values/timing.h"
#include "kernels/host_threads.h"

/* Bigger than any L3 (a copy of 64 MiB ran from cache on a host whose L3
 * is 300 MiB): the 2^26 floats the benchmarks use. */
#define COPY_BYTES ((size_t)256 << 20)
#define COPY_MS 100.0

/* The value of "key : value" lines, or NULL. */
static const char *field(const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0)
        return NULL;
    const char *colon = strchr(line, ':');
    return colon ? colon + 1 + (colon[1] == ' ') : NULL;
}

static int has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

/* SIMD width from the flags of the first CPU. */
static void parse_simd(const char *flags, host_facts *h)
{
    h->fma = has_flag(flags, "fma") || has_flag(flags, "avx512f") || has_flag(flags, "asimd");
    if (has_flag(flags, "avx512f"))
        h->simd_floats = 16, h->simd = "AVX-512";
    else if (has_flag(flags, "avx2") || has_flag(flags, "avx"))
        h->simd_floats = 8, h->simd = "AVX2";
    else if (has_flag(flags, "sse2") || has_flag(flags, "asimd"))
        h->simd_floats = 4, h->simd = has_flag(flags, "asimd") ? "NEON" : "SSE";
    else
        h->simd_floats = 1, h->simd = "scalar";
}

#define MAX_CORE_IDS 4096

/* One line of cpuinfo: count CPUs, distinct (package, core) pairs, the
 * model, the flags of the first CPU and the highest MHz seen. */
typedef struct {
    int phys, ids[MAX_CORE_IDS], nids;
    double mhz;
    int have_flags;
} cpuinfo_scan;

static void scan_line(const char *line, cpuinfo_scan *sc, host_facts *h)
{
    const char *v;
    if (field(line, "processor"))
        h->logical++;
    else if ((v = field(line, "model name")) && !h->model[0])
        snprintf(h->model, sizeof h->model, "%.*s", (int)strcspn(v, "\n"), v);
    else if ((v = field(line, "physical id")))
        sc->phys = atoi(v);
    else if ((v = field(line, "core id"))) {
        int id = sc->phys * 65536 + atoi(v), seen = 0;
        for (int i = 0; i < sc->nids && !seen; i++)
            seen = sc->ids[i] == id;
        if (!seen && sc->nids < MAX_CORE_IDS)
            sc->ids[sc->nids++] = id;
    } else if ((v = field(line, "cpu MHz")) && atof(v) > sc->mhz)
        sc->mhz = atof(v);
    else if (((v = field(line, "flags")) || (v = field(line, "Features"))) && !sc->have_flags) {
        parse_simd(v, h);
        sc->have_flags = 1;
    }
}

void host_parse(const char *cpuinfo, double clock_khz_max, host_facts *h)
{
    cpuinfo_scan *sc = calloc(1, sizeof *sc);
    memset(h, 0, sizeof *h);
    h->simd_floats = 1;
    h->simd = "scalar";
    for (const char *line = cpuinfo; sc && line && *line;) {
        scan_line(line, sc, h);
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (!h->model[0])
        snprintf(h->model, sizeof h->model, "unknown CPU");
    h->cores = sc && sc->nids > 0 ? sc->nids : h->logical;
    if (h->cores < 1)
        h->cores = h->logical = 1;
    h->clock_ghz = clock_khz_max > 0 ? clock_khz_max * 1e-6 : sc ? sc->mhz * 1e-3 : 0;
    h->clock_from = clock_khz_max > 0 ? "cpufreq max" : "cpuinfo MHz";
    h->core_gflops = h->simd_floats * 2.0 * h->clock_ghz;
    h->peak_gflops = h->core_gflops * h->cores;
    free(sc);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t n = 0, cap = 1 << 16;
    char *buf = f ? malloc(cap) : NULL;
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        char *p = realloc(buf, cap *= 2);
        if (!p)
            free(buf);
        buf = p;
    }
    if (buf)
        buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/* Bytes of a sysfs size ("1024K", "32M"); 0 if unreadable. */
static double sysfs_size(const char *path)
{
    char *text = read_text(path), *end = NULL;
    double v = text ? strtod(text, &end) : 0;
    if (end && (*end == 'K' || *end == 'k'))
        v *= 1024;
    else if (end && *end == 'M')
        v *= 1024 * 1024;
    free(text);
    return v > 0 ? v : 0;
}

/* The sizes of CPU 0's L2 and of its last level of data cache. */
static void read_caches(host_facts *h)
{
    char path[96];
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        char *level = read_text(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        char *type = read_text(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        double bytes = level && type && strncmp(type, "Instruction", 11) ? sysfs_size(path) : 0;
        if (bytes > 0 && atoi(level) == 2)
            h->l2_bytes = bytes;
        if (bytes > 0 && atoi(level) >= 2)
            h->cache_bytes = bytes > h->cache_bytes ? bytes : h->cache_bytes;
        free(level);
        free(type);
    }
}

/* Where sysfs has no cache folders (some containers and sandboxes), the C
 * library's own answer (glibc asks the processor through cpuid). */
static void read_caches_sysconf(host_facts *h)
{
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (h->l2_bytes <= 0 && l2 > 0)
        h->l2_bytes = (double)l2;
    if (h->cache_bytes <= 0)
        h->cache_bytes = l3 > l2 ? (double)l3 : l2 > 0 ? (double)l2 : 0;
#else
    (void)h;
#endif
}

const host_facts *host_get(void)
{
    static host_facts h;
    static int done;
    if (!done) {
        char *info = read_text("/proc/cpuinfo"),
             *freq = read_text("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
        host_parse(info ? info : "", freq ? atof(freq) : 0, &h);
        read_caches(&h);
        read_caches_sysconf(&h);
        free(info);
        free(freq);
        done = 1;
    }
    return &h;
}

/* The best of repeated copies of COPY_BYTES on every thread of mode blas's
 * pool, for about COPY_MS: the rate the host's memory-bound work can reach. */
static volatile char copy_sink; /* a copy nobody reads may be dropped */

static double measure_copy(void)
{
    char *a = malloc(COPY_BYTES), *b = malloc(COPY_BYTES);
    double best = 0, t_end;
    /* Two copies untimed, so that every page is mapped, by every thread at
     * once (a memset on one thread took seconds on a small VM). What a
     * holds is never read as numbers: only the copying is measured. */
    if (!a || !b || host_copy(b, a, COPY_BYTES) != 0 || host_copy(a, b, COPY_BYTES) != 0) {
        free(a);
        free(b);
        return 0;
    }
    t_end = timing_now_ms() + COPY_MS;
    for (int i = 0; i < 3 || timing_now_ms() < t_end; i++) {
        double t0 = timing_now_ms();
        char *dst = i % 2 ? a : b;
        if (host_copy(dst, i % 2 ? b : a, COPY_BYTES) != 0)
            break;
        copy_sink = dst[(size_t)i * 4099 % COPY_BYTES];
        double ms = timing_now_ms() - t0;
        double gbs = 2.0 * COPY_BYTES / (ms * 1e6);
        best = gbs > best ? gbs : best;
        if (i > 1000)
            break;
    }
    free(a);
    free(b);
    return best;
}

static double copy_gbs = -1;

double host_copy_gbs_known(void) { return copy_gbs > 0 ? copy_gbs : 0; }

double host_copy_gbs(void)
{
    double gbs = copy_gbs;
    if (gbs < 0) {
        double t0 = timing_now_ms();
        gbs = measure_copy();
        timing_onetime_note("host memory bandwidth measured (a copy on every thread)", timing_now_ms() - t0);
        copy_gbs = gbs;
    }
    return gbs;
}

/* The cache's copy: a buffer of half the L2 (at most 512 KiB, at least
 * 16 KiB) copied into its other half, over and over on this thread, for
 * about CACHE_MS; the best pass. */
#define CACHE_MS 20.0

static double measure_cache(void)
{
    double l2 = host_get()->l2_bytes;
    size_t half = l2 > 0 ? (size_t)(l2 / 4) : (size_t)64 << 10; /* src and dst: half the L2 together */
    half = half > ((size_t)256 << 10) ? (size_t)256 << 10 : half < ((size_t)8 << 10) ? (size_t)8 << 10 : half;
    char *buf = malloc(2 * half);
    double best = 0, t_end;
    if (!buf)
        return 0;
    memset(buf, 1, 2 * half);
    t_end = timing_now_ms() + CACHE_MS;
    for (int i = 0; i < 3 || timing_now_ms() < t_end; i++) {
        double t0 = timing_now_ms();
        for (int rep = 0; rep < 16; rep++)
            memcpy(buf + (rep % 2 ? 0 : half), buf + (rep % 2 ? half : 0), half);
        copy_sink = buf[(size_t)i * 131 % (2 * half)];
        double ms = timing_now_ms() - t0;
        double gbs = ms > 0 ? 2.0 * 16 * half / (ms * 1e6) : 0;
        best = gbs > best ? gbs : best;
        if (i > 100000)
            break;
    }
    free(buf);
    return best;
}

static double cache_gbs = -1;

double host_cache_gbs_known(void) { return cache_gbs > 0 ? cache_gbs : 0; }

double host_cache_gbs(void)
{
    if (cache_gbs < 0) {
        double t0 = timing_now_ms();
        cache_gbs = measure_cache();
        timing_onetime_note("host cache bandwidth measured (a copy within L2 on one core)", timing_now_ms() - t0);
    }
    return cache_gbs;
}
