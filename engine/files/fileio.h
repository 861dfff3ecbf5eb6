/* fileio.h - matrices to and from files: NumPy's .npy and .csv, chosen by the
 * file name's extension. */
#ifndef CUK_FILEIO_H
#define CUK_FILEIO_H

#include <stdio.h>

#include "engine/values/matrix.h"

/* Load path as a new host matrix; NULL with the error set, naming the file
 * and what is wrong with it. .npy: float32 or float64 (either byte order),
 * C or Fortran order, 1-D (a 1xN row) or 2-D. .csv: rows of numbers
 * separated by commas, all rows the same length. */
cuk_matrix *fileio_load(const char *path);

/* Save m to path: .npy (float32, little-endian, C order) or .csv. Writes a
 * temporary file beside path and renames it over path, so a failure never
 * leaves a half-written file. 0, or -1 with the error set. */
int fileio_save(cuk_matrix *m, const char *path);

/* Writes a file's contents to fp: 0, an errno value, or -1 with the error
 * set. Write errors need not be checked: the save flushes and checks. */
typedef int (*fileio_writer)(FILE *fp, const void *ud);

/* Save any file the way fileio_save does (a temporary renamed over path,
 * links followed, signals held off), its contents from fn; what names the
 * command in a message ("save plot: cannot write 'x.svg': ..."). 0, or -1
 * with the error set. */
int fileio_save_with(const char *path, const char *what, fileio_writer fn, const void *ud);

#endif
