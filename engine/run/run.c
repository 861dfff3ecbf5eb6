/* run.c - running source text in a session (see run.h): parse it, run each
 * statement, and report the first error with the line and a caret; files
 * are streamed a statement at a time. Commands are dispatched through the
 * command list (cmdlist.h). Each statement and each line of a script
 * passes the lecture hooks (lecture.h) first: headings, step mode,
 * rehearsal. */
#include "engine/run/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/out.h"
#include "engine/lang/caret.h"
#include "engine/lang/commands.h"
#include "engine/lang/eval.h"
#include "engine/lecture/lecture.h"
#include "engine/lang/parse.h"
#include "engine/measure/count.h"
#include "engine/values/timing.h"
#include "kernels/gpu.h"

/* ---- error reports ---- */

/* Line (1-based, in the file) and column (1-based, in characters) of pos. */
static void locate(const src_ctx *c, size_t pos, int *line, int *col, size_t *line_start)
{
    caret_where(c->text, c->len, pos, line, col, line_start);
    *line += c->first_line - 1;
}

/* Report the pending error with the source line and a caret. */
static void report(cuk_session *s)
{
    const cuk_error *e = cuk_err_get();
    const src_ctx *c = s->src;
    int line, col;
    size_t ls;
    if (e->kind == CUK_E_NONE) /* already reported, by a script that `run` ran */
        return;
    if (e->kind == CUK_E_CANCEL) {
        out_errorf(s->fe && s->fe->interactive ? "\ninterrupted\n" : "interrupted\n"); /* after the terminal's ^C */
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
        caret_show(c->text, c->len, ls, e->pos);
        for (const src_ctx *o = c; o->outer; o = o->outer) {
            locate(o->outer, o->outer_pos, &line, &col, &ls);
            out_errorf("  (from %s:%d)\n", o->outer->file ? o->outer->file : "the prompt", line);
        }
    }
    out_flush();
}

/* ---- running statements ---- */

/* Indexed by cmd_id: each command's handler, cmd_WORD. */
#define CMDLIST_HANDLER(id, word, alias, shape, usage, summary) cmd_##word,
static int (*const handlers[CMD_COUNT])(cuk_session *s, const stmt *st) = {CUK_COMMANDS(CMDLIST_HANDLER)};
#undef CMDLIST_HANDLER

/* Run one statement already parsed: 0, or -1 with the error set. */
static int run_stmt(cuk_session *s, const stmt *st)
{
    timing_kernel_events(s->time_on || s->panel_on || s->measuring || s->explaining);
    timing_defer(s->queueing && !s->step); /* a stepped lecture shows each result finished */
    int rc = st->kind == STMT_CMD ? handlers[st->cmd](s, st) : s->counters ? count_stmt(s, st, 1) : eval_stmt(s, st);
    if (rc != 0)
        cuk_err_locate(st->start);
    return rc;
}

/* A program that asks `why` or draws a `roofline` needs the kernel times
 * of the commands before it: from here on, every command is timed. (A
 * streamed script runs each statement before it reads the next, so there
 * the commands after the first `why` are the ones timed.) */
static void note_explaining(cuk_session *s, const program *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->stmt[i]->kind == STMT_CMD && (p->stmt[i]->cmd == CMD_WHY || p->stmt[i]->cmd == CMD_ROOFLINE))
            s->explaining = 1;
}

/* Flush what the statement printed, so that a pipe or file gets it now, not
 * when a buffer fills; 1 if output was lost: nothing more is run, since what
 * it shows would be lost too (out.h has said so). */
static int output_lost(cuk_session *s)
{
    out_flush();
    if (out_std_check() == 0)
        return 0;
    s->fatal = 1;
    return 1;
}

/* Each statement, reported if it fails, then shown to the panel, and its
 * output flushed. */
static run_status run_program(cuk_session *s, const program *p)
{
    run_status st = RUN_OK;
    note_explaining(s, p);
    for (int i = 0; i < p->n && st == RUN_OK; i++) {
        int before = lecture_before(s, p->stmt[i]);
        if (before < 0 || (before == 0 && run_stmt(s, p->stmt[i]) != 0)) {
            s->fatal |= cuk_err_get()->kind == CUK_E_FATAL;
            report(s);
            cuk_err_clear();
            st = s->fatal ? RUN_FATAL : RUN_ERROR;
        } else if (s->quit) {
            st = RUN_QUIT;
        } else if (before == 0) {
            lecture_after(s, p->stmt[i]);
        }
        if (s->fe && s->fe->statement_done)
            s->fe->statement_done(s->fe->ud);
        if (st != RUN_FATAL && output_lost(s))
            st = RUN_FATAL;
    }
    return st;
}

/* What was typed at the prompt goes into the transcript as it was shown,
 * prompt and all; a script's text is not shown, so it is not recorded. */
static void record_input(cuk_session *s, const char *text, size_t len, const char *file)
{
    if (!file && out_tee())
        fprintf(out_tee(), "cuk[%s]> %.*s\n", session_mode_name(s), (int)len, text);
}

run_status run_source(cuk_session *s, const char *text, size_t len, const char *file, int first_line, int final)
{
    src_ctx ctx = {text, len, file, first_line, s->src, s->run_pos};
    arena a = {0};
    program p;
    run_status st;
    s->src = &ctx;
    cuk_err_clear();
    parse_status ps = parse_program(text, len, &a, &p);
    if (ps != PARSE_INCOMPLETE || final)
        record_input(s, text, len, file);
    if (ps == PARSE_INCOMPLETE && !final) {
        st = RUN_INCOMPLETE;
        cuk_err_clear();
    } else if (ps != PARSE_OK) {
        report(s);
        cuk_err_clear();
        st = RUN_ERROR;
    } else {
        st = run_program(s, &p);
    }
    s->src = ctx.outer;
    arena_free(&a);
    return st;
}

/* ---- streaming a file ---- */

/* A script is read a line at a time and each statement runs as soon as its
 * last line has arrived, so that a pipe's output appears as it is fed and
 * memory is bounded by the longest statement, not the script's length. */
typedef struct {
    FILE *f;
    const char *name;   /* for messages: the path, or "<stdin>" */
    char *line;         /* getline's buffer */
    size_t line_cap;
    char *text;         /* the lines of the statement being gathered */
    size_t len, cap;
    int first_line;     /* the file's line number of text[0] */
    int next_line;      /* the file's line number of the next line read */
    size_t line_len;    /* length of the line read last */
    int depth;          /* brackets open at the end of text (a guess, see brackets) */
    size_t tried;       /* length of text when the parser last found it open */
} reader;

/* Buffers past this are given back after their statement, so that one long
 * statement does not pin its memory for the rest of a long script. */
#define READER_KEEP (1u << 20)

/* depth plus the brackets the line opens less those it closes, skipping
 * strings and comments as lex.c does. A guess that only decides when to ask
 * the parser: the parser has the last word. */
static int brackets(const char *p, size_t n, int depth)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '#')
            break;
        if (p[i] == '"')
            while (++i < n && p[i] != '"')
                i += p[i] == '\\';
        else if (p[i] == '(' || p[i] == '[')
            depth++;
        else if (p[i] == ')' || p[i] == ']')
            depth--;
    }
    return depth;
}

static int reader_append(reader *r, const char *p, size_t n)
{
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap < r->len + n)
            cap *= 2;
        char *t = realloc(r->text, cap);
        if (!t)
            return cuk_err("%s:%d: out of memory for a statement of %zu bytes", r->name, r->next_line - 1, r->len + n);
        r->text = t;
        r->cap = cap;
    }
    memcpy(r->text + r->len, p, n);
    r->len += n;
    return 0;
}

/* Start the next statement at the next line. */
static void reader_reset(reader *r)
{
    r->len = 0;
    r->depth = 0;
    r->tried = 0;
    r->first_line = r->next_line;
    if (r->cap > READER_KEEP) {
        free(r->text);
        r->text = NULL;
        r->cap = 0;
    }
    if (r->line_cap > READER_KEEP) {
        free(r->line);
        r->line = NULL;
        r->line_cap = 0;
    }
}

/* Whether the text gathered may be a whole statement. While a bracket is
 * open the parser is asked only each time the text has doubled, so that it
 * still finds an error early but a literal of a million lines costs linear
 * time, not quadratic. */
static int reader_ready(const reader *r) { return r->depth <= 0 || r->len >= 2 * r->tried; }

/* Read one more line onto the statement: 1, 0 at the end of the input, or
 * -1 with the error set. */
static int reader_line(reader *r)
{
    errno = 0;
    ssize_t n = getline(&r->line, &r->line_cap, r->f);
    if (n < 0 && ferror(r->f))
        return cuk_err("cannot read '%s': %s", r->name, strerror(errno ? errno : EIO));
    if (n < 0)
        return 0;
    r->next_line++;
    r->line_len = (size_t)n;
    r->depth = brackets(r->line, (size_t)n, r->depth);
    return reader_append(r, r->line, (size_t)n) == 0 ? 1 : -1;
}

/* Run the statements of r as their lines arrive. */
static run_status reader_run(cuk_session *s, reader *r)
{
    int got;
    while ((got = reader_line(r)) > 0) {
        int said = r->len == r->line_len ? lecture_line(s, r->text, r->len) : 0;
        if (said != 0)
            return said < 0 ? RUN_ERROR : RUN_QUIT;
        if (!reader_ready(r))
            continue;
        run_status st = run_source(s, r->text, r->len, r->name, r->first_line, 0);
        if (st == RUN_INCOMPLETE) {
            r->tried = r->len;
            continue;
        }
        reader_reset(r);
        if (st != RUN_OK)
            return st;
    }
    if (got < 0)
        return RUN_ERROR;
    return r->len ? run_source(s, r->text, r->len, r->name, r->first_line, 1) : RUN_OK;
}

/* path opened for reading ("-": stdin); NULL with the error set. A folder
 * opens for reading too, but cannot be read: say so now. */
static FILE *open_script(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    struct stat st;
    int err = f ? 0 : errno;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (f != stdin)
            fclose(f);
        f = NULL;
        err = EISDIR;
    }
    if (!f)
        cuk_err("cannot open '%s': %s", strcmp(path, "-") ? path : "<stdin>", strerror(err));
    return f;
}

/* The folder of path ("" if none: the current directory), for the relative
 * file names the script uses; NULL out of memory. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}

/* The end of a script: wait for the device work its statements left
 * queued, so that a failure there is reported now, as the script's, and
 * whoever ran it (the prompt, `run`, the process's exit status) finds the
 * work finished. */
static run_status settle(cuk_session *s, run_status st, const char *name)
{
    if (st == RUN_FATAL || gpu_sync() == 0)
        return st;
    const cuk_error *e = cuk_err_get();
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%s", e->msg);
    if (e->kind == CUK_E_FATAL)
        cuk_err_fatal("in work queued by %s: %s", name, msg);
    else
        cuk_err("in work queued by %s: %s", name, msg);
    s->fatal |= e->kind == CUK_E_FATAL;
    report(s);
    cuk_err_clear();
    return s->fatal ? RUN_FATAL : RUN_ERROR;
}

run_status run_file(cuk_session *s, const char *path)
{
    int is_stdin = !strcmp(path, "-");
    reader r = {.name = is_stdin ? "<stdin>" : path, .first_line = 1, .next_line = 1};
    const char *outer_dir = s->dir;
    char *dir = is_stdin ? NULL : folder_of(path);
    if (!is_stdin && !dir) {
        cuk_err("cannot run '%s': out of memory", path);
        return RUN_ERROR;
    }
    if (!(r.f = open_script(path))) {
        free(dir);
        return RUN_ERROR;
    }
    int queueing = s->queueing;
    s->dir = dir;
    s->queueing = 1;
    run_status st = settle(s, reader_run(s, &r), r.name);
    s->queueing = queueing;
    s->dir = outer_dir;
    if (!is_stdin)
        fclose(r.f);
    free(r.line);
    free(r.text);
    free(dir);
    return st;
}

/* run "file.cuk": the script runs in this session; its errors are
 * reported where they happen, so only a file that can't be read is left
 * for the caller to report. A relative name is found as load finds one
 * (session_path): in a script, beside the script. */
int cmd_run(cuk_session *s, const stmt *st)
{
    const char *how = st->narg > 1 ? st->arg[1]->text : NULL;
    if (s->run_depth >= 16)
        return cuk_err_at(st->cmd_pos, "run: scripts nested more than 16 deep (does a script run itself?)");
    if (how && strcmp(how, "step") && strcmp(how, "rehearse"))
        return cuk_err_at(st->arg[1]->pos, "run: expected step or rehearse after the file name, got '%s'", how);
    if (how && !strcmp(how, "step") && lecture_step_begin() != 0) {
        cuk_err_locate(st->arg[1]->pos);
        return -1;
    }
    int step = s->step, rehearse = s->rehearse; /* as they were before this run */
    const cuk_backend *skipping = s->skipping;
    s->step |= how && !strcmp(how, "step");
    s->rehearse |= how && !strcmp(how, "rehearse");
    s->run_depth++;
    s->run_pos = st->start;
    char *path = session_path(s, st->arg[0]->text);
    run_status r = path ? run_file(s, path) : RUN_ERROR;
    free(path);
    s->run_depth--;
    if (how) {
        s->step = step;
        s->rehearse = rehearse;
        s->skipping = skipping;
        if (!s->step)
            lecture_step_end(s); /* q ended the stepped run, not the session */
    }
    if (r == RUN_ERROR || r == RUN_FATAL) {
        cuk_err_locate(st->arg[0]->pos);
        return -1;
    }
    return 0;
}
