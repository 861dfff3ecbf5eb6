/* session.c - a session's state and its front end (see session.h). */
#include "engine/session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/suggest.h"
#include "engine/values/timing.h"
#include "engine/values/warm.h"
#include "kernels/backend.h"
#include "kernels/gpu.h"
#include "kernels/user_client.h"
#include "kernels/variants.h"

/* The front end's output, as the sink base/out.h writes through. */
static out_sink sink;

static void flush_nothing(void *ud) {}

static void attach(const cuk_frontend *fe)
{
    if (fe && fe->write) {
        sink.write = fe->write;
        sink.flush = fe->flush ? fe->flush : flush_nothing; /* NULL: nothing to flush */
        sink.ud = fe->ud;
        out_set_sink(&sink);
    } else {
        out_set_sink(NULL);
    }
    cuk_set_progress(fe ? fe->progress : NULL, fe ? fe->ud : NULL);
}

cuk_session *session_new(const cuk_frontend *fe)
{
    cuk_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fe = fe;
    attach(fe);
    s->seed = (uint64_t)timing_now_ms() * 2654435761u; /* until `seed N` */
    double t0 = timing_now_ms();
    int gpu = gpu_init() == 0;
    if (gpu)
        timing_onetime_note("CUDA context and device 0, at start-up", timing_now_ms() - t0);
    s->mode = mode_start(gpu);
    return s;
}

void session_free(cuk_session *s)
{
    if (!s)
        return;
    ws_clear(&s->ws);
    free(s->ws.e);
    mat_host_trim();
    uc_close(); /* the user modes' helper, if one was started */
    attach(NULL);
    free(s);
}

int session_set_mode(cuk_session *s, const char *name)
{
    const cuk_backend *be = mode_find(name);
    const char *why = NULL;
    if (!be) {
        char list[128] = "";
        for (int i = 0; i < mode_count(); i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", mode_get(i)->name);
        char note[SUGGEST_NOTE];
        return cuk_err("unknown mode '%s'%s (modes: %s)", name, mode_suggest(name, note, sizeof note), list);
    }
    if (!mode_available(be, &why))
        return cuk_err("mode %s is unavailable: %s", name, why);
    if (warm_mode(be) != 0) /* its one-time set-up now, not in the first timed command */
        return -1;
    s->mode = be;
    return 0;
}

static const cuk_backend *shown(const cuk_session *s) { return s->chosen ? s->chosen : s->mode; }

const char *session_mode_name(const cuk_session *s) { return shown(s)->name; }

int session_mode_on_device(const cuk_session *s) { return mode_on_device(shown(s)); }

const char *session_mode_at(int i) { return mode_get(i) ? mode_get(i)->name : NULL; }

const char *session_switch_at(int i) { return variant_get(i) ? variant_get(i)->name : NULL; }

const char *session_switch_value_at(const char *name, int i)
{
    const variant_switch *sw = variant_find(name);
    return sw && i >= 0 && i < sw->nvalues ? sw->values[i].value : NULL;
}

int session_columns(const cuk_session *s)
{
    int c = s->fe && s->fe->columns ? s->fe->columns(s->fe->ud) : 0;
    return c >= 40 ? c : 80;
}

char *session_path(const cuk_session *s, const char *name)
{
    const char *dir = name[0] == '/' || !s->dir ? "" : s->dir;
    size_t nd = strlen(dir);
    const char *sep = nd && dir[nd - 1] != '/' ? "/" : "";
    size_t n = nd + strlen(sep) + strlen(name) + 1;
    char *path = malloc(n);
    if (!path)
        cuk_err("'%s': out of memory", name);
    else
        snprintf(path, n, "%s%s%s", dir, sep, name);
    return path;
}
