/* kernel.c - `kernel "file.cu" [for ARCH]`: a user's CUDA file compiled
 * with NVRTC and made a mode named after it (kernels/user.h), its
 * compiler's messages shown as cuk shows its own errors; and cuk started
 * as the helper process that runs user kernels (kernel.h). */
#include "engine/run/kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/lang/caret.h"
#include "engine/lang/commands.h"
#include "kernels/gpu.h"
#include "kernels/nvrtc.h"
#include "kernels/user.h"

/* A CUDA file larger than this is not one a student wrote. */
#define MAX_SOURCE ((size_t)4 << 20)

int kernel_helper_main(int argc, char **argv) { return user_helper_main(argc, argv); }

/* The whole of path into *text (NUL-terminated): 0, or -1 with the error set. */
static int read_source(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuk_err("kernel: cannot read '%s': %s", path, strerror(errno));
    char *buf = malloc(MAX_SOURCE + 1);
    size_t n = buf ? fread(buf, 1, MAX_SOURCE + 1, f) : 0;
    int failed = ferror(f);
    fclose(f);
    if (!buf)
        return cuk_err("out of host memory");
    if (failed || n > MAX_SOURCE) {
        free(buf);
        return failed ? cuk_err("kernel: cannot read '%s'", path)
                      : cuk_err("kernel: '%s' is larger than 4 MiB: is it a CUDA source file?", path);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

/* Byte offset of line and column (1-based; column 0: the line's first
 * character that is not blank) in text. */
static size_t offset_of(const char *text, size_t len, int line, int col)
{
    size_t p = 0;
    for (int l = 1; l < line && p < len; p++)
        if (text[p] == '\n')
            l++;
    if (col > 0) {
        for (int c = 1; c < col && p < len && text[p] != '\n'; c++)
            p++;
        return p;
    }
    while (p < len && (text[p] == ' ' || text[p] == '\t'))
        p++;
    return p;
}

/* The compiler's messages, and ours about the file, each with its place. */
static void show_diags(const char *file, const char *src, size_t len, const user_build *b)
{
    for (int i = 0; i < b->ndiag; i++) {
        const user_diag *d = &b->diag[i];
        const char *kind = d->error ? "error" : "warning";
        if (d->line <= 0)
            out_errorf("%s: %s: %s\n", file, kind, d->msg);
        else
            caret_report(file, src, len, offset_of(src, len, d->line, d->col), kind, d->msg);
    }
    int more = b->nerrors + b->nwarnings - b->ndiag;
    if (more > 0)
        out_errorf("%s: %d more message%s not shown\n", file, more, more == 1 ? "" : "s");
}

/* One line per entry point: its launch, and with a GPU what the driver
 * says of it. */
static void show_entries(const cuk_backend *m, const user_build *b, const char *src, size_t len)
{
    char launch[200];
    user_kernel_facts f;
    for (int e = 0; e < user_entry_count(); e++) {
        if (!b->defined[e])
            continue;
        out_printf("  %-14s %s", user_entry_get(e)->name, ul_describe(&b->launch, e, src, len, launch, sizeof launch));
        if (m && user_mode_facts(m, e, &f))
            out_printf("; %d registers, %d B shared, %d B local a thread", f.regs, f.static_smem, f.local_bytes);
        out_printf("\n");
    }
}

/* What `kernel` made. */
static void report(const cuk_backend *m, const user_build *b, const char *path, const char *src, size_t len,
                   int replaced)
{
    if (!mode_available(m, NULL))
        out_printf("compiled %s for %s (NVRTC %s); no GPU here to run it: mode %s is listed, unavailable\n", path,
                   b->arch, nvrtc_version(), m->name);
    else
        out_printf("mode %s %s: %s compiled for %s (NVRTC %s); the rest from %s\n", m->name,
                   replaced ? "made again (the workspace is kept)" : "made", path, b->arch, nvrtc_version(), m->base);
    show_entries(m, b, src, len);
    if (mode_available(m, NULL))
        out_printf("`mode %s` runs them; `bench %s tiled cublas: A @ B` compares\n", m->name, m->name);
}

/* Compile, show the messages, and make the mode (or, for an architecture
 * named, only check it). */
static int build(cuk_session *s, const stmt *st, const char *path, const char *src, size_t len, user_build *b)
{
    const char *for_arch = st->narg > 1 ? st->arg[1]->text : NULL;
    const cuk_backend *m = NULL;
    char arch[16];
    int replaced = 0;
    if (user_pick_arch(for_arch, arch, sizeof arch) != 0) {
        cuk_err_locate(for_arch ? st->arg[1]->pos : st->arg[0]->pos);
        return -1;
    }
    if (user_compile(path, src, len, arch, b) != 0)
        return -1;
    show_diags(path, src, len, b);
    if (b->nerrors)
        return cuk_err("kernel: %s did not compile (%d error%s)", path, b->nerrors, b->nerrors == 1 ? "" : "s");
    if (for_arch) {
        out_printf("compiled %s for %s (NVRTC %s); no mode is made for another architecture\n", path, arch,
                   nvrtc_version());
        show_entries(NULL, b, src, len);
        return 0;
    }
    if (user_mode_register(b, path, src, len, &m, &replaced) != 0)
        return -1;
    report(m, user_mode_build(m, NULL, NULL), path, src, len, replaced);
    return 0;
}

int cmd_kernel(cuk_session *s, const stmt *st)
{
    char *path = session_path(s, st->arg[0]->text), *src = NULL;
    size_t len = 0;
    user_build *b = calloc(1, sizeof *b);
    int rc = !path ? -1 : !b ? cuk_err("out of host memory") : read_source(path, &src, &len);
    if (rc == 0)
        rc = build(s, st, path, src, len, b);
    if (rc != 0)
        cuk_err_locate(st->arg[0]->pos);
    if (b)
        user_build_free(b);
    free(b);
    free(src);
    free(path);
    return rc;
}

/* ---- help kernel ---- */

static const char help_intro[] =
    "\n"
    "your CUDA C file, compiled with NVRTC, becomes a mode named after the file, beside the\n"
    "built-in ones in `modes`, bench, ladder, why, kernels and the panel; `kernel` again\n"
    "after an edit makes it anew and keeps the workspace. Without a GPU the file still\n"
    "compiles (for compute_75, the oldest), so that its errors can be fixed anywhere.\n"
    "\n"
    "entry points: define any of these as extern \"C\" __global__ void NAME(...); the\n"
    "others come from the base mode (tiled). Matrices are row-major float32.\n";

static const char help_launch[] =
    "\n"
    "launch line: a comment of its own before the entry point, or naming it:\n"
    "  // cuk: block 16 16; grid ceil(n / 16) ceil(m / 16); smem 0\n"
    "  // cuk: cuk_sum block 256; grid min(ceil(n / 256), 4096)\n"
    "  // cuk: base cublas; reuse 16\n"
    "  block, grid: 1 to 3 sizes (x y z); smem: bytes of dynamic shared memory.\n"
    "  sizes are whole numbers over the int parameters: + - * / ( ) min(a, b)\n"
    "  max(a, b); / rounds down as in C, ceil(a / b) rounds up.\n"
    "  base: the mode the rest comes from; reuse: multiply-adds per float loaded, for `why`.\n"
    "\n"
    "every result is checked: the first of each shape against float64, before any time is\n"
    "shown; a wrong one is an error naming the first wrong element and the pattern, and\n"
    "nothing is bound. The kernels run in a helper process on copies of the operands, with\n"
    "guard zones around each buffer: a write past a buffer, an illegal address, a trap or a\n"
    "kernel running past `set kernel timeout S` (default 5 s) is an error, and the session's\n"
    "matrices and the other modes are untouched. printf in a kernel shows here.\n"
    "\n"
    "example, my_matmul.cu:\n";

/* The example of `help kernel`: a whole file (tests compile it). */
static const char help_example[] =
    "// cuk: block 16 16; grid ceil(n / 16) ceil(m / 16)\n"
    "extern \"C\" __global__ void cuk_matmul(float *C, const float *A, const float *B,\n"
    "                                      int m, int n, int k)\n"
    "{\n"
    "    int i = blockIdx.y * blockDim.y + threadIdx.y; /* the row of C */\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x; /* its column */\n"
    "    if (i < m && j < n) {\n"
    "        float s = 0;\n"
    "        for (int l = 0; l < k; l++)\n"
    "            s += A[i * k + l] * B[l * n + j];\n"
    "        C[i * n + j] = s;\n"
    "    }\n"
    "}\n";

static const char help_then[] =
    "then:\n"
    "  kernel \"my_matmul.cu\"\n"
    "  A = rand(1037, 1055); B = rand(1055, 1031)\n"
    "  mode my_matmul; C = A @ B\n"
    "  bench my_matmul tiled cublas: A @ B\n"
    "`help lab`: exercises, each a file with TODOs to fill in and a script that checks it.\n";

/* What a kind's entry computes, for the list. */
static const char *entry_does(user_kind k)
{
    static const char *const does[UE_KINDS] = {
        [UE_MATMUL] = "C (m x n) = A (m x k) @ B (k x n)",
        [UE_TRANSPOSE] = "out (cols x rows) = in (rows x cols) transposed",
        [UE_EWISE] = "out[i] = a[i] OP b[i] (a 1x1 operand comes expanded)",
        [UE_UNARY] = "out[i] = F(in[i])",
        [UE_REDUCE] = "*out starts at 0, +inf or -inf; the blocks combine theirs with atomics",
    };
    return does[k];
}

/* The entry points, one line per kind with its names and parameters. */
static void help_entries(void)
{
    for (int k = 0; k < UE_KINDS; k++) {
        const user_kind_info *ki = user_kind_get((user_kind)k);
        out_printf(" ");
        for (int e = 0; e < user_entry_count(); e++)
            if (user_entry_get(e)->kind == (user_kind)k)
                out_printf(" %s", user_entry_get(e)->name);
        out_printf("\n    (%s)\n    %s\n    default launch: block %s; grid %s\n", ki->params,
                   entry_does((user_kind)k), ki->block, ki->grid);
    }
}

void kernel_help(void)
{
    out_printf("%s", help_intro);
    help_entries();
    out_printf("%s%s%s", help_launch, help_example, help_then);
}

const char *kernel_help_example(void) { return help_example; }
