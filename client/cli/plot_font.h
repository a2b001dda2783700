/* plot_font.h — the built-in bitmap font of `blendsync plot` (printable ASCII, 5x8 glyphs).
 *
 * Each glyph is 5 pixels wide and 8 rows tall: rows 0..6 hold capitals and digits (the baseline is
 * row 6), row 7 holds descenders (g, j, p, q, y) and the underscore. A character cell is
 * BSYNC_PLOT_FONT_ADVANCE x BSYNC_PLOT_FONT_LINE pixels at scale 1 (one column and one row of
 * spacing). Characters outside 32..126 draw as '?'. The table is our own, written as text art in
 * plot_font.c; no font files are read.
 */
#ifndef BLENDSYNC_CLI_PLOT_FONT_H
#define BLENDSYNC_CLI_PLOT_FONT_H

#define BSYNC_PLOT_FONT_W 5
#define BSYNC_PLOT_FONT_H 8
#define BSYNC_PLOT_FONT_ADVANCE 6 /* horizontal step per character at scale 1 */
#define BSYNC_PLOT_FONT_LINE 10   /* vertical step per line at scale 1 */

/* 1 when pixel (col, row) of character c is set, else 0 (also for col/row outside the glyph). */
int bsync_plot_font_pixel(unsigned char c, int col, int row);

#endif
