/* csv.h - plain comma-separated .csv, for fileio.c: one row of numbers a
 * line, read and written in the C locale. */
#ifndef CUK_CSV_H
#define CUK_CSV_H

#include <stdio.h>

#include "engine/values/matrix.h"

/* Read the .csv file open as fp (path names it in messages). NULL with the
 * error set. */
cuk_matrix *csv_load(FILE *fp, const char *path);

/* Write m, whose values are x: 0, an errno value, or -1 with the error set
 * (the user interrupted). */
int csv_write(FILE *fp, const cuk_matrix *m, const float *x);

#endif
