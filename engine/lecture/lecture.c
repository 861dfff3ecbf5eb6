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
#include "engine/lecture/recorded.h"
#include "engine/session/snapshot.h"
#include "kernels/backend.h"

/* ---- wrapping at words ---- */

/* Display columns of n bytes of UTF-8. */
static int columns_of(const char *p, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)p[i] & 0xC0) != 0x80;
    return w;
}

/* Print text (n bytes, one line) from column `col` on, wrapped at blanks
 * to `width`, each line after the first under `indent` blanks; a word
 * longer than a line goes on a line of its own. No newline at the end. */
static void wrap_words(const char *text, size_t n, int col, int indent, int width)
{
    size_t i = 0;
    int fresh = 1; /* nothing on this line yet after the indent or lead */
    while (i < n) {
        size_t w = i;
        while (w < n && text[w] != ' ')
            w++;
        int ww = columns_of(text + i, w - i);
        if (!fresh && col + 1 + ww > width) {
            out_printf("\n%*s", indent, "");
            col = indent;
            fresh = 1;
        }
        out_printf("%s%.*s", fresh ? "" : " ", (int)(w - i), text + i);
        col += ww + !fresh;
        fresh = 0;
        for (i = w; i < n && text[i] == ' '; i++)
            ;
    }
}

/* The width to wrap at: the output's (the terminal's, the panel's). */
static int width_of(const cuk_session *s) { return session_columns(s) - 1; }

/* ---- step mode ---- */

static struct {
    int tty;     /* the terminal step mode reads keys from; -1 until opened */
    int stopped; /* q was typed at a step: the stepped run ends */
    char rehearse[600]; /* how to rehearse the stepped script instead */
} S = {-1, 0, ""};

int lecture_step_begin(const char *file, int at_prompt)
{
    if (at_prompt)
        snprintf(S.rehearse, sizeof S.rehearse, "run \"%s\" rehearse", file);
    else
        snprintf(S.rehearse, sizeof S.rehearse, "cuk --step --rehearse %s", file);
    if (S.tty < 0)
        S.tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (S.tty < 0)
        return cuk_err("step mode reads its keys from the terminal, and there is none (/dev/tty: %s)",
                       strerror(errno));
    return 0;
}

/* The mode a statement is shown in: while rehearsing, the one the script
 * asked for, though this machine lacks it. */
static const char *shown_mode(const cuk_session *s) { return s->skipping ? s->skipping->name : s->mode->name; }

/* Where the echo of st ends: after its ';' and, when nothing else follows
 * on its line, after the line's comment, as the lecturer wrote it. *code
 * gets where that comment starts (end when there is none). */
static size_t echo_end(const src_ctx *c, const stmt *st, size_t *code)
{
    size_t end = st->end, i = end;
    while (i < c->len && (c->text[i] == ' ' || c->text[i] == '\t'))
        i++;
    if (i < c->len && c->text[i] == ';')
        end = ++i;
    while (i < c->len && (c->text[i] == ' ' || c->text[i] == '\t'))
        i++;
    *code = end;
    if (i < c->len && c->text[i] == '#') {
        *code = i;
        while (i < c->len && c->text[i] != '\n' && c->text[i] != '\r')
            end = ++i;
    }
    return end;
}

/* The last line of an echo: its code as written, then its comment wrapped
 * at words under itself (or under a short indent when the comment starts
 * too far right to leave room). */
static void echo_last_line(const cuk_session *s, const char *line, size_t n, size_t comment, int col)
{
    int width = width_of(s), at = col + columns_of(line, comment);
    if (comment >= n || at + columns_of(line + comment, n - comment) <= width) {
        out_printf("%.*s", (int)n, line);
        return;
    }
    out_printf("%.*s", (int)comment, line);
    wrap_words(line + comment, n - comment, at, width - at >= 30 ? at + 2 : 8, width);
}

/* "cuk[tiled]> C = A @ B;  # the product", continuation lines under "...",
 * without the newline after it (the caller's, once a key is read). */
static void step_echo(const cuk_session *s, const stmt *st)
{
    const src_ctx *c = s->src;
    size_t comment, end = echo_end(c, st, &comment), from = st->start;
    int width = (int)strlen(shown_mode(s)) + 5;
    out_printf("cuk[%s]> ", shown_mode(s));
    for (size_t i = from; i <= end; i++) {
        if (i < end && c->text[i] != '\n')
            continue;
        size_t n = i - from;
        if (n && c->text[from + n - 1] == '\r')
            n--;
        if (i < end) {
            out_printf("%.*s\n%*s ", (int)n, c->text + from, width, "...");
        } else {
            echo_last_line(s, c->text + from, n, comment > from ? comment - from : n,
                           from == st->start ? width + 2 : width + 1);
        }
        from = i + 1;
    }
}

/* The terminal in single keys, unechoed, for the wait (Ctrl-C still a
 * signal); *saved to put back. 0, or -1 where its modes cannot be read
 * (the keys then come a line at a time, echoed). */
static int keys_one_by_one(struct termios *saved)
{
    struct termios t;
    if (tcgetattr(S.tty, saved) != 0)
        return -1;
    t = *saved;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    return tcsetattr(S.tty, TCSANOW, &t);
}

/* One key: 1, 0 if the terminal closed, -1 with the error set (Ctrl-C,
 * a read error). */
static int read_key(char *c)
{
    for (;;) {
        ssize_t n = read(S.tty, c, 1);
        if (n < 0 && errno == EINTR && !cuk_interrupted) {
            cuk_progress(); /* a signal: the front end's turn (the panel takes up a resize) */
            continue;
        }
        if (n < 0)
            return cuk_interrupted ? cuk_err_cancel() : cuk_err("cannot read the terminal: %s", strerror(errno));
        return n == 1;
    }
}

static void step_keys_help(void)
{
    out_printf("  Enter or space  run it         s  skip it         b  back to the one before\n"
               "  g N Enter       go to lesson N q  stop           ?  these keys\n");
}

/* After g: the lesson's number, typed and shown until Enter; 0 if none
 * (Escape, or Enter at once), -1 (error set) or -2 (terminal closed). */
static int read_lesson(void)
{
    char c;
    int n = 0, digits = 0, got;
    out_printf("  go to lesson: ");
    out_flush();
    while ((got = read_key(&c)) > 0) {
        if (c >= '0' && c <= '9' && digits < 4) {
            n = 10 * n + (c - '0');
            digits++;
            out_printf("%c", c);
        } else if ((c == 127 || c == '\b') && digits) {
            n /= 10;
            digits--;
            out_printf("\b \b");
        } else if (c == '\n' || c == '\r' || c == 27) {
            break;
        }
        out_flush();
    }
    out_printf("\n");
    return got < 0 ? -1 : got == 0 ? -2 : c == 27 ? 0 : n;
}

/* wait_key's answer for `?` and for a g given up: show the statement again. */
#define STEP_AGAIN (-1)

/* Wait for one of the step keys; the others are ignored. */
static int wait_key(int *lesson)
{
    char c;
    int got;
    while ((got = read_key(&c)) > 0) {
        switch (c) {
        case '\n': case '\r': case ' ': out_printf("\n"); return STEP_RUN;
        case 's': case 'S': out_printf("   (skipped)\n"); return STEP_SKIP;
        case 'b': case 'B': out_printf("   (back)\n"); return STEP_BACK;
        case 'q': case 'Q': out_printf("\n"); return STEP_QUIT;
        case '?': out_printf("\n"); step_keys_help(); return STEP_AGAIN;
        case 'g': case 'G':
            out_printf("\n");
            *lesson = read_lesson();
            return *lesson == -1 ? STEP_FAIL : *lesson == -2 ? STEP_QUIT : *lesson == 0 ? STEP_AGAIN : STEP_JUMP;
        default: break;
        }
    }
    return got < 0 ? STEP_FAIL : STEP_QUIT;
}

step_key lecture_step_wait(cuk_session *s, const stmt *st, int *lesson)
{
    struct termios saved;
    int raw = keys_one_by_one(&saved) == 0, k;
    do {
        /* keys pressed while the last statement ran are not for this one;
         * those pressed once it is shown are */
        tcflush(S.tty, TCIFLUSH);
        if (st)
            step_echo(s, st);
        else
            out_printf("cuk[%s]> ", shown_mode(s)); /* a pause: an empty prompt while the lecturer talks */
        out_flush();
        k = wait_key(lesson);
    } while (k == STEP_AGAIN);
    if (raw)
        tcsetattr(S.tty, TCSANOW, &saved);
    out_flush();
    if (k == STEP_QUIT) {
        S.stopped = 1;
        s->quit = 1; /* the run ends as at `quit`; lecture_step_end takes it back for `run "f" step` */
    }
    return (step_key)k;
}

void lecture_step_end(cuk_session *s)
{
    if (S.stopped)
        s->quit = 0;
    S.stopped = 0;
}

void lecture_step_last(cuk_session *s, const char *file)
{
    char c;
    struct termios saved;
    int raw = keys_one_by_one(&saved) == 0;
    tcflush(S.tty, TCIFLUSH);
    out_printf("\n-- the end of %s: a key leaves --", file);
    out_flush();
    if (read_key(&c) < 0)
        cuk_err_clear();
    if (raw)
        tcsetattr(S.tty, TCSANOW, &saved);
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

/* A bench or ladder of modes this machine lacks (all of them when none
 * is named): it would run only the rows it can, and its lesson is in the
 * others. The first mode lacking, or NULL. */
static const cuk_backend *measures_lacking(const stmt *st)
{
    int named = 0;
    if (st->kind != STMT_CMD || (st->cmd != CMD_BENCH && st->cmd != CMD_LADDER))
        return NULL;
    for (int i = 0; i < st->narg; i++) {
        const cuk_backend *be = st->arg[i]->kind == AST_NAME ? mode_find(st->arg[i]->text) : NULL;
        named += be != NULL;
        if (be && !mode_available(be, NULL))
            return be;
    }
    for (int i = 0; !named && i < mode_count(); i++)
        if (!mode_available(mode_get(i), NULL) && mode_on_device(mode_get(i)))
            return mode_get(i);
    return NULL;
}

/* Rehearsing: whether st is skipped (and said so, with its recording)
 * rather than run. A `mode` this machine lacks starts skipping; one that
 * works ends it; an unknown name is still an error. Outside a lacking
 * mode, a statement that uses a ghost is skipped too, and so is a bench
 * or ladder of modes this machine lacks, when a GPU recorded it. */
static int rehearse_skips(cuk_session *s, const stmt *st)
{
    const char *ghost = NULL;
    const cuk_backend *lacks = NULL;
    if (!s->rehearse)
        return 0;
    if (st->kind == STMT_CMD && st->cmd == CMD_MODE && st->narg == 1) {
        const cuk_backend *be = mode_find(st->arg[0]->text);
        s->skipping = be && !mode_available(be, NULL) ? be : NULL;
        if (!s->skipping)
            return 0;
        lacks = s->skipping;
    } else if (s->skipping && !runs_while_skipping(st)) {
        lacks = s->skipping;
    } else if (runs_while_skipping(st) ||
               (!(ghost = stmt_ghost(st)) && !((lacks = measures_lacking(st)) && rec_recorded(s)))) {
        return 0;
    }
    if (stmt_binds(st))
        ghost_add(stmt_binds(st));
    say_skipped(s, st, ghost ? "" : lacking(lacks), ghost);
    rec_play(s, st);
    return 1;
}

/* Stepping through a lecture on a machine without a GPU, not rehearsing:
 * the first `mode` that needs the GPU stops the run, saying how to go
 * through the lecture without one. -1 with the error set, else 0. */
static int needs_rehearsal(const cuk_session *s, const stmt *st)
{
    snap_device d;
    const cuk_backend *be;
    if (!s->step || s->rehearse || st->kind != STMT_CMD || st->cmd != CMD_MODE || st->narg != 1 ||
        !(be = mode_find(st->arg[0]->text)) || !mode_on_device(be) || mode_available(be, NULL))
        return 0;
    snap_device_get(&d);
    if (d.usable)
        return 0; /* a GPU that lacks what the mode needs: mode's own message says so */
    return cuk_err_at(st->arg[0]->pos,
                      "mode %s needs a GPU, and there is none here: to go through the lecture without one, "
                      "rehearse it: %s (each GPU statement then shows what it printed on a GPU)",
                      be->name, S.rehearse);
}

int lecture_before(cuk_session *s, const stmt *st)
{
    if (s->echo && !s->step) {
        step_echo(s, st);
        out_printf("\n");
    }
    if (needs_rehearsal(s, st) != 0)
        return -1;
    rec_statement(s, st);
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

line_kind lecture_line_kind(const char *line, size_t n)
{
    trim(&line, &n);
    if (n >= 2 && line[0] == '#' && line[1] == ':')
        return LINE_HEADING;
    return is_pause(line, n) ? LINE_PAUSE : LINE_OTHER;
}

void lecture_heading(cuk_session *s, const char *line, size_t n)
{
    trim(&line, &n);
    out_printf("\n#:");
    n -= 2, line += 2;
    while (n && (*line == ' ' || *line == '\t'))
        line++, n--;
    if (n) {
        out_printf(" ");
        wrap_words(line, n, 3, 3, width_of(s));
    }
    out_printf("\n");
}
