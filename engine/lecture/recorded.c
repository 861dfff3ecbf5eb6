/* recorded.c - lessons recorded on a GPU, and played in a rehearsal (see
 * recorded.h). */
#include "engine/lecture/recorded.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/error.h"
#include "base/out.h"
#include "engine/files/savefile.h"
#include "engine/session/snapshot.h"

#define REC_DEPTH 20     /* scripts nested by `run`: more than run allows */
#define REC_BUCKETS 256  /* of the table of texts seen */

/* How many times a statement's text has been met in a script so far. */
typedef struct seen {
    struct seen *next;
    int n;
    char key[];
} seen;

/* One statement's recording, pointing into the recording's text: its
 * output lines, each starting "| " or "! ", ending before `end`. */
typedef struct {
    const char *key;
    int occurrence;
    char *out, *end;
} rec_entry;

/* A script being run: its texts met, and its recording being written or
 * read. */
typedef struct {
    char path[PATH_MAX];
    seen *table[REC_BUCKETS];
    char key[REC_KEY_MAX]; /* the statement under way, and its occurrence */
    int occurrence;
    savefile *file;    /* recording: written through savefile.h, put in place at the script's end */
    FILE *f;           /* recording: its stream */
    int writing, fresh; /* a statement's output is being kept; at the start of a line */
    int loaded;        /* playback: 0 not read yet, 1 read, -1 none */
    char gpu[160], date[32];
    char *text;        /* the recording's text, which the entries point into */
    rec_entry *e;
    int ne;
} rec_script;

static struct {
    char dir[PATH_MAX]; /* recording into it; "" when not recording */
    char version[128];
    rec_script *stack[REC_DEPTH];
    int depth;          /* scripts under way; those past REC_DEPTH are not followed */
    int hint;           /* rec_occurrence's; 0: count */
} R;

static rec_script *top(void) { return R.depth > 0 && R.depth <= REC_DEPTH ? R.stack[R.depth - 1] : NULL; }

void rec_key(const char *text, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    int blank = 0;
    for (size_t i = 0; i < n && k + 2 < cap; i++) {
        int b = text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r';
        if (b) {
            blank = k > 0;
            continue;
        }
        if (blank)
            buf[k++] = ' ';
        buf[k++] = text[i];
        blank = 0;
    }
    buf[k] = '\0';
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % REC_BUCKETS;
}

/* The next occurrence of key in script r: 1, 2, ... */
static int count(rec_script *r, const char *key)
{
    seen **b = &r->table[hash(key)], *e;
    for (e = *b; e; e = e->next)
        if (!strcmp(e->key, key))
            return ++e->n;
    size_t n = strlen(key) + 1;
    if ((e = malloc(sizeof *e + n))) {
        memcpy(e->key, key, n);
        e->n = 1;
        e->next = *b;
        *b = e;
    }
    return 1;
}

/* The file of script path's recording: in dir when given, else in the
 * folder recorded/ beside the script. */
static void recording_path(const char *path, const char *dir, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    size_t n = strlen(name);
    if (n > 4 && !strcmp(name + n - 4, ".cuk"))
        n -= 4;
    if (dir)
        snprintf(buf, cap, "%s/%.*s.txt", dir, (int)n, name);
    else
        snprintf(buf, cap, "%.*srecorded/%.*s.txt", slash ? (int)(slash - path + 1) : 0, path, (int)n, name);
}

/* ---- recording ---- */

int rec_start(const char *dir, const char *version)
{
    struct stat st;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return cuk_err("--transcripts: cannot make '%s': %s", dir, strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cuk_err("--transcripts: '%s' is not a folder", dir);
    snprintf(R.dir, sizeof R.dir, "%s", dir);
    snprintf(R.version, sizeof R.version, "%s", version);
    return 0;
}

/* Each line shown while a statement runs, into its script's recording,
 * after "| " (or "! " on the error channel). */
static void tap(void *ud, out_channel ch, const char *s, size_t n)
{
    rec_script *r = top();
    if (!r || !r->f || !r->writing)
        return;
    while (n > 0) {
        const char *nl = memchr(s, '\n', n);
        size_t k = nl ? (size_t)(nl - s) + 1 : n;
        if (r->fresh)
            fputs(ch == OUT_ERROR ? "! " : "| ", r->f);
        fwrite(s, 1, k, r->f);
        r->fresh = nl != NULL;
        s += k, n -= k;
    }
}

static void record_header(rec_script *r, const char *name)
{
    char date[32];
    snap_device d;
    time_t now = time(NULL);
    struct tm *t = gmtime(&now);
    snap_device_get(&d);
    strftime(date, sizeof date, "%Y-%m-%d", t);
    fprintf(r->f, "cuk transcript of %s\ngpu: %s\ndate: %s\ncuk: %s\n\n", name, d.usable ? d.f.name : "none",
            date, R.version);
}

static void record_open(rec_script *r)
{
    char file[PATH_MAX + 16];
    const char *slash = strrchr(r->path, '/');
    recording_path(r->path, R.dir, file, sizeof file);
    if (!(r->file = savefile_open("--transcripts", file))) {
        out_errorf("warning: %s\n", cuk_err_get()->msg);
        cuk_err_clear();
        return;
    }
    r->f = savefile_stream(r->file);
    record_header(r, slash ? slash + 1 : r->path);
    out_set_tap(tap, NULL);
}

/* ---- scripts and statements ---- */

void rec_script_begin(const char *path)
{
    rec_script *r = R.depth < REC_DEPTH ? calloc(1, sizeof *r) : NULL;
    R.depth++;
    if (!r) /* too deep, or out of memory: this script is not followed */
        return;
    R.stack[R.depth - 1] = r;
    snprintf(r->path, sizeof r->path, "%s", path ? path : "");
    if (R.dir[0] && path)
        record_open(r);
}

/* The recording put in place (savefile.h: every write checked); a failure
 * is a warning, as a recording that cannot be opened is, and an error the
 * script left to report is kept for it. */
static void recording_close(rec_script *r)
{
    cuk_error pending = *cuk_err_get();
    if (savefile_commit(r->file) != 0)
        out_errorf("warning: %s\n", cuk_err_get()->msg);
    cuk_err_restore(&pending);
    r->file = NULL;
    r->f = NULL;
}

static void script_free(rec_script *r)
{
    for (int i = 0; i < REC_BUCKETS; i++)
        for (seen *e = r->table[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    if (r->file)
        recording_close(r);
    free(r->text);
    free(r->e);
    free(r);
}

void rec_script_end(void)
{
    rec_statement_end();
    if (R.depth <= 0)
        return;
    if (R.depth <= REC_DEPTH)
        script_free(R.stack[R.depth - 1]);
    R.depth--;
}

void rec_occurrence(int n) { R.hint = n; }

void rec_statement(const cuk_session *s, const stmt *st)
{
    rec_script *r = top();
    int hint = R.hint;
    R.hint = 0;
    if (!r || !r->path[0] || !s->src || (!r->f && !s->rehearse))
        return;
    rec_statement_end();
    rec_key(s->src->text + st->start, st->end - st->start, r->key, sizeof r->key);
    r->occurrence = hint > 0 ? hint : count(r, r->key);
    if (r->f) {
        fprintf(r->f, ">>> %d %s\n", r->occurrence, r->key);
        r->writing = r->fresh = 1;
    }
}

void rec_statement_end(void)
{
    rec_script *r = top();
    if (!r || !r->writing)
        return;
    if (!r->fresh) /* output that did not end its line */
        fputc('\n', r->f);
    fflush(r->f);
    r->writing = 0;
}

/* ---- playback ---- */

/* The value of header line "name: value" into buf, if line is one. */
static void header_field(const char *line, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    if (!strncmp(line, name, n) && line[n] == ':')
        snprintf(buf, cap, "%s", line + n + 1 + (line[n + 1] == ' '));
}

/* The recording's text cut into lines (in place), read into entries. */
static int parse_recording(rec_script *r, char *text)
{
    int cap = 0;
    rec_entry *cur = NULL;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, ">>> ", 4)) {
            if (r->ne == cap) {
                rec_entry *e = realloc(r->e, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *e);
                if (!e)
                    return -1;
                r->e = e;
            }
            cur = &r->e[r->ne++];
            char *sp = strchr(line + 4, ' ');
            cur->occurrence = atoi(line + 4);
            cur->key = sp ? sp + 1 : "";
            cur->out = cur->end = next ? next : line + strlen(line);
        } else if (cur && (line[0] == '|' || line[0] == '!')) {
            cur->end = next ? next : line + strlen(line);
        } else if (!cur) {
            header_field(line, "gpu", r->gpu, sizeof r->gpu);
            header_field(line, "date", r->date, sizeof r->date);
        }
    }
    return 0;
}

/* Read r's recording, once: 1, or 0 if there is none. */
static int load(rec_script *r)
{
    char file[PATH_MAX + 16];
    if (r->loaded)
        return r->loaded > 0;
    r->loaded = -1;
    recording_path(r->path, NULL, file, sizeof file);
    FILE *f = fopen(file, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (f && n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (r->text = malloc((size_t)n + 1)) &&
        fread(r->text, 1, (size_t)n, f) == (size_t)n) {
        r->text[n] = '\0';
        r->loaded = parse_recording(r, r->text) == 0 ? 1 : -1;
    }
    if (f)
        fclose(f);
    return r->loaded > 0;
}

/* The output lines of e, each to its channel. */
static void play_lines(const rec_entry *e)
{
    for (char *line = e->out; line < e->end; line += strlen(line) + 1) {
        if (line[0] == '!')
            out_errorf("%s\n", line[1] == ' ' ? line + 2 : line + 1);
        else if (line[0] == '|')
            out_printf("%s\n", line[1] == ' ' ? line + 2 : line + 1);
    }
}

/* The recording of the statement under way; NULL if none. */
static const rec_entry *entry(void)
{
    rec_script *r = top();
    for (int i = 0; r && load(r) && i < r->ne; i++)
        if (r->e[i].occurrence == r->occurrence && !strcmp(r->e[i].key, r->key))
            return &r->e[i];
    return NULL;
}

int rec_recorded(const cuk_session *s) { return entry() != NULL; }

void rec_play(const cuk_session *s, const stmt *st)
{
    rec_script *r = top();
    const rec_entry *e = entry();
    char file[PATH_MAX + 16];
    if (!r || !r->path[0]) /* statements of -e or stdin: no lesson to have recorded */
        return;
    recording_path(r->path, NULL, file, sizeof file);
    if (!load(r))
        out_printf("  no recording: re-record the lesson (there is no %s)\n", file);
    else if (!e)
        out_printf("  no recording: re-record the lesson (%s, of %s, has none of this statement)\n", file,
                   r->date[0] ? r->date : "?");
    else if (e->out < e->end) {
        out_printf("  recorded on %s, %s:\n", r->gpu[0] ? r->gpu : "a GPU", r->date[0] ? r->date : "?");
        play_lines(e);
    }
}
