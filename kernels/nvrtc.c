/* nvrtc.c - NVRTC opened on first use (nvrtc.h). cuk links no NVRTC (its
 * 60 MB would load at every start, GPU or not): every function this file
 * calls is a pointer in one table, `api`, declared here with NVRTC's C
 * signatures (nvrtcResult is an int, nvrtcProgram an opaque pointer), so
 * that a build without the toolkit's headers has it too. */
#include "kernels/nvrtc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

typedef struct nvrtc_program_ *nvrtc_program;

#define NVRTC_FUNCTIONS(X)                                                                                      \
    X(int, nvrtcCreateProgram, (nvrtc_program *, const char *, const char *, int, const char *const *,          \
                                const char *const *))                                                           \
    X(int, nvrtcDestroyProgram, (nvrtc_program *))                                                              \
    X(int, nvrtcCompileProgram, (nvrtc_program, int, const char *const *))                                      \
    X(int, nvrtcGetProgramLogSize, (nvrtc_program, size_t *))                                                   \
    X(int, nvrtcGetProgramLog, (nvrtc_program, char *))                                                         \
    X(int, nvrtcGetPTXSize, (nvrtc_program, size_t *))                                                          \
    X(int, nvrtcGetPTX, (nvrtc_program, char *))                                                                \
    X(int, nvrtcGetCUBINSize, (nvrtc_program, size_t *))                                                        \
    X(int, nvrtcGetCUBIN, (nvrtc_program, char *))                                                              \
    X(const char *, nvrtcGetErrorString, (int))                                                                 \
    X(int, nvrtcVersion, (int *, int *))                                                                        \
    X(int, nvrtcGetNumSupportedArchs, (int *))                                                                  \
    X(int, nvrtcGetSupportedArchs, (int *))

static struct {
#define API_POINTER(ret, f, args) ret(*f) args;
    NVRTC_FUNCTIONS(API_POINTER)
#undef API_POINTER
} api;

/* NVRTC's result codes this file tells apart. */
enum { NVRTC_OK = 0, NVRTC_COMPILATION = 6 };

#define MAX_ARCHS 64

static struct {
    int state;          /* 0 not tried, 1 loaded, -1 failed (why says why) */
    char why[512];
    char version[16];
    int archs[MAX_ARCHS];
    int narchs;
} lib;

/* Where libnvrtc may be: the loader's path and cuk's run path first (the
 * toolkit's lib64 in a CUDA build), then $CUDA_HOME's, then the toolkit
 * the build saw (CUK_CUDA_LIB), for a build without CUDA on a machine
 * that has the toolkit. Newest major version first. */
static void *open_library(void)
{
    static const char *const files[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    const char *dirs[3] = {"", getenv("CUDA_HOME"), NULL};
#ifdef CUK_CUDA_LIB
    dirs[2] = CUK_CUDA_LIB;
#endif
    char path[1024], first[300] = "";
    for (int d = 0; d < 3; d++)
        for (size_t f = 0; f < sizeof files / sizeof files[0] && (d == 0 || dirs[d]); f++) {
            snprintf(path, sizeof path, "%s%s%s%s", d ? dirs[d] : "", d == 1 ? "/lib64" : "", d ? "/" : "", files[f]);
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h)
                return h;
            if (!first[0]) {
                const char *err = dlerror();
                snprintf(first, sizeof first, "%s", err ? err : "not found");
            }
        }
    snprintf(lib.why, sizeof lib.why, "cannot load NVRTC (the CUDA toolkit's runtime compiler, libnvrtc.so): %s", first);
    return NULL;
}

static int load_all(void)
{
    void *h = open_library();
    if (!h)
        return -1;
#define API_FIND(ret, f, args)                                                                       \
    if (!(*(void **)&api.f = dlsym(h, #f))) {                                                        \
        snprintf(lib.why, sizeof lib.why, "cannot load NVRTC: its library has no %s", #f);          \
        return -1;                                                                                   \
    }
    NVRTC_FUNCTIONS(API_FIND)
#undef API_FIND
    int major = 0, minor = 0;
    if (api.nvrtcVersion(&major, &minor) == NVRTC_OK)
        snprintf(lib.version, sizeof lib.version, "%d.%d", major, minor);
    if (api.nvrtcGetNumSupportedArchs(&lib.narchs) != NVRTC_OK || lib.narchs > MAX_ARCHS ||
        api.nvrtcGetSupportedArchs(lib.archs) != NVRTC_OK)
        lib.narchs = 0;
    return 0;
}

int nvrtc_load(const char **why)
{
    if (lib.state == 0) {
        lib.state = load_all() == 0 ? 1 : -1;
        if (lib.state < 0)
            memset(&api, 0, sizeof api);
    }
    if (lib.state < 0 && why)
        *why = lib.why;
    return lib.state > 0;
}

const char *nvrtc_version(void) { return lib.state > 0 ? lib.version : ""; }

int nvrtc_arch_oldest(void)
{
    int oldest = 0;
    for (int i = 0; lib.state > 0 && i < lib.narchs; i++)
        if (!oldest || lib.archs[i] < oldest)
            oldest = lib.archs[i];
    return oldest;
}

int nvrtc_arch_for(int cc)
{
    int best = 0;
    for (int i = 0; lib.state > 0 && i < lib.narchs; i++)
        if (lib.archs[i] <= cc && lib.archs[i] > best)
            best = lib.archs[i];
    return best;
}

/* A malloc'd copy of what get writes, size bytes (plus a NUL); NULL on failure. */
static char *fetch(nvrtc_program p, int (*size_of)(nvrtc_program, size_t *), int (*get)(nvrtc_program, char *),
                   size_t *len)
{
    size_t n = 0;
    if (size_of(p, &n) != NVRTC_OK)
        return NULL;
    char *buf = malloc(n + 1);
    if (buf && get(p, buf) != NVRTC_OK) {
        free(buf);
        return NULL;
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* The program's log, PTX and cubin into out. */
static int collect(nvrtc_program p, int compiled, int real_arch, nvrtc_output *out)
{
    size_t n = 0;
    out->log = fetch(p, api.nvrtcGetProgramLogSize, api.nvrtcGetProgramLog, &n);
    if (!out->log)
        return cuk_err("kernel: NVRTC gave no log");
    if (!compiled)
        return 0;
    out->ptx = fetch(p, api.nvrtcGetPTXSize, api.nvrtcGetPTX, &out->ptx_len);
    if (real_arch)
        out->cubin = fetch(p, api.nvrtcGetCUBINSize, api.nvrtcGetCUBIN, &out->cubin_len);
    if (!out->ptx || (real_arch && !out->cubin))
        return cuk_err("kernel: NVRTC compiled the file but gave no %s", out->ptx ? "cubin" : "PTX");
    out->compiled = 1;
    return 0;
}

int nvrtc_compile(const char *src, size_t len, const char *name, const char *arch, nvrtc_output *out)
{
    const char *why = NULL;
    char arch_opt[64];
    memset(out, 0, sizeof *out);
    if (!nvrtc_load(&why))
        return cuk_err("kernel: %s", why);
    char *text = malloc(len + 1); /* NVRTC reads a NUL-terminated string */
    if (!text)
        return cuk_err("out of host memory");
    memcpy(text, src, len);
    text[len] = '\0';
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", arch);
    const char *opts[] = {arch_opt, "-lineinfo", "-std=c++17"};
    nvrtc_program p = NULL;
    int rc = api.nvrtcCreateProgram(&p, text, name, 0, NULL, NULL);
    if (rc == NVRTC_OK) {
        int c = api.nvrtcCompileProgram(p, (int)(sizeof opts / sizeof opts[0]), opts);
        rc = c == NVRTC_OK || c == NVRTC_COMPILATION
                 ? (collect(p, c == NVRTC_OK, !strncmp(arch, "sm_", 3), out) == 0 ? NVRTC_OK : -1)
                 : c;
        api.nvrtcDestroyProgram(&p);
    }
    free(text);
    if (rc > 0)
        cuk_err("kernel: NVRTC failed: %s", api.nvrtcGetErrorString(rc));
    return rc == NVRTC_OK ? 0 : -1;
}

void nvrtc_output_free(nvrtc_output *out)
{
    free(out->log);
    free(out->ptx);
    free(out->cubin);
    memset(out, 0, sizeof *out);
}
