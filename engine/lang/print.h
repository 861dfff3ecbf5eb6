/* print.h - showing values the NumPy way: a header with name, shape and
 * where the matrix lives, then aligned columns; past 1000 elements only the
 * three first and last rows and columns, with "..." between. */
#ifndef CUK_PRINT_H
#define CUK_PRINT_H

#include "engine/values/matrix.h"

#define PRINT_THRESHOLD 1000
#define PRINT_EDGE 3

/* Print `name = value` in `columns` columns. Only the elements shown are
 * copied from the device; the matrix stays where it is. 0, or -1 with the
 * error set. */
int print_value(const char *name, cuk_matrix *m, int format_long, int columns);

#endif
