/* lecture.c - running a script for a lecture (see lecture.h): headings,
 * step mode (each statement echoed, run at Enter) and rehearsal (the GPU
 * parts of a lecture listed as skipped on a machine without a GPU). */
#include "engine/lecture/lecture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/session/snapshot.h"
#include "kernels/backend.h"

/* ---- step mode ---- */

static struct {
    int tty;     /* the terminal step mode reads Enter from; -1 until opened */
    int stopped; /* q was typed at a step: the stepped run ends */
} S = {-1, 0};

int lecture_step_begin(void)
{
    if (S.tty < 0)
        S.tty = open("/dev/tty", O_RDONLY | O_CLOEXEC);
    if (S.tty < 0)
        return cuk_err("step mode reads Enter from the terminal, and there is none (/dev/tty: %s)", strerror(errno));
    return 0;
}

/* The mode a statement is shown in: while rehearsing, the one the script
 * asked for, though this machine lacks it. */
static const char *shown_mode(const cuk_session *s) { return s->skipping ? s->skipping->name : s->mode->name; }

/* Where the echo of st ends: after its ';' and, when nothing else follows
 * on its line, after the line's comment, as the lecturer wrote it. */
static size_t echo_end(const src_ctx *c, const stmt *st)
{
    size_t end = st->end, i = end;
    while (i < c->len && (c->text[i] == ' ' || c->text[i] == '\t'))
        i++;
    if (i < c->len && c->text[i] == ';')
        end = ++i;
    while (i < c->len && (c->text[i] == ' ' || c->text[i] == '\t'))
        i++;
    if (i < c->len && c->text[i] == '#')
        while (i < c->len && c->text[i] != '\n' && c->text[i] != '\r')
            end = ++i;
    return end;
}

/* "cuk[tiled]> C = A @ B;  # the product", continuation lines under "...". */
static void step_echo(const cuk_session *s, const stmt *st)
{
    const src_ctx *c = s->src;
    size_t end = echo_end(c, st), from = st->start;
    int width = (int)strlen(shown_mode(s)) + 5;
    out_printf("cuk[%s]> ", shown_mode(s));
    for (size_t i = from; i <= end; i++) {
        if (i < end && c->text[i] != '\n')
            continue;
        size_t n = i - from;
        if (n && c->text[from + n - 1] == '\r')
            n--;
        out_printf("%.*s", (int)n, c->text + from);
        if (i < end)
            out_printf("\n%*s ", width, "...");
        from = i + 1;
    }
}

/* Whether the terminal shows the Enter it reads as a new line on our
 * output; if not (the panel's raw keys, output to a file), we print it. */
static int tty_echoes_enter(const cuk_session *s)
{
    struct termios t;
    return tcgetattr(S.tty, &t) == 0 && (t.c_lflag & ICANON) && (t.c_lflag & ECHO) && isatty(1) && !s->panel_on;
}

/* Wait for Enter: 0 to go on; 1 to stop (q typed, or the terminal closed);
 * -1 with the error set (Ctrl-C at the prompt, a read error). */
static int step_wait(cuk_session *s)
{
    char c, first = 0;
    int echoes = tty_echoes_enter(s);
    out_flush();
    for (;;) {
        ssize_t n = read(S.tty, &c, 1);
        if (n < 0 && errno == EINTR && !cuk_interrupted)
            continue;
        if (n < 0)
            return cuk_interrupted ? cuk_err_cancel() : cuk_err("cannot read the terminal: %s", strerror(errno));
        if (n == 0 || c == '\n' || c == '\r')
            break;
        if (!first && c != ' ' && c != '\t')
            first = c;
    }
    if (!echoes)
        out_printf("\n");
    if (first != 'q' && first != 'Q')
        return 0;
    S.stopped = 1;
    s->quit = 1; /* the run ends as at `quit`; lecture_step_end takes it back for `run "f" step` */
    return 1;
}

void lecture_step_end(cuk_session *s)
{
    if (S.stopped)
        s->quit = 0;
    S.stopped = 0;
}

/* ---- rehearsal ---- */

/* Why be cannot be had here, in a few words. */
static const char *lacking(const cuk_backend *be)
{
    const char *why = NULL;
    snap_device d;
    snap_device_get(&d);
    if (mode_on_device(be) && !d.usable)
        return "no GPU";
    mode_available(be, &why);
    return why ? why : "unavailable";
}

/* What runs even while skipping: settings, which the statements that do
 * run later depend on as they would in the real run, `run`, whose script
 * is rehearsed statement by statement, and `kernel`, which compiles
 * without a GPU and says so. */
static int runs_while_skipping(const stmt *st)
{
    return st->kind == STMT_CMD && (st->cmd == CMD_SET || st->cmd == CMD_SEED || st->cmd == CMD_TIME ||
                                    st->cmd == CMD_FORMAT || st->cmd == CMD_RUN || st->cmd == CMD_KERNEL);
}

/* The variables whose making a rehearsal skipped ("ghosts"): a statement
 * that uses one is skipped in its turn (C = A @ B in mode tiled, then
 * s = sum(C) in mode cpu), and what it would have made is a ghost too.
 * Best effort, in fixed space: a name not kept here is simply not known. */
#define GHOSTS 128
#define GHOST_NAME 64
static struct {
    char name[GHOSTS][GHOST_NAME];
    int n;
} G;

static int ghost_index(const char *name)
{
    for (int i = 0; i < G.n; i++)
        if (!strcmp(G.name[i], name))
            return i;
    return -1;
}

static void ghost_add(const char *name)
{
    if (ghost_index(name) < 0 && G.n < GHOSTS && strlen(name) < GHOST_NAME)
        strcpy(G.name[G.n++], name);
}

static void ghost_drop(const char *name)
{
    int i = ghost_index(name);
    if (i >= 0)
        memcpy(G.name[i], G.name[--G.n], GHOST_NAME);
}

/* The first ghost e uses, or NULL. */
static const char *ast_ghost(const ast *e)
{
    if (!e)
        return NULL;
    if (e->kind == AST_NAME && ghost_index(e->text) >= 0)
        return e->text;
    for (int i = 0; i < e->nkid; i++) {
        const char *g = ast_ghost(e->kid[i]);
        if (g)
            return g;
    }
    return NULL;
}

/* The first ghost st uses: in its expression, the statement timeit times
 * or count counts, or the variables clear and save name. */
static const char *stmt_ghost(const stmt *st)
{
    const char *g = ast_ghost(st->expr);
    if (!g && st->sub)
        g = stmt_ghost(st->sub);
    for (int i = 0; !g && st->kind == STMT_CMD && (st->cmd == CMD_CLEAR || st->cmd == CMD_SAVE) && i < st->narg; i++)
        if (st->arg[i]->kind == AST_NAME && ghost_index(st->arg[i]->text) >= 0)
            g = st->arg[i]->text;
    return g;
}

/* What st binds when it runs: a name, `ans`, or NULL. */
static const char *stmt_binds(const stmt *st)
{
    if (st->kind == STMT_CMD)
        return st->cmd == CMD_TIMEIT || st->cmd == CMD_COUNTERS ? stmt_binds(st->sub) : NULL;
    return st->kind == STMT_ASSIGN ? st->name : "ans";
}

/* After a statement has run: what it bound is real now (in any run: a
 * later rehearsal must not skip it); `clear` with no names leaves nothing
 * to stand in for. */
void lecture_after(cuk_session *s, const stmt *st)
{
    const char *bound = stmt_binds(st);
    if (bound)
        ghost_drop(bound);
    if (st->kind == STMT_CMD && st->cmd == CMD_CLEAR && st->narg == 0)
        G.n = 0;
}

/* "skipped (WHY): " and st's first line, at most 72 columns. */
static void say_skipped(const cuk_session *s, const stmt *st, const char *why, const char *ghost)
{
    const char *text = s->src->text + st->start;
    size_t len = st->end - st->start, n = strcspn(text, "\r\n");
    n = n < len ? n : len;
    out_printf("skipped (%s%s%s): %.*s%s\n", why, ghost ? ghost : "", ghost ? " was skipped" : "",
               n > 72 ? 68 : (int)n, text, n > 72 || n < len ? " ..." : "");
}

/* Rehearsing: whether st is skipped (and said so) rather than run. A
 * `mode` this machine lacks starts skipping; one that works ends it; an
 * unknown name is still an error. Outside a lacking mode, a statement that
 * uses a ghost is skipped too. */
static int rehearse_skips(cuk_session *s, const stmt *st)
{
    const char *ghost = NULL;
    if (!s->rehearse)
        return 0;
    if (st->kind == STMT_CMD && st->cmd == CMD_MODE && st->narg == 1) {
        const cuk_backend *be = mode_find(st->arg[0]->text);
        s->skipping = be && !mode_available(be, NULL) ? be : NULL;
        if (!s->skipping)
            return 0;
    } else if (runs_while_skipping(st) || (!s->skipping && !(ghost = stmt_ghost(st)))) {
        return 0;
    }
    if (stmt_binds(st))
        ghost_add(stmt_binds(st));
    say_skipped(s, st, ghost ? "" : lacking(s->skipping), ghost);
    return 1;
}

int lecture_before(cuk_session *s, const stmt *st)
{
    if (s->step) {
        step_echo(s, st);
        int w = step_wait(s);
        if (w != 0)
            return w;
    } else if (s->echo) {
        step_echo(s, st);
        out_printf("\n");
    }
    return rehearse_skips(s, st);
}

/* ---- lines of a script ---- */

/* line without the blanks around it and its line end. */
static void trim(const char **line, size_t *n)
{
    while (*n && (**line == ' ' || **line == '\t'))
        (*line)++, (*n)--;
    while (*n && ((*line)[*n - 1] == '\n' || (*line)[*n - 1] == '\r' || (*line)[*n - 1] == ' ' ||
                  (*line)[*n - 1] == '\t'))
        (*n)--;
}

/* "# pause", blanks allowed after the '#'. */
static int is_pause(const char *line, size_t n)
{
    if (n < 1 || line[0] != '#')
        return 0;
    for (line++, n--; n && (*line == ' ' || *line == '\t'); line++, n--)
        ;
    return n == 5 && !strncmp(line, "pause", 5);
}

int lecture_line(cuk_session *s, const char *line, size_t n)
{
    trim(&line, &n);
    if (n >= 2 && line[0] == '#' && line[1] == ':') {
        out_printf("\n%.*s\n", (int)n, line);
        return 0;
    }
    if (!s->step || !is_pause(line, n))
        return 0;
    out_printf("cuk[%s]> ", shown_mode(s)); /* an empty prompt, while the lecturer talks */
    return step_wait(s);
}
