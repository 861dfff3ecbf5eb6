/* session.c - running source text in a session: parse it whole, run each
 * statement inside a timing record, and report the first error with the
 * line and a caret (see session.h). */
#include "engine/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/commands.h"
#include "engine/eval.h"
#include "engine/parse.h"
#include "engine/print.h"
#include "engine/timing.h"
#include "kernels/gpu.h"

cuk_session *session_new(int interactive)
{
    cuk_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->interactive = interactive;
    s->seed = (uint64_t)timing_now_ms() * 2654435761u; /* until `seed N` */
    s->mode = cuk_backend_find(gpu_init() == 0 ? "tiled" : "cpu");
    return s;
}

void session_free(cuk_session *s)
{
    if (!s)
        return;
    ws_clear(&s->ws);
    free(s->ws.e);
    free(s);
}

int session_set_mode(cuk_session *s, const char *name)
{
    const cuk_backend *be = cuk_backend_find(name);
    const char *why = NULL;
    if (!be) {
        char list[128] = "";
        for (int i = 0; i < cuk_nbackends; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", cuk_backends[i]->name);
        return cuk_err("unknown mode '%s' (modes: %s)", name, list);
    }
    if (!be->available(&why))
        return cuk_err("mode %s is unavailable: %s", name, why);
    s->mode = be;
    return 0;
}

/* ---- error reports ---- */

/* Bytes that show as one column: a UTF-8 sequence; else 1 (shown as '?'). */
static size_t char_len(const unsigned char *p, const unsigned char *end)
{
    size_t n = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 ? 2 : 1;
    if (n == 1 || p + n > end)
        return 1;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

static int printable(const unsigned char *p, size_t n) { return n > 1 || (*p >= 32 && *p < 127) || *p == '\t'; }

/* The line holding pos, a caret under pos; long lines show a window. */
static void show_line(const char *text, size_t len, size_t line_start, size_t pos)
{
    const unsigned char *t = (const unsigned char *)text, *end = t + len;
    size_t line_end = line_start;
    while (line_end < len && text[line_end] != '\n')
        line_end++;
    size_t from = line_start, to = line_end;
    if (pos - line_start > 60) /* keep the caret in view on a 1 MB line */
        from = pos - 50;
    if (to - from > 100)
        to = from + 100;
    while (from > line_start && (t[from] & 0xC0) == 0x80)
        from--;
    char shown[512], caret[512];
    size_t ns = 0, nc = 0;
    if (from > line_start) {
        memcpy(shown, "...", 3);
        memcpy(caret, "   ", 3);
        ns = nc = 3;
    }
    for (size_t i = from; i < to && ns < 400;) {
        size_t n = char_len(t + i, end);
        int ok = printable(t + i, n);
        if (i < pos)
            caret[nc++] = text[i] == '\t' ? '\t' : ' ';
        if (ok) {
            memcpy(shown + ns, text + i, n);
            ns += n;
        } else {
            shown[ns++] = '?';
        }
        i += n;
    }
    if (to < line_end)
        memcpy(shown + ns, "...", 3), ns += 3;
    caret[nc++] = '^';
    out_errorf("  %.*s\n  %.*s\n", (int)ns, shown, (int)nc, caret);
}

/* Line (1-based, in the file) and column (1-based, in characters) of pos. */
static void locate(const src_ctx *c, size_t pos, int *line, int *col, size_t *line_start)
{
    *line = c->first_line;
    *line_start = 0;
    for (size_t i = 0; i < pos && i < c->len; i++)
        if (c->text[i] == '\n') {
            (*line)++;
            *line_start = i + 1;
        }
    *col = 1;
    for (size_t i = *line_start; i < pos;) {
        i += char_len((const unsigned char *)c->text + i, (const unsigned char *)c->text + c->len);
        (*col)++;
    }
}

void session_report(cuk_session *s)
{
    const cuk_error *e = cuk_err_get();
    const src_ctx *c = s->src;
    int line, col;
    size_t ls;
    if (e->kind == CUK_E_NONE) /* already reported, by a script that `run` ran */
        return;
    if (e->kind == CUK_E_CANCEL) {
        out_errorf(s->interactive ? "\ninterrupted\n" : "interrupted\n"); /* after the terminal's ^C */
    } else if (e->kind == CUK_E_FATAL) {
        out_errorf("fatal: %s\ncuk: the GPU can no longer be used; ending the session\n", e->msg);
    } else if (!c || e->pos == CUK_NOPOS || e->pos > c->len) {
        out_errorf("%s%serror: %s\n", c && c->file ? c->file : "", c && c->file ? ": " : "", e->msg);
    } else {
        locate(c, e->pos, &line, &col, &ls);
        if (c->file)
            out_errorf("%s:%d:%d: error: %s\n", c->file, line, col, e->msg);
        else
            out_errorf("error: %s\n", e->msg);
        show_line(c->text, c->len, ls, e->pos);
        for (const src_ctx *o = c; o->outer; o = o->outer) {
            locate(o->outer, o->outer_pos, &line, &col, &ls);
            out_errorf("  (from %s:%d)\n", o->outer->file ? o->outer->file : "the prompt", line);
        }
    }
    out_flush();
}

/* ---- running statements ---- */

/* An assignment, or an expression shown as `ans` and kept under that name.
 * A bare name is shown under its own name and left alone, as in Octave. */
static int exec_value(cuk_session *s, const stmt *st)
{
    int bare = st->kind == STMT_EXPR && st->expr->kind == AST_NAME;
    const char *name = st->kind == STMT_ASSIGN ? st->name : bare ? st->expr->text : "ans";
    timing_begin(s->src->text + st->start, st->end - st->start, s->mode->name);
    cuk_matrix *m = eval_expr(s, st->expr);
    int rc = m ? 0 : -1;
    if (rc == 0 && st->print)
        rc = print_value(name, m, s->format_long);
    if (timing_end(rc != 0) != 0 && rc == 0)
        rc = -1;
    if (rc != 0 || bare) {
        mat_unref(m);
        return rc;
    }
    if (ws_set(&s->ws, name, m) != 0)
        return -1;
    if (s->time_on)
        print_timing(timing_history(0));
    return 0;
}

int session_exec(cuk_session *s, const stmt *st)
{
    timing_kernel_events(s->time_on || s->panel_on || s->measuring);
    int rc = st->kind == STMT_CMD ? commands_run(s, st) : exec_value(s, st);
    if (rc != 0)
        cuk_err_locate(st->start);
    return rc;
}

/* Each statement, reported if it fails, then shown to the panel. */
static run_status run_program(cuk_session *s, const program *p)
{
    run_status st = RUN_OK;
    for (int i = 0; i < p->n && st == RUN_OK; i++) {
        if (session_exec(s, p->stmt[i]) != 0) {
            s->fatal |= cuk_err_get()->kind == CUK_E_FATAL;
            session_report(s);
            cuk_err_clear();
            st = s->fatal ? RUN_FATAL : RUN_ERROR;
        } else if (s->quit) {
            st = RUN_QUIT;
        }
        if (s->after_cmd_hook)
            s->after_cmd_hook(s);
    }
    return st;
}

run_status session_run(cuk_session *s, const char *text, size_t len, const char *file, int first_line, int final)
{
    src_ctx ctx = {text, len, file, first_line, s->src, s->run_pos};
    arena a = {0};
    program p;
    run_status st;
    s->src = &ctx;
    cuk_err_clear();
    parse_status ps = parse_program(text, len, &a, &p);
    if (ps == PARSE_INCOMPLETE && !final) {
        st = RUN_INCOMPLETE;
        cuk_err_clear();
    } else if (ps != PARSE_OK) {
        session_report(s);
        cuk_err_clear();
        st = RUN_ERROR;
    } else {
        st = run_program(s, &p);
    }
    s->src = ctx.outer;
    arena_free(&a);
    return st;
}

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    if (!buf || ferror(f)) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

run_status session_run_file(cuk_session *s, const char *path)
{
    int is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    size_t len = 0;
    char *text;
    if (!f) {
        cuk_err("cannot open '%s': %s", path, strerror(errno));
        return RUN_ERROR;
    }
    text = read_all(f, &len);
    if (!is_stdin)
        fclose(f);
    if (!text) {
        cuk_err("cannot read '%s'", path);
        return RUN_ERROR;
    }
    run_status st = session_run(s, text, len, is_stdin ? "<stdin>" : path, 1, 1);
    free(text);
    return st;
}
