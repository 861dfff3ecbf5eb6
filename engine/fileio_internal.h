/* fileio_internal.h - what fileio.c lends npy.c and csv.c and callers never
 * see: errors that name the file. */
#ifndef CUK_FILEIO_INTERNAL_H
#define CUK_FILEIO_INTERNAL_H

#include "engine/matrix.h"

/* A new rows x cols host matrix for the file being loaded; NULL with the
 * error set, naming path, when memory runs out. */
cuk_matrix *fileio_new_matrix(int rows, int cols, const char *path);

/* errno after a failed read or write, EIO if the call left none. Writers
 * return it rather than set the error, so that fileio_save names the file. */
int fileio_errno(void);

/* A read of path failed with an I/O error. Returns -1. */
int fileio_read_error(const char *path);

#endif
