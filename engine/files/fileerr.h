/* fileerr.h - errors of file I/O that name the file: what fileio.c, npy.c and
 * csv.c share and callers never see. */
#ifndef CUK_FILEERR_H
#define CUK_FILEERR_H

#include "engine/values/matrix.h"

/* A new rows x cols host matrix for the file being loaded; NULL with the
 * error set, naming path, when memory runs out. */
cuk_matrix *fileerr_new_matrix(int rows, int cols, const char *path);

/* errno after a failed read or write, EIO if the call left none. Writers
 * return it rather than set the error, so that fileio_save names the file. */
int fileerr_errno(void);

/* A read of path failed with an I/O error. Returns -1. */
int fileerr_read(const char *path);

/* Prefix the pending error (say "out of memory ...") with the operation and
 * the file; a cancel or fatal error is left as it is. Returns -1. */
int fileerr_wrap(const char *op, const char *path);

#endif
