/* tables.h - text tables that fit the terminal: columns are packed into as
 * many blocks as the width needs, each block repeating the first column
 * (the mode), so that a wide bench reads on 80 columns and a narrow one on
 * 50. Widths are display columns ("µs" is two bytes, one column). */
#ifndef CUK_TABLES_H
#define CUK_TABLES_H

#define TAB_CELL 200

typedef struct {
    const char *head;
    int width;      /* display columns; a bar column: its least width */
    int right;      /* right-aligned */
    int bar;        /* cells hold "FRAC TOP": a bar (chart_bar) filling the
                       width left in its block, to FRAC, its spread to TOP */
} tab_col;

/* Print nrows rows of ncols cells (cells[r * ncols + c], each a string
 * under TAB_CELL bytes) under indent spaces, in blocks of at most width
 * columns; a row whose cell 1 starts with '\t' is a note: cell 0 and the
 * rest of cell 1 are printed once, in the first block, on one line
 * (tab_line), so that a table of many unavailable modes stays short. */
void tab_print(const tab_col *cols, int ncols, char (*cells)[TAB_CELL], int nrows, int width, int indent);

/* Display columns of a UTF-8 string. */
int tab_width(const char *s);

/* Print lead and text on one line of at most width columns: text cut at a
 * word and ended with "…" if it is longer. */
void tab_line(const char *lead, const char *text, int width);

/* Print text wrapped to width, the first line after `lead` and the rest
 * under `indent` spaces. */
void tab_wrap(const char *lead, const char *text, int width, int indent);

#endif
