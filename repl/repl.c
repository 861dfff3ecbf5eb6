/* repl.c - the interactive loop. With GNU Readline it uses the callback
 * interface, so that one select() loop sees keystrokes, Ctrl-C and window
 * resizes; without it, a plain getline() loop. Either way a statement left
 * open (an unclosed '(' or '[') continues on the next line, Ctrl-C clears
 * the line or cancels the running command, and Ctrl-D leaves. */
#include "repl/repl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <unistd.h>

#include "base/error.h"
#include "base/out.h"
#include "base/wrap.h"
#include "engine/lecture/lecture.h"
#include "engine/run/run.h"
#include "repl/panel.h"

#ifdef CUK_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

#define HISTORY_MAX 1000

static struct {
    cuk_session *s;
    char *pending;          /* the lines of a statement still open */
    size_t len, cap;
    int done, status;
    int want_panel;         /* `panel on|off` asked; switched between commands */
    int lecturing;          /* cuk --step: no readline loop, statements come from a script */
    wrap_state wrap[2];     /* output and errors, broken at words to the width */
    char history[4096];     /* "" when there is no home to keep it in */
} R;

static volatile sig_atomic_t sigint_seen, winch_seen;

static void on_sigint(int sig)
{
    sigint_seen = 1;
    cuk_interrupted = 1; /* a running command polls this and stops */
}

static void on_winch(int sig) { winch_seen = 1; }

/* No SA_RESTART: a signal must wake the select() or read() we wait in. */
static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
}

/* ---- the front end the engine talks to ---- */

/* Output as it goes to the screen: the panel's window, or the terminal. */
static void show(void *ud, const char *s, size_t n)
{
    out_channel ch = *(const out_channel *)ud;
    if (panel_active())
        panel_write(ch, s, n);
    else
        out_std_write(ch, s, n);
}

static int fe_columns(void *ud)
{
    struct winsize ws;
    if (panel_active())
        return panel_columns();
    return ioctl(1, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

/* Every line shown fits the width of where it is shown, broken at words. */
static void fe_write(void *ud, out_channel ch, const char *s, size_t n)
{
    wrap_write(&R.wrap[ch == OUT_ERROR], fe_columns(ud), s, n, show, &ch);
}

static void fe_flush(void *ud)
{
    static const out_channel chs[2] = {OUT_NORMAL, OUT_ERROR};
    for (int i = 0; i < 2; i++)
        wrap_flush(&R.wrap[i], show, (void *)&chs[i]);
    if (panel_active())
        panel_flush();
    else
        out_std_flush();
}

/* A resize the signal handler saw, taken up (between statements, or while
 * long work or a stepped lecture gives the front end its turn). */
static void take_resize(void)
{
    if (winch_seen && panel_active()) {
        winch_seen = 0;
        panel_resize();
    }
}

static int fe_progress(void *ud)
{
    if (!panel_active())
        return 0;
    take_resize();
    panel_tick();
    return 1;
}

/* In a stepped lecture each statement is shown running in the panel's
 * title, as a typed line is (run_line). */
static void fe_statement_started(void *ud, const char *text, size_t n)
{
    char line[160];
    if (!R.lecturing)
        return;
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), text);
    panel_command_started(line);
}

static void fe_statement_done(void *ud)
{
    take_resize();
    if (R.lecturing)
        panel_command_done();
    else
        panel_refresh();
}

static int fe_panel(void *ud, int on);
static int fe_present(void *ud, int how);

static const cuk_frontend frontend = {
    .interactive = 1,
    .write = fe_write,
    .flush = fe_flush,
    .columns = fe_columns,
    .progress = fe_progress,
    .panel = fe_panel,
    .present = fe_present,
    .statement_started = fe_statement_started,
    .statement_done = fe_statement_done,
};

const cuk_frontend *repl_frontend(void) { return &frontend; }

static const char *prompt(void)
{
    static char p[64];
    if (R.len)
        snprintf(p, sizeof p, "%*s ", (int)strlen(session_mode_name(R.s)) + 5, "...");
    else
        snprintf(p, sizeof p, "cuk[%s]> ", session_mode_name(R.s));
    return p;
}

static void banner(void)
{
    out_printf("cuk: mode %s (%s). `help` for help, Ctrl-D to leave.\n", session_mode_name(R.s),
               session_mode_on_device(R.s) ? "matrices stay on the GPU" : "no GPU in use");
    out_flush();
}

static int pending_append(const char *line)
{
    size_t n = strlen(line), need = R.len + n + 2;
    if (need > R.cap) {
        char *p = realloc(R.pending, need * 2);
        if (!p)
            return -1;
        R.pending = p;
        R.cap = need * 2;
    }
    if (R.len)
        R.pending[R.len++] = '\n';
    memcpy(R.pending + R.len, line, n);
    R.len += n;
    R.pending[R.len] = '\0';
    return 0;
}

/* Run what has been typed so far, unless it is still open. */
static void run_line(const char *line)
{
    if (pending_append(line) != 0) {
        out_errorf("error: out of memory for the input line\n");
        R.len = 0;
        return;
    }
    cuk_interrupted = 0;
    panel_command_started(R.pending);
    run_status st = run_source(R.s, R.pending, R.len, NULL, 1, 0);
    panel_command_done(); /* not at each statement: `mode cpu; C = A @ B` runs as one line */
    cuk_interrupted = 0;
    sigint_seen = 0; /* a Ctrl-C during the command was the command's */
    out_flush();
    if (st == RUN_INCOMPLETE)
        return;
    R.len = 0;
    if (st == RUN_QUIT || st == RUN_FATAL) {
        R.done = 1;
        R.status = st == RUN_FATAL;
    }
}

static void history_path(void)
{
    const char *env = getenv("CUK_HISTORY"), *home = getenv("HOME");
    if (env)
        snprintf(R.history, sizeof R.history, "%s", env);
    else if (home && *home)
        snprintf(R.history, sizeof R.history, "%s/.cuk_history", home);
}

#ifdef CUK_HAVE_READLINE

static void history_open(void)
{
    using_history();
    stifle_history(HISTORY_MAX);
    if (R.history[0] && read_history(R.history) != 0)
        write_history(R.history); /* create it, so each line can be appended */
}

static void history_add(const char *line)
{
    HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (!*line || (last && !strcmp(last->line, line)))
        return;
    add_history(line);
    if (R.history[0])
        append_history(1, R.history); /* kept even if cuk is killed */
}

/* The line typed, after its prompt, in the panel's output window, which
 * keeps a transcript. Straight to the window, not through the output sink:
 * `record` has the line from run.c, as typed at a plain terminal. */
static void echo_typed(const char *line)
{
    const char *p = prompt();
    panel_write(OUT_NORMAL, p, strlen(p));
    panel_write(OUT_NORMAL, line, strlen(line));
    panel_write(OUT_NORMAL, "\n", 1);
}

/* Called by readline with each finished line, the terminal already given
 * back; NULL is Ctrl-D on an empty line. */
static void on_line(char *line)
{
    if (!line) {
        if (!panel_active())
            fputs("\n", stdout);
        R.done = 1;
        rl_callback_handler_remove();
        return;
    }
    history_add(line);
    if (panel_active())
        echo_typed(line);
    run_line(line);
    free(line);
    if (R.done)
        rl_callback_handler_remove();
    else
        rl_callback_handler_install(prompt(), on_line);
}

/* Ctrl-C at the prompt: drop the line (and any open statement), start over. */
static void clear_input(void)
{
    sigint_seen = 0;
    cuk_interrupted = 0;
    R.len = 0;
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_replace_line("", 0);
    if (!panel_active())
        fputs("\n", stdout);
    rl_set_prompt(prompt());
    rl_on_new_line();
    rl_redisplay();
}

/* Put the panel up or take it down, as `panel on|off` last asked. */
static void switch_panel(void)
{
    if (R.want_panel == panel_active())
        return;
    rl_callback_handler_remove();
    if (!R.want_panel) {
        panel_stop();
    } else if (panel_start(R.s) != 0) {
        out_errorf("error: %s\n", cuk_err_get()->msg);
        cuk_err_clear();
        R.want_panel = 0;
    }
    rl_callback_handler_install(prompt(), on_line);
}

/* One wait for input on the plain terminal. */
static void wait_terminal(void)
{
    fd_set in;
    FD_ZERO(&in);
    FD_SET(0, &in);
    int r = select(1, &in, NULL, NULL, NULL);
    if (sigint_seen)
        clear_input();
    if (winch_seen) {
        winch_seen = 0;
        rl_resize_terminal();
    }
    if (r > 0 && FD_ISSET(0, &in))
        rl_callback_read_char();
    else if (r < 0 && errno != EINTR)
        R.done = 1;
}

/* One wait for input under the panel. */
static void wait_panel(void)
{
    int n = panel_getch();
    if (sigint_seen)
        clear_input();
    if (winch_seen) {
        winch_seen = 0;
        panel_resize();
    }
    while (n > 0 && panel_key_waiting() && !R.done)
        rl_callback_read_char();
}

static void read_loop(void)
{
    rl_catch_signals = 0; /* Ctrl-C and resizes are ours, see clear_input */
    rl_catch_sigwinch = 0;
    rl_change_environment = 0; /* no LINES and COLUMNS: they would outlive a resize */
    rl_readline_name = "cuk";
    complete_install(R.s);
    history_open();
    switch_panel();
    banner();
    rl_callback_handler_install(prompt(), on_line);
    while (!R.done) {
        switch_panel();
        if (panel_active())
            wait_panel();
        else
            wait_terminal();
    }
    rl_callback_handler_remove();
    panel_stop();
    if (R.history[0])
        history_truncate_file(R.history, HISTORY_MAX);
}

#else /* no readline: a plain line reader */

static void read_loop(void)
{
    char *line = NULL;
    size_t cap = 0;
    banner();
    while (!R.done) {
        fputs(prompt(), stdout);
        fflush(stdout);
        errno = 0;
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0 && errno == EINTR) {
            clearerr(stdin);
            fputs("\n", stdout);
            sigint_seen = 0;
            cuk_interrupted = 0;
            R.len = 0;
            continue;
        }
        if (n < 0) {
            fputs("\n", stdout);
            break;
        }
        if (n > 0 && line[n - 1] == '\n')
            line[n - 1] = '\0';
        run_line(line);
    }
    free(line);
}

#endif

/* `panel on|off` from the session: the switch waits for the command to end. */
static int fe_panel(void *ud, int on)
{
    const char *why;
    if (on && !panel_available(&why))
        return cuk_err("panel: %s", why);
    R.want_panel = on;
    return 0;
}

/* `present on|off|e2e`: the large view, in the panel (brought up if it was off). */
static int fe_present(void *ud, int how)
{
    const char *why;
    if (how != PRESENT_OFF && !panel_available(&why))
        return cuk_err("present: no panel here: %s", why);
    if (how != PRESENT_OFF)
        R.want_panel = 1;
    panel_present(how);
    return 0;
}

void repl_lecture_begin(cuk_session *s, int panel)
{
    const char *why;
    R.s = s;
    R.lecturing = 1;
    install_signals();
    if (panel && panel_available(&why) && panel_start(s) != 0) {
        out_errorf("cuk: %s; going on without it\n", cuk_err_get()->msg);
        cuk_err_clear();
    }
}

void repl_lecture_end(cuk_session *s, const char *name)
{
    if (!panel_active())
        return;
    if (!s->quit) /* q means leave now; an end or an error is read first */
        lecture_step_last(s, name);
    panel_stop();
}

int repl_run(cuk_session *s, int panel)
{
    const char *why;
    R.s = s;
    R.want_panel = panel && panel_available(&why);
    history_path();
    install_signals();
    read_loop();
    free(R.pending);
    return R.status;
}
