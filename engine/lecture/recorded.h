/* recorded.h - lessons recorded on a GPU, shown in a rehearsal without
 * one.
 *
 * Recording (cuk --transcripts DIR FILE.cuk, on a GPU): every script the
 * run goes through, FILE and those it runs, writes what each of its
 * statements printed to DIR/NAME.txt (NAME: the script's file name less
 * ".cuk"), a text file that reads and diffs as it stands:
 *
 *     cuk transcript of 2-tiles.cuk
 *     gpu: NVIDIA H200
 *     date: 2025-06-02
 *     cuk: 0.1 (readline, ncurses, CUDA, BLAS)
 *
 *     >>> 1 timeit C = A @ B
 *     | 12 runs: median 117.9 ms per run, ...
 *     >>> 1 kernels
 *     | kernel ...
 *
 * A statement is keyed by its text (blanks run together, its ';' and
 * comment left out) and by which occurrence of that text in its script it
 * is, so that a script edited elsewhere still finds each recording, and
 * one edited there says it has none. "| " starts a line printed, "! " one
 * printed as an error.
 *
 * Playback (--rehearse): a statement the rehearsal cannot run is followed
 * by its recording, from recorded/NAME.txt beside its script (the lessons'
 * are in scripts/recorded/), marked with the GPU and the date; a statement
 * with none says so. */
#ifndef CUK_RECORDED_H
#define CUK_RECORDED_H

#include <stddef.h>

#include "engine/lang/ast.h"
#include "engine/session/session.h"

/* Record into folder dir (made if missing), each file's header naming the
 * build (version). 0, or -1 with the error set. */
int rec_start(const char *dir, const char *version);

/* A script file starts (path as opened; NULL: stdin, which has no
 * recording) / ends; scripts nest as `run` does. */
void rec_script_begin(const char *path);
void rec_script_end(void);

/* Statement st of the script running (s->src) starts / has ended: its
 * occurrence counted, and while recording, its output kept. */
void rec_statement(const cuk_session *s, const stmt *st);
void rec_statement_end(void);
/* Step mode goes back and jumps: it gives the occurrence of the next
 * statement's text in its script itself (1 for the first). */
void rec_occurrence(int n);

/* The key of a statement's text (n bytes) into buf: blanks run together;
 * a text past REC_KEY_MAX is keyed by its start. */
#define REC_KEY_MAX 512
void rec_key(const char *text, size_t n, char *buf, size_t cap);

/* Rehearsing: show what the statement under way (rec_statement's) printed
 * when recorded, or that it never was; whether there is a recording of it. */
void rec_play(const cuk_session *s, const stmt *st);
int rec_recorded(const cuk_session *s);

#endif
