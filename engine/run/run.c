/* run.c - running source text in a session (see run.h): parse it, run each
 * statement, and report the first error with the line and a caret; files
 * are streamed a statement at a time. Commands are dispatched through the
 * command list (cmdlist.h). Each statement and each line of a script
 * passes the lecture hooks (lecture.h) first: headings, step mode,
 * rehearsal. */
#include "engine/run/run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/out.h"
#include "engine/files/lines.h"
#include "engine/files/record.h"
#include "engine/lang/caret.h"
#include "engine/lang/commands.h"
#include "engine/lang/eval.h"
#include "engine/lecture/lecture.h"
#include "engine/lecture/lessons.h"
#include "engine/lecture/recorded.h"
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

/* A transcript that could not be written is an error of the statement
 * that wrote it (record.h): reported, and a script stops there. */
static run_status record_lost(cuk_session *s, run_status st)
{
    if (st == RUN_FATAL || record_check() == 0)
        return st;
    report(s);
    cuk_err_clear();
    return RUN_ERROR;
}

/* The pending error reported: RUN_ERROR, or RUN_FATAL if the session
 * cannot go on. */
static run_status reported(cuk_session *s)
{
    s->fatal |= cuk_err_get()->kind == CUK_E_FATAL;
    report(s);
    cuk_err_clear();
    return s->fatal ? RUN_FATAL : RUN_ERROR;
}

/* One statement of s->src, reported if it fails, then shown to the panel,
 * and its output flushed. */
static run_status run_one(cuk_session *s, const stmt *st)
{
    run_status rs = RUN_OK;
    int before = lecture_before(s, st);
    if (before == 0 && s->fe && s->fe->statement_started)
        s->fe->statement_started(s->fe->ud, s->src->text + st->start, st->end - st->start);
    if (before < 0 || (before == 0 && run_stmt(s, st) != 0))
        rs = reported(s);
    else if (s->quit)
        rs = RUN_QUIT;
    else if (before == 0)
        lecture_after(s, st);
    rec_statement_end();
    if (s->fe && s->fe->statement_done)
        s->fe->statement_done(s->fe->ud);
    if (rs != RUN_FATAL && output_lost(s))
        rs = RUN_FATAL;
    return record_lost(s, rs);
}

static run_status run_program(cuk_session *s, const program *p)
{
    run_status st = RUN_OK;
    note_explaining(s, p);
    for (int i = 0; i < p->n && st == RUN_OK; i++)
        st = run_one(s, p->stmt[i]);
    return st;
}

static run_status step_text(cuk_session *s, const char *text, size_t len, const char *file, int first_line);

/* What was typed at the prompt goes into the transcript as it was shown,
 * prompt and all; a script's text is not shown, so it is not recorded. */
static void record_input(cuk_session *s, const char *text, size_t len, const char *file)
{
    if (!file && out_tee())
        fprintf(out_tee(), "cuk[%s]> %.*s\n", session_mode_name(s), (int)len, text);
}

run_status run_source(cuk_session *s, const char *text, size_t len, const char *file, int first_line, int final)
{
    if (s->step && final) /* cuk --step -e: stepped as a script is */
        return step_text(s, text, len, file, first_line);
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

/* ---- step mode ---- */

/* A script in step mode is read whole, then gone through with a cursor
 * that can go back and jump to a lesson (lecture.h): its parts, each a
 * heading, a pause, or lines of statements parsed once. */
typedef struct {
    line_kind kind;   /* LINE_OTHER: statements */
    const char *text; /* into the script's text */
    size_t len;
    int first_line;
    parse_status ps;
    arena a;
    program p;
} step_part;

/* Where a statement stands: part and statement within it. */
typedef struct {
    int part, stmt;
} step_at;

typedef struct {
    step_part *part;
    int n, cap;
    step_at *lesson; /* where each lesson starts */
    int nlessons;
} step_script;

/* Stepped scripts under way (a lesson's inside the lecture's), and a
 * lesson asked for by `g N` in an inner one, which the outermost takes
 * up once the inner ones have ended (0: none). */
static struct {
    int level;
    int jump;
    int nlessons; /* the outermost's */
} Steps;

static step_part *step_add(step_script *sc, line_kind kind, const char *text, size_t len, int line)
{
    if (sc->n == sc->cap) {
        int cap = sc->cap ? 2 * sc->cap : 32;
        step_part *p = realloc(sc->part, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        sc->part = p;
        sc->cap = cap;
    }
    step_part *p = &sc->part[sc->n++];
    memset(p, 0, sizeof *p);
    p->kind = kind, p->text = text, p->len = len, p->first_line = line;
    return p;
}

/* The statements of text[from, to): a part if they parse to something or
 * fail to; blank and comment lines are none. 1 if they are still open. */
static int step_statements(step_script *sc, const char *text, size_t from, size_t to, int line, int final)
{
    arena a = {0};
    program p;
    parse_status ps = parse_program(text + from, to - from, &a, &p);
    cuk_err_clear(); /* said again when the cursor comes to it */
    if (ps == PARSE_INCOMPLETE && !final) {
        arena_free(&a);
        return 1;
    }
    step_part *pt = ps != PARSE_OK || p.n > 0 ? step_add(sc, LINE_OTHER, text + from, to - from, line) : NULL;
    if (pt) {
        pt->ps = ps, pt->a = a, pt->p = p;
    } else {
        arena_free(&a);
    }
    return 0;
}

/* Where the lessons start: the scripts it runs, else its headings. */
static int step_lessons(step_script *sc)
{
    int cap = 1;
    for (int i = 0; i < sc->n; i++)
        cap += sc->part[i].kind == LINE_OTHER ? sc->part[i].p.n : 1;
    if (!(sc->lesson = calloc((size_t)cap, sizeof *sc->lesson)))
        return -1;
    for (int i = 0; i < sc->n; i++) {
        const step_part *pt = &sc->part[i];
        for (int j = 0; pt->kind == LINE_OTHER && pt->ps == PARSE_OK && j < pt->p.n; j++)
            if (pt->p.stmt[j]->kind == STMT_CMD && pt->p.stmt[j]->cmd == CMD_RUN)
                sc->lesson[sc->nlessons++] = (step_at){i, j};
    }
    int by_headings = sc->nlessons == 0;
    for (int i = 0; by_headings && i < sc->n; i++)
        if (sc->part[i].kind == LINE_HEADING)
            sc->lesson[sc->nlessons++] = (step_at){i, 0};
    return 0;
}

/* Cut text into parts, a line at a time as a streamed script is read:
 * a heading or a pause on a line of its own, else lines until their
 * statements are whole. 0, or -1 out of memory. */
static int step_scan(step_script *sc, const char *text, size_t len, int first_line)
{
    size_t from = 0, pos = 0;
    int line = first_line, from_line = first_line, open = 0;
    memset(sc, 0, sizeof *sc);
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        end += end < len;
        line_kind k = open ? LINE_OTHER : lecture_line_kind(text + pos, end - pos);
        if (k != LINE_OTHER) {
            if (!step_add(sc, k, text + pos, end - pos, line))
                return -1;
        } else {
            if (!open)
                from = pos, from_line = line;
            open = step_statements(sc, text, from, end, from_line, end == len);
        }
        pos = end;
        line++;
    }
    return step_lessons(sc);
}

static void step_free(step_script *sc)
{
    for (int i = 0; i < sc->n; i++)
        arena_free(&sc->part[i].a);
    free(sc->part);
    free(sc->lesson);
}

/* Which occurrence of its text, in the script, the statement at `at` is
 * (1 for the first): what its recording is keyed by (recorded.h), the
 * same however the cursor came there. */
static int step_occurrence(const step_script *sc, step_at at)
{
    char key[REC_KEY_MAX], other[REC_KEY_MAX];
    const stmt *st = sc->part[at.part].p.stmt[at.stmt];
    int n = 1;
    rec_key(sc->part[at.part].text + st->start, st->end - st->start, key, sizeof key);
    for (int i = 0; i <= at.part; i++)
        for (int j = 0; sc->part[i].kind == LINE_OTHER && sc->part[i].ps == PARSE_OK && j < sc->part[i].p.n &&
                        (i < at.part || j < at.stmt);
             j++) {
            const stmt *o = sc->part[i].p.stmt[j];
            rec_key(sc->part[i].text + o->start, o->end - o->start, other, sizeof other);
            n += !strcmp(key, other);
        }
    return n;
}

/* The statement before `at`: 1, or 0 at the first. */
static int step_back(const step_script *sc, step_at *at)
{
    if (at->stmt > 0 && sc->part[at->part].kind == LINE_OTHER) {
        at->stmt--;
        return 1;
    }
    for (int i = at->part - 1; i >= 0; i--)
        if (sc->part[i].kind == LINE_OTHER && sc->part[i].ps == PARSE_OK) {
            *at = (step_at){i, sc->part[i].p.n - 1};
            return 1;
        }
    return 0;
}

static void step_next(const step_script *sc, step_at *at)
{
    const step_part *pt = &sc->part[at->part];
    if (pt->kind != LINE_OTHER || pt->ps != PARSE_OK || ++at->stmt >= pt->p.n)
        *at = (step_at){at->part + 1, 0};
}

/* g N: the outermost script goes to lesson N; an inner one ends, leaving
 * the jump to it. 1 when this script is to end. */
static int step_jump(const step_script *sc, int outermost, int n, step_at *at)
{
    if (n < 1 || n > Steps.nlessons) {
        out_printf(Steps.nlessons ? "  there is no lesson %d: the lessons are 1 to %d\n"
                              : "  there is no lesson %d: this script has no lessons (scripts it runs, or #: headings)\n",
                   n, Steps.nlessons);
        return 0;
    }
    if (!outermost) {
        Steps.jump = n;
        return 1;
    }
    *at = (step_at){sc->lesson[n - 1].part, sc->lesson[n - 1].stmt};
    return 0;
}

/* The part at the cursor: its heading shown, or its statement (or pause)
 * shown and the lecturer's key obeyed. */
static run_status step_one(cuk_session *s, const step_script *sc, step_at *at, int outermost, int *ends)
{
    const step_part *pt = &sc->part[at->part];
    const stmt *st = pt->kind == LINE_OTHER ? pt->p.stmt[at->stmt] : NULL;
    int lesson = 0;
    if (pt->kind == LINE_HEADING) {
        lecture_heading(s, pt->text, pt->len);
        step_next(sc, at);
        return RUN_OK;
    }
    if (pt->kind == LINE_OTHER && pt->ps != PARSE_OK) { /* said now, where the run has got to */
        arena a = {0};
        program p;
        parse_program(pt->text, pt->len, &a, &p);
        arena_free(&a);
        return reported(s);
    }
    switch (lecture_step_wait(s, st, &lesson)) {
    case STEP_RUN: {
        if (st)
            rec_occurrence(step_occurrence(sc, *at));
        run_status rs = st ? run_one(s, st) : RUN_OK;
        step_next(sc, at);
        return rs;
    }
    case STEP_SKIP: step_next(sc, at); return RUN_OK;
    case STEP_BACK:
        if (!step_back(sc, at))
            out_printf("  (this is the first statement of the script)\n");
        return RUN_OK;
    case STEP_JUMP: *ends = step_jump(sc, outermost, lesson, at); return RUN_OK;
    case STEP_QUIT: return RUN_QUIT;
    default: return reported(s);
    }
}

/* Step through text (a script, or -e's statements). */
static run_status step_text(cuk_session *s, const char *text, size_t len, const char *file, int first_line)
{
    step_script sc;
    step_at at = {0, 0};
    run_status rs = RUN_OK;
    int outermost = Steps.level++ == 0, ends = 0;
    if (step_scan(&sc, text, len, first_line) != 0) {
        step_free(&sc);
        Steps.level--;
        cuk_err("%s: out of memory for the script", file ? file : "step mode");
        return RUN_ERROR;
    }
    if (outermost)
        Steps.nlessons = sc.nlessons, Steps.jump = 0;
    while (rs == RUN_OK && !ends && at.part < sc.n) {
        src_ctx ctx = {sc.part[at.part].text, sc.part[at.part].len, file, sc.part[at.part].first_line, s->src,
                       s->run_pos};
        s->src = &ctx;
        rs = step_one(s, &sc, &at, outermost, &ends);
        s->src = ctx.outer;
        if (rs == RUN_OK && Steps.jump && outermost) { /* asked for inside a lesson this one ran */
            at = sc.lesson[Steps.jump - 1];
            Steps.jump = 0;
        }
        ends |= Steps.jump != 0 && !outermost;
    }
    Steps.level--;
    step_free(&sc);
    return rs;
}

/* ---- streaming a file ---- */

/* A script is read a line at a time and each statement runs as soon as its
 * last line has arrived, so that a pipe's output appears as it is fed and
 * memory is bounded by the longest statement, not the script's length. */
typedef struct {
    line_reader in;     /* the file; in.name: the path, or "<stdin>" */
    const char *name;   /* for messages: the path, or "<stdin>" */
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
    lines_trim(&r->in, READER_KEEP);
}

/* Whether the text gathered may be a whole statement. While a bracket is
 * open the parser is asked only each time the text has doubled, so that it
 * still finds an error early but a literal of a million lines costs linear
 * time, not quadratic. */
static int reader_ready(const reader *r) { return r->depth <= 0 || r->len >= 2 * r->tried; }

/* Read one more line onto the statement: 1, 0 at the end of the input, or
 * -1 with the error set, naming the file and the line (lines.h: a line
 * that cannot be read or held is not the end of the script). */
static int reader_line(reader *r)
{
    ssize_t n = lines_next(&r->in);
    if (n <= 0)
        return (int)n;
    r->next_line++;
    r->line_len = (size_t)n;
    r->depth = brackets(r->in.buf, (size_t)n, r->depth);
    return reader_append(r, r->in.buf, (size_t)n) == 0 ? 1 : -1;
}

/* Run the statements of r as their lines arrive; in step mode, once the
 * whole script is read. */
static run_status reader_run(cuk_session *s, reader *r)
{
    int got;
    if (s->step) {
        while ((got = reader_line(r)) > 0)
            ;
        return got < 0 ? RUN_ERROR : step_text(s, r->text ? r->text : "", r->len, r->name, 1);
    }
    while ((got = reader_line(r)) > 0) {
        if (r->len == r->line_len && lecture_line_kind(r->text, r->len) == LINE_HEADING)
            lecture_heading(s, r->text, r->len);
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
    r.in.name = r.name;
    const char *outer_dir = s->dir;
    char *dir = is_stdin ? NULL : folder_of(path);
    if (!is_stdin && !dir) {
        cuk_err("cannot run '%s': out of memory", path);
        return RUN_ERROR;
    }
    if (!(r.in.f = open_script(path))) {
        free(dir);
        return RUN_ERROR;
    }
    int queueing = s->queueing;
    s->dir = dir;
    s->queueing = 1;
    rec_script_begin(is_stdin ? NULL : r.name);
    run_status st = settle(s, reader_run(s, &r), r.name);
    rec_script_end();
    s->queueing = queueing;
    s->dir = outer_dir;
    if (!is_stdin)
        fclose(r.in.f);
    lines_free(&r.in);
    free(r.text);
    free(dir);
    return st;
}

/* run "file.cuk": the script runs in this session; its errors are
 * reported where they happen, so only a file that can't be read is left
 * for the caller to report. A relative name is found as load finds one
 * (session_path): in a script, beside the script; failing that, a lesson
 * of that name (lessons_find), so that an installed cuk runs its lessons
 * from any folder. */
int cmd_run(cuk_session *s, const stmt *st)
{
    const char *how = st->narg > 1 ? st->arg[1]->text : NULL;
    if (s->run_depth >= 16)
        return cuk_err_at(st->cmd_pos, "run: scripts nested more than 16 deep (does a script run itself?)");
    if (how && strcmp(how, "step") && strcmp(how, "rehearse"))
        return cuk_err_at(st->arg[1]->pos, "run: expected step or rehearse after the file name, got '%s'", how);
    if (how && !strcmp(how, "step") && lecture_step_begin(st->arg[0]->text, 1) != 0) {
        cuk_err_locate(st->arg[1]->pos);
        return -1;
    }
    int step = s->step, rehearse = s->rehearse; /* as they were before this run */
    const cuk_backend *skipping = s->skipping;
    s->step |= how && !strcmp(how, "step");
    s->rehearse |= how && !strcmp(how, "rehearse");
    s->run_depth++;
    s->run_pos = st->start;
    char *path = session_path(s, st->arg[0]->text), lesson[PATH_MAX + 64];
    if (path && access(path, F_OK) != 0 && lessons_find(st->arg[0]->text, lesson, sizeof lesson) == 0) {
        free(path);
        path = strdup(lesson); /* a lesson by name: run "2-tiles.cuk" from anywhere */
    }
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
