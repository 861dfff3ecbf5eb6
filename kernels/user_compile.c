/* user_compile.c - a user's file compiled and read (user_compile.h): the
 * compiler's log turned into diagnostics, the entry points found in the
 * PTX (which has every __global__ function's name and the bytes of each
 * parameter), and the launch lines. */
#include "kernels/user_compile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/gpu.h"
#include "kernels/nvrtc.h"
#include "kernels/user.h"

static void add_diag(user_build *b, int line, int col, int error, const char *fmt, ...) CUK_PRINTF(5, 6);

static void add_diag(user_build *b, int line, int col, int error, const char *fmt, ...)
{
    if (error)
        b->nerrors++;
    else
        b->nwarnings++;
    if (b->ndiag == USER_MAX_DIAGS)
        return;
    user_diag *d = &b->diag[b->ndiag++];
    va_list ap;
    d->line = line, d->col = col, d->error = error;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
}

/* ---- names and architectures ---- */

int user_mode_name(const char *file, char *name, size_t cap)
{
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    int ok = n > 0 && n < cap && (isalpha((unsigned char)base[0]) || base[0] == '_');
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)base[i]) || base[i] == '_';
    if (!ok)
        return cuk_err("kernel: a user mode is named after its file, and '%.*s' is not a name "
                       "(letters, digits and _, not starting with a digit, at most %d): rename the file",
                       (int)n, base, (int)cap - 1);
    snprintf(name, cap, "%.*s", (int)n, base);
    return 0;
}

/* "75 80 86 ..." */
static const char *arch_list(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int cc = nvrtc_arch_oldest(); cc > 0 && cc <= 1000 && n < cap; cc++)
        if (nvrtc_arch_for(cc) == cc)
            n += (size_t)snprintf(buf + n, cap - n, "%s%d", n ? " " : "", cc);
    return buf;
}

int user_pick_arch(const char *arch, char *out, size_t cap)
{
    const char *why = NULL;
    char list[128];
    int cc = 0;
    if (!nvrtc_load(&why))
        return cuk_err("kernel: %s", why);
    if (arch) {
        char suffix[4] = "";
        int virt = !strncmp(arch, "compute_", 8);
        if ((!virt && strncmp(arch, "sm_", 3)) || sscanf(arch + (virt ? 8 : 3), "%d%3s", &cc, suffix) < 1 ||
            cc <= 0 || nvrtc_arch_for(cc) != cc || (suffix[0] && strcmp(suffix, "a")))
            return cuk_err("kernel: for takes sm_XY or compute_XY with XY one of NVRTC %s's: %s", nvrtc_version(),
                           arch_list(list, sizeof list));
        snprintf(out, cap, "%s", arch);
        return 0;
    }
    const gpu_info *d = gpu_usable(NULL) ? gpu_device() : NULL;
    if (!d) { /* the oldest NVRTC knows: PTX every GPU it knows runs */
        snprintf(out, cap, "compute_%d", nvrtc_arch_oldest());
        return 0;
    }
    cc = d->cc_major * 10 + d->cc_minor;
    int best = nvrtc_arch_for(cc);
    if (!best)
        return cuk_err("kernel: NVRTC %s compiles for none of the GPU's compute capability %d.%d or older",
                       nvrtc_version(), d->cc_major, d->cc_minor);
    /* a GPU newer than the compiler runs PTX, which its driver compiles */
    snprintf(out, cap, best == cc ? "sm_%d" : "compute_%d", best);
    return 0;
}

/* ---- the compiler's log ---- */

/* "file(12): error: text" or "file(12): warning #177-D: text": the line
 * and whether it is an error, text after its ": "; 0 if not such a line. */
static int log_location(const char *line, int *lineno, int *error, const char **text)
{
    const char *close = strstr(line, "): ");
    if (!close)
        return 0;
    const char *open = close;
    while (open > line && isdigit((unsigned char)open[-1]))
        open--;
    if (open == close || open == line || open[-1] != '(')
        return 0;
    *lineno = atoi(open);
    const char *sev = close + 3;
    *error = strncmp(sev, "warning", 7) != 0;
    const char *colon = strstr(sev, ": ");
    *text = colon ? colon + 2 : sev;
    return strncmp(sev, "remark", 6) != 0;
}

/* A caret line under the shown source: its column, else 0. NVRTC shows
 * the source line and the caret line each after two blanks, a tab as a
 * tab, so the caret's index less two is the column's byte. */
static int caret_column(const char *line, size_t n)
{
    size_t i = 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    return i + 1 == n && line[i] == '^' && i >= 2 ? (int)i - 1 : 0;
}

void user_read_log(const char *log, user_build *b)
{
    user_diag *last = NULL;
    for (const char *p = log; p && *p;) {
        size_t n = strcspn(p, "\n");
        char line[512];
        int lineno = 0, error = 0, col;
        const char *text;
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        if (log_location(line, &lineno, &error, &text)) {
            int before = b->ndiag;
            add_diag(b, lineno, 0, error, "%s", text);
            last = b->ndiag > before ? &b->diag[b->ndiag - 1] : NULL;
        } else if (last && (col = caret_column(p, n)) > 0) {
            last->col = col;
            last = NULL;
        } else if (!strncmp(line, "nvrtc: error: ", 14) || !strncmp(line, "error: ", 7)) {
            add_diag(b, 0, 0, 1, "%s", strstr(line, "error: ") + 7);
        }
        p += n + (p[n] == '\n');
    }
}

/* ---- entry points ---- */

/* Line and column of the first place name stands as a whole word
 * followed by '(' in src: where the function is declared. */
static void find_in_source(const char *src, size_t len, const char *name, int *line, int *col)
{
    size_t n = strlen(name);
    int ln = 1;
    const char *ls = src;
    *line = 0, *col = 0;
    for (size_t i = 0; i + n <= len; i++) {
        if (src[i] == '\n') {
            ln++, ls = src + i + 1;
            continue;
        }
        if (strncmp(src + i, name, n) || (i && (isalnum((unsigned char)src[i - 1]) || src[i - 1] == '_')))
            continue;
        size_t j = i + n;
        while (j < len && (src[j] == ' ' || src[j] == '\t'))
            j++;
        if (j < len && src[j] == '(') {
            *line = ln, *col = (int)(src + i - ls) + 1;
            return;
        }
    }
}

/* The bytes of each parameter of the entry whose list starts at p (after
 * '('), up to max; how many there are. */
static int param_sizes(const char *p, int *size, int max)
{
    int n = 0;
    const char *end = strchr(p, ')');
    for (const char *q = p; end && (q = strstr(q, ".param")) && q < end; q += 6) {
        const char *type = strstr(q + 6, ".");
        int bytes = 0, bits = 0;
        if (type && sscanf(type, ".%*[a-z]%d", &bits) == 1)
            bytes = bits / 8;
        const char *bracket = strchr(q, '[');
        const char *eol = strchr(q, '\n');
        if (bracket && (!eol || bracket < eol)) /* an aggregate: .align 8 .b8 name[16] */
            bytes = atoi(bracket + 1);
        if (n < max)
            size[n] = bytes;
        n++;
    }
    return n;
}

/* The entry point's parameters against its kind's: pointers (8 bytes)
 * first, then ints (4). */
static void check_params(user_build *b, const char *src, size_t len, int e, const char *params)
{
    const user_entry *en = user_entry_get(e);
    const user_kind_info *k = user_kind_get(en->kind);
    int size[16], line, col, want = k->nbufs + k->nints;
    int n = param_sizes(params, size, 16);
    find_in_source(src, len, en->name, &line, &col);
    if (n != want) {
        add_diag(b, line, col, 1, "%s takes %d parameters (%s), not %d", en->name, want, k->params, n);
        return;
    }
    for (int i = 0; i < n; i++)
        if (size[i] != (i < k->nbufs ? 8 : 4)) {
            add_diag(b, line, col, 1, "%s takes (%s): parameter %d is %d bytes, not %s", en->name, k->params, i + 1,
                     size[i], i < k->nbufs ? "a pointer" : "an int");
            return;
        }
}

/* A C++ name (_Z10cuk_matmulPfPKfS1_iii) of an entry point: its index, or -1. */
static int mangled_entry(const char *name, size_t n)
{
    for (int e = 0; e < user_entry_count(); e++) {
        char want[48];
        snprintf(want, sizeof want, "_Z%zu%s", strlen(user_entry_get(e)->name), user_entry_get(e)->name);
        if (n >= strlen(want) && !strncmp(name, want, strlen(want)))
            return e;
    }
    return -1;
}

/* One `.entry NAME(` of the PTX. */
static void read_entry(user_build *b, const char *src, size_t len, const char *name, size_t n, const char *params)
{
    char id[128];
    int line, col;
    snprintf(id, sizeof id, "%.*s", (int)(n < sizeof id - 1 ? n : sizeof id - 1), name);
    int e = user_entry_find(id), m = e < 0 ? mangled_entry(id, strlen(id)) : -1;
    if (e >= 0) {
        b->defined[e] = 1;
        b->nentries++;
        check_params(b, src, len, e, params);
    } else if (m >= 0) {
        find_in_source(src, len, user_entry_get(m)->name, &line, &col);
        add_diag(b, line, col, 1, "%s has a C++ name: declare it extern \"C\" __global__ void %s(%s)",
                 user_entry_get(m)->name, user_entry_get(m)->name, user_kind_get(user_entry_get(m)->kind)->params);
    } else if (!strncmp(id, "cuk_", 4)) {
        find_in_source(src, len, id, &line, &col);
        add_diag(b, line, col, 0, "%s is not one of cuk's entry points, so cuk never launches it "
                                  "(`help kernel` lists them)", id);
    }
}

void user_read_ptx(const char *ptx, const char *src, size_t len, user_build *b)
{
    for (const char *p = ptx; (p = strstr(p, ".entry ")); ) {
        const char *name = p + 7;
        while (*name == ' ')
            name++;
        size_t n = strcspn(name, "( \t\n");
        const char *params = name + n;
        while (*params == ' ' || *params == '\t' || *params == '\n')
            params++;
        if (*params == '(')
            read_entry(b, src, len, name, n, params + 1);
        p = name + n;
    }
    if (b->nentries == 0 && b->nerrors == 0)
        add_diag(b, 0, 0, 1, "the file defines none of cuk's entry points, such as "
                             "extern \"C\" __global__ void cuk_matmul(%s) (`help kernel` lists them)",
                 user_kind_get(UE_MATMUL)->params);
}

/* ---- the whole file ---- */

/* The base mode the launch lines name, checked: a single-GPU built-in mode;
 * none named, the mode a session with a GPU starts in. */
static void check_base(user_build *b)
{
    const cuk_backend *be = b->launch.base[0] ? mode_find(b->launch.base) : mode_start(1);
    const char *name = b->launch.base[0] ? b->launch.base : be->name;
    if (!be || !mode_on_device(be) || be->spread || user_mode_find(name) || be->unwritten)
        add_diag(b, b->launch.base_line, b->launch.base_col, 1,
                 "%s%s%s: base names a built-in mode of one GPU, such as tiled or cublas", be ? "" : "no mode is called ",
                 name, !be ? "" : " cannot be a base");
}

int user_compile(const char *file, const char *src, size_t len, const char *arch, user_build *b)
{
    nvrtc_output out;
    user_diag d;
    memset(b, 0, sizeof *b);
    if (user_mode_name(file, b->name, sizeof b->name) != 0)
        return -1;
    snprintf(b->arch, sizeof b->arch, "%s", arch);
    if (nvrtc_compile(src, len, file, arch, &out) != 0) {
        nvrtc_output_free(&out);
        return -1;
    }
    user_read_log(out.log, b);
    if (out.compiled && b->nerrors == 0)
        user_read_ptx(out.ptx, src, len, b);
    if (out.compiled && b->nerrors == 0 && ul_parse(src, len, b->defined, &b->launch, &d) != 0)
        add_diag(b, d.line, d.col, 1, "%s", d.msg);
    if (out.compiled && b->nerrors == 0)
        check_base(b);
    if (b->nerrors == 0) { /* keep what the helper loads: the cubin, else the PTX */
        b->image = out.cubin ? out.cubin : out.ptx;
        b->image_len = out.cubin ? out.cubin_len : out.ptx_len + 1;
        if (out.cubin)
            out.cubin = NULL;
        else
            out.ptx = NULL;
    }
    nvrtc_output_free(&out);
    return 0;
}

void user_build_free(user_build *b)
{
    free(b->image);
    b->image = NULL;
    b->image_len = 0;
}
