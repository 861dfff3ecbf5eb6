/* fileio.h - matrices to and from files: NumPy's .npy and .csv, chosen by the
 * file name's extension. */
#ifndef CUK_FILEIO_H
#define CUK_FILEIO_H

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

#endif
