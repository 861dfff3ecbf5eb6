/* npy.h - NumPy's .npy format, for fileio.c: versions 1.0 to 3.0 read, 1.0
 * written. */
#ifndef CUK_NPY_H
#define CUK_NPY_H

#include <stdio.h>

#include "engine/values/matrix.h"

/* Read the .npy file open as fp (path names it in messages). NULL with the
 * error set. */
cuk_matrix *npy_load(FILE *fp, const char *path);

/* Write m, whose values are x, as float32, little-endian, C order: 0, an
 * errno value, or -1 with the error set (the user interrupted). */
int npy_write(FILE *fp, const cuk_matrix *m, const float *x);

#endif
