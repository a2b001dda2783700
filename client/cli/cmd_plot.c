/* cmd_plot.c — `blendsync plot CONFIG --node NAME -o OUT.png|.svg|.pdf [--size N] [--at X,Y]`: a
 * blend node drawn as a picture a designer reads at a glance, with cairo (PNG; SVG and PDF, where the
 * weight field is an embedded image and everything else vector shapes and text).
 *
 * 2D nodes: every pixel of a square view (the layout's bounds plus a margin, aspect 1:1) shows the
 * weight-mixed colour of the node's children at that parameter point; the samples are rings (their
 * inside left unpainted, so the pixel at a sample shows the field there) labelled with their
 * names; Delaunay2D nodes also show their triangulation. 1D nodes (Simple1D): one weight curve per
 * child over the parameter range, thresholds marked and labelled, and a band under the curves
 * showing the mixed colour. Direct nodes are refused (their weights are the parameters). A grid
 * with numeric ticks, a legend and the --at marker complete the picture.
 *
 * Weights always come from the fixed-point core: each pixel's parameter point is converted to
 * fix16 (bsync_fx_from_double) and evaluated with bsync_blend_tree_eval_node; floats are used only
 * to place and mix colours. The pixel holding a sample (2D) and the column of a threshold (1D) are
 * evaluated at the sample's exact point, so they show exactly the weights there (pure colour when
 * the node gives that sample weight one). stdout lists where each sample was drawn (pixel and colour) and, with
 * --at, the weights there. Exit 0 on success, 2 on any error (nothing is written then).
 *
 * Text is fontconfig's monospaced font through cairo's toy text API, sized to the layout's cell of
 * 6 x 8 pixels per character (x 2 from --size 600 on), so the layout and the printed pixels do not
 * depend on which font is installed.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
#include <cairo/cairo.h>

#include "blendsync/blend_tree.h"
#include "blendsync/fixed.h"
#include "blendsync/io/config.h"
#include "blendsync/io/file.h"
#include "commands.h"

#define PLOT_SIZE_MIN 256
#define PLOT_SIZE_MAX 4096
#define PLOT_SIZE_DEFAULT 640

static const char k_usage[] =
    "usage: blendsync plot CONFIG -o OUT.png [--node NAME] [--size N] [--at X[,Y]]\n"
    "\n"
    "Draws a blend node of a graph configuration as a PNG, SVG or PDF picture.\n"
    "  CONFIG        the graph configuration (JSON, see docs)\n"
    "  --node NAME   the node to draw (default: the root node)\n"
    "  -o OUT.png    the picture to write (written whole or not at all); its extension\n"
    "                chooses the format: .svg SVG, .pdf PDF, anything else PNG\n"
    "  --size N      width and height in pixels (points in a PDF), 256..4096 (default 640)\n"
    "  --at X[,Y]    mark a parameter point and print the node's weights there\n"
    "                (X,Y for 2D nodes, X for Simple1D nodes)\n"
    "\n"
    "2D nodes: every pixel is the weight-mixed colour of the children at that point; samples\n"
    "are rings labelled with their names. Simple1D nodes: a weight curve per child. Direct nodes\n"
    "cannot be drawn. Child i has palette colour i: #e6194b #3cb44b #4363d8 #ffe119 #f58231\n"
    "#911eb4 #42d4f4 #f032e6 #bfef45 #469990 #9a6324 #800000 #808000 #000075 #fabed4 #aaffc3,\n"
    "then golden-angle hues. stdout names each sample's pixel and colour.\n";

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static const rgb k_palette[16] = {
    {0xe6, 0x19, 0x4b}, {0x3c, 0xb4, 0x4b}, {0x43, 0x63, 0xd8}, {0xff, 0xe1, 0x19},
    {0xf5, 0x82, 0x31}, {0x91, 0x1e, 0xb4}, {0x42, 0xd4, 0xf4}, {0xf0, 0x32, 0xe6},
    {0xbf, 0xef, 0x45}, {0x46, 0x99, 0x90}, {0x9a, 0x63, 0x24}, {0x80, 0x00, 0x00},
    {0x80, 0x80, 0x00}, {0x00, 0x00, 0x75}, {0xfa, 0xbe, 0xd4}, {0xaa, 0xff, 0xc3},
};

static const rgb k_white = {255, 255, 255};
static const rgb k_black = {0, 0, 0};
static const rgb k_ink = {32, 32, 32};
static const rgb k_paper = {246, 246, 244};
static const rgb k_frame = {150, 150, 150};

static rgb palette_colour(uint32_t i) {
    if (i < 16) return k_palette[i];
    /* golden-angle hue, s 0.65, v 0.85 */
    double h = fmod((double)i * 0.6180339887, 1.0) * 6.0, v = 0.85, s = 0.65;
    int sector = (int)h;
    double f = h - sector, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r = v, g = t, b = p;
    switch (sector) {
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    case 5: r = v; g = p; b = q; break;
    default: break;
    }
    rgb c = {(uint8_t)(r * 255 + 0.5), (uint8_t)(g * 255 + 0.5), (uint8_t)(b * 255 + 0.5)};
    return c;
}

/* ------------------------------------------------------------------------- drawing (cairo) */

/* The layout's text cell (the width of text is its bytes times CELL_W, its height CELL_H, at scale
 * 1): a monospaced font is sized so that its advance is exactly CELL_W (font_setup); its baseline is
 * CELL_BASELINE below the top of the cell. */
#define CELL_W 6
#define CELL_H 8
#define CELL_BASELINE 7
#define PLOT_TAU 6.283185307179586

static int text_w(const char* text, int scale) {
    size_t n = strlen(text);
    if (n == 0) return 0;
    if (n > 4096) n = 4096;
    return ((int)n * CELL_W - 1) * scale;
}

static void set_colour(cairo_t* c, rgb col, double alpha) {
    cairo_set_source_rgba(c, col.r / 255.0, col.g / 255.0, col.b / 255.0, alpha);
}

static void fill_rect(cairo_t* c, double x, double y, double w, double h, rgb col) {
    cairo_rectangle(c, x, y, w, h);
    set_colour(c, col, 1.0);
    cairo_fill(c);
}

static void draw_line(cairo_t* c, double x0, double y0, double x1, double y1, double width, rgb col, double alpha) {
    cairo_move_to(c, x0, y0);
    cairo_line_to(c, x1, y1);
    cairo_set_line_width(c, width);
    set_colour(c, col, alpha);
    cairo_stroke(c);
}

/* dashes and gaps of `dash` pixels */
static void dashed_line(cairo_t* c, double x0, double y0, double x1, double y1, double width, double dash, rgb col,
                        double alpha) {
    cairo_set_dash(c, &dash, 1, 0.0);
    draw_line(c, x0, y0, x1, y1, width, col, alpha);
    cairo_set_dash(c, NULL, 0, 0.0);
}

static void draw_ring(cairo_t* c, double cx, double cy, double r, double width, rgb col, double alpha) {
    cairo_new_sub_path(c);
    cairo_arc(c, cx, cy, r, 0.0, PLOT_TAU);
    cairo_set_line_width(c, width);
    set_colour(c, col, alpha);
    cairo_stroke(c);
}

static void fill_disc(cairo_t* c, double cx, double cy, double r, rgb col, double alpha) {
    cairo_new_sub_path(c);
    cairo_arc(c, cx, cy, r, 0.0, PLOT_TAU);
    set_colour(c, col, alpha);
    cairo_fill(c);
}

/* `in` as UTF-8 cairo accepts (it refuses the whole string otherwise): each byte that starts no
 * valid sequence of a Unicode character, and each control character, becomes '?'. */
static void utf8_clean(const char* in, char* out, size_t cap) {
    static const uint32_t k_min[5] = {0, 0, 0x80, 0x800, 0x10000}; /* shortest form by length */
    const unsigned char* s = (const unsigned char*)in;
    size_t o = 0;
    while (*s && o + 5 < cap) {
        const unsigned c = *s;
        const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        uint32_t cp = n == 1 ? c : c & (0x7Fu >> n);
        int ok = n > 0;
        for (int k = 1; ok && k < n; k++) { /* stops at the NUL: it is no continuation byte */
            ok = (s[k] & 0xC0) == 0x80;
            cp = cp << 6 | (s[k] & 0x3Fu);
        }
        ok = ok && cp >= k_min[n] && cp < 0x110000 && (cp & 0xFFFFF800u) != 0xD800 && (cp < 0xFDD0 || cp > 0xFDEF) &&
             (cp & 0xFFFE) != 0xFFFE && cp >= 0x20 && cp != 0x7F;
        if (!ok) {
            out[o++] = '?';
            s++;
            continue;
        }
        memcpy(out + o, s, (size_t)n);
        o += (size_t)n;
        s += n;
    }
    out[o] = '\0';
}

/* Text with the top-left corner of its layout cell at (x, y) (one line, text_w wide); with `halo`,
 * an outline of that colour around the glyphs keeps it readable on any colour. A font wider than
 * the cell (no monospaced font found) is squeezed into it. */
static void text_at(cairo_t* c, int x, int y, const char* text, int scale, rgb col, const rgb* halo) {
    char t[1024];
    utf8_clean(text, t, sizeof t);
    cairo_text_extents_t e;
    cairo_text_extents(c, t, &e);
    const double cell = (double)strlen(text) * CELL_W * scale;
    cairo_save(c);
    cairo_translate(c, x, y + CELL_BASELINE * scale);
    if (e.x_advance > cell && cell > 0.0) cairo_scale(c, cell / e.x_advance, 1.0);
    if (halo) {
        cairo_move_to(c, 0.0, 0.0);
        cairo_text_path(c, t);
        cairo_set_line_width(c, 3.0 * scale);
        set_colour(c, *halo, 1.0);
        cairo_stroke(c);
    }
    cairo_move_to(c, 0.0, 0.0);
    set_colour(c, col, 1.0);
    cairo_show_text(c, t);
    cairo_restore(c);
}

static void draw_text(cairo_t* c, int x, int y, const char* text, int scale, rgb col) {
    text_at(c, x, y, text, scale, col, NULL);
}

static void draw_text_halo(cairo_t* c, int x, int y, const char* text, int scale, rgb col, rgb halo) {
    text_at(c, x, y, text, scale, col, &halo);
}

/* A monospaced font (fontconfig's "monospace") whose advance is CELL_W * scale pixels, fully hinted
 * on a raster; round line caps and joins. */
static void font_setup(cairo_t* c, int scale, int raster) {
    cairo_select_font_face(c, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    if (raster) { /* glyphs on whole pixels: crisp at 10 pixels (vector outputs keep the outlines) */
        cairo_font_options_t* fo = cairo_font_options_create();
        cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
        cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_FULL);
        cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
        cairo_set_font_options(c, fo);
        cairo_font_options_destroy(fo);
    }
    cairo_set_font_size(c, 100.0);
    cairo_text_extents_t e;
    cairo_text_extents(c, "0", &e);
    cairo_set_font_size(c, e.x_advance > 0.0 ? 100.0 * CELL_W * scale / e.x_advance : 10.0 * scale);
    cairo_set_line_cap(c, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(c, CAIRO_LINE_JOIN_ROUND);
}

/* sRGB byte -> linear light (IEC 61966-2-1), filled on first use */
static float k_linear[256];

static float to_linear(uint8_t v) {
    if (k_linear[255] == 0.0f)
        for (int i = 0; i < 256; i++) {
            double s = i / 255.0;
            k_linear[i] = (float)(s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4));
        }
    return k_linear[v];
}

static uint8_t to_srgb(float l) {
    if (!(l > 0.0f)) return 0; /* also NaN */
    if (l >= 1.0f) return 255;
    float s = l <= 0.0031308f ? l * 12.92f : 1.055f * powf(l, 1.0f / 2.4f) - 0.055f;
    float v = s * 255.0f + 0.5f;
    return v >= 255.0f ? 255 : (uint8_t)v;
}

/* sum(weights[i] * colours[i]) in linear light, back in sRGB; a weight of 1 gives its colour
 * exactly (the pixel at a sample shows the pure colour) */
static rgb mix(const rgb* colours, const float* weights, size_t n) {
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float w = weights[i];
        if (!(w > 0.0f)) continue;
        if (w >= 1.0f) return colours[i];
        r += w * to_linear(colours[i].r);
        g += w * to_linear(colours[i].g);
        b += w * to_linear(colours[i].b);
    }
    rgb out = {to_srgb(r), to_srgb(g), to_srgb(b)};
    return out;
}

/* An image surface (RGB24) of w x h pixels and where to write them; NULL when out of memory. */
static cairo_surface_t* image_new(int w, int h, uint32_t** px, int* stride_px) {
    cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return NULL;
    }
    cairo_surface_flush(s);
    *px = (uint32_t*)(void*)cairo_image_surface_get_data(s);
    *stride_px = cairo_image_surface_get_stride(s) / 4;
    return s;
}

static uint32_t pixel(rgb c) { return (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b; }

/* Paints image `img` (from image_new; written, then cairo_surface_mark_dirty) with its top-left
 * corner at (x, y), w x h pixels (stretched when that is not its size), each pixel a sharp square. */
static void paint_image(cairo_t* c, cairo_surface_t* img, double x, double y, double w, double h) {
    cairo_save(c);
    cairo_rectangle(c, x, y, w, h);
    cairo_clip(c);
    cairo_translate(c, x, y);
    cairo_scale(c, w / cairo_image_surface_get_width(img), h / cairo_image_surface_get_height(img));
    cairo_set_source_surface(c, img, 0.0, 0.0);
    cairo_pattern_set_filter(cairo_get_source(c), CAIRO_FILTER_NEAREST);
    cairo_paint(c);
    cairo_restore(c);
}

/* Everything the drawing needs about the node. */
typedef struct plot_ctx {
    const bsync_blend_tree* tree;
    uint32_t node;
    const bsync_blend_space* space;
    bsync_blend_type type;
    uint32_t n;                          /* children */
    uint32_t dims;                       /* 1 or 2 */
    const char* names[BSYNC_MAX_BLEND_CHILDREN];
    rgb colours[BSYNC_MAX_BLEND_CHILDREN];
    fix16_t* params;                     /* the tree's parameters: defaults, node's slots overwritten */
    uint32_t slot[2];                    /* tree parameter index of the node's x (and y) */
    int has_at;
    fix16_t at[2];
    int scale;                           /* text scale */
    int sx[BSYNC_MAX_BLEND_CHILDREN];    /* where each sample was drawn (pixel showing its colour) */
    int sy[BSYNC_MAX_BLEND_CHILDREN];
    int peak_y;                          /* 1D: the pixel row of weight 1 */
    int size;
} plot_ctx;

/* The node's weights at (x, y) (y ignored for 1D), through the fixed-point core. */
static int eval_at_fx(plot_ctx* p, fix16_t x, fix16_t y, fix16_t* w) {
    p->params[p->slot[0]] = x;
    if (p->dims == 2) p->params[p->slot[1]] = y;
    return bsync_blend_tree_eval_node(p->tree, p->node, p->params, w) == BSYNC_OK ? 0 : -1;
}

static fix16_t to_fx(double v) {
    fix16_t r = 0;
    if (v > 32767.0) v = 32767.0;
    if (v < -32767.0) v = -32767.0;
    if (bsync_fx_from_double(v, &r) != BSYNC_OK) r = 0;
    return r;
}

static int eval_fx_float(plot_ctx* p, fix16_t x, fix16_t y, float* wf) {
    fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
    if (eval_at_fx(p, x, y, w) != 0) return -1;
    for (uint32_t i = 0; i < p->n; i++) wf[i] = (float)bsync_fx_to_double(w[i]);
    return 0;
}

static int eval_at(plot_ctx* p, double x, double y, float* wf) { return eval_fx_float(p, to_fx(x), to_fx(y), wf); }

static double nice_step(double span, int target) {
    if (!(span > 0.0)) return 1.0;
    double raw = span / target, p = pow(10.0, floor(log10(raw))), m = raw / p;
    double k = m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0;
    return k * p;
}

static void tick_label(char* buf, size_t cap, double v, double step) {
    int d = (int)ceil(-log10(step) - 1e-9);
    if (d < 0) d = 0;
    if (d > 5) d = 5;
    if (fabs(v) < step * 1e-6) v = 0.0;
    snprintf(buf, cap, "%.*f", d, v);
}

static void fx_text(fix16_t v, char* buf, size_t cap) {
    if (bsync_fx_format(v, buf, cap) == 0) snprintf(buf, cap, "%.5f", bsync_fx_to_double(v));
}

static void hex_colour(rgb c, char* buf, size_t cap) {
    snprintf(buf, cap, "#%02x%02x%02x", c.r, c.g, c.b);
}

/* `name` cut to at most `max_px` pixels wide at `scale` (ending in '~' when cut). */
static void fit_text(const char* name, int max_px, int scale, char* out, size_t cap) {
    snprintf(out, cap, "%s", name);
    size_t len = strlen(out);
    while (len > 1 && text_w(out, scale) > max_px) {
        len--;
        out[len] = '\0';
        out[len - 1] = '~';
    }
}

/* ------------------------------------------------------------------------- shared frame */

typedef struct frame {
    int pad, th;        /* padding and text height in pixels */
    int ml, mt;         /* left and top of the plot area */
    int pw, ph;         /* plot area size */
    int legend_x, legend_y, legend_w; /* the legend's box: top-left corner and width */
} frame;

/* The legend label of child i: its name, and its weight at --at when `at_w` is given. */
static void legend_label(const plot_ctx* p, uint32_t i, const fix16_t* at_w, char* out, size_t cap) {
    if (at_w) {
        char v[24];
        fx_text(at_w[i], v, sizeof v);
        snprintf(out, cap, "%s %s", p->names[i], v);
    } else {
        snprintf(out, cap, "%s", p->names[i]);
    }
}

/* Lays out the legend as a flow of items (swatch, label) in rows within [x, x + w), drawing it
 * when `c` is non-NULL. Labels too wide for the box are cut; items that would fall off the bottom
 * of the canvas are replaced by "+K more". Returns the height the whole legend needs. */
static int legend_flow(cairo_t* c, const plot_ctx* p, const frame* f, int x, int y, int w,
                       const fix16_t* at_w) {
    int ix[BSYNC_MAX_BLEND_CHILDREN], iy[BSYNC_MAX_BLEND_CHILDREN];
    char fitted[BSYNC_MAX_BLEND_CHILDREN][160];
    int cx = x, cy = y, step = f->th + f->pad, gap = 3 * f->pad;
    for (uint32_t i = 0; i < p->n; i++) {
        char label[160];
        legend_label(p, i, at_w, label, sizeof label);
        fit_text(label, w - f->th - f->pad, p->scale, fitted[i], sizeof fitted[i]);
        int iw = f->th + f->pad + text_w(fitted[i], p->scale);
        if (cx > x && cx + iw > x + w) {
            cx = x;
            cy += step;
        }
        ix[i] = cx;
        iy[i] = cy;
        cx += iw + gap;
    }
    if (!c) return p->n ? cy + step - y : 0;
    uint32_t shown = p->n;
    while (shown > 0 && iy[shown - 1] + f->th > p->size) shown--;
    if (shown < p->n && shown > 0) shown--; /* its place says "+K more" */
    for (uint32_t i = 0; i < shown; i++) {
        fill_rect(c, ix[i] - 1, iy[i] - 1, f->th + 2, f->th + 2, k_ink);
        fill_rect(c, ix[i], iy[i], f->th, f->th, p->colours[i]);
        draw_text(c, ix[i] + f->th + f->pad, iy[i], fitted[i], p->scale, k_ink);
    }
    if (shown < p->n) {
        char more[32];
        snprintf(more, sizeof more, "+%u more", (unsigned)(p->n - shown));
        draw_text(c, ix[shown], iy[shown], more, p->scale, k_ink);
    }
    return p->n ? cy + step - y : 0;
}

/* Width of the widest legend item (one item per row), at most 30% of the image. */
static int legend_column_width(const plot_ctx* p, const frame* f, const fix16_t* at_w) {
    int w = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        char label[160];
        legend_label(p, i, at_w, label, sizeof label);
        int tw = text_w(label, p->scale);
        if (tw > w) w = tw;
    }
    int full = f->th + f->pad + w, cap = p->size * 3 / 10;
    return full < cap ? full : cap;
}

static void draw_title(cairo_t* c, const plot_ctx* p, const frame* f) {
    char title[256];
    const char* xn = bsync_blend_tree_parameter_name(p->tree, p->slot[0]);
    if (p->dims == 2)
        snprintf(title, sizeof title, "%s: %s over (%s, %s)", bsync_blend_tree_node_name(p->tree, p->node),
                 bsync_blend_type_name(p->type), xn, bsync_blend_tree_parameter_name(p->tree, p->slot[1]));
    else
        snprintf(title, sizeof title, "%s: %s, weights over %s", bsync_blend_tree_node_name(p->tree, p->node),
                 bsync_blend_type_name(p->type), xn);
    char fitted[256];
    fit_text(title, p->size - 2 * f->pad, p->scale, fitted, sizeof fitted);
    draw_text(c, f->pad, f->pad, fitted, p->scale, k_ink);
}

/* -------------------------------------------------------------------------------- 2D */

typedef struct view2d {
    double x0, y1, unit; /* parameter value at the plot's left edge and top edge; units per pixel */
    int px0, py0, side;  /* the plot square in pixels */
} view2d;

static double v2_px(const view2d* v, double x) { return v->px0 + (x - v->x0) / v->unit; }
static double v2_py(const view2d* v, double y) { return v->py0 + (v->y1 - y) / v->unit; }

/* Boxes already taken in the plot (rings, labels, the --at marker), for placing labels. */
typedef struct box {
    int x0, y0, x1, y1; /* [x0, x1) x [y0, y1) */
} box;
typedef struct box_list {
    int n;
    box b[2 * BSYNC_MAX_BLEND_CHILDREN + 4];
} box_list;

static void box_add(box_list* l, int x0, int y0, int x1, int y1) {
    if (l->n < (int)(sizeof l->b / sizeof l->b[0])) {
        box b = {x0, y0, x1, y1};
        l->b[l->n++] = b;
    }
}

static long overlap(const box* a, const box* b) {
    int w = (a->x1 < b->x1 ? a->x1 : b->x1) - (a->x0 > b->x0 ? a->x0 : b->x0);
    int h = (a->y1 < b->y1 ? a->y1 : b->y1) - (a->y0 > b->y0 ? a->y0 : b->y0);
    return w > 0 && h > 0 ? (long)w * h : 0;
}

/* Places a label near (cx, cy) outside a ring of radius r, inside the plot square: the first of
 * eight spots around the ring that overlaps nothing already placed, else the one overlapping least.
 * The chosen box is added to `taken`. */
static void place_label(const view2d* v, box_list* taken, const char* text, int scale, int th, double cx, double cy,
                        double r, int* ox, int* oy) {
    int w = text_w(text, scale), gap = 2 * scale, halo = scale;
    int right = (int)(cx + r) + gap, left = (int)(cx - r) - gap - w, mid = (int)(cx - w / 2.0);
    int above = (int)(cy - r) - th, below = (int)(cy + r) + gap, level = (int)(cy - th / 2.0);
    const int spots[8][2] = {{right, above}, {right, level}, {left, above}, {left, level},
                             {right, below}, {left, below},  {mid, above - gap}, {mid, below}};
    long best = -1;
    for (int k = 0; k < 8; k++) {
        int x = spots[k][0], y = spots[k][1];
        if (x - halo < v->px0 || y - halo < v->py0 || x + w + halo > v->px0 + v->side ||
            y + th + halo > v->py0 + v->side)
            continue;
        box b = {x - halo, y - halo, x + w + halo, y + th + halo};
        long cost = 0;
        for (int i = 0; i < taken->n; i++) cost += overlap(&b, &taken->b[i]);
        if (best < 0 || cost < best) {
            best = cost;
            *ox = x;
            *oy = y;
            if (cost == 0) break;
        }
    }
    if (best < 0) { /* nowhere inside: clamp the first spot into the square */
        int x = right, y = above;
        if (x + w + halo > v->px0 + v->side) x = v->px0 + v->side - w - halo;
        if (x - halo < v->px0) x = v->px0 + halo;
        if (y + th + halo > v->py0 + v->side) y = v->py0 + v->side - th - halo;
        if (y - halo < v->py0) y = v->py0 + halo;
        *ox = x;
        *oy = y;
    }
    box_add(taken, *ox - halo, *oy - halo, *ox + w + halo, *oy + th + halo);
}

static int plot_2d(cairo_t* c, plot_ctx* p) {
    frame f;
    f.pad = 4 * p->scale;
    f.th = CELL_H * p->scale;
    fix16_t at_w[BSYNC_MAX_BLEND_CHILDREN];
    if (p->has_at && eval_at_fx(p, p->at[0], p->at[1], at_w) != 0) {
        fprintf(stderr, "blendsync plot: the node could not be evaluated at --at\n");
        return -1;
    }
    const fix16_t* legend_w = p->has_at ? at_w : NULL;

    /* the view: layout bounds (and the --at point) plus a margin, square */
    bsync_vec2 bmin, bmax;
    bsync_blend_space_bounds(p->space, &bmin, &bmax);
    double x0 = bsync_fx_to_double(bmin.x), x1 = bsync_fx_to_double(bmax.x);
    double y0 = bsync_fx_to_double(bmin.y), y1 = bsync_fx_to_double(bmax.y);
    if (p->has_at) {
        double ax = bsync_fx_to_double(p->at[0]), ay = bsync_fx_to_double(p->at[1]);
        if (ax < x0) x0 = ax;
        if (ax > x1) x1 = ax;
        if (ay < y0) y0 = ay;
        if (ay > y1) y1 = ay;
    }
    double extent = x1 - x0 > y1 - y0 ? x1 - x0 : y1 - y0;
    if (!(extent > 0.0)) extent = 2.0;
    double span = extent * 1.3, cx = (x0 + x1) / 2.0, cy = (y0 + y1) / 2.0;
    double step = nice_step(span, 5);

    /* frame: ticks on the left and bottom; the legend on the right or below, whichever leaves the
     * larger square */
    char buf[64];
    int tick_w = 0;
    for (long k = (long)ceil((cy - span / 2) / step); k * step <= cy + span / 2; k++) {
        double t = k * step;
        tick_label(buf, sizeof buf, t, step);
        int w = text_w(buf, p->scale);
        if (w > tick_w) tick_w = w;
    }
    f.ml = tick_w + 3 * f.pad;
    f.mt = 2 * f.pad + f.th + f.pad + f.th + f.pad; /* title line, then the y axis name */
    int mb = f.pad + f.th + f.pad + f.th + 2 * f.pad;
    int right_w = legend_column_width(p, &f, legend_w);
    int side_r = p->size - f.ml - 4 * f.pad - right_w, h_r = p->size - f.mt - mb;
    if (h_r < side_r) side_r = h_r;
    int below_w = p->size - 2 * f.pad;
    int below_h = legend_flow(NULL, p, &f, f.pad, 0, below_w, legend_w);
    int side_b = p->size - f.ml - 3 * f.pad, h_b = p->size - f.mt - mb - below_h - f.pad;
    if (h_b < side_b) side_b = h_b;
    int side = side_r > side_b ? side_r : side_b;
    if (side < 48) {
        fprintf(stderr, "blendsync plot: --size %d leaves no room for the plot next to the legend\n", p->size);
        return -1;
    }
    f.pw = f.ph = side;
    if (side_r >= side_b) {
        f.legend_x = f.ml + side + 3 * f.pad;
        f.legend_y = f.mt;
        f.legend_w = right_w;
    } else {
        f.ml += (p->size - f.ml - 3 * f.pad - side) / 2; /* centre the square */
        f.legend_x = f.pad;
        f.legend_y = f.mt + side + mb;
        f.legend_w = below_w;
    }

    view2d v = {cx - span / 2, cy + span / 2, span / side, f.ml, f.mt, side};

    /* the field, one image pixel per view pixel */
    uint32_t* field_px = NULL;
    int stride = 0;
    cairo_surface_t* field = image_new(side, side, &field_px, &stride);
    if (!field) {
        fprintf(stderr, "blendsync plot: out of memory\n");
        return -1;
    }
    float wf[BSYNC_MAX_BLEND_CHILDREN];
    for (int j = 0; j < side; j++) {
        double y = v.y1 - (j + 0.5) * v.unit;
        for (int i = 0; i < side; i++) {
            double x = v.x0 + (i + 0.5) * v.unit;
            if (eval_at(p, x, y, wf) != 0) {
                fprintf(stderr, "blendsync plot: the node could not be evaluated at (%g, %g)\n", x, y);
                cairo_surface_destroy(field);
                return -1;
            }
            field_px[(size_t)j * (size_t)stride + (size_t)i] = pixel(mix(p->colours, wf, p->n));
        }
    }
    /* the pixel holding a sample shows the weights at the sample itself */
    int* sx = p->sx;
    int* sy = p->sy;
    for (uint32_t i = 0; i < p->n; i++) {
        bsync_vec2 pos = bsync_blend_space_position(p->space, i);
        sx[i] = v.px0 + (int)floor((bsync_fx_to_double(pos.x) - v.x0) / v.unit);
        sy[i] = v.py0 + (int)floor((v.y1 - bsync_fx_to_double(pos.y)) / v.unit);
        if (eval_fx_float(p, pos.x, pos.y, wf) != 0) {
            fprintf(stderr, "blendsync plot: the node could not be evaluated at sample %u\n", (unsigned)i);
            cairo_surface_destroy(field);
            return -1;
        }
        int fi = sx[i] - v.px0, fj = sy[i] - v.py0;
        if (fi >= 0 && fj >= 0 && fi < side && fj < side)
            field_px[(size_t)fj * (size_t)stride + (size_t)fi] = pixel(mix(p->colours, wf, p->n));
    }
    cairo_surface_mark_dirty(field);
    paint_image(c, field, v.px0, v.py0, side, side);

    /* grid, axes and tick labels */
    double left = v.px0, right = v.px0 + side, top = v.py0, bottom = v.py0 + side;
    for (long k = (long)ceil(v.x0 / step); k * step <= v.x0 + span; k++) {
        double t = k * step;
        double px = v2_px(&v, t);
        int is_axis = k == 0;
        draw_line(c, px, top, px, bottom, is_axis ? 1.5 * p->scale : p->scale, is_axis ? k_black : k_white,
                  is_axis ? 0.55f : 0.45f);
        draw_line(c, px, bottom, px, bottom + f.pad, p->scale, k_ink, 1.0f);
        tick_label(buf, sizeof buf, t, step);
        int w = text_w(buf, p->scale);
        draw_text(c, (int)(px - w / 2.0), (int)bottom + f.pad + 2, buf, p->scale, k_ink);
    }
    for (long k = (long)ceil((v.y1 - span) / step); k * step <= v.y1; k++) {
        double t = k * step;
        double py = v2_py(&v, t);
        int is_axis = k == 0;
        draw_line(c, left, py, right, py, is_axis ? 1.5 * p->scale : p->scale, is_axis ? k_black : k_white,
                  is_axis ? 0.55f : 0.45f);
        draw_line(c, left - f.pad, py, left, py, p->scale, k_ink, 1.0f);
        tick_label(buf, sizeof buf, t, step);
        int w = text_w(buf, p->scale);
        draw_text(c, (int)left - f.pad - 2 - w, (int)(py - f.th / 2.0), buf, p->scale, k_ink);
    }
    /* frame and axis names */
    draw_line(c, left - 0.5, top - 0.5, right + 0.5, top - 0.5, 1.0, k_frame, 1.0f);
    draw_line(c, left - 0.5, bottom + 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    draw_line(c, left - 0.5, top - 0.5, left - 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    draw_line(c, right + 0.5, top - 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    const char* xn = bsync_blend_tree_parameter_name(p->tree, p->slot[0]);
    const char* yn = bsync_blend_tree_parameter_name(p->tree, p->slot[1]);
    char axis[96];
    snprintf(axis, sizeof axis, "%s ->", xn);
    draw_text(c, (int)right - text_w(axis, p->scale), (int)bottom + 2 * f.pad + f.th + 2, axis,
              p->scale, k_ink);
    snprintf(axis, sizeof axis, "^ %s", yn);
    draw_text(c, (int)left, (int)top - f.pad - f.th, axis, p->scale, k_ink);

    double r = 5.0 * p->scale;
    /* Delaunay2D: the triangulation, each edge stopping short of the sample rings */
    uint32_t tris = bsync_blend_space_triangle_count(p->space);
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t k[3];
        if (bsync_blend_space_triangle(p->space, t, k) != BSYNC_OK) continue;
        for (int e = 0; e < 3; e++) {
            bsync_vec2 a = bsync_blend_space_position(p->space, k[e]);
            bsync_vec2 b = bsync_blend_space_position(p->space, k[(e + 1) % 3]);
            double ax = v2_px(&v, bsync_fx_to_double(a.x)), ay = v2_py(&v, bsync_fx_to_double(a.y));
            double bx = v2_px(&v, bsync_fx_to_double(b.x)), by = v2_py(&v, bsync_fx_to_double(b.y));
            double dx = bx - ax, dy = by - ay, len = sqrt(dx * dx + dy * dy), cut = r + 2.0 * p->scale;
            if (len <= 2.0 * cut) continue;
            draw_line(c, ax + dx * cut / len, ay + dy * cut / len, bx - dx * cut / len, by - dy * cut / len,
                      p->scale, k_black, 0.6f);
        }
    }

    /* samples: rings whose inside shows the field, and their names placed clear of the rings, the
     * --at marker and each other */
    box_list taken;
    taken.n = 0;
    int rb = (int)ceil(r + 2.0 * p->scale);
    for (uint32_t i = 0; i < p->n; i++) {
        box_add(&taken, sx[i] - rb, sy[i] - rb, sx[i] + rb + 1, sy[i] + rb + 1);
    }
    double ax = 0.0, ay = 0.0, m = 2.0 * r;
    if (p->has_at) {
        ax = v2_px(&v, bsync_fx_to_double(p->at[0]));
        ay = v2_py(&v, bsync_fx_to_double(p->at[1]));
        box_add(&taken, (int)(ax - m) - 2, (int)(ay - m) - 2, (int)(ax + m) + 3, (int)(ay + m) + 3);
    }
    /* inside the rings the field again, over the grid */
    cairo_save(c);
    for (uint32_t i = 0; i < p->n; i++) {
        cairo_new_sub_path(c);
        cairo_arc(c, sx[i] + 0.5, sy[i] + 0.5, r - 0.5 * p->scale, 0.0, PLOT_TAU);
    }
    cairo_clip(c);
    paint_image(c, field, v.px0, v.py0, side, side);
    cairo_restore(c);
    cairo_surface_destroy(field);
    for (uint32_t i = 0; i < p->n; i++) {
        double qx = sx[i] + 0.5, qy = sy[i] + 0.5;
        draw_ring(c, qx, qy, r + 1.5 * p->scale, p->scale, k_white, 1.0f);
        draw_ring(c, qx, qy, r, 1.5 * p->scale, k_black, 1.0f);
    }
    /* the --at marker: a cross in a ring */
    if (p->has_at) {
        draw_line(c, ax - m, ay, ax + m, ay, 3.0 * p->scale, k_white, 1.0f);
        draw_line(c, ax, ay - m, ax, ay + m, 3.0 * p->scale, k_white, 1.0f);
        draw_line(c, ax - m, ay, ax + m, ay, p->scale, k_black, 1.0f);
        draw_line(c, ax, ay - m, ax, ay + m, p->scale, k_black, 1.0f);
        draw_ring(c, ax, ay, r, p->scale, k_black, 1.0f);
    }
    for (uint32_t i = 0; i < p->n; i++) {
        int lx = 0, ly = 0;
        place_label(&v, &taken, p->names[i], p->scale, f.th, sx[i] + 0.5, sy[i] + 0.5, r + 2.0 * p->scale, &lx, &ly);
        draw_text_halo(c, lx, ly, p->names[i], p->scale, k_black, k_white);
    }
    if (p->has_at) {
        int lx = 0, ly = 0;
        place_label(&v, &taken, "at", p->scale, f.th, ax, ay, m, &lx, &ly);
        draw_text_halo(c, lx, ly, "at", p->scale, k_black, k_white);
    }

    draw_title(c, p, &f);
    legend_flow(c, p, &f, f.legend_x, f.legend_y, f.legend_w, legend_w);

    return 0;
}

/* -------------------------------------------------------------------------------- 1D */

static int plot_1d(cairo_t* c, plot_ctx* p) {
    frame f;
    f.pad = 4 * p->scale;
    f.th = CELL_H * p->scale;
    fix16_t at_w[BSYNC_MAX_BLEND_CHILDREN];
    if (p->has_at && eval_at_fx(p, p->at[0], 0, at_w) != 0) {
        fprintf(stderr, "blendsync plot: the node could not be evaluated at --at\n");
        return -1;
    }
    const fix16_t* legend_w = p->has_at ? at_w : NULL;
    /* the legend goes below the plot, across the image */
    f.legend_x = f.pad;
    f.legend_w = p->size - 2 * f.pad;
    int legend_h = legend_flow(NULL, p, &f, f.legend_x, 0, f.legend_w, legend_w);

    bsync_vec2 bmin, bmax;
    bsync_blend_space_bounds(p->space, &bmin, &bmax);
    double x0 = bsync_fx_to_double(bmin.x), x1 = bsync_fx_to_double(bmax.x);
    if (p->has_at) {
        double ax = bsync_fx_to_double(p->at[0]);
        if (ax < x0) x0 = ax;
        if (ax > x1) x1 = ax;
    }
    double extent = x1 - x0;
    if (!(extent > 0.0)) extent = 2.0;
    double span = extent * 1.2, cx = (x0 + x1) / 2.0, step = nice_step(span, 6);

    char buf[64];
    f.ml = text_w("0.75", p->scale) + 3 * f.pad;
    f.pw = p->size - f.ml - 4 * f.pad;
    double vx0 = cx - span / 2, unit = span / f.pw;

    /* threshold labels above the plot, in as many rows as they need not to overlap */
    int row_of[BSYNC_MAX_BLEND_CHILDREN], label_x[BSYNC_MAX_BLEND_CHILDREN], col_of[BSYNC_MAX_BLEND_CHILDREN];
    char labels[BSYNC_MAX_BLEND_CHILDREN][96];
    int row_end[BSYNC_MAX_BLEND_CHILDREN], rows = 0;
    uint32_t order[BSYNC_MAX_BLEND_CHILDREN];
    for (uint32_t i = 0; i < p->n; i++) order[i] = i;
    for (uint32_t i = 1; i < p->n; i++) /* by threshold, stable */
        for (uint32_t k = i; k > 0 && bsync_blend_space_threshold(p->space, order[k]) <
                                          bsync_blend_space_threshold(p->space, order[k - 1]); k--) {
            uint32_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (uint32_t o = 0; o < p->n; o++) {
        uint32_t i = order[o];
        fix16_t t = bsync_blend_space_threshold(p->space, i);
        char ts[24];
        fx_text(t, ts, sizeof ts);
        snprintf(labels[i], sizeof labels[i], "%s %s", p->names[i], ts);
        col_of[i] = (int)floor((bsync_fx_to_double(t) - vx0) / unit);
        int w = text_w(labels[i], p->scale) + f.th + f.pad; /* swatch + text */
        int x = f.ml + col_of[i] - w / 2;
        if (x + w > f.ml + f.pw) x = f.ml + f.pw - w;
        if (x < f.pad) x = f.pad;
        label_x[i] = x;
        int r = 0;
        while (r < rows && row_end[r] + 2 * f.pad > x) r++;
        if (r == rows) rows++;
        row_end[r] = x + w;
        row_of[i] = r;
    }
    int label_top = 2 * f.pad + f.th + f.pad;
    f.mt = label_top + rows * (f.th + f.pad) + f.pad;
    int band_h = 2 * f.th, mb = f.pad + band_h + f.pad + f.th + f.pad + f.th + 2 * f.pad;
    f.ph = p->size - f.mt - mb - legend_h - f.pad;
    if (f.ph < 48) {
        fprintf(stderr, "blendsync plot: --size %d leaves no room for the plot under the labels\n", p->size);
        return -1;
    }
    f.legend_y = f.mt + f.ph + mb;
    int head = 2 * f.pad;                       /* room above weight 1 and below weight 0 */
    int y_top = f.mt + head;                    /* pixel row of weight 1 */
    double y_span = (double)(f.ph - 2 * head - 1); /* rows from weight 1 to weight 0 */
    int band_y = f.mt + f.ph + f.pad;
    double left = f.ml, right = f.ml + f.pw, top = f.mt, bottom = f.mt + f.ph;

    fill_rect(c, f.ml, f.mt, f.pw, f.ph, k_white);
    /* grid: weights 0, 0.25, .. 1 and the parameter ticks */
    for (int k = 0; k <= 4; k++) {
        double w = k / 4.0, py = y_top + 0.5 + (1.0 - w) * y_span;
        draw_line(c, left, py, right, py, 1.0, k == 0 || k == 4 ? k_frame : k_paper, 1.0f);
        tick_label(buf, sizeof buf, w, 0.01);
        if (k == 0 || k == 4) snprintf(buf, sizeof buf, "%d", k / 4);
        int tw = text_w(buf, p->scale);
        draw_text(c, (int)left - f.pad - tw, (int)(py - f.th / 2.0), buf, p->scale, k_ink);
    }
    for (long k = (long)ceil(vx0 / step); k * step <= vx0 + span; k++) {
        double t = k * step;
        double px = f.ml + (t - vx0) / unit;
        draw_line(c, px, top, px, bottom, 1.0, k == 0 ? k_frame : k_paper, 1.0f);
        draw_line(c, px, band_y + band_h, px, band_y + band_h + f.pad, p->scale, k_ink, 1.0f);
        tick_label(buf, sizeof buf, t, step);
        int tw = text_w(buf, p->scale);
        draw_text(c, (int)(px - tw / 2.0), band_y + band_h + f.pad + 2, buf, p->scale, k_ink);
    }
    draw_line(c, left - 0.5, top - 0.5, right + 0.5, top - 0.5, 1.0, k_frame, 1.0f);
    draw_line(c, left - 0.5, bottom + 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    draw_line(c, left - 0.5, top - 0.5, left - 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    draw_line(c, right + 0.5, top - 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    char axis[96];
    snprintf(axis, sizeof axis, "%s ->", bsync_blend_tree_parameter_name(p->tree, p->slot[0]));
    draw_text(c, (int)right - text_w(axis, p->scale), band_y + band_h + 2 * f.pad + f.th + 2,
              axis, p->scale, k_ink);
    draw_text(c, f.pad, band_y + (band_h - f.th) / 2, "mix", p->scale, k_ink);

    /* thresholds: dashed lines in the child's colour, labelled above the plot */
    for (uint32_t i = 0; i < p->n; i++) {
        double px = f.ml + col_of[i] + 0.5;
        dashed_line(c, px, top, px, bottom, p->scale, 3.0 * p->scale, p->colours[i], 0.9f);
        int ly = label_top + row_of[i] * (f.th + f.pad);
        draw_line(c, px, ly + f.th, px, top, 1.0, k_frame, 1.0f);
        fill_rect(c, label_x[i] - 1, ly - 1, f.th + 2, f.th + 2, k_ink);
        fill_rect(c, label_x[i], ly, f.th, f.th, p->colours[i]);
        draw_text(c, label_x[i] + f.th + f.pad, ly, labels[i], p->scale, k_ink);
    }

    /* the weights column by column: the mixed-colour band, then a curve per child */
    uint32_t* px = NULL;
    int stride = 0;
    cairo_surface_t* band = image_new(f.pw, 1, &px, &stride);
    float* ws = malloc((size_t)f.pw * p->n * sizeof *ws);
    if (!band || !ws) {
        fprintf(stderr, "blendsync plot: out of memory\n");
        cairo_surface_destroy(band);
        free(ws);
        return -1;
    }
    for (int i = 0; i < f.pw; i++) {
        double x = vx0 + (i + 0.5) * unit;
        float* wf = ws + (size_t)i * p->n;
        /* the column of a threshold shows the weights at the threshold itself */
        uint32_t at_thr = p->n;
        for (uint32_t k = 0; k < p->n && at_thr == p->n; k++)
            if (col_of[k] == i) at_thr = k;
        int bad = at_thr < p->n ? eval_fx_float(p, bsync_blend_space_threshold(p->space, at_thr), 0, wf)
                                : eval_at(p, x, 0.0, wf);
        if (bad != 0) {
            fprintf(stderr, "blendsync plot: the node could not be evaluated at %g\n", x);
            cairo_surface_destroy(band);
            free(ws);
            return -1;
        }
        px[i] = pixel(mix(p->colours, wf, p->n));
    }
    cairo_surface_mark_dirty(band);
    paint_image(c, band, f.ml, band_y, f.pw, band_h);
    cairo_surface_destroy(band);
    for (uint32_t k = 0; k < p->n; k++) {
        for (int i = 0; i < f.pw; i++)
            cairo_line_to(c, f.ml + i + 0.5, y_top + 0.5 + (1.0 - ws[(size_t)i * p->n + k]) * y_span);
        cairo_set_line_width(c, 2.0 * p->scale);
        set_colour(c, p->colours[k], 1.0);
        cairo_stroke(c);
    }
    free(ws);
    draw_line(c, left - 0.5, band_y - 0.5, right + 0.5, band_y - 0.5, 1.0, k_frame, 1.0f);
    draw_line(c, left - 0.5, band_y + band_h + 0.5, right + 0.5, band_y + band_h + 0.5, 1.0, k_frame, 1.0f);

    if (p->has_at) {
        double ax = f.ml + (bsync_fx_to_double(p->at[0]) - vx0) / unit;
        draw_line(c, ax, top, ax, band_y + band_h, 3.0 * p->scale, k_white, 1.0f);
        draw_line(c, ax, top, ax, band_y + band_h, p->scale, k_black, 1.0f);
        for (uint32_t k = 0; k < p->n; k++) {
            double wy = y_top + 0.5 + (1.0 - bsync_fx_to_double(at_w[k])) * y_span;
            fill_disc(c, ax, wy, 3.5 * p->scale, p->colours[k], 1.0f);
            draw_ring(c, ax, wy, 3.5 * p->scale, p->scale, k_black, 1.0f);
        }
        int tw = text_w("at", p->scale);
        int lx = (int)ax + f.pad;
        if (lx + tw > (int)right) lx = (int)ax - f.pad - tw;
        draw_text_halo(c, lx, (int)top + f.pad, "at", p->scale, k_black, k_white);
    }

    draw_title(c, p, &f);
    legend_flow(c, p, &f, f.legend_x, f.legend_y, f.legend_w, legend_w);

    for (uint32_t i = 0; i < p->n; i++) {
        p->sx[i] = f.ml + col_of[i];
        p->sy[i] = band_y + band_h / 2;
    }
    p->peak_y = y_top;
    return 0;
}

/* ---------------------------------------------------------------------------- command */

static int parse_at(const char* text, uint32_t dims, fix16_t out[2]) {
    const char* comma = strchr(text, ',');
    if (dims == 1) {
        if (comma) return -1;
        return bsync_fx_parse(text, strlen(text), &out[0]) == BSYNC_OK ? 0 : -1;
    }
    if (!comma || strchr(comma + 1, ',')) return -1;
    if (bsync_fx_parse(text, (size_t)(comma - text), &out[0]) != BSYNC_OK) return -1;
    return bsync_fx_parse(comma + 1, strlen(comma + 1), &out[1]) == BSYNC_OK ? 0 : -1;
}

static int parse_size(const char* s, int* out) {
    char* end = NULL;
    if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ') return -1;
    long v = strtol(s, &end, 10);
    if (*end || v < PLOT_SIZE_MIN || v > PLOT_SIZE_MAX) return -1;
    *out = (int)v;
    return 0;
}

static void print_warnings(const bsync_blend_tree* tree, uint32_t node, const bsync_blend_diagnostics* d,
                           const char* const* names) {
    for (uint32_t k = 0; k < d->count; k++) {
        const bsync_blend_warning* w = &d->warnings[k];
        const char* a = w->child_a < BSYNC_MAX_BLEND_CHILDREN && names[w->child_a] ? names[w->child_a] : "?";
        const char* b = w->child_b < BSYNC_MAX_BLEND_CHILDREN && names[w->child_b] ? names[w->child_b] : "?";
        if (w->child_a == w->child_b)
            fprintf(stderr, "blendsync plot: warning: node '%s': %s (%s)\n", bsync_blend_tree_node_name(tree, node),
                    bsync_blend_warning_string(w->code), a);
        else
            fprintf(stderr, "blendsync plot: warning: node '%s': %s (%s, %s)\n",
                    bsync_blend_tree_node_name(tree, node), bsync_blend_warning_string(w->code), a, b);
    }
}

/* What stdout says after a successful write: where each sample is, and the weights at --at. */
static void print_report(plot_ctx* p) {
    for (uint32_t i = 0; i < p->n; i++) {
        char xs[24], ys[24], hex[16];
        hex_colour(p->colours[i], hex, sizeof hex);
        if (p->dims == 2) {
            bsync_vec2 pos = bsync_blend_space_position(p->space, i);
            fx_text(pos.x, xs, sizeof xs);
            fx_text(pos.y, ys, sizeof ys);
            printf("sample %s at (%s, %s): pixel (%d, %d) colour %s\n", p->names[i], xs, ys, p->sx[i], p->sy[i], hex);
        } else {
            fx_text(bsync_blend_space_threshold(p->space, i), xs, sizeof xs);
            printf("sample %s at %s: pixel (%d, %d) peak (%d, %d) colour %s\n", p->names[i], xs, p->sx[i], p->sy[i],
                   p->sx[i], p->peak_y, hex);
        }
    }
    if (!p->has_at) return;
    fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
    if (eval_at_fx(p, p->at[0], p->at[1], w) != 0) return; /* evaluated once already while drawing */
    char xs[24], ys[24];
    fx_text(p->at[0], xs, sizeof xs);
    fx_text(p->at[1], ys, sizeof ys);
    if (p->dims == 2) printf("weights at (%s, %s):\n", xs, ys);
    else printf("weights at %s:\n", xs);
    for (uint32_t k = 0; k < p->n; k++) {
        char ws[24];
        fx_text(w[k], ws, sizeof ws);
        printf("  %-20s %s\n", p->names[k], ws);
    }
}

/* The bytes cairo writes, gathered in memory (the file is written whole at the end). */
typedef struct byte_sink {
    unsigned char* p;
    size_t len, cap;
} byte_sink;

static cairo_status_t sink_write(void* closure, const unsigned char* data, unsigned int n) {
    byte_sink* b = closure;
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) return CAIRO_STATUS_NO_MEMORY;
            cap *= 2;
        }
        unsigned char* q = realloc(b->p, cap);
        if (!q) return CAIRO_STATUS_NO_MEMORY;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return CAIRO_STATUS_SUCCESS;
}

typedef enum { OUT_PNG, OUT_SVG, OUT_PDF } out_format;

/* By the file's extension (any case): .svg, .pdf, else PNG. */
static out_format format_of(const char* path) {
    const char* dot = strrchr(path, '.');
    return !dot ? OUT_PNG : !strcasecmp(dot, ".svg") ? OUT_SVG : !strcasecmp(dot, ".pdf") ? OUT_PDF : OUT_PNG;
}

/* Draws the node and writes the picture (PNG, SVG or PDF by out's extension); 0 (exit status) on
 * success, 2 with a message otherwise (the file is then left as it was). */
static int render_and_write(plot_ctx* p, const char* out) {
    const out_format fmt = format_of(out);
    byte_sink bytes = {NULL, 0, 0};
    const double side = p->size; /* pixels; points in a PDF, pixels in an SVG */
    cairo_surface_t* surface = fmt == OUT_SVG   ? cairo_svg_surface_create_for_stream(sink_write, &bytes, side, side)
                               : fmt == OUT_PDF ? cairo_pdf_surface_create_for_stream(sink_write, &bytes, side, side)
                                                : cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->size, p->size);
    if (fmt == OUT_SVG) cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX);
    if (fmt == OUT_PDF) cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "blendsync plot");
    cairo_t* c = cairo_create(surface);
    int rc = 2, drawn = 0;
    if (cairo_status(c) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "blendsync plot: cannot make a %dx%d picture: %s\n", p->size, p->size,
                cairo_status_to_string(cairo_status(c)));
    } else {
        fill_rect(c, 0, 0, p->size, p->size, k_paper);
        font_setup(c, p->scale, fmt == OUT_PNG);
        drawn = (p->dims == 2 ? plot_2d(c, p) : plot_1d(c, p)) == 0;
    }
    cairo_status_t st = cairo_status(c);
    cairo_destroy(c);
    if (drawn && st == CAIRO_STATUS_SUCCESS)
        st = fmt == OUT_PNG ? cairo_surface_write_to_png_stream(surface, sink_write, &bytes)
                            : (cairo_surface_finish(surface), cairo_surface_status(surface));
    cairo_surface_destroy(surface);
    if (drawn && st != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "blendsync plot: %s: cannot draw the picture: %s\n", out, cairo_status_to_string(st));
    } else if (drawn) {
        bsync_result wr = bsync_file_write(out, bytes.p, bytes.len);
        if (wr != BSYNC_OK) {
            fprintf(stderr, "blendsync plot: %s: cannot write the image: %s\n", out,
                    wr == BSYNC_IO_ERROR ? strerror(errno) : bsync_result_string(wr));
        } else {
            printf("plot of node '%s' (%s, %u %s) written to %s (%dx%d)\n",
                   bsync_blend_tree_node_name(p->tree, p->node), bsync_blend_type_name(p->type), (unsigned)p->n,
                   p->n == 1 ? "child" : "children", out, p->size, p->size);
            print_report(p);
            rc = 0;
        }
    }
    free(bytes.p);
    return rc;
}

int bsync_cmd_plot(int argc, char** argv) {
    const char *config = NULL, *node_name = NULL, *out = NULL, *at_text = NULL;
    int size = PLOT_SIZE_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(k_usage, stdout);
            return 0;
        }
        int takes = !strcmp(a, "--node") || !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--size") ||
                    !strcmp(a, "--at");
        if (takes) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync plot: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--node")) node_name = v;
            else if (!strcmp(a, "--at")) at_text = v;
            else if (!strcmp(a, "--size")) {
                if (parse_size(v, &size) != 0) {
                    fprintf(stderr, "blendsync plot: --size needs a whole number from %d to %d, not '%s'\n", PLOT_SIZE_MIN,
                            PLOT_SIZE_MAX, v);
                    return 2;
                }
            } else out = v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "blendsync plot: unknown option '%s'\n%s", a, k_usage);
            return 2;
        } else if (!config) {
            config = a;
        } else {
            fprintf(stderr, "blendsync plot: one CONFIG only ('%s' and '%s')\n", config, a);
            return 2;
        }
    }
    if (!config || !out) {
        fprintf(stderr, "blendsync plot: %s\n%s", !config ? "CONFIG is missing" : "-o OUT.png is missing", k_usage);
        return 2;
    }

    bsync_blend_diagnostics* diags = calloc(BSYNC_MAX_BLEND_NODES, sizeof *diags);
    plot_ctx* p = calloc(1, sizeof *p);
    if (!diags || !p) {
        free(diags);
        free(p);
        fprintf(stderr, "blendsync plot: out of memory\n");
        return 2;
    }
    bsync_blend_tree* tree = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    int rc = 2;
    if (bsync_config_load(config, NULL, &tree, diags, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync plot: %s\n", err.message[0] ? err.message : bsync_result_string(err.code));
        goto done;
    }
    p->tree = tree;
    if (node_name) {
        if (bsync_blend_tree_find_node(tree, node_name, &p->node) != BSYNC_OK) {
            fprintf(stderr, "blendsync plot: %s has no node named '%s' (nodes:", config, node_name);
            for (uint32_t k = 0; k < bsync_blend_tree_node_count(tree); k++)
                fprintf(stderr, " %s", bsync_blend_tree_node_name(tree, k));
            fprintf(stderr, ")\n");
            goto done;
        }
    } else {
        p->node = bsync_blend_tree_root(tree);
    }
    p->space = bsync_blend_tree_node_space(tree, p->node);
    p->type = bsync_blend_space_type(p->space);
    const char* nn = bsync_blend_tree_node_name(tree, p->node);
    if (p->type == BSYNC_BLEND_DIRECT) {
        fprintf(stderr,
                "blendsync plot: node '%s' is a Direct node: its weights are its parameters themselves, so there is "
                "no blend space to draw (use `blendsync weights`)\n",
                nn);
        goto done;
    }
    p->dims = p->type == BSYNC_BLEND_SIMPLE_1D ? 1 : 2;
    p->n = bsync_blend_space_child_count(p->space);
    for (uint32_t k = 0; k < p->n; k++) {
        bsync_blend_child_ref ref = bsync_blend_tree_node_child(tree, p->node, k);
        p->names[k] = ref.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(tree, ref.index)
                                                   : bsync_blend_tree_motion_name(tree, ref.index);
        if (!p->names[k]) p->names[k] = "?";
        p->colours[k] = palette_colour(k);
    }
    print_warnings(tree, p->node, &diags[p->node], p->names);
    uint32_t pc = bsync_blend_tree_parameter_count(tree);
    p->params = calloc(pc ? pc : 1, sizeof *p->params);
    if (!p->params) {
        fprintf(stderr, "blendsync plot: out of memory\n");
        goto done;
    }
    for (uint32_t k = 0; k < pc; k++) p->params[k] = bsync_blend_tree_parameter_default(tree, k);
    for (uint32_t k = 0; k < p->dims; k++) p->slot[k] = bsync_blend_tree_node_param(tree, p->node, k);
    if (at_text) {
        if (parse_at(at_text, p->dims, p->at) != 0) {
            fprintf(stderr, "blendsync plot: --at needs %s for the %s node '%s', not '%s'\n",
                    p->dims == 2 ? "two numbers X,Y" : "one number X", bsync_blend_type_name(p->type), nn, at_text);
            goto done;
        }
        p->has_at = 1;
    }
    p->size = size;
    p->scale = size >= 600 ? 2 : 1;

    rc = render_and_write(p, out);

done:
    if (tree) bsync_blend_tree_destroy(tree);
    free(p->params);
    free(p);
    free(diags);
    return rc;
}
