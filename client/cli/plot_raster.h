/* plot_raster.h — a small RGB canvas for `blendsync plot`: pixels, anti-aliased lines and rings,
 * filled rectangles and discs, text in the built-in font (plot_font.h), colour mixing in linear
 * light, and an all-or-nothing PNG writer.
 *
 * Floats are used here for drawing only (the CLI is an edge): nothing drawn feeds back into the
 * fixed-point core. Coordinates are pixels, x to the right, y down; a pixel (i, j) covers
 * [i, i+1) x [j, j+1), so its centre is (i + 0.5, j + 0.5). Everything is clipped to the canvas.
 */
#ifndef BLENDSYNC_CLI_PLOT_RASTER_H
#define BLENDSYNC_CLI_PLOT_RASTER_H

#include <stddef.h>
#include <stdint.h>

typedef struct bsync_plot_rgb {
    uint8_t r, g, b;
} bsync_plot_rgb;

typedef struct bsync_plot_canvas {
    int w, h;
    uint8_t* px; /* w * h * 3 bytes, rows top to bottom */
} bsync_plot_canvas;

/* Allocates a w x h canvas filled with `bg`. 0 on success, -1 when w or h is outside 1..16384 or
 * memory runs out (the canvas is then empty and safe to free). */
int bsync_plot_canvas_init(bsync_plot_canvas* c, int w, int h, bsync_plot_rgb bg);
void bsync_plot_canvas_free(bsync_plot_canvas* c);
/* A copy of `src` (same size); 0 or -1. */
int bsync_plot_canvas_copy(bsync_plot_canvas* dst, const bsync_plot_canvas* src);

bsync_plot_rgb bsync_plot_get(const bsync_plot_canvas* c, int x, int y); /* black outside */
void bsync_plot_set(bsync_plot_canvas* c, int x, int y, bsync_plot_rgb col);
/* Paints `col` over the pixel with coverage `alpha` (0..1; clamped), mixed in linear light. */
void bsync_plot_blend(bsync_plot_canvas* c, int x, int y, bsync_plot_rgb col, float alpha);

void bsync_plot_fill_rect(bsync_plot_canvas* c, int x, int y, int w, int h, bsync_plot_rgb col);
/* A segment from (x0, y0) to (x1, y1), `width` pixels thick, anti-aliased, with opacity `alpha`. */
void bsync_plot_line(bsync_plot_canvas* c, double x0, double y0, double x1, double y1, double width,
                     bsync_plot_rgb col, float alpha);
/* The same segment drawn as dashes of `dash` pixels separated by gaps of `dash` pixels. */
void bsync_plot_dashed_line(bsync_plot_canvas* c, double x0, double y0, double x1, double y1, double width,
                            double dash, bsync_plot_rgb col, float alpha);
/* A ring of radius r (to the middle of its stroke) and stroke `width`, centred on (cx, cy). */
void bsync_plot_ring(bsync_plot_canvas* c, double cx, double cy, double r, double width, bsync_plot_rgb col,
                     float alpha);
/* A filled disc of radius r. */
void bsync_plot_disc(bsync_plot_canvas* c, double cx, double cy, double r, bsync_plot_rgb col, float alpha);
/* Copies the pixels within radius r of (cx, cy) from `src` (same size) into `c`. */
void bsync_plot_restore_disc(bsync_plot_canvas* c, const bsync_plot_canvas* src, double cx, double cy, double r);

/* Text with its top-left corner at (x, y), each font pixel a scale x scale block. One line; the
 * width is bsync_plot_text_width and the height BSYNC_PLOT_FONT_H * scale. */
void bsync_plot_text(bsync_plot_canvas* c, int x, int y, const char* text, int scale, bsync_plot_rgb col);
/* The same with a one-font-pixel outline of `halo` around every stroke (readable on any colour). */
void bsync_plot_text_halo(bsync_plot_canvas* c, int x, int y, const char* text, int scale, bsync_plot_rgb col,
                          bsync_plot_rgb halo);
int bsync_plot_text_width(const char* text, int scale); /* pixels; 0 for "" */

/* sum(weights[i] * colours[i]) in linear light, converted back to sRGB; weights are used as given
 * (they should sum to 1; the result is clamped). A single weight of 1 gives that colour exactly. */
bsync_plot_rgb bsync_plot_mix(const bsync_plot_rgb* colours, const float* weights, size_t n);

/* Writes the canvas as a PNG at `path`, all or nothing: the image goes to a new temporary file in
 * the same directory, which is renamed over `path` only when it is complete (and removed on any
 * failure). 0 on success; -1 with a message in `err` (cap bytes) otherwise. */
int bsync_plot_write_png(const bsync_plot_canvas* c, const char* path, char* err, size_t cap);

#endif
